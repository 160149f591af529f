"""Schemathesis against the API's own OpenAPI document, in process (WSGI): no answer may be a 500
or differ from what the schema promises."""

import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import checks

# The app itself, without inspector.wsgi's refusal to serve with the development key.
application = get_wsgi_application()

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", application)

CASE_ID = "review-second-largest"


@pytest.fixture
def served_bundle(example_bundle):
    # Like Django's test client: keep the request cycle from closing the test's open transaction.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield example_bundle[0]
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=int(os.getenv("API_FUZZ_EXAMPLES", "30")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_api_answers_within_its_schema_and_never_500(case, served_bundle):
    parameters = case.path_parameters or {}
    # Random ids only ever reach the 404 path; point most examples at a real bundle and case so
    # the generated settings exercise rendering and export.
    if "bundle_id" in parameters and len(parameters["bundle_id"]) % 3:
        parameters["bundle_id"] = served_bundle.pk
    if "case_id" in parameters and len(parameters["case_id"]) % 2:
        parameters["case_id"] = CASE_ID
    # Schema-valid is not the same as usable (an eval file can be well-formed JSON text and still
    # not be YAML), so a 4xx for valid-looking input is allowed; everything else is checked.
    excluded = [checks.positive_data_acceptance]
    if case.media_type == "multipart/form-data":
        # Every multipart value is text: "a number where a string belongs" cannot be told apart.
        excluded.append(checks.negative_data_rejection)
    case.call_and_validate(excluded_checks=excluded)
