"""Hypothesis strategies for files in agentv 5's schema (prompts filled from tests[].vars).

Used by the no-crash properties (tests/core/test_agentv5_generated.py) and to make the agentv 5
goldens (make_agentv5_goldens.py), so both see the same shapes.
"""

from __future__ import annotations

import yaml
from hypothesis import strategies as st

PROMPT_FILES = {
    "evals/prompts/one.md": b"From a file: {{ topic }}\n",
    "evals/snippet.py": b"def f(x):\n    return x * 2\n",
    "evals/notes.md": b"  Indented notes.\n\n",
}


def files_of(document: dict) -> dict[str, bytes]:
    """The bundle for a generated document; `_layout` says how its tests and defaults are split
    into files (inline, a cases file, a default_test file, a PROMPT.md beside the eval file)."""
    document = dict(document)
    layout = document.pop("_layout", {})
    files = dict(PROMPT_FILES)
    if layout.get("cases_file"):
        files["evals/cases.yaml"] = yaml.safe_dump(
            document["tests"], allow_unicode=True, sort_keys=False
        ).encode()
        document["tests"] = "cases.yaml"
    if layout.get("default_file") and "default_test" in document:
        files["evals/defaults.yaml"] = yaml.safe_dump(document["default_test"], sort_keys=False).encode()
        document["default_test"] = "file://defaults.yaml"
    if layout.get("prompt_md"):
        files["evals/PROMPT.md"] = b"Fallback prompt for {{ topic }}.\n"
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
    files["evals/suite.yaml"] = text.encode()
    return files


WORDS = st.sampled_from(
    ["alpha", "beta", "release notes", "ünïcode", "a\nb", "", "  padded  ", "{{ other }}", "50%", "x: y"]
)
TEMPLATES = st.sampled_from(
    [
        "Summarize {{ topic }}.",
        "{{ topic | upper }} and {{ count }}",
        "{{ input }}",
        "{% if flag %}yes {{ topic }}{% else %}no{% endif %}",
        "Items: {{ items | join(', ') }}",
        "{% for x in items %}{{ loop.index }}={{ x }};{% endfor %}",
        "plain text, no vars",
        "{{ missing }}!",
        "{{ vars.topic }} / {{ nested.key }}",
        "{{ topic ~ '-' ~ count }}",
        "line one\n\n  {{- topic -}}  \nlast line\n",
        "{{ count | default(0) | string }}|{{ nested | dump }}",
        "{{ topic | default('none', true) | capitalize }}",
        "key={{ env.GENERATED_KEY }};",
        "  leading and trailing  \n",
        "",
    ]
)
BLOCKS = st.sampled_from(
    [
        {"type": "text", "value": "Block text about {{ topic }}"},
        {"type": "file", "value": "snippet.py"},
        {"type": "file", "value": "/notes.md"},
        {"type": "file", "value": "missing.md"},
        "a bare string item",
        {"type": "image", "value": "x.png"},
    ]
)


@st.composite
def messages(draw: st.DrawFn) -> list[dict]:
    roles = draw(st.lists(st.sampled_from(["system", "user", "assistant"]), min_size=1, max_size=3))
    found = []
    for role in roles:
        if draw(st.integers(0, 3)) == 0:
            content = draw(st.lists(st.one_of(BLOCKS, TEMPLATES), min_size=1, max_size=3))
        else:
            content = draw(TEMPLATES)
        found.append({"role": role, "content": content})
    if draw(st.integers(0, 6)) == 0:
        found.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"q": "x"}'},
                    }
                ],
            }
        )
        found.append({"role": "tool", "tool_call_id": "call_1", "content": "result {{ topic }}"})
    return found


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
            entries.append(
                draw(
                    st.sampled_from(["file://prompts/one.md", {"file": "prompts/one.md", "id": "from-file"}])
                )
            )
        else:
            entries.append({"raw": draw(TEMPLATES)})
    return entries


@st.composite
def entries_of(draw: st.DrawFn, index: int) -> dict:
    entry: dict = {}
    if draw(st.integers(0, 9)):
        entry["id"] = draw(st.sampled_from([f"t{index}", f"t{index}", f"t{index}-{{{{ topic }}}}"]))
    variables: dict = {}
    if draw(st.booleans()):
        variables["topic"] = draw(WORDS)
    if draw(st.booleans()):
        variables["count"] = draw(
            st.one_of(st.integers(-3, 3), st.sampled_from([2.0, 1.5]), st.booleans(), st.none())
        )
    if draw(st.booleans()):
        variables["items"] = draw(st.lists(WORDS, max_size=2))
    if draw(st.integers(0, 3)) == 0:
        variables["input"] = draw(
            st.one_of(
                WORDS,
                messages(),
                st.just('[{"role": "system", "content": "From JSON"}, {"role": "user", "content": "hi"}]'),
            )
        )
    if draw(st.integers(0, 4)) == 0:
        variables["nested"] = {"key": draw(WORDS)}
    if draw(st.integers(0, 4)) == 0:
        variables["flag"] = draw(st.sampled_from([True, False, [], {}, 0, "0"]))
    if variables or draw(st.booleans()):
        entry["vars"] = variables
    if index and draw(st.integers(0, 5)) == 0:
        entry["depends_on"] = [f"t{index - 1}"]
    evaluation = draw(st.sampled_from(["criteria", "criteria", "assert", "assert", "none"]))
    if evaluation == "criteria":
        entry["criteria"] = "Mentions {{ topic }}"
    elif evaluation == "assert":
        entry["assert"] = [{"type": "contains", "value": "{{ topic }}"}]
    return entry


@st.composite
def suites(draw: st.DrawFn) -> dict:
    document: dict = {}
    layout = {
        "cases_file": draw(st.integers(0, 4)) == 0,
        "default_file": draw(st.integers(0, 3)) == 0,
        "prompt_md": draw(st.integers(0, 5)) == 0,
    }
    if not layout["prompt_md"] or draw(st.booleans()):
        document["prompts"] = draw(prompts())
    document["_layout"] = layout
    if draw(st.booleans()):
        document["default_test"] = {"vars": {"topic": "default topic", "other": "from default"}}
    if draw(st.integers(0, 4)) == 0:
        document["assert"] = [{"type": "contains", "value": "x"}]
    document["tests"] = [draw(entries_of(index)) for index in range(draw(st.integers(1, 3)))]
    return document
