"""A source line in words (core/lines.py), on a multi-turn agentv 4 suite: which lines the model
gets, which belong to another case, which keys agentv never sends and who reads them instead."""

import pytest

from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.documents import render_document
from inspector.core.lines import LineMap, key_path, merged
from inspector.core.options import RenderOptions
from tests.conftest import REPO

EXAMPLE = REPO / "tests" / "fixtures" / "multi-turn-support"
DOCUMENT = "evals/dataset.eval.yaml"


@pytest.fixture(scope="module")
def example():
    document = render_document(DirectoryBundle(EXAMPLE), DOCUMENT, RenderOptions())
    text = (EXAMPLE / DOCUMENT).read_text()
    return LineMap.of(document), text, [case.id for case in document.cases]


def line_of(text: str, content: str, after: int = 0) -> int:
    lines = text.splitlines()
    return next(n for n, line in enumerate(lines, 1) if n > after and line == content)


def test_keys_agentv_never_sends_say_who_reads_them(example):
    lines, text, ids = example
    criteria = line_of(text, "    criteria: |-")
    note = lines.explain(DOCUMENT, criteria + 1, text, ids[0])
    assert note.text == (
        f"Line {criteria + 1} is `criteria`: agentv does not send it to the model; graders read it."
    )
    expected = line_of(text, "    expected_output:")
    inside = lines.explain(DOCUMENT, expected + 2, text, ids[0])
    assert inside.text.startswith(
        f"Line {expected + 2} is `content` (under `expected_output`): agentv "
        "does not send it to the model; graders compare the answer with it"
    )
    assert "comment" in lines.explain(DOCUMENT, 1, text, ids[0]).text
    assert "`execution`" in lines.explain(DOCUMENT, line_of(text, "  target: llm"), text, ids[0]).text


def test_a_line_of_another_case_names_that_case(example):
    lines, text, ids = example
    second = line_of(text, f"  - id: {ids[1]}")
    note = lines.explain(DOCUMENT, second + 3, text, ids[0])
    assert note.jump_to == ids[1] and note.text == f"Line {second + 3} belongs to case {ids[1]}."
    # From the other case, the first case's lines are the first case's.
    assert lines.explain(DOCUMENT, second - 5, text, ids[1]).jump_to == ids[0]


def test_a_line_the_model_gets_is_sent_and_never_misnamed(example):
    lines, text, ids = example
    system = line_of(text, "      - role: system")
    note = lines.explain(DOCUMENT, system + 2, text, ids[0])
    assert note.text == f"Line {system + 2} is sent in this case's messages." and ids[0] in note.sent_by
    # Every line of the first case's messages is sent, none is called unsent.
    case = lines.cases[0]
    for path, start, end in case.sent:
        for number in range(start, end + 1):
            assert "does not send" not in lines.explain(path, number, text, ids[0]).text


def test_a_guideline_line_says_which_cases_send_it():
    files = MemoryBundle(
        {
            "evals/tiny.yaml": b"evalcases:\n  - id: uses\n    input_messages:\n      - role: user\n"
            b"        content:\n          - type: file\n            value: notes.instructions.md\n"
            b"  - id: plain\n    input_messages:\n      - role: user\n        content: Hi.\n",
            "evals/notes.instructions.md": b"# Notes\n\nBe kind.\n",
            ".agentv/config.yaml": b'guideline_patterns:\n  - "**/*.instructions.md"\n',
        }
    )
    lines = LineMap.of(render_document(files, "evals/tiny.yaml", RenderOptions()))
    note = lines.explain("evals/notes.instructions.md", 3, "# Notes\n\nBe kind.\n", "plain")
    assert (
        note.sent_by == ("uses",)
        and note.text == "Line 3: not in this case's messages; it is sent in case uses."
    )
    assert (
        lines.explain("evals/notes.instructions.md", 9, "# Notes\n", "plain").text
        == "The file has no line 9."
    )


@pytest.mark.parametrize(
    ("text", "line", "keys"),
    [
        ("a:\n  b: |\n    text\n  c: 1\n", 3, ["a", "b"]),
        ("tests:\n  - id: x\n    input:\n      - role: user\n", 4, ["tests", "input", "role"]),
        ('{\n  "rubrics": [\n    "kind"\n  ]\n}\n', 3, ["rubrics"]),
        ("[samples.one]\nexpected = 1\n", 2, ["samples.one", "expected"]),
        ("[samples.one]\n", 1, ["samples.one"]),
    ],
)
def test_a_line_s_keys_are_read_by_indentation(text, line, keys):
    assert key_path(text.splitlines(), line) == keys


def test_ranges_merge_where_they_touch_and_keep_files_apart():
    assert merged([("a", 5, 6), ("a", 1, 3), ("a", 4, 4), ("b", 2, 2), ("a", 9, 9)]) == (
        ("a", 1, 6),
        ("a", 9, 9),
        ("b", 2, 2),
    )
