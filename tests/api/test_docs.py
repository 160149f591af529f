import re

import pytest
from django.contrib.staticfiles import finders


def test_openapi_schema_lists_every_endpoint(client, db):
    schema = client.get("/api/openapi.json").json()
    assert set(schema["paths"]) == {
        "/api/bundles",
        "/api/bundles/{bundle_id}",
        "/api/bundles/{bundle_id}/cases",
        "/api/bundles/{bundle_id}/cases/{case_id}",
        "/api/bundles/{bundle_id}/cases/{case_id}/payload",
        "/api/bundles/{bundle_id}/batch",
        "/api/bundles/{bundle_id}/ledger",
        "/api/render",
        "/api/bundles/{bundle_id}/threads",
        "/api/bundles/{bundle_id}/threads/{thread_id}/comments",
        "/api/bundles/{bundle_id}/threads/{thread_id}/resolve",
        "/api/bundles/{bundle_id}/comments/{comment_id}",
        "/api/bundles/{bundle_id}/review-lock",
        "/api/bundles/{bundle_id}/verdicts",
        "/api/diff",
        "/api/diff/case",
        "/api/runs",
        "/api/runs/{bundle_id}",
        "/api/runs/check",
        "/api/runs/checks/{check_id}",
        "/api/uploads/{upload_id}",
    }
    create = schema["paths"]["/api/bundles"]["post"]
    assert set(create["requestBody"]["content"]) == {"multipart/form-data", "application/json"}
    assert {"201", "202", "400", "413", "422"} <= set(create["responses"])


def test_the_servers_own_answers_are_in_the_schema_of_every_operation(client, db):
    # gunicorn answers a request line over 4094 bytes with 414 before the app sees it.
    schema = client.get("/api/openapi.json").json()
    for operations in schema["paths"].values():
        for operation in operations.values():
            assert {"414", "431"} <= set(operation["responses"])


@pytest.mark.parametrize(
    "url, body",
    [
        ("/api/render", {"files": {}}),
        ("/api/render", {"content": ""}),
        ("/api/bundles", {"files": {}}),
        ("/api/bundles", {"files": {"e.yaml": ""}}),
    ],
)
def test_schema_valid_but_empty_bodies_get_an_answer_the_schema_lists(client, db, url, body):
    responses = client.get("/api/openapi.json").json()["paths"][url]["post"]["responses"]
    response = client.post(url, body, content_type="application/json")
    assert str(response.status_code) in responses, response.content


def test_a_manage_token_in_the_query_is_documented_as_deprecated(client, db):
    delete = client.get("/api/openapi.json").json()["paths"]["/api/bundles/{bundle_id}"]["delete"]
    parameters = {parameter["name"]: parameter for parameter in delete["parameters"]}
    assert parameters["token"]["deprecated"] is True
    assert not parameters["X-Manage-Token"].get("deprecated")
    assert "Deprecation" in delete["responses"]["204"]["headers"]


def test_docs_page_loads_its_assets_from_this_server_only(client, db):
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn" not in html.lower() and "https://" not in html
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(s.endswith("swagger-ui-bundle.js") for s in sources)
    for source in sources:
        assert source.startswith("/static/"), source
        assert client.get(source).status_code == 200, source


def test_docs_page_needs_no_inline_script_or_style_under_the_csp(client, db):
    response = client.get("/api/docs")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    html = response.content.decode()
    # The only inline <script> is the settings JSON, which browsers never execute.
    for attributes in re.findall(r"<script([^>]*)>", html):
        assert "src=" in attributes or 'type="application/json"' in attributes
    assert "<style" not in html and "style=" not in html
    assert finders.find("ninja/swagger-ui-init.js")
