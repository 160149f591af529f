"""The nesting guard reads YAML block scalars (`|`, `>`) as the text they are: brackets or dashes in
a prompt do not nest, so an honest file holding many is rendered, while real nesting past the limit
is still refused, wherever a block scalar stands or seems to stand."""

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import MAX_NESTING, LimitExceeded, check_nesting, check_yaml_nesting

DEEP = MAX_NESTING + 100
OPEN_BRACKETS = "".join(f"      score [{index} of the rubric\n" for index in range(DEEP))


def eval_file(indicator: str, body: str) -> str:
    return (
        "tests:\n  - id: first\n    input: "
        + indicator
        + "\n"
        + body
        + "    criteria: the answer names every score\n"
    )


@pytest.mark.parametrize("indicator", ["|", ">", "|-", ">+", "|2"])
def test_brackets_in_a_block_scalar_do_not_nest(indicator):
    text = eval_file(indicator, OPEN_BRACKETS)
    with pytest.raises(LimitExceeded):
        check_nesting(text)  # the bracket count alone: what used to refuse the file
    check_yaml_nesting(text)
    document = render_document(MemoryBundle({"e.yaml": text.encode()}), "e.yaml", RenderOptions())
    [case] = document.cases
    assert f"score [{DEEP - 1} of the rubric" in "".join(message.content for message in case.messages)


def test_a_long_line_of_dashes_in_a_block_scalar_is_text():
    text = eval_file("|", "      " + "- " * DEEP + "x\n")
    check_yaml_nesting(text)
    render_document(MemoryBundle({"e.yaml": text.encode()}), "e.yaml", RenderOptions())


HOSTILE = {
    # Deep flow nesting after a block scalar ends (a less indented key).
    "after-the-block": "a: |\n  [[[ text\nb: " + "[" * DEEP + "]" * DEEP + "\n",
    # Past the block's own indentation, in a sequence of the same parent.
    "sibling-entry": "- a: |\n    text [[[\n- " + "[" * DEEP + "]" * DEEP + "\n",
    # A `key: |` that is text inside a quoted scalar, followed by real nesting at its indentation.
    "indicator-in-a-quoted-scalar": '- - "\n z: |\n  "\n  - ' + "[" * DEEP + "]" * DEEP + "\n",
    # ... and in a comment.
    "indicator-in-a-comment": "a:  # b: |\n  - " + "[" * DEEP + "]" * DEEP + "\n",
    # Block collections opened on one line, after a block scalar.
    "dashes-after-the-block": "a: |\n  text\nb:\n  " + "- " * DEEP + "x\n",
    # Nesting the scanner cannot read is refused, whatever brackets are text.
    "unreadable": "a: |\n  " + "[" * DEEP + "\nb: @oops\n",
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_real_nesting_is_still_refused(case):
    with pytest.raises(LimitExceeded, match="nested more than"):
        check_yaml_nesting(HOSTILE[case], "e.yaml")


def test_the_refusal_names_the_line_where_the_nesting_passes_the_limit():
    text = "a: |\n  " + "[" * DEEP + "\nb:\n  c: " + "[" * DEEP + "]" * DEEP + "\n"
    with pytest.raises(LimitExceeded) as refused:
        check_yaml_nesting(text, "e.yaml")
    assert refused.value.diagnostic.line == 4
