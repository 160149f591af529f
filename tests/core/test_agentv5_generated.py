"""Generated agentv 5 files: every one renders or names its problem, with agentv's expansion rules.

Hypothesis writes files in agentv 5's schema (prompts of every form, default_test vars, tests with
scalar, list and message vars, templates with filters and control flow, file prompts). For each:
no internal error; one case per test, prompt and list-var value, with agentv's ids; every message's
segments add up to its text and point inside the bundle; every case exports.
"""

from __future__ import annotations

import json
import math
import re

import yaml
from hypothesis import HealthCheck, given, settings

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.export import PROVIDERS, export_case
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.serialize import case_contract
from tests.oracle.generate_v5 import files_of, suites

# The files each glob of generate_v5.JSON_AND_GLOB_REFERENCES names (fast-glob, checked by the goldens)
GLOBBED = {
    "file://parts/*.{yaml,json}": ("part-1.yaml", "part-2.json"),
    "parts/*": ("part-1.yaml", "part-2.json"),
    "file://parts/*": ("part-1.yaml", "part-2.json"),
    "parts/p?rt-*.json": ("part-2.json",),
    "file://parts/**/*.yaml": ("deep/part-3.yaml", "part-1.yaml"),
    "file://parts/none-*.json": (),
    "parts/none-*.json": (),
}


def cases_in_files(files: dict[str, bytes]) -> list[dict] | None:
    """The tests a JSON cases file or the globbed files hold, when `tests` names them."""
    if "evals/cases.json" in files:
        loaded = json.loads(files["evals/cases.json"])
        return loaded["tests"] if isinstance(loaded, dict) else loaded
    if "evals/parts/part-1.yaml" not in files:
        return None
    tests = yaml.safe_load(files["evals/suite.yaml"])["tests"]
    reference = tests if isinstance(tests, str) else tests[0]
    found: list[dict] = []
    for name in GLOBBED[reference]:
        loaded = yaml.safe_load(files.get(f"evals/parts/{name}", b"[]"))  # JSON is YAML
        found += loaded["tests"] if isinstance(loaded, dict) else loaded or []
    return found


def expected_count(document: dict) -> int:
    """One test per prompt and per combination of list-of-strings vars (expandArrayVarCases);
    a CSV file's rows (its blank lines are not rows) and each scenario's rows times its tests;
    the tests of JSON and globbed files where `tests` names them."""
    default_vars = (document.get("default_test") or {}).get("vars", {})
    prompts = len(document.get("prompts") or [None])
    csv = document.get("_csv")
    inline = [] if csv is not None and csv["entry"] == "tests" else document.get("tests", [])
    in_files = cases_in_files(files_of(document))
    inline = inline if in_files is None else in_files
    entries = [(entry.get("vars"), entry) for entry in inline]
    for scenario in document.get("scenarios", []):
        entries += [
            ({**row.get("vars", {}), **test.get("vars", {})}, test)
            for row in scenario["config"]
            for test in scenario["tests"]
        ]
    total = sum(prompts * _combinations(default_vars, own, entry) for own, entry in entries)
    if csv is not None:
        total += prompts * sum(1 for row in csv["rows"] if ",".join(row))
    return total


def _combinations(default_vars: dict, own: dict | None, entry: dict) -> int:
    variables = {**default_vars, **(own or {})} if own is not None or default_vars else {}
    return math.prod(
        len(value)
        for value in variables.values()
        if isinstance(value, list) and (not value or isinstance(value[0], str))
    )


def safe_id(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", value.strip()).strip("-")[:48]


@settings(
    max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(document=suites())
def test_generated_agentv_5_files_render_with_agentvs_expansion(document):
    files = files_of(document)
    text = files["evals/suite.yaml"].decode()
    bundle = MemoryBundle(files)
    try:
        rendered = render_document(bundle, "evals/suite.yaml", RenderOptions(profile="agentv-5"))
    except InputError as error:
        assert error.diagnostic.path, error
        return
    assert rendered.profile == "agentv-5" or "prompts" not in document
    assert len(rendered.cases) == expected_count(document), text
    several = len(document.get("prompts", [])) > 1
    for case in rendered.cases:
        if several and not case.id.startswith("#"):
            assert "__prompt_" in case.id, (case.id, text)
        for message in case.messages:
            assert "".join(segment.text for segment in message.segments) == message.content
            for segment in message.segments:
                origin = segment.origin
                if origin.path is not None and origin.start_line is not None:
                    lines = (bundle.read(origin.path) or b"").count(b"\n") + 1
                    assert 1 <= origin.start_line <= origin.end_line <= lines, (origin, text)
        json.dumps(case_contract(case))
        for provider in PROVIDERS:
            json.dumps(export_case(case, provider).as_contract(case.id))
    expanded = [case.id for case in rendered.cases if "__prompt_" in case.id]
    prompt_ids = {
        safe_id(str(entry["id"]))
        for entry in document.get("prompts", [])
        if isinstance(entry, dict) and entry.get("id") and safe_id(str(entry["id"]))
    }
    for prompt_id in prompt_ids if expanded else ():
        assert any(case_id.endswith(f"__prompt_{prompt_id}") for case_id in expanded), text
