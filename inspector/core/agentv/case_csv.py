"""agentv 5's CSV test files: promptfoo's columns, read as agentv reads them.

Follows `packages/core/src/evaluation/loaders/case-file-loader.ts` at v5.3.1-next.1
(`parseCsvRows`, `parseCsvCases`, `parseAssertionFromString`): agentv's own small CSV reader, not
promptfoo's csv-parse, so quoting, blank lines, a byte-order mark and an unterminated quote behave
as agentv's do. Each case comes back as the tree a YAML cases file would give, every value carrying
the lines of the cell it was read from, so the page highlights the row and cell a stretch came
from.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, NoReturn

import msgspec

from ..js import _is_array_index, js_trim
from ..model import InputError
from ..yaml_lines import Node

_SUPPORTED_ASSERTIONS = (
    "contains",
    "contains-any",
    "contains-all",
    "icontains",
    "icontains-any",
    "icontains-all",
    "starts-with",
    "ends-with",
    "regex",
    "is-json",
    "equals",
    "latency",
    "cost",
)
_LISTED_ASSERTIONS = ("contains-any", "contains-all", "icontains-any", "icontains-all")
_THRESHOLD_DEFAULTS = {"starts-with": 0.75}
_ASSERTION_TEXT = re.compile(r"((?:not-)?[a-z][a-z0-9-]*)(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?", re.ASCII)
_JS_FLOAT = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", re.ASCII)
_EXPECTED_NUMBERED = re.compile(r"__expected\d+", re.ASCII)


class Cell(msgspec.Struct, frozen=True, gc=False):
    text: str
    start_line: int
    end_line: int


def read_csv_cases(text: str, path: str, newest_commit: bool = False) -> list[Node]:
    """parseCsvCases: one case per row after the header, as a YAML cases file would hold it.
    `newest_commit`: as agentv's newest commit (58f316ca2) reads them, which refuses
    `__provider_output` columns."""
    rows = csv_rows(text, path)
    if not rows:
        return []
    headers = [js_trim(cell.text) for cell in rows[0]]
    return [
        _case(_record(headers, row), (row[0].start_line, row[-1].end_line), index, path, newest_commit)
        for index, row in enumerate(rows[1:])
    ]


def csv_rows(text: str, path: str) -> list[list[Cell]]:
    """parseCsvRows: a quote opens a quoted cell only at the cell's start; `""` inside one is a
    quote; a quote after it is kept as text; a row of nothing (a blank line) is dropped, a row of
    empty cells (`,`) is kept. Each cell keeps the lines it spans."""
    return _CsvReader(text[1:] if text.startswith("\ufeff") else text).rows(path)


class _CsvReader:
    def __init__(self, source: str):
        self.source = source
        self.found: list[list[Cell]] = []
        self.row: list[Cell] = []
        self.cell: list[str] = []
        self.in_quotes = False
        self.row_start = True
        self.line = self.cell_line = self.quote_line = 1

    def rows(self, path: str) -> list[list[Cell]]:
        source, index, length = self.source, 0, len(self.source)
        while index < length:
            char = source[index]
            following = source[index + 1] if index + 1 < length else ""
            index += 1
            pair = (char == '"' if self.in_quotes else char == "\r") and following == (
                '"' if char == '"' else "\n"
            )
            if pair:
                index += 1  # `""` in a quoted cell, or CRLF
            if self.in_quotes:
                self._quoted(char, following, pair)
            else:
                self._plain(char)
        if self.in_quotes:
            raise InputError(
                f"Malformed CSV test file: unterminated quoted cell\n  File: {path}", path, self.quote_line
            )
        if not self.row_start or self.cell or self.row:
            self._end_cell()
            self.found.append(self.row)
        return self.found

    def _quoted(self, char: str, following: str, pair: bool) -> None:
        if char == '"' and not pair:
            self.in_quotes = False
            return
        self.cell.append(char)
        if char == "\n" or (char == "\r" and following != "\n"):
            self.line += 1

    def _plain(self, char: str) -> None:
        if char == '"' and not self.cell:
            self.in_quotes, self.row_start, self.quote_line = True, False, self.line
        elif char == ",":
            self._end_cell()
            self.row_start = False
        elif char in "\r\n":
            self._end_cell()
            if not self.row_start or any(item.text for item in self.row):
                self.found.append(self.row)
            self.line += 1
            self.row, self.row_start, self.cell_line = [], True, self.line
        else:
            self.cell.append(char)
            self.row_start = False

    def _end_cell(self) -> None:
        self.row.append(Cell("".join(self.cell), self.cell_line, self.line))
        self.cell, self.cell_line = [], self.line


def _record(headers: list[str], row: list[Cell]) -> dict[str, Cell]:
    """The row as an object keyed by header; a missing cell is empty, and an empty header's
    column is dropped. In JavaScript's key order: integer-like keys first, ascending."""
    record: dict[str, Cell] = {}
    last = row[-1]
    for index, header in enumerate(headers):
        if header:
            record[header] = row[index] if index < len(row) else Cell("", last.end_line, last.end_line)
    return _js_key_order(record)


def _js_key_order(mapping: dict[str, Any]) -> dict[str, Any]:
    numbered = sorted((key for key in mapping if _is_array_index(key)), key=int)
    if not numbered:
        return mapping
    return {
        **{key: mapping[key] for key in numbered},
        **{key: value for key, value in mapping.items() if not _is_array_index(key)},
    }


class _Row:
    """What one row's cells say, gathered in column order as parseCsvCases reads them."""

    def __init__(self, path: str, line: int, newest_commit: bool):
        self.path = path
        self.line = line
        self.newest_commit = newest_commit
        self.vars: dict[str, Any] = {}
        self.metadata: dict[str, Node] = {}
        self.assertions: list[tuple[dict[str, Any], Cell]] = []
        self.assertion_configs: dict[int, tuple[float, Cell]] = {}
        self.fields: dict[str, Cell] = {}  # id, input, __prefix, __suffix, criteria, expected_output, metric
        self.threshold: tuple[float, Cell] | None = None

    def read(self, key: str, cell: Cell) -> None:
        named = _NAMED_COLUMNS.get(key)
        if named == "expected_output" and self.newest_commit:
            self.refuse(
                f"{key} has been removed from CSV imports. Use an explicit deterministic target such as "
                f"provider: cli for fixed outputs, or use a replay/fixture target for captured provider "
                f"responses.",
                cell,
            )
        if named is not None:
            self.fields[named] = cell
        elif key.startswith("__expected"):
            if js_trim(cell.text):
                self.assertions.append((assertion_from_text(js_trim(cell.text), self.path, cell), cell))
        elif key == "__threshold":
            number = js_parse_float(cell.text)
            if number is not None and abs(number) != float("inf"):
                self.threshold = (number, cell)
        elif key.startswith("__metadata:"):
            self._metadata(key[len("__metadata:") :], cell)
        elif key.startswith("__config:"):
            self._config(key[len("__config:") :], cell)
        elif key:
            _assign_var(self.vars, key, _node(cell.text, cell))

    def _metadata(self, key: str, cell: Cell) -> None:
        """parseMetadataValue: an empty cell sets nothing; a `name[]` column is a list split at
        commas not escaped as `\\,`."""
        if not js_trim(cell.text):
            return
        if key.endswith("[]"):
            items = [js_trim(item).replace("\\,", ",") for item in re.split(r"(?<!\\),", cell.text)]
            value: Any = [_node(item, cell) for item in items if item]
            key = key[:-2]
        else:
            value = cell.text
        self.metadata[key] = Node(value, cell.start_line, cell.end_line, cell.start_line)

    def _config(self, spec: str, cell: Cell) -> None:
        parts = spec.split(":")
        expected_key, config_key = parts[0], parts[1] if len(parts) > 1 else "undefined"
        if config_key != "threshold":
            self.refuse(f'Invalid config key "{config_key}" in __config column: {self.path}', cell)
        target = None
        if expected_key == "__expected":
            target = 0
        elif _EXPECTED_NUMBERED.fullmatch(expected_key):
            target = int(expected_key[len("__expected") :]) - 1
        if target is None or target < 0:
            self.refuse(f'Invalid expected key "{expected_key}" in __config column: {self.path}', cell)
        number = js_parse_float(cell.text)
        if number is None or abs(number) == float("inf"):
            self.refuse(f"Invalid numeric value for {config_key} in __config column: {self.path}", cell)
        self.assertion_configs[target] = (number, cell)

    def finished_assertions(self, metric: str) -> list[Node]:
        """The `__expected` assertions named by `__metric` and given their `__config` threshold
        (which metadata.threshold keeps too)."""
        assertions = []
        for index, (found, cell) in enumerate(self.assertions):
            assertion = dict(found)
            if metric:
                assertion["metric"] = metric
                assertion["name"] = metric if len(self.assertions) == 1 else f"{metric}-{index + 1}"
            config = self.assertion_configs.get(index)
            if config is not None:
                assertion["min_score"] = _number(config[0])
                self.metadata["threshold"] = _node(_number(config[0]), config[1])
            assertions.append(_tree(assertion, cell))
        return assertions

    def refuse(self, message: str, cell: Cell) -> NoReturn:
        raise InputError(message, self.path, cell.start_line)


_NAMED_COLUMNS = {
    "id": "id",
    "input": "input",
    "__prefix": "prefix",
    "__suffix": "suffix",
    "__description": "criteria",
    "__provider_output": "expected_output",
    "__providerOutput": "expected_output",
    "__metric": "metric",
}


def _case(
    record: dict[str, Cell], lines: tuple[int, int], row_index: int, path: str, newest_commit: bool
) -> Node:
    """One row as agentv's case object, its keys in agentv's order; `lines`: the row's."""
    first, last = lines
    row = _Row(path, first, newest_commit)
    for key, cell in record.items():
        row.read(key, cell)
    fields = row.fields
    assertions = row.finished_assertions(fields["metric"].text if "metric" in fields else "")
    case: dict[str, Node] = {"id": _id(fields.get("id"), row_index, first)}
    if "input" in fields:
        case["input"] = _input(fields)
    for name in ("criteria", "expected_output"):
        if name in fields and fields[name].text:
            case[name] = _node(fields[name].text, fields[name])
    if assertions:
        case["assert"] = Node(assertions, assertions[0].start_line, assertions[-1].end_line, first)
    if row.threshold is not None:
        number, cell = row.threshold
        case["threshold"] = _node(_number(number), cell)
        case["execution"] = Node(
            {"threshold": _node(_number(number), cell)}, cell.start_line, cell.end_line, first
        )
    if row.vars:
        case["vars"] = _object(row.vars, first, last)
    if row.metadata:
        case["metadata"] = Node(row.metadata, first, last, first)
    return Node(case, first, last, first)


def _id(own: Cell | None, row_index: int, line: int) -> Node:
    """The `id` cell, else `row-<n>`."""
    if own is not None and js_trim(own.text):
        return _node(own.text, own)
    return Node(f"row-{row_index + 1}", line, line, line)


def _input(fields: dict[str, Cell]) -> Node:
    """`__prefix` + input + `__suffix`, pointing at the input cell."""
    cell = fields["input"]
    text = "".join(fields[name].text for name in ("prefix", "input", "suffix") if name in fields)
    return _node(text, cell)


def _assign_var(variables: dict[str, Any], key: str, value: Node) -> None:
    """assignCsvVar: a `vars.a.b` column sets a nested var; any other column is a var by its name."""
    segments = [js_trim(part) for part in key[len("vars.") :].split(".")] if key.startswith("vars.") else []
    segments = [segment for segment in segments if segment]
    if not segments:
        variables[key] = value
        return
    current = variables
    for segment in segments[:-1]:
        if not isinstance(current.get(segment), dict):
            current[segment] = {}
        current = current[segment]
    current[segments[-1]] = value


def _object(values: dict[str, Any], first: int, last: int) -> Node:
    """Nested dicts of cell Nodes as a Node tree (in JavaScript's key order)."""
    built = {
        key: value if isinstance(value, Node) else _object(value, first, last)
        for key, value in _js_key_order(values).items()
    }
    return Node(built, first, last, first)


def assertion_from_text(expected: str, path: str, cell: Cell) -> dict[str, Any]:
    """parseAssertionFromString: a promptfoo `__expected` cell as the assertion agentv makes."""
    for prefix in ("grade:", "llm-rubric:"):
        if expected.startswith(prefix):
            outcome = js_trim(expected[len(prefix) :])
            return {"type": "llm-grader", "rubrics": [{"id": "rubric", "outcome": outcome, "weight": 1}]}
    for prefix in ("javascript:", "fn:", "eval:"):
        if expected.startswith(prefix):
            return {"type": "inline-assert", "code": js_trim(expected[len(prefix) :])}
    if expected.startswith("python:"):
        return {"type": "script", "command": ["uv", "run", "python", js_trim(expected[len("python:") :])]}
    if expected.startswith("file://"):
        return _file_assertion(expected, path, cell)
    match = _ASSERTION_TEXT.fullmatch(expected)
    if match is None:
        return {"type": "equals", "value": expected}
    return _typed_assertion(expected, match, path, cell)


def _file_assertion(expected: str, path: str, cell: Cell) -> dict[str, Any]:
    target = js_trim(expected[len("file://") :])
    if not target.endswith(".py"):
        raise InputError(
            f'Unsupported promptfoo __expected file assertion "{expected}". Only file://*.py script '
            f"graders are supported.",
            path,
            cell.start_line,
        )
    # agentv resolves the script to an absolute path; the bundle's paths are the inspector's.
    command = (
        target
        if target.startswith("/")
        else posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    )
    return {"type": "script", "command": ["uv", "run", "python", command]}


def _typed_assertion(expected: str, match: re.Match[str], path: str, cell: Cell) -> dict[str, Any]:
    raw_type, threshold_text, raw_value = match.groups()
    negate = raw_type.startswith("not-")
    kind = raw_type[len("not-") :] if negate else raw_type
    value = js_trim(raw_value) if raw_value is not None else None
    threshold = float(threshold_text) if threshold_text is not None else _THRESHOLD_DEFAULTS.get(kind)
    if kind not in _SUPPORTED_ASSERTIONS:
        if raw_value is not None or threshold_text is not None:
            raise InputError(
                f'Unsupported promptfoo __expected assertion "{kind}". Supported assertion types: '
                f"{', '.join(_SUPPORTED_ASSERTIONS)}",
                path,
                cell.start_line,
            )
        return {"type": "equals", "value": expected}
    if kind in ("latency", "cost") and threshold is None:
        raise InputError(
            f"promptfoo __expected {kind} assertion requires a numeric limit, e.g. {kind}(1)",
            path,
            cell.start_line,
        )
    assertion: dict[str, Any] = {"type": kind}
    if negate:
        assertion["negate"] = True
    if kind in _LISTED_ASSERTIONS:
        assertion["value"] = [js_trim(item) for item in value.split(",")] if value else []
    elif value is not None:
        assertion["value"] = value
    if threshold is not None:
        limit = {"latency": "threshold", "cost": "budget"}.get(kind, "min_score")
        assertion[limit] = _number(threshold)
    return assertion


def js_parse_float(text: str) -> float | None:
    """Number.parseFloat: the longest number at the start after whitespace, else None (NaN)."""
    match = _JS_FLOAT.match(js_trim(text))
    if match is None:
        return None
    found = match.group()
    if found.lstrip("+-") == "Infinity":
        return float("-inf") if found.startswith("-") else float("inf")
    return float(found)


def _number(value: float) -> int | float:
    """A JavaScript number as JSON would write it: 1, not 1.0."""
    return int(value) if value.is_integer() else value


def _node(value: Any, cell: Cell) -> Node:
    return Node(value, cell.start_line, cell.end_line, cell.start_line)


def _tree(value: Any, cell: Cell) -> Node:
    if isinstance(value, dict):
        return Node(
            {key: _tree(item, cell) for key, item in value.items()},
            cell.start_line,
            cell.end_line,
            cell.start_line,
        )
    if isinstance(value, list):
        return Node([_tree(item, cell) for item in value], cell.start_line, cell.end_line, cell.start_line)
    return _node(value, cell)
