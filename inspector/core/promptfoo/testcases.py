"""The tests of a promptfoo config, in promptfoo's order (src/util/testCaseReader.ts readTests,
then the evaluator's scenarios and defaultTest merge), each var remembering where it is written:
the test's own line, the CSV row, the line in a tests file.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from ..agentv.nunjucks import Where
from ..model import InputError, OriginKind
from ..yaml_lines import Node
from .source import FILE_PREFIX, Source, is_file_reference, jsonl_trees

CODE_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".py")


@dataclass
class TestCase:
    vars: dict[str, Any]
    origins: dict[str, Where]
    path: str  # the file the test is written in
    line: int
    description: str | None = None
    asserts: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    prompts: list[str] | None = None
    providers: list[str] | None = None
    unsupported: list[str] = field(default_factory=list)
    conversation_id: Any = None  # metadata.conversationId


def read_tests(source: Source, node: Node | None) -> list[TestCase]:
    if node is None:
        return []
    value = node.value
    if isinstance(value, str):
        return _from_reference(source, value, node)
    if isinstance(value, dict) and isinstance(value.get("path"), Node):
        return _from_reference(source, str(value["path"].value), node)
    if not isinstance(value, list):
        return []
    tests: list[TestCase] = []
    for item in value:
        if isinstance(item.value, str):
            tests.extend(_from_reference(source, item.value, item))
        elif isinstance(item.value, dict) and "path" in item.value:
            tests.extend(_from_reference(source, str(item.plain()["path"]), item))
        else:
            tests.append(test_from_node(item, source.path))
    return tests


def _from_reference(source: Source, reference: str, node: Node) -> list[TestCase]:
    if reference.startswith("huggingface://"):
        source.warn(
            f"tests from {reference} are a Hugging Face dataset, fetched at run time: not shown",
            source.path,
            node.start_line,
        )
        return []
    bare = reference[len(FILE_PREFIX) :] if reference.startswith(FILE_PREFIX) else reference
    if bare.split(":")[0].endswith(CODE_SUFFIXES) or bare.endswith(CODE_SUFFIXES):
        source.warn(
            f"tests from {bare} are made by running code, which the inspector does not run: not shown",
            source.path,
            node.start_line,
        )
        return []
    if bare.endswith(".csv"):
        path, text = source.require_text(bare, node)
        return _csv_tests(path, text)
    full = source.resolve(bare)
    paths = source.glob(full, node.start_line) if full is not None else []
    if not paths:
        raise InputError(f"No test files found for path: {bare}", source.path, node.start_line)
    tests: list[TestCase] = []
    for path in paths:
        tests.extend(_file_tests(source, path))
    return tests


def _file_tests(source: Source, path: str) -> list[TestCase]:
    text = source.read_text(path) or ""
    if path.endswith(".csv"):
        return _csv_tests(path, text)
    if path.endswith(".jsonl"):
        return [test_from_node(tree, path) for tree in jsonl_trees(text)]
    if not path.endswith((".yaml", ".yml", ".json")):
        raise InputError(f"Unsupported file type for test file: {path}", path, 1)
    tree = source.tree(path, text)
    if tree is None:
        return []
    items = tree.value if isinstance(tree.value, list) else [tree]
    return [test_from_node(item, path) for item in items]


def test_from_node(node: Node, path: str) -> TestCase:
    if not isinstance(node.value, dict):
        raise InputError("a test must be an object", path, node.start_line)
    plain = node.plain()
    variables_node = node.get("vars")
    values: dict[str, Any] = {}
    origins: dict[str, Where] = {}
    test = TestCase(values, origins, path, node.start_line)
    if variables_node is not None and isinstance(variables_node.value, dict):
        for name, item in variables_node.value.items():
            values[name] = item.plain()
            origins[name] = Where(path, item.text_line, item.end_line)
    elif variables_node is not None:
        test.unsupported.append("vars read from a file (`vars: file://…`)")
    test.description = plain.get("description")
    test.asserts = _asserts(node.get("assert"), path)
    test.options = plain.get("options") if isinstance(plain.get("options"), dict) else {}
    test.prompts = plain.get("prompts") if isinstance(plain.get("prompts"), list) else None
    test.providers = plain.get("providers") if isinstance(plain.get("providers"), list) else None
    metadata = plain.get("metadata")
    test.conversation_id = metadata.get("conversationId") if isinstance(metadata, dict) else None
    # transformVars changes the vars, so the request; transform (and postprocess) only the answer.
    if test.options.get("transformVars"):
        test.unsupported.append("a vars transform (JavaScript or Python) the inspector does not run")
    return test


def _asserts(node: Node | None, path: str) -> list[dict[str, Any]]:
    if node is None or not isinstance(node.value, list):
        return []
    asserts = []
    for item in node.value:
        plain = item.plain()
        if isinstance(plain, dict):
            asserts.append({**plain, "__line": item.start_line, "__path": path})
    return asserts


def _csv_tests(path: str, text: str) -> list[TestCase]:
    """csvRowsToTestCases: each row a test, `__` columns its options, the others its vars."""
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text, newline=""))
    rows = list(reader)
    if not rows:
        return []
    header = [name.strip() for name in rows[0]]
    tests = []
    line = 1 + _line_count(rows[0])
    for index, row in enumerate(rows[1:], start=1):
        values: dict[str, Any] = {}
        origins: dict[str, Where] = {}
        test = TestCase(values, origins, path, line)
        for column, cell in zip(header, row, strict=False):
            _csv_cell(test, column, cell, path, line)
        test.description = test.description or f"Row #{index}"
        tests.append(test)
        line += _line_count(row)
    return tests


def _line_count(row: list[str]) -> int:
    return 1 + sum(cell.count("\n") for cell in row)


def _csv_cell(test: TestCase, column: str, cell: str, path: str, line: int) -> None:
    if column.startswith("__expected"):
        if cell.strip():
            test.asserts.append({**assertion_from_string(cell.strip()), "__line": line, "__path": path})
    elif column in ("__prefix", "__suffix"):
        test.options[column[2:]] = cell
    elif column == "__description":
        test.description = cell
    elif not column.startswith("__"):
        test.vars[column] = cell
        test.origins[column] = Where(path, line, line + cell.count("\n"), OriginKind.CASE_TEXT)


def assertion_from_string(expected: str) -> dict[str, Any]:
    """assertionFromString, for the model-graded types and the plain `equals`."""
    for prefix in ("grade:", "llm-rubric:"):
        if expected.startswith(prefix):
            return {"type": "llm-rubric", "value": expected[len(prefix) :]}  # kept untrimmed
    for prefix, kind in (
        ("model-graded-closedqa:", "model-graded-closedqa"),
        ("factuality:", "factuality"),
        ("g-eval:", "g-eval"),
        ("answer-relevance:", "answer-relevance"),
    ):
        if expected.startswith(prefix):
            return {"type": kind, "value": expected[len(prefix) :].strip()}
    return {"type": "other", "value": expected}


def read_default_test(source: Source, node: Node | None) -> TestCase | None:
    if node is None:
        return None
    if isinstance(node.value, str) and is_file_reference(node.value):
        path, text = source.require_text(node.value, node)
        tree = source.tree(path, text)
        return test_from_node(tree, path) if tree is not None else None
    return test_from_node(node, source.path)


def merge_default(test: TestCase, default: TestCase | None) -> TestCase:
    """prepareTestVariables and prepareTestCaseForEval: the default's vars under the test's, its
    assertions first, its options under the test's, its prompt and provider filters when the
    test has none."""
    if default is None:
        return test
    options = {**default.options, **test.options}
    asserts = (
        test.asserts
        if test.options.get("disableDefaultAsserts") is True
        else [*default.asserts, *test.asserts]
    )
    return TestCase(
        {**default.vars, **test.vars},
        {**default.origins, **test.origins},
        test.path,
        test.line,
        test.description,
        asserts,
        options,
        test.prompts if test.prompts is not None else default.prompts,
        test.providers if test.providers is not None else default.providers,
        [*default.unsupported, *test.unsupported],
        test.conversation_id if test.conversation_id is not None else default.conversation_id,
    )


def scenario_tests(source: Source, node: Node | None, default: TestCase | None) -> list[TestCase]:
    """buildScenarioTests: each scenario's config rows times its tests (defaultTest's vars
    under the row's under the test's)."""
    if node is None or not isinstance(node.value, list):
        return []
    tests: list[TestCase] = []
    scenario_index = 0
    for scenario in node.value:
        rows = scenario.get("config")
        scenario_tests_node = scenario.get("tests")
        if rows is None or not isinstance(rows.value, list):
            source.warn("a scenario without a `config` list is not read", source.path, scenario.start_line)
            continue
        inner = (
            [test_from_node(item, source.path) for item in scenario_tests_node.value]
            if scenario_tests_node is not None and isinstance(scenario_tests_node.value, list)
            else [TestCase({}, {}, source.path, scenario.start_line)]
        )
        for row in rows.value:
            data = test_from_node(row, source.path)
            scenario_index += 1
            for test in inner:
                merged = merge_default(merge_default(test, data), default)
                defaults = (
                    default.asserts
                    if default is not None and not merged.options.get("disableDefaultAsserts")
                    else []
                )
                merged.asserts = [*defaults, *data.asserts, *test.asserts]
                if merged.conversation_id is None:
                    merged.conversation_id = f"__scenario_{scenario_index - 1}__"
                tests.append(merged)
    return tests
