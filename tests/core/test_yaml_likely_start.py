"""An unclosed quote is noticed lines later, where the next quote ends the string: the error names
the line the string opened on too (issue 30, friction 6), in the CLI, the API and the page alike.

agentv's own YAML reader (the agentv 4 and 5 profiles) ends a quoted string at the first line
indented too little, so there the error is at the open quote already; the classic reader (PyYAML,
`spec`) notices it where libyaml does, and names the likely start."""

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions

# Line 3 opens a quote that the quote on line 7 closes; libyaml complains at 7:13.
SWALLOWED = (
    'tests:\n  - id: a\n    input: "unclosed\n    criteria: ok\n  - id: b\n    criteria: ok\n'
    '    input: "closed one" and more\n  - id: c\n    input: fine\n'
)
# The quote is never closed: libyaml reaches the end of the file.
NEVER_CLOSED = 'tests:\n  - id: a\n    criteria: ok\n    input: "open\n  - id: b\n    input: x\n'


def refusal(text: str, profile: str = "spec") -> InputError:
    bundle = MemoryBundle({"evals/suite.yaml": text.encode()})
    with pytest.raises(InputError) as caught:
        render_document(bundle, "evals/suite.yaml", RenderOptions(profile=profile))
    return caught.value


def test_agentvs_reader_refuses_at_the_open_quote_itself():
    found = refusal(SWALLOWED, "auto").diagnostic
    assert (found.line, found.likely_start) == (3, None)
    assert found.message.startswith('invalid YAML: Missing closing "quote')


def test_a_quote_closed_lines_later_names_where_it_opened():
    found = refusal(SWALLOWED).diagnostic
    assert (found.line, found.column, found.likely_start) == (7, 13, 3)
    assert found.message.endswith("likely start: line 3, where a quoted string opens and runs on to here")


def test_a_quote_never_closed_gives_its_line_as_the_likely_start_once():
    found = refusal(NEVER_CLOSED).diagnostic
    assert found.likely_start == 4
    assert "started on line 4" in found.message and "likely start" not in found.message


def test_a_mistake_on_the_reported_line_names_no_other_start():
    found = refusal("tests:\n  - id: a\n    input: [open\n").diagnostic
    assert found.likely_start is None and "likely start" not in found.message


def test_the_api_gives_the_likely_start_beside_the_line(client, db):
    response = client.post(
        "/api/render",
        {"content": SWALLOWED, "filename": "evals/suite.yaml", "profile": "spec"},
        content_type="application/json",
    )
    assert response.status_code == 422
    answer = response.json()
    assert (answer["line"], answer["likely_start_line"]) == (7, 3)
    assert "likely start: line 3" in answer["detail"]


def test_check_prints_the_likely_start_in_its_line(tmp_path):
    import io

    from inspector.cli.commands import main
    from inspector.cli.console import Output

    (tmp_path / ".git").mkdir()
    (tmp_path / "suite.yaml").write_text(SWALLOWED)
    printed = io.StringIO()
    assert (
        main("check", ["--profile", "spec", str(tmp_path / "suite.yaml")], Output(printed, io.StringIO()))
        == 1
    )
    assert ":7:13: error: invalid YAML" in printed.getvalue()
    assert "likely start: line 3" in printed.getvalue()
