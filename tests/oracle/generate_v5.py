"""Hypothesis strategies for files in agentv 5's schema (prompts filled from tests[].vars).

Used by the no-crash properties (tests/core/test_agentv5_generated.py) and to make the agentv 5
goldens (make_agentv5_goldens.py), so both see the same shapes.
"""

from __future__ import annotations

import hashlib
import json
import random

import yaml
from hypothesis import strategies as st

PROMPT_FILES = {
    "evals/prompts/one.md": b"From a file: {{ topic }}\n",
    "evals/snippet.py": b"def f(x):\n    return x * 2\n",
    "evals/notes.md": b"  Indented notes.\n\n",
}


def files_of(document: dict) -> dict[str, bytes]:
    """The bundle for a generated document; `_layout` says how its tests and defaults are split
    into files (inline, a cases file, a folder of case.yaml files, a default_test file, a
    PROMPT.md beside the eval file); `_csv` is a CSV cases file, named by `tests` or by one of its
    entries."""
    document = dict(document)
    layout = document.pop("_layout", {})
    if layout.get("cases_file") and layout.get("folder"):
        layout = {**layout, "folder": False}
    files = dict(PROMPT_FILES)
    if layout.get("cases_file") and "tests" in document:
        files["evals/cases.yaml"] = yaml.safe_dump(
            document["tests"], allow_unicode=True, sort_keys=False
        ).encode()
        document["tests"] = "cases.yaml"
    if layout.get("default_file") and "default_test" in document:
        files["evals/defaults.yaml"] = yaml.safe_dump(document["default_test"], sort_keys=False).encode()
        document["default_test"] = "file://defaults.yaml"
    if layout.get("folder"):
        _write_folder(files, document)
    if "_csv" in document:
        _write_csv(files, document)
    elif (
        not layout.get("cases_file") and not layout.get("folder") and isinstance(document.get("tests"), list)
    ):
        _write_json_or_glob(files, document)
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
    form = draw(st.sampled_from(["yaml"] * 5 + ["csv", "csv", "folder", "scenarios", "scenarios"]))
    if form == "csv":
        document["_csv"] = draw(csv_files())
    elif form == "folder":
        layout["folder"] = True
    elif form == "scenarios":
        document["scenarios"] = draw(scenarios())
        if draw(st.booleans()):
            del document["tests"]
    return document


# ---- CSV cases files (case-file-loader.ts parseCsvCases), tests folders, scenarios ------------

CSV_COLUMNS = (
    "id",
    "input",
    "topic",
    " count ",
    "vars.nested.key",
    "__expected",
    "__expected1",
    "__expected2",
    "__prefix",
    "__suffix",
    "__description",
    "__metric",
    "__threshold",
    "__metadata:tags[]",
    "__metadata:owner",
    "__config:__expected2:threshold",
    "__provider_output",
    "__other",
    "",
)
CSV_TEXT = st.sampled_from(
    ["alpha", "", "a, b", 'say "hi"', "two\nlines", "  padded  ", "{{ topic }}", 'mid"quote', "x\r\ny", "ünï"]
)
CSV_CELLS = {
    "id": st.sampled_from(["r1", "r2", "", "  ", "row {{ topic }}", "r1"]),
    "__expected": st.sampled_from(
        [
            "contains:{{ topic }}",
            "icontains-any: a, b ,",
            "not-regex:^x",
            "grade: be kind",
            "llm-rubric: says hi",
            "starts-with(0.5):Sum",
            "starts-with:Sum",
            "latency(100)",
            "cost(0.5)",
            "hello world",
            "equals",
            "is-json",
            "javascript: output.length > 1",
            "python: check.py",
            "file://check.py",
            "",
            "  contains-all:x,y  ",
        ]
    ),
    "__expected_rare": st.sampled_from(["latency", "foo:bar", "file://x.js", "contains(2"]),
    "__threshold": st.sampled_from(["0.5", "abc", "", "1e1", " 2x", "Infinity"]),
    "__metadata:tags[]": st.sampled_from(["a,b", "a\\,b, c", "", " , "]),
    "__config:__expected2:threshold": st.sampled_from(["0.7", "1", "0.25"]),
    "__config_rare": st.sampled_from(["", "x"]),
    "__metric": st.sampled_from(["acc", ""]),
}


def _csv_cell(text: str, quoted: bool) -> str:
    if quoted or any(char in text for char in ',"\n\r') and not text.startswith("mid"):
        return '"' + text.replace('"', '""') + '"'
    return text


@st.composite
def csv_files(draw: st.DrawFn) -> dict:
    """A CSV cases file's header and rows (cells as written, quoting included) and its form."""
    if draw(st.integers(0, 2)) == 0:  # every column, in some order
        columns = list(draw(st.permutations(CSV_COLUMNS)))
    else:
        columns = draw(st.lists(st.sampled_from(CSV_COLUMNS), min_size=1, max_size=9, unique=True))
    if draw(st.integers(0, 2)):
        columns = ["__description", *[column for column in columns if column != "__description"]]
    rows = []
    for _ in range(draw(st.integers(0, 4))):
        row = []
        for column in columns:
            key = column.strip()
            if key.startswith("__expected") and draw(st.integers(0, 40)) == 0:
                text = draw(CSV_CELLS["__expected_rare"])
            elif key.startswith("__config") and draw(st.integers(0, 30)) == 0:
                text = draw(CSV_CELLS["__config_rare"])
            elif key == "__description":
                text = draw(st.sampled_from(["Mentions {{ topic }}", "", "ok"]))
            else:
                text = draw(CSV_CELLS.get("__expected" if key.startswith("__expected") else key, CSV_TEXT))
            row.append(_csv_cell(text, draw(st.integers(0, 5)) == 0))
        if row and draw(st.integers(0, 8)) == 0:
            row = row[: draw(st.integers(0, len(row) - 1))]  # a short row: its missing cells are empty
        rows.append(row)
    return {
        "header": [_csv_cell(column, False) for column in columns],
        "rows": rows,
        "newline": draw(st.sampled_from(["\n", "\n", "\r\n"])),
        "bom": draw(st.integers(0, 5)) == 0,
        "blank_lines": draw(st.integers(0, 4)) == 0,
        "final_newline": draw(st.booleans()),
        "unterminated": draw(st.integers(0, 40)) == 0,
        "entry": draw(st.sampled_from(["tests", "tests", "file", "bare"])),
    }


def csv_text(spec: dict) -> str:
    """The text of a CSV cases file drawn by csv_files."""
    newline = spec["newline"]
    lines = [",".join(spec["header"])]
    for row in spec["rows"]:
        lines.append(",".join(row))
        if spec["blank_lines"]:
            lines.append("")
    text = newline.join(lines) + (newline if spec["final_newline"] else "")
    if spec["unterminated"]:
        text += '"never closed'
    return ("\ufeff" if spec["bom"] else "") + text


def _write_csv(files: dict[str, bytes], document: dict) -> None:
    spec = document.pop("_csv")
    files["evals/cases.csv"] = csv_text(spec).encode()
    if spec["entry"] == "tests":
        document["tests"] = "file://cases.csv"
    else:
        reference = "file://cases.csv" if spec["entry"] == "file" else "cases.csv"
        tests = document["tests"]
        document["tests"] = [*([tests] if isinstance(tests, str) else tests), reference]


# `tests` naming JSON cases files and globs (case-file-loader.ts resolveFileReference for a
# `file://` entry, yaml-parser.ts resolveIncludePaths for `tests: <string>` and bare entries).
JSON_AND_GLOB_REFERENCES = [
    ("file://cases.json", "tests"),
    ("cases.json", "tests"),
    ("file://cases.json", "entry"),
    ("cases.json", "entry"),
    ("file://parts/*.{yaml,json}", "tests"),
    ("parts/*", "tests"),
    ("file://parts/*", "entry"),
    ("parts/p?rt-*.json", "entry"),
    ("file://parts/**/*.yaml", "entry"),
    ("file://parts/none-*.json", "entry"),  # matches nothing: agentv warns
    ("parts/none-*.json", "tests"),  # matches nothing, silently
]


def _write_json_or_glob(files: dict[str, bytes], document: dict) -> None:
    """Now and then (seeded by the document, so the files drawn before stay as they were) the
    tests in a JSON cases file, or split over files a glob names."""
    chance = random.Random(hashlib.sha256(repr(document).encode()).digest())
    if chance.random() > 0.2:
        return
    tests = document["tests"]
    reference, place = chance.choice(JSON_AND_GLOB_REFERENCES)
    if "parts" in reference:
        half = len(tests) // 2
        files["evals/parts/part-1.yaml"] = yaml.safe_dump(tests[:half] or [], allow_unicode=True).encode()
        files["evals/parts/part-2.json"] = json.dumps({"tests": tests[half:]}, ensure_ascii=False).encode()
        files["evals/parts/.hidden.json"] = b"not json"  # a wildcard skips a dotfile
        if chance.random() < 0.3:
            files["evals/parts/deep/part-3.yaml"] = b"- id: deep\n  vars: {topic: deep}\n"
    else:
        shape = chance.choice(["list", "list", "object", "broken", "not-a-list", "scalar-entry"])
        body = {
            "list": tests,
            "object": {"tests": tests},
            "not-a-list": {"cases": tests},
            "scalar-entry": [*tests, 3],
        }.get(shape)
        files["evals/cases.json"] = (
            b'[{"id": "x",}]' if body is None else json.dumps(body, ensure_ascii=False, indent=2).encode()
        )
    document["tests"] = reference if place == "tests" else [reference]


def _write_folder(files: dict[str, bytes], document: dict) -> None:
    """Each test in its own folder's case.yaml (names out of order; the first test's file is
    case.yml, and a folder without a case file is skipped), `tests` naming the folder."""
    for index, entry in enumerate(document["tests"]):
        name = f"{'zyx'[index % 3]}-{index}"
        file_name = "case.yml" if index == 1 else "case.yaml"
        files[f"evals/cases/{name}/{file_name}"] = yaml.safe_dump(
            entry, allow_unicode=True, sort_keys=False
        ).encode()
    files["evals/cases/no-case/README.md"] = b"not a case\n"
    document["tests"] = "cases"


SCENARIO_ROW_IDS = st.sampled_from(["spanish", "french", "  ", None, None])


@st.composite
def scenarios(draw: st.DrawFn) -> list:
    """`scenarios` (yaml-parser.ts lowerScenariosIntoTests): config rows times tests."""
    found = []
    for scenario_index in range(draw(st.integers(1, 2))):
        rows = []
        for _ in range(draw(st.integers(0, 2))):
            row: dict = {}
            row_id = draw(SCENARIO_ROW_IDS)
            if row_id is not None:
                row["id"] = row_id
            row["vars"] = {"topic": draw(WORDS), "language": draw(st.sampled_from(["Spanish", "French"]))}
            if draw(st.integers(0, 3)) == 0:
                row["assert"] = draw(
                    st.sampled_from(
                        [[{"type": "contains", "value": "row"}], {"type": "contains", "value": "one"}, None]
                    )
                )
            if draw(st.integers(0, 15)) == 0:
                row[draw(st.sampled_from(["input", "expected_output", "postprocess", "evalcases"]))] = "x"
            rows.append(row)
        tests = [draw(entries_of(index + 10 * scenario_index)) for index in range(draw(st.integers(1, 2)))]
        for test in tests:
            test.pop("depends_on", None)
            if draw(st.integers(0, 2)) == 0:
                test.pop("id", None)
        scenario: dict = {"description": f"scenario {scenario_index}", "config": rows, "tests": tests}
        if draw(st.integers(0, 25)) == 0:
            scenario[draw(st.sampled_from(["config", "tests"]))] = {"not": "a list"}
        found.append(scenario)
    return found
