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
from hypothesis import strategies as st

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.export import PROVIDERS, export_case
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.serialize import case_contract

WORDS = st.sampled_from(["alpha", "beta", "release notes", "ünïcode", "a\nb", "", "  padded  ",
                         "{{ other }}", "50%", "x: y"])
TEMPLATES = st.sampled_from([
    "Summarize {{ topic }}.", "{{ topic | upper }} and {{ count }}", "{{ input }}",
    "{% if flag %}yes {{ topic }}{% else %}no{% endif %}", "Items: {{ items | join(', ') }}",
    "{% for x in items %}{{ loop.index }}={{ x }};{% endfor %}", "plain text, no vars",
    "{{ missing }}!", "{{ vars.topic }} / {{ nested.key }}", "{{ topic ~ '-' ~ count }}",
])


@st.composite
def messages(draw: st.DrawFn) -> list[dict]:
    roles = draw(st.lists(st.sampled_from(["system", "user", "assistant"]), min_size=1,
                          max_size=3))
    return [{"role": role, "content": draw(TEMPLATES)} for role in roles]


@st.composite
def prompts(draw: st.DrawFn) -> list:
    entries = []
    for index in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["string", "chat", "object", "messages", "file", "raw"]))
        if kind == "string":
            entries.append(draw(TEMPLATES))
        elif kind == "chat":
            entries.append(draw(messages()))
        elif kind == "object":
            entries.append({"id": f"p{index}", "prompt": draw(TEMPLATES)})
        elif kind == "messages":
            entries.append({"id": f"m {index}!", "messages": draw(messages())})
        elif kind == "file":
            entries.append(draw(st.sampled_from(["file://prompts/one.md",
                                                 {"file": "prompts/one.md", "id": "from-file"}])))
        else:
            entries.append({"raw": draw(TEMPLATES)})
    return entries


@st.composite
def entries_of(draw: st.DrawFn, index: int) -> dict:
    entry: dict = {}
    if draw(st.integers(0, 9)):
        entry["id"] = draw(st.sampled_from([f"t{index}", f"t{index}-{{{{ topic }}}}"]))
    variables: dict = {}
    if draw(st.booleans()):
        variables["topic"] = draw(WORDS)
    if draw(st.booleans()):
        variables["count"] = draw(st.one_of(st.integers(-3, 3), st.sampled_from([2.0, 1.5]),
                                            st.booleans(), st.none()))
    if draw(st.booleans()):
        variables["items"] = draw(st.lists(WORDS, max_size=2))
    if draw(st.integers(0, 3)) == 0:
        variables["input"] = draw(st.one_of(WORDS, messages()))
    if draw(st.integers(0, 4)) == 0:
        variables["nested"] = {"key": draw(WORDS)}
    if draw(st.integers(0, 4)) == 0:
        variables["flag"] = draw(st.sampled_from([True, False, [], {}, 0, "0"]))
    if variables or draw(st.booleans()):
        entry["vars"] = variables
    evaluation = draw(st.sampled_from(["criteria", "assert", "none"]))
    if evaluation == "criteria":
        entry["criteria"] = "Mentions {{ topic }}"
    elif evaluation == "assert":
        entry["assert"] = [{"type": "contains", "value": "{{ topic }}"}]
    return entry


@st.composite
def suites(draw: st.DrawFn) -> dict:
    document: dict = {"prompts": draw(prompts())}
    if draw(st.booleans()):
        document["default_test"] = {"vars": {"topic": "default topic", "other": "from default"}}
    if draw(st.integers(0, 4)) == 0:
        document["assert"] = [{"type": "contains", "value": "x"}]
    document["tests"] = [draw(entries_of(index)) for index in range(draw(st.integers(1, 3)))]
    return document


def expected_count(document: dict) -> int:
    """One test per prompt and per combination of list-of-strings vars (expandArrayVarCases)."""
    default_vars = (document.get("default_test") or {}).get("vars", {})
    total = 0
    for entry in document["tests"]:
        variables = {**default_vars, **entry.get("vars", {})} if "vars" in entry or default_vars \
            else {}
        combinations = math.prod(len(value) for value in variables.values()
                                 if isinstance(value, list)
                                 and (not value or isinstance(value[0], str)))
        total += len(document["prompts"]) * combinations
    return total


def safe_id(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", value.strip()).strip("-")[:48]


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(document=suites())
def test_generated_agentv_5_files_render_with_agentvs_expansion(document):
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
    bundle = MemoryBundle({"evals/suite.yaml": text.encode(),
                           "evals/prompts/one.md": b"From a file: {{ topic }}\n"})
    try:
        rendered = render_document(bundle, "evals/suite.yaml", RenderOptions())
    except InputError as error:
        assert error.diagnostic.path, error
        return
    assert rendered.profile == "agentv-5"
    assert len(rendered.cases) == expected_count(document), text
    several = len(document["prompts"]) > 1
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
    prompt_ids = {safe_id(str(entry["id"])) for entry in document["prompts"]
                  if isinstance(entry, dict) and entry.get("id") and safe_id(str(entry["id"]))}
    for prompt_id in prompt_ids if expanded else ():
        assert any(case_id.endswith(f"__prompt_{prompt_id}") for case_id in expanded), text
