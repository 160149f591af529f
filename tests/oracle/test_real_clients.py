"""Every exported program runs with the real clients: for each provider, all cases of our examples
and test bundles and, with PI_CORPUS, of the corpus (plus the hand-built conversations and raw requests with images and files) go into one Python program (the
SDKs in .venv), one TypeScript program (the SDKs pinned in tests/oracle/package-lock.json) and one
curl script, each run against a recording server on 127.0.0.1. The body each client sends is the
JSON export, the API version asked for is the same in every form, and no run may print a
deprecation warning."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.export import PROVIDERS, ExportSettings, export_case, render_codes
from inspector.core.formats import render_conversation_file
from inspector.core.model import RenderedCase

from ..core.export_samples import sample_conversations
from ..core.test_export_sdk_validation import CORPUS_SNAPSHOTS, OWN_FOLDERS, snapshot_cases
from ..core.test_media import SOURCES
from ..recording import RecordingServer
from . import clients

RUNNERS = {"python": clients.run_python, "typescript": clients.run_typescript, "curl": clients.run_curl}
CHECKED = ("openai-chat", "openai-responses", "anthropic", "gemini")
SETTINGS = ExportSettings(system_prompt="Request-level system prompt.", max_tokens=256)
DEPRECATION = re.compile(r"deprecat", re.IGNORECASE)
# google-genai's own renaming of a REST body: snake_case keys where the body says camelCase, and an
# empty generationConfig. Values under these keys are the user's (schemas, arguments): left alone.
OPAQUE = {"parametersJsonSchema", "responseJsonSchema", "args", "response", "parameters"}


@cache
def cases() -> tuple[RenderedCase, ...]:
    found: list[RenderedCase] = []
    for folder in OWN_FOLDERS + CORPUS_SNAPSHOTS:
        found.extend(snapshot_cases(folder)[0])
    found.extend(sample_conversations())
    for name, body in SOURCES.items():
        bundle = MemoryBundle({f"{name}.json": json.dumps(body).encode()})
        found.extend(render_conversation_file(bundle, f"{name}.json", "auto").cases)
    return tuple(found)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def as_rest(value: Any, opaque: bool = False) -> Any:
    if isinstance(value, dict):
        renamed = {}
        for key, item in value.items():
            name = key if opaque else _camel(key)
            renamed[name] = as_rest(item, opaque or name in OPAQUE)
        if not opaque and renamed.get("generationConfig") == {}:
            del renamed["generationConfig"]
        return renamed
    if isinstance(value, list):
        return [as_rest(item, opaque) for item in value]
    return value


@pytest.fixture(scope="module")
def server():
    with RecordingServer() as running:
        yield running


# Providers whose clients are run by a module of their own: Bedrock signs its requests and its
# JavaScript client speaks HTTP/2 only (boto3, the AWS CLI and the JS SDK, every case).
CHECKED_ELSEWHERE = {"bedrock-converse": "tests/core/test_bedrock_converse_clients.py"}


def test_every_provider_has_a_real_client_check():
    root = Path(__file__).resolve().parents[2]
    assert all((root / module).is_file() for module in CHECKED_ELSEWHERE.values())
    covered = set(CHECKED) | set(CHECKED_ELSEWHERE)
    assert set(PROVIDERS) <= covered, (
        f"no real-client check for {sorted(set(PROVIDERS) - covered)}: add its runner"
    )


@pytest.mark.corpus("the real projects' cases are in the corpus")
def test_the_check_covers_the_corpus():
    assert len(cases()) > 150


@pytest.mark.parametrize("form", RUNNERS)
@pytest.mark.parametrize("provider", CHECKED)
def test_each_client_sends_the_json_export_without_deprecation_warnings(provider, form, server):
    if form == "typescript" and not clients.node_available():
        pytest.fail("node and tests/oracle/node_modules are needed: run .ci/setup --test")
    results = [export_case(case, provider, SETTINGS) for case in cases()]
    if provider == "gemini" and form != "curl":
        # google-genai refuses to send a request without contents; the export says so itself.
        empty = [result for result in results if not result.payload["contents"]]
        assert all(any("no contents" in lint.message for lint in result.lints) for result in empty)
        results = [result for result in results if result.payload["contents"]]
    run = RUNNERS[form](render_codes(results, form), server.url)
    assert run.returncode == 0, run.stderr[-3000:]
    if form != "curl":  # curl's stderr is its progress meter
        assert not DEPRECATION.search(run.stderr + run.stdout), run.stderr[-3000:]
    sent = server.take()
    assert len(sent) == len(results)
    bodies = [as_rest(request.body) if provider == "gemini" else request.body for request in sent]
    for result, body in zip(results, bodies, strict=True):
        assert body == result.payload, result.case_id


@pytest.mark.parametrize("provider", CHECKED)
def test_every_form_asks_for_the_same_api_version(provider, server):
    case = sample_conversations()[0]
    seen = set()
    for form, runner in RUNNERS.items():
        if form == "typescript" and not clients.node_available():
            continue
        run = runner(render_codes([export_case(case, provider)], form), server.url)
        assert run.returncode == 0, run.stderr[-3000:]
        [request] = server.take()
        seen.add((request.path, request.headers.get("anthropic-version")))
    assert len(seen) == 1, seen
