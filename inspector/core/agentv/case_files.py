"""The files agentv 5 reads tests from: `tests: <path>`, and string entries of a `tests` list.

agentv 5.3.1-next.1 (`yaml-parser.ts` loadRawCasesForInclude, `case-file-loader.ts`
loadCasesFromFile) reads YAML and JSONL cases files as agentv 4 does (v4.py), and adds JSON files
(`parseJsonCases`: a list of tests or `{tests: [...]}`), CSV files with promptfoo's columns
(case_csv.py) and folders of `case.yaml` files (test_folders.py). A folder is read where agentv
reads one: `tests: <folder>` and bare string entries; a `file://` entry of a `tests` list names a
file only. agentv's newest commit (58f316ca2) reads them the same way.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from typing import Any

from ..js import js_trim
from ..model import Diagnostic, InputError
from ..yaml_lines import Node, check_size, from_plain
from .case_csv import read_csv_cases
from .test_folders import folder_cases, is_folder
from .v4 import _cases_file, _Loader

_CODE = (".js", ".mjs", ".cjs", ".py")
_READ_AS_AGENTV_4 = (".yaml", ".yml", ".jsonl")

Env = Callable[[Node], Node]


def cases_of(
    loader: _Loader, path: str, reference: Node, env: Env, folders: bool = True, newest_commit: bool = False
) -> list[tuple[Node, str]]:
    """The cases `path` holds, each with the file it is written in; `env` renders a YAML or
    JSONL case's `{{ env.NAME }}` (agentv renders none in a CSV file); `newest_commit` reads CSV
    files as agentv's newest commit does (case_csv.read_csv_cases)."""
    if is_folder(loader.bundle, path):
        if not folders:
            raise InputError(
                f"Cannot read external test file: {path}\n  EISDIR: illegal operation on a directory, read",
                loader.path,
                reference.start_line,
            )
        return [(env(case), case_path) for case, case_path in folder_cases(loader, path, reference)]
    extension = posixpath.splitext(path)[1].lower()
    if extension in _CODE:
        raise InputError(
            f"tests from {path} are made by running code, which the inspector does not run",
            loader.path,
            reference.start_line,
        )
    if extension == ".csv":
        return [(case, path) for case in _csv_cases(loader, path, reference, newest_commit)]
    if extension not in _READ_AS_AGENTV_4 and loader.bundle.read(path) is not None:
        text = loader.read(path) or ""
        if not text.strip():
            return [(case, path) for case in _cases_file(loader, path, reference)]  # agentv's warning
        if extension == ".json":
            return [(env(case), path) for case in _json_cases(loader, path, text)]
        raise InputError(
            f"Unsupported external test file format '{extension}': {path}. Supported: .csv, .json, "
            f".jsonl, .yaml, .yml, .js, .mjs, .cjs, .py",
            loader.path,
            reference.start_line,
        )
    return [(env(case), path) for case in _cases_file(loader, path, reference)]


def _csv_cases(loader: _Loader, path: str, reference: Node, newest_commit: bool) -> list[Node]:
    data = loader.bundle.read(path)
    if data is None:
        raise InputError(f"Cannot read external test file: {path}", loader.path, reference.start_line)
    check_size(data, path)
    # Read as agentv reads it (readFile 'utf8'): CRLF and a byte-order mark stay for its CSV reader.
    text = data.decode("utf-8", errors="replace")
    if not js_trim(text):
        loader.warnings.append(
            Diagnostic(f"External test file is empty, skipping: {path}", loader.path, reference.start_line)
        )
        return []
    return read_csv_cases(text, path, newest_commit)


def _json_cases(loader: _Loader, path: str, text: str) -> list[Node]:
    """parseJsonCases: JSON.parse, then a list of test objects or an object with a `tests` list;
    every problem is reported as agentv wraps it ("Malformed JSON test file: ...")."""
    try:
        value = json.loads(text, parse_constant=_not_json)  # JSON.parse knows no NaN or Infinity
    except (json.JSONDecodeError, ValueError) as error:
        line, column = getattr(error, "lineno", 1), getattr(error, "colno", None)
        raise InputError(f"Malformed JSON test file: {error}\n  File: {path}", path, line, column) from None
    node = _json_node(loader, path, text, value)
    listed = node.get("tests") if isinstance(node.value, dict) else None
    cases = node if isinstance(node.value, list) else listed
    if cases is None or not isinstance(cases.value, list):
        raise InputError(
            f"Malformed JSON test file: External test file must contain an array of test objects: "
            f"{path}\n  File: {path}",
            path,
            node.start_line,
        )
    for index, case in enumerate(cases.value):
        if not isinstance(case.value, dict):
            raise InputError(
                f"Malformed JSON test file: External test file contains non-object entry at index "
                f"{index}: {path}\n  File: {path}",
                path,
                case.start_line,
            )
    return list(cases.value)


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not valid JSON")


def _json_node(loader: _Loader, path: str, text: str, value: Any) -> Node:
    """The parsed JSON with the lines each value is written on, read by the YAML reader (JSON is
    YAML); where that reader reads it otherwise (a repeated key, an escape YAML lacks), the value
    JSON.parse gives, every part on the first line."""
    try:
        node = loader.yaml(path, text)
    except InputError:
        node = None
    if node is None or node.plain() != value:
        return from_plain(value, 1)
    return node
