"""Hostile nesting and aliases in every input family: a clear InputError, never a crash or a hang.

libyaml overflows the C stack (killing the process) on flow collections nested tens of thousands
deep, so these run the parse in a child process: a crash there fails the test instead of the suite.
"""

import subprocess
import sys

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import list_documents, render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions

DEEP = 50_000
BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{chr(98 + level)}: &{chr(98 + level)} [{', '.join(['*' + chr(97 + level)] * 10)}]\n"
        for level in range(8)
    )
    + "messages:\n  - role: user\n    content: hi\n  - {role: user, content: *i}\n"
)

HOSTILE = {
    "flow-yaml": ("e.yaml", "tests: " + "[" * DEEP + "]" * DEEP),
    "flow-json": ("request.json", '{"messages": ' + "[" * DEEP + "]" * DEEP + "}"),
    "toml": ("deck.toml", "a = " + "[" * 3000 + "]" * 3000 + "\n"),
    "alias-bomb-conversation": ("request.yaml", BOMB),
}


def render_in_child(name: str, text: str, input_format: str) -> subprocess.CompletedProcess:
    script = (
        "import sys\n"
        "from inspector.core.bundle import MemoryBundle\n"
        "from inspector.core.documents import render_document\n"
        "from inspector.core.model import InputError\n"
        "from inspector.core.options import RenderOptions\n"
        "text = sys.stdin.read()\n"
        "try:\n"
        f"    render_document(MemoryBundle({{{name!r}: text.encode()}}), {name!r},\n"
        f"                    RenderOptions(input_format={input_format!r}))\n"
        "except InputError as error:\n"
        "    print('InputError:', error)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], input=text, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("input_format", ["auto", "agentv", "openai-chat"])
def test_hostile_nesting_is_a_clear_error_not_a_crash(case, input_format):
    name, text = HOSTILE[case]
    result = render_in_child(name, text, input_format)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("InputError:"), result.stdout + result.stderr[-2000:]


def test_listing_documents_survives_hostile_json():
    name, text = HOSTILE["flow-json"]
    bundle = MemoryBundle({name: text.encode(), "ok.yaml": b"tests:\n  - id: a\n    input: hi\n"})
    assert list_documents(bundle) == ["ok.yaml"]


def test_an_honest_alias_in_a_request_still_renders():
    text = (
        "system_text: &s Be brief.\nmessages:\n  - role: system\n    content: *s\n"
        "  - role: user\n    content: hi\n"
    )
    document = render_document(
        MemoryBundle({"request.yaml": text.encode()}),
        "request.yaml",
        RenderOptions(input_format="openai-chat"),
    )
    assert [m.content for m in document.cases[0].messages] == ["Be brief.", "hi"]


def test_a_deeply_nested_toml_deck_names_the_limit():
    name, text = HOSTILE["toml"]
    with pytest.raises(InputError, match="nested more than"):
        render_document(MemoryBundle({name: text.encode()}), name)
