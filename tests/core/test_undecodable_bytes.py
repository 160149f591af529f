"""A file with bytes that are not UTF-8 is read with U+FFFD in their place, and every case it
makes says so, at the line of the first such byte: the page, the API and the CLI's JSON show a
case's warnings, not only the document's."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.options import RenderOptions

AGENTV = b"tests:\n  - id: one\n    criteria: ok\n    input: caf\xe9\n  - id: two\n    criteria: ok\n    input: fine\n"
# agentv 5's own schema: prompts filled from each test's vars.
AGENTV5 = (
    b"prompts:\n  - '{{ q }}'\ntests:\n  - id: one\n    criteria: ok\n    vars:\n      q: caf\xe9\n"
    b"  - id: two\n    criteria: ok\n    vars:\n      q: fine\n"
)
NOTE = "is not valid UTF-8"


def _notes(case) -> list[tuple[str | None, int | None]]:
    return [(w.path, w.line) for w in case.warnings if NOTE in w.message]


@pytest.mark.parametrize("profile", ["auto", "spec", "agentv-0.10", "agentv-3.8", "agentv-4", "agentv-5"])
def test_every_case_of_an_eval_file_names_the_undecodable_byte(profile):
    bundle = MemoryBundle({"evals/e.yaml": AGENTV5 if profile == "agentv-5" else AGENTV})
    document = render_document(bundle, "evals/e.yaml", RenderOptions(profile=profile))
    assert [case.id for case in document.cases] == ["one", "two"]
    for case in document.cases:
        assert _notes(case) == [("evals/e.yaml", 4 if profile != "agentv-5" else 7)], case.warnings
    assert not any(NOTE in w.message for w in document.warnings)  # said once, on the cases
    assert document.cases[0].sent_messages[-1].content.endswith("caf\ufffd")


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("req.json", b'{"model": "gpt-4o", "messages": [\n{"role": "user", "content": "caf\xe9"}]}'),
        (
            "deck/PROMPT.md",
            b'+++\nlabel = "d"\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nSay caf\xe9.\n',
        ),
        (
            "promptfooconfig.yaml",
            b"prompts:\n  - 'Say {{word}}'\nproviders:\n  - openai:chat:gpt-4o\n"
            b"tests:\n  - vars:\n      word: caf\xe9\n",
        ),
    ],
)
def test_the_other_formats_name_it_on_their_cases_too(path, data):
    document = render_document(MemoryBundle({path: data}), path, RenderOptions())
    assert document.cases
    line = data.count(b"\n", 0, data.index(b"\xe9")) + 1
    for case in document.cases:
        assert _notes(case) == [(path, line)], case.warnings


@pytest.mark.parametrize("profile", ["spec", "agentv-3.8", "agentv-4", "agentv-5"])
def test_a_cases_file_with_an_undecodable_byte_is_named_on_its_cases(profile):
    if profile == "agentv-5":
        suite, cases = (
            b"prompts:\n  - '{{ q }}'\ntests: cases.yaml\n",
            b"- id: one\n  criteria: ok\n  vars:\n    q: caf\xe9\n",
        )
        line = 4
    else:
        suite, cases = b"tests: cases.yaml\n", b"- id: one\n  criteria: ok\n  input: caf\xe9\n"
        line = 3
    bundle = MemoryBundle({"evals/e.yaml": suite, "evals/cases.yaml": cases})
    document = render_document(bundle, "evals/e.yaml", RenderOptions(profile=profile))
    [case] = document.cases
    assert _notes(case) == [("evals/cases.yaml", line)], case.warnings
    assert not any(NOTE in w.message for w in document.warnings)


def test_the_cli_json_carries_it_in_the_cases_warnings(tmp_path):
    from inspector.cli import main

    (tmp_path / "e.yaml").write_bytes(AGENTV)
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(["render", str(tmp_path / "e.yaml"), "--root", str(tmp_path)])
    assert code in (0, None)
    cases = json.loads(stdout.getvalue())
    for case in cases:
        [warning] = [w for w in case["warnings"] if NOTE in w["message"]]
        assert (warning["path"], warning["line"]) == ("e.yaml", 4)
