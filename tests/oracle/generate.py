"""Hypothesis strategies for agentv eval suites, written out as the YAML real authors write.

A drawn `Suite` is a small folder: the eval file (YAML or JSONL, sometimes with its cases in another
file), the files it references, and sometimes a sidecar. The structure covers the keys agentv
4.42.4's loader reads (suite-level `input` and `input_files`, `tests` inline, as a path or as
`file://` entries, `vars` templating, `${{ ENV }}`, shorthands, blocks of every type, multi-turn
with tools, conversation `turns`, graders that stop a file); the YAML text varies everything a
parser must agree on (quoting and block-scalar styles with every chomping indicator, implicit types,
anchors, aliases and merge keys, comments, quoted keys, CRLF, a BOM).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

# ---- the YAML emitter -------------------------------------------------------------------------


@dataclass(frozen=True)
class Plain:
    """A scalar written unquoted, so YAML decides its type (`yes`, `1.0`, `2024-01-01`, `~`)."""

    text: str


@dataclass(frozen=True)
class Styled:
    """A string with the style to write it in."""

    text: str
    style: str  # double, single, plain, literal, literal-strip, literal-keep, folded, folded-strip


@dataclass(frozen=True)
class Anchor:
    name: str
    value: Any


@dataclass(frozen=True)
class Alias:
    name: str


MERGE = "<<"
_SAFE_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9 .,!?()/-]*[A-Za-z0-9.!?)]$|^[A-Za-z]$")
_CORE_SPECIAL = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|"
    r"OFF|y|Y|n|N|[-+]?[0-9][0-9_:.eE+-]*|0o[0-7]+|0x[0-9a-fA-F]+|\.inf|\.nan|[0-9]{4}-.*)$"
)


def _printable(text: str) -> bool:
    for char in text:
        code = ord(char)
        if char in "\t\n":
            continue
        if code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F or code in (0xFEFF, 0x2028, 0x2029):
            return False
        if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
            return False
    return True


def double_quoted(text: str) -> str:
    out = []
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F or code in (0xFEFF, 0x2028, 0x2029):
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def allowed_styles(text: str) -> list[str]:
    styles = ["double"]
    if not _printable(text):
        return styles
    if "\n" not in text and "\t" not in text:
        styles.append("single")
        if (
            _SAFE_PLAIN.match(text)
            and ": " not in text
            and " #" not in text
            and not _CORE_SPECIAL.match(text)
        ):
            styles.append("plain")
    lines = text.split("\n")
    body_ok = text and not text.startswith("\n") and "\r" not in text and "\t" not in text
    if body_ok and not lines[0].startswith(" ") and all(line.strip() or not line for line in lines):
        if not text.endswith("\n"):
            styles.append("literal-strip")
            if "\n" not in text and " " in text and "  " not in text and not text.endswith(" "):
                styles += ["folded-strip", "folded"]
        elif not text.endswith("\n\n"):
            styles.append("literal")
        if text.endswith("\n"):
            styles.append("literal-keep")
    return styles


def _block_scalar(text: str, style: str, indent: str) -> str:
    if style.startswith("folded"):
        # Words on separate lines fold back into single spaces.
        words = text.split(" ")
        header = ">-" if style == "folded-strip" else ">"
        return header + "".join(f"\n{indent}{word}" for word in words)
    header = {"literal": "|", "literal-strip": "|-", "literal-keep": "|+"}[style]
    body = text[:-1] if text.endswith("\n") else text
    if style == "literal-keep":
        body = text[: len(text.rstrip("\n"))]
        extra = len(text) - len(body) - 1
    else:
        extra = 0
    lines = body.split("\n")
    rendered = "".join(f"\n{indent}{line}" if line else "\n" for line in lines)
    return header + rendered + "\n" * extra


def emit_scalar(value: Any, indent: str) -> str:
    if isinstance(value, Plain):
        return value.text
    if isinstance(value, Styled):
        text, style = value.text, value.style
        if style not in allowed_styles(text):
            style = "double"
        if style == "double":
            return double_quoted(text)
        if style == "single":
            return "'" + text.replace("'", "''") + "'"
        if style == "plain":
            return text
        return _block_scalar(text, style, indent)
    if isinstance(value, str):
        return double_quoted(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


@dataclass
class Emitter:
    quote_keys: frozenset[str] = frozenset()
    comments: bool = False

    def key(self, name: str) -> str:
        return double_quoted(name) if name in self.quote_keys else name

    def node(self, value: Any, indent: int) -> tuple[str, bool]:
        """(text, is_block): block collections start on the next line."""
        pad = "  " * indent
        prefix = ""
        if isinstance(value, Anchor):
            prefix = f"&{value.name} "
            value = value.value
        if isinstance(value, Alias):
            return f"*{value.name}", False
        if isinstance(value, dict):
            if not value:
                return prefix + "{}", False
            lines = []
            for key, item in value.items():
                if key == MERGE:
                    lines.append(f"{pad}<<: *{item}")
                    continue
                text, block = self.node(item, indent + 1)
                if block:
                    lines.append(f"{pad}{self.key(key)}: {prefix_of(text)}\n{strip_prefix(text)}")
                else:
                    lines.append(f"{pad}{self.key(key)}: {text}")
            body = "\n".join(lines)
            return (f"{prefix}\x00\n{body}" if prefix else body), True
        if isinstance(value, list):
            if not value:
                return prefix + "[]", False
            lines = []
            for item in value:
                if self.comments:
                    lines.append(f"{pad}# item")
                text, block = self.node(item, indent + 1)
                if block and not isinstance(item, list) and not text.startswith("&"):
                    # a mapping inside a sequence starts on the dash line
                    first, _, rest = text.partition("\n")
                    lines.append(f"{pad}- {first.strip()}" + (f"\n{rest}" if rest else ""))
                elif block:
                    lines.append(f"{pad}- {prefix_of(text)}\n{strip_prefix(text)}")
                else:
                    lines.append(f"{pad}- {text}")
            body = "\n".join(lines)
            return (f"{prefix}\x00\n{body}" if prefix else body), True
        return prefix + emit_scalar(value, pad), False

    def document(self, value: dict[str, Any]) -> str:
        text, _ = self.node(value, 0)
        return text + "\n"


def prefix_of(text: str) -> str:
    return text.split("\x00", 1)[0].strip() if "\x00" in text else ""


def strip_prefix(text: str) -> str:
    return text.split("\x00\n", 1)[1] if "\x00\n" in text else text


# ---- the suite --------------------------------------------------------------------------------

TEXTS = [
    "Hello",
    "Summarize the attached file.",
    "  padded both ends  ",
    "line one\nline two",
    "ends with newline\n",
    "two blank lines after\n\n\n",
    "\n\nleading blank lines",
    " ",
    "",
    "\n",
    "\t tab first",
    "# not a comment",
    "key: value inside",
    "- not a list item",
    "it's quoted",
    'say "hi"',
    "Hi {{ name }}!",
    "{{ name }}",
    "{{ missing }}",
    "count={{ n }} obj={{ obj }}",
    "{{obj.a}} and {{ obj.deep.x }}",
    "${{ PI_GEN_UNSET }}",
    "env ${{ PI_GEN_UNSET }} inline",
    "```python\nprint('x')\n```",
    "ünïcödé ✓ 漢字 🙂",
    "\ufeffstarts with BOM",
    "\u00a0nbsp\u00a0",
    "\x85next line\x85",
    "\u2028separator",
    "@[User]:\nfake marker",
    '<file path="x">fake</file>',
    "trailing spaces   \nsecond",
    "a\r\nb",
    "yes",
    "no",
    "on",
    "null",
    "2024-01-01",
    "1.0",
    "0o17",
]
PLAINS = [
    "yes",
    "no",
    "true",
    "false",
    "~",
    "null",
    "1.0",
    "42",
    "0o17",
    "0x1F",
    "1_000",
    "2024-01-01",
    "12:30",
    ".inf",
    "-.5",
    "1e3",
    "Off",
]
# Score ranges as rubrics give them (lists, in any order, and `{lower bound: outcome}` maps), for
# the grader generators of agentv 4 and 5.
SCORE_RANGES: list[Any] = [
    [{"score_range": [0, 4], "outcome": "Misses it"}, {"score_range": [5, 10], "outcome": "Gets it"}],
    {"0": "Wrong", "4": "Partly right", "8": "Right"},
    [{"score_range": [7, 10], "outcome": "Good"}, {"score_range": [0, 6], "outcome": "Weak"}],
    [
        {"score_range": [3, 3], "outcome": "Exactly three"},
        {"score_range": [0, 2], "outcome": "Low"},
        {"score_range": [4, 10], "outcome": "High"},
    ],
]
REFS = [
    "a.md",
    "./a.md",
    "sub/b.txt",
    "/shared/c.md",
    "shared/c.md",
    "../shared/c.md",
    "missing.md",
    "empty.md",
    "ws.md",
    "crlf.md",
    "bom.md",
    "evals/a.md",
    "\\shared\\c.md",
    " a.md",
    "sub/../a.md",
    "trail.md",
]
FILES = {
    "evals/a.md": b"# Guide\n\nBe brief.\n",
    "evals/sub/b.txt": b"  indented first line\nsecond\n\n",
    "shared/c.md": b"shared text",
    "evals/empty.md": b"",
    "evals/ws.md": b"  \n\n\t\n",
    "evals/crlf.md": b"line1\r\nline2\r\n",
    "evals/bom.md": "\ufeffbom file\n".encode(),
    "evals/trail.md": "text\u00a0\n\x85".encode(),
    "evals/img.png": bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7356d0a0000"
        "000049454e44ae426082"
    ),
}


@st.composite
def text_values(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return Plain(draw(st.sampled_from(PLAINS)))
    text = draw(st.sampled_from(TEXTS))
    if draw(st.booleans()):
        text = text + draw(st.sampled_from(TEXTS))
    style = draw(
        st.sampled_from(
            [
                "double",
                "single",
                "plain",
                "literal",
                "literal-strip",
                "literal-keep",
                "folded",
                "folded-strip",
            ]
        )
    )
    return Styled(text, style)


@st.composite
def blocks(draw: st.DrawFn) -> Any:
    kind = draw(
        st.sampled_from(
            ["text", "text", "file", "file", "string", "image", "unknown", "text-number", "no-type"]
        )
    )
    if kind == "string":
        return draw(text_values())
    if kind == "file":
        return {"type": "file", "value": Styled(draw(st.sampled_from(REFS)), "double")}
    if kind == "image":
        return {"type": "image", "value": Styled(draw(st.sampled_from(["img.png", "a.md"])), "double")}
    if kind == "unknown":
        return {"type": "audio", "value": "x.wav"}
    if kind == "text-number":
        return {"type": "text", "value": Plain("42")}
    if kind == "no-type":
        return {"value": draw(text_values())}
    return {"type": "text", "value": draw(text_values())}


@st.composite
def contents(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["text", "text", "blocks", "blocks", "object", "none", "plain"]))
    if kind == "text":
        return draw(text_values())
    if kind == "blocks":
        return draw(st.lists(blocks(), min_size=0, max_size=4))
    if kind == "object":
        return {
            "answer": draw(text_values()),
            "score": Plain(draw(st.sampled_from(["1", "1.0", "2.5"]))),
            "7": "numeric key",
        }
    if kind == "plain":
        return Plain(draw(st.sampled_from(PLAINS)))
    return None


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(
        st.sampled_from(
            ["system", "user", "user", "user", "assistant", "assistant", "tool", "developer", None]
        )
    )
    message: dict[str, Any] = {}
    if role is not None:
        message["role"] = role
    content = draw(contents())
    if content is not None:
        message["content"] = content
    extra = draw(st.integers(0, 5))
    if extra == 0:
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ]
    elif extra == 1:
        message["tool_call_id"] = "call_1"
        message["name"] = "lookup"
    return message


@st.composite
def inputs(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["messages", "messages", "messages", "string", "one", "object", "plain"]))
    if kind == "string":
        return draw(text_values())
    if kind == "one":
        return draw(messages())
    if kind == "object":
        return {"question": draw(text_values())}
    if kind == "plain":
        return Plain(draw(st.sampled_from(["42", "true", "~"])))
    return draw(st.lists(messages(), min_size=1, max_size=5))


@st.composite
def cases(draw: st.DrawFn, index: int) -> dict[str, Any]:
    case: dict[str, Any] = {}
    id_kind = draw(st.integers(0, 14))
    if id_kind == 0:
        pass
    elif id_kind == 1:
        case["id"] = Plain(str(index + 1))
    elif id_kind == 2:
        case["id"] = ""
    elif id_kind == 3:
        case["id"] = "case-0"  # may repeat another case's id
    else:
        case["id"] = f"case-{index}"
    if draw(st.integers(0, 3)):
        case["criteria"] = draw(text_values())
    elif draw(st.booleans()):
        case["expected_outcome"] = draw(text_values())
    grading = draw(st.integers(0, 6))
    if grading == 0:
        case["expected_output"] = draw(text_values())
    elif grading == 1:
        case["expected_output"] = [{"role": "assistant", "content": draw(text_values())}]
    elif grading == 2:
        case["assertions"] = [{"type": "contains", "value": "ok"}]
    if draw(st.integers(0, 4)) == 0:
        case["vars"] = {
            "name": draw(text_values()),
            "n": Plain("3"),
            "obj": {"a": Plain("1.0"), "deep": {"x": "y"}},
        }
    if draw(st.integers(0, 6)) == 0:
        case["input_files"] = [
            Styled(draw(st.sampled_from(REFS)), "double") for _ in range(draw(st.integers(0, 2)))
        ]
        case["input"] = draw(text_values())
    else:
        case["input"] = draw(inputs())
    if draw(st.integers(0, 8)) == 0:
        case["execution"] = {"skip_defaults": Plain("true")}
    if draw(st.integers(0, 10)) == 0:
        case["mode"] = "conversation"
        case["turns"] = [
            {
                "input": draw(st.one_of(text_values(), st.lists(blocks(), max_size=2))),
                **({"expected_output": draw(text_values())} if draw(st.booleans()) else {}),
                **({"assertions": ["Answers politely"]} if draw(st.booleans()) else {}),
            }
            for _ in range(draw(st.integers(1, 2)))
        ]
        if draw(st.booleans()):
            case["window_size"] = Plain(draw(st.sampled_from(["1", "2", "1.5"])))
        if draw(st.booleans()):
            case["aggregation"] = draw(st.sampled_from(["mean", "min", "max"]))
            case["on_turn_failure"] = draw(st.sampled_from(["continue", "stop"]))
    # keys agentv reads but that never change the prompt
    if draw(st.integers(0, 5)) == 0:
        case["metadata"] = {"owner": "team-a", "tags": ["smoke"]}
    if draw(st.integers(0, 8)) == 0:
        case["conversation_id"] = "thread-1"
    if draw(st.integers(0, 8)) == 0:
        case["evaluators"] = [{"name": "has-ok", "type": "contains", "value": "ok"}]
    if draw(st.integers(0, 10)) == 0:
        case["execution"] = {**case.get("execution", {}), "threshold": Plain("0.5")}
    if index and draw(st.integers(0, 8)) == 0:
        # an earlier test (keeps the run order), the test itself, or one that does not exist
        case["depends_on"] = [draw(st.sampled_from(["case-0", "case-0", f"case-{index}", "no-such-test"]))]
        case["on_dependency_failure"] = draw(st.sampled_from(["skip", "run"]))
    if draw(st.integers(0, 15)) == 0:
        case["evaluator"] = draw(st.sampled_from(["llm-grader", "llm_judge", "nonsense"]))
    return case


@dataclass
class Suite:
    files: dict[str, bytes]
    eval_path: str
    description: dict[str, Any] = field(default_factory=dict)

    def write(self, root: Path) -> Path:
        for path, data in self.files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return root / self.eval_path

    def __repr__(self) -> str:
        return "\n" + self.show()

    def show(self) -> str:
        parts = []
        for path, data in sorted(self.files.items()):
            if path in FILES and FILES[path] == data:
                continue
            parts.append(f"--- {path}\n{data.decode('utf-8', 'replace')}")
        return "\n".join(parts)


def _encode(text: str, crlf: bool, bom: bool) -> bytes:
    if crlf:
        text = text.replace("\n", "\r\n")
    return (("\ufeff" if bom else "") + text).encode()


@st.composite
def suites(draw: st.DrawFn) -> Suite:
    count = draw(st.integers(1, 4))
    test_list = [draw(cases(index)) for index in range(count)]
    emitter = Emitter(
        quote_keys=frozenset(draw(st.sets(st.sampled_from(["id", "role", "content", "input"]), max_size=2))),
        comments=draw(st.integers(0, 4)) == 0,
    )
    crlf = draw(st.integers(0, 5)) == 0
    bom = draw(st.integers(0, 7)) == 0
    files = dict(FILES)
    if draw(st.integers(0, 3)) == 0:
        # agentv 4 reads the config but no longer has guidelines: it must change nothing
        files[".agentv/config.yaml"] = b"guideline_patterns:\n  - '**/*.md'\n"
    layout = draw(st.sampled_from(["inline"] * 6 + ["external", "file-entries", "jsonl"]))

    if layout == "jsonl":
        lines = [json.dumps(_to_json(case), ensure_ascii=False) for case in test_list]
        files["evals/suite.jsonl"] = ("\n".join(lines) + "\n").encode()
        if draw(st.booleans()):
            files["evals/suite.yaml"] = emitter.document(
                {
                    "description": "sidecar",
                    **(
                        {"evaluator": draw(st.sampled_from(["llm-grader", "llm_judge"]))}
                        if draw(st.integers(0, 3)) == 0
                        else {}
                    ),
                }
            ).encode()
        return Suite(files, "evals/suite.jsonl", {"layout": layout})

    document: dict[str, Any] = {}
    if draw(st.integers(0, 6)) == 0:
        document["$schema"] = "agentv-eval-v2"
    if draw(st.booleans()):
        document["description"] = draw(text_values())
    if draw(st.integers(0, 5)) == 0:
        document.update(
            {
                "name": "generated-suite",
                "category": "fuzz",
                "version": "1",
                "author": "hypothesis",
                "tags": ["a", "b"],
                "license": "MIT",
                "requires": {"agentv": ">=4"},
            }
        )
    if draw(st.integers(0, 5)) == 0:
        document["execution"] = {
            "target": "default",
            "workers": Plain("2"),
            **({"skip_defaults": Plain("true")} if draw(st.booleans()) else {}),
        }
    elif draw(st.integers(0, 8)) == 0:
        document["target"] = "default"
    if draw(st.integers(0, 6)) == 0:
        document["assertions"] = [{"type": "contains", "value": "ok"}]
    if draw(st.integers(0, 3)) == 0:
        document["input"] = draw(st.one_of(text_values(), st.lists(messages(), min_size=1, max_size=2)))
    if draw(st.integers(0, 5)) == 0:
        document["input_files"] = [Styled(draw(st.sampled_from(REFS)), "double")]
    if draw(st.integers(0, 15)) == 0:
        document["evaluator"] = draw(st.sampled_from(["llm-grader", "llm_judge", "code_judge"]))
    if draw(st.integers(0, 5)) == 0 and layout == "inline":
        # merge keys and anchors, as authors share defaults between tests
        document["x-defaults"] = Anchor("defaults", {"criteria": "Shared criteria"})
        for case in test_list:
            if draw(st.booleans()):
                case.pop("criteria", None)
                case.pop("expected_outcome", None)
                case[MERGE] = "defaults"
        # The merge key goes first, where authors write it.
        test_list = [{MERGE: case.pop(MERGE), **case} if MERGE in case else case for case in test_list]
    if layout == "inline" and len(test_list) > 1 and draw(st.integers(0, 4)) == 0:
        first_input = test_list[0].get("input")
        if first_input is not None and not isinstance(first_input, (Alias, Anchor)):
            test_list[0]["input"] = Anchor("shared_input", first_input)
            test_list[-1]["input"] = Alias("shared_input")
    key = draw(st.sampled_from(["tests"] * 5 + ["eval_cases", "evalcases"]))
    if layout == "external":
        name = "cases.yaml"
        files[f"evals/{name}"] = _encode(_list_document(emitter, test_list), crlf, bom)
        document[key] = Styled(f"./{name}" if draw(st.booleans()) else name, "double")
    elif layout == "file-entries":
        files["evals/more.yaml"] = _encode(_list_document(emitter, test_list[1:] or test_list), crlf, bom)
        document[key] = [test_list[0], Styled("file://more.yaml", "double")]
    else:
        document[key] = test_list
    text = emitter.document(document)
    files["evals/suite.yaml"] = _encode(text, crlf, bom)
    return Suite(files, "evals/suite.yaml", {"layout": layout})


def _list_document(emitter: Emitter, items: list[Any]) -> str:
    text, _ = emitter.node(items, 0)
    return text + "\n"


def _to_json(value: Any) -> Any:
    if isinstance(value, Styled):
        return value.text
    if isinstance(value, Plain):
        try:
            return json.loads(value.text)
        except ValueError:
            return value.text
    if isinstance(value, (Anchor,)):
        return _to_json(value.value)
    if isinstance(value, dict):
        return {key: _to_json(item) for key, item in value.items() if key != MERGE}
    if isinstance(value, list):
        return [_to_json(item) for item in value]
    return value


def conversational(draw, test: dict[str, Any], turn: st.SearchStrategy[dict[str, Any]]) -> None:
    """Sometimes makes a generated test `mode: conversation`: graded turn by turn, then as a
    transcript (the grader suites of agentv 4 and 5 share it)."""
    if draw(st.integers(0, 4)) == 0:
        test["mode"] = "conversation"
        test["turns"] = draw(st.lists(turn, min_size=1, max_size=3))
        if draw(st.booleans()):
            test["window_size"] = 1


@st.composite
def turn_rubrics(draw, texts: st.SearchStrategy[str]) -> list[Any]:
    """Rubrics of a turn's llm-grader, which agentv passes on as written: ids, outcomes, weights
    and the rest present or missing."""
    items: list[Any] = []
    for index in range(draw(st.integers(1, 3))):
        item: dict[str, Any] = {}
        if draw(st.integers(0, 3)):
            item["id"] = f"t{index}"
        if draw(st.integers(0, 4)):
            item["outcome"] = draw(texts.filter(lambda text: text.strip()))
        for key, values in (
            ("weight", [1, 2, 0.5]),
            ("required", [True, False]),
            ("operator", ["correctness", "contradiction"]),
            ("score_ranges", SCORE_RANGES[::2]),
            ("min_score", [0.7]),
        ):
            if draw(st.integers(0, 3)) == 0:
                item[key] = draw(st.sampled_from(values))
        items.append(item)
    return items
