"""Fuzz every parser on uploaded text (eval YAML, agentv config, JSON and YAML requests, JSONL,
TOML decks, deck Markdown) with text built from their structural tokens: the answer is a render or
an InputError, never another exception, a crash or a runaway. Fixed seed (derandomize), so CI is
repeatable; each render runs in the bounded worker, so a crash fails the test, not pytest."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core import bounded
from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.safe_parse import LimitExceeded

YAML_TOKENS = [
    "- ",
    "? ",
    ": ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "\n",
    "  ",
    "&a ",
    "*a",
    "<<: ",
    "!!str ",
    "|\n",
    ">-\n",
    '"',
    "'",
    "#",
    "tests",
    "id",
    "input",
    "role",
    "content",
    "user",
    "type: file",
    "value",
    "x",
    "0",
    "~",
    "messages",
    "evalcases",
    "input_messages",
]
JSON_TOKENS = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"messages"',
    '"role"',
    '"user"',
    '"content"',
    '"x"',
    "1",
    "null",
    "true",
    '"input"',
    '"id"',
    "\n",
]
TOML_TOKENS = [
    "[",
    "]",
    "[[",
    "]]",
    "=",
    ".",
    "a",
    '"b"',
    "'c'",
    "\n",
    "{",
    "}",
    ", ",
    "1",
    '"""',
    "samples",
    "messages",
    "role",
    "content",
    "user",
    "true",
    " ",
]
MARKDOWN_TOKENS = [
    "# ",
    "![",
    "](",
    ")",
    "d.toml",
    "#s",
    "x.md",
    "\n",
    "+++",
    "---",
    "[",
    "]",
    "text",
    "{{",
    "}}",
    " #",
    "![](d.toml#samples.s)",
    "![](a.md#s)",
    *(f"![](./{name}.md)" for name in "abcdefgh"),
]
# The deck's text is also each of the files it can embed (a.md ... h.md), so embeds multiply as
# they would in an embed bomb.
EMBEDDED = [f"{name}.md" for name in "abcdefgh"]

PARSERS = {
    "eval-yaml": ("evals/e.yaml", YAML_TOKENS, {}),
    "agentv-config": ("evals/e.yaml", YAML_TOKENS, "config"),
    "request-json": ("request.json", JSON_TOKENS, {}),
    "request-yaml": ("request.yaml", YAML_TOKENS + ['"model"', "model: m\n"], {}),
    "jsonl": ("evals/e.jsonl", JSON_TOKENS, {}),
    "toml-deck": ("d.toml", TOML_TOKENS, {}),
    "deck-markdown": ("g.deck.md", MARKDOWN_TOKENS, "embeds"),
}
DECK_SAMPLES = b'[samples.s]\nmessages = [{role = "user", content = "hi"}]\n'

POOL = bounded.Pool(bounded.Limits(memory_bytes=1024**3, cpu_seconds=10, deadline_seconds=30, workers=1))


def _outcome(files: dict, path: str) -> str:
    try:
        render_document(MemoryBundle(files), path)
    except InputError:
        return "refused"
    return "rendered"


def render_safely(files: dict, path: str) -> str:
    try:
        return POOL.call(_outcome, files, path, path=path)
    except LimitExceeded as error:
        message = str(error)
        assert "crashed" not in message and "CPU time" not in message and "longer than" not in message, (
            message
        )
        return "limit"


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_no_text_makes_a_parser_fail_other_than_with_an_input_error(parser):
    path, tokens, extra = PARSERS[parser]

    @settings(
        max_examples=60,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(st.sampled_from(tokens), max_size=80), st.integers(0, 3))
    def check(pieces, repeat):
        text = "".join(pieces) * (1 + repeat)
        if extra == "config":
            files = {path: b"tests:\n  - id: a\n    input: hi\n", ".agentv/config.yaml": text.encode()}
        elif extra == "embeds":
            files = {
                path: text.encode(),
                "d.toml": DECK_SAMPLES,
                **{name: text.encode() for name in EMBEDDED},
            }
        else:
            files = {path: text.encode(), **extra}
        outcomes = ("rendered", "refused", "limit")
        if extra == "embeds":
            outcomes = ("rendered", "refused")  # deck Markdown's guards leave nothing to the limits
        assert render_safely(files, path) in outcomes

    check()


def test_hostile_shapes_are_refused_by_every_parser_family():
    from tests.hostile import shapes

    for shape in shapes().values():
        files = {name: text.encode() for name, text in shape.files.items()}
        assert render_safely(files, shape.path) == "refused"
