"""agentv 5's `scenarios`: each scenario's config rows times its tests, as plain tests.

Follows `lowerScenariosIntoTests` and `mergeScenarioTestRows` in
`packages/core/src/evaluation/yaml-parser.ts` at v5.3.1-next.1: a config row's vars, metadata,
options and run are merged under the test's, its assertions come before the test's, and the id is
the test's own, else the row's (`<row id>__scenario_test_<n>` when the scenario has several tests),
else `scenario-<s>-<c>-<t>`. The lowered tests are appended to `tests` before default_test's vars
are merged and prompts expanded. Each value keeps the lines it is written on, so a var from the
config row points at the row and one from the test at the test.

agentv's newest commit (58f316ca2, `loaders/scenario-file-loader.ts`) also reads `file://` entries
of `scenarios` (a YAML or JSON file holding a list of scenarios or `{scenarios: [...]}`, or a glob
of them) and refuses `provider_output` in scenario rows; `NEWEST_COMMIT` turns both on (the profile
for that commit passes it), `AT_TAG` is v5.3.1-next.1.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..bundle import Bundle, fast_glob_paths, join
from ..fast_glob import GlobNotRead
from ..js import js_trim
from ..model import Diagnostic, InputError
from ..yaml_lines import Node

_MERGED_OBJECTS = ("vars", "metadata", "options", "run")


@dataclass(frozen=True, slots=True)
class ScenarioRules:
    """What a profile's agentv reads in `scenarios`."""

    files: bool = False  # `file://` entries and globs (scenario-file-loader.ts)
    refuse_provider_output: bool = False


AT_TAG = ScenarioRules()
NEWEST_COMMIT = ScenarioRules(files=True, refuse_provider_output=True)


class _Loader(Protocol):
    bundle: Bundle
    path: str
    warnings: list[Diagnostic]

    def read(self, path: str) -> str | None: ...

    def yaml(self, path: str, text: str) -> Node | None: ...


def lower_scenarios(
    loader: _Loader,
    scenarios: Node | None,
    env: Callable[[Node], Node],
    rules: ScenarioRules = AT_TAG,
) -> list[tuple[Node, str]]:
    """The tests `scenarios` stands for, in agentv's order (scenario, config row, test), each with
    the file it is written in; `env` renders `{{ env.NAME }}` in a scenario file as agentv does
    when it loads one."""
    path = loader.path
    if scenarios is None:
        return []
    if not isinstance(scenarios.value, list):
        raise InputError(f"Invalid eval file {path}: scenarios must be an array.", path, scenarios.start_line)
    entries = (
        _with_files(loader, scenarios.value, env)
        if rules.files
        else [(scenario, path) for scenario in scenarios.value]
    )
    lowered: list[tuple[Node, str]] = []
    for scenario_index, (scenario, scenario_path) in enumerate(entries):
        where = f"scenarios[{scenario_index}]"
        if not isinstance(scenario.value, dict):
            raise InputError(
                f"Invalid eval file {path}: {where} must be an object.", path, scenario.start_line
            )
        rows, tests = scenario.get("config"), scenario.get("tests")
        for key, found in (("config", rows), ("tests", tests)):
            if found is None or not isinstance(found.value, list):
                raise InputError(
                    f"Invalid eval file {path}: {where}.{key} must be an array.",
                    path,
                    (found or scenario).start_line,
                )
        assert rows is not None and tests is not None
        for row_index, row in enumerate(rows.value):
            _check_row(row, f"{where}.config[{row_index}]", path, rules)
            for test_index, test in enumerate(tests.value):
                _check_row(test, f"{where}.tests[{test_index}]", path, rules)
                numbers = (scenario_index, row_index, test_index, len(tests.value))
                lowered.append((_merged(row, test, numbers), scenario_path))
    return lowered


def _check_row(row: Node, where: str, path: str, rules: ScenarioRules) -> None:
    """The object check and rejectRemovedScenarioRowFields, with agentv's messages."""
    if not isinstance(row.value, dict):
        raise InputError(f"Invalid eval file {path}: {where} must be an object.", path, row.start_line)
    hint = f"Use {where} fields directly."
    removed = {
        "eval_cases": f"{where}.eval_cases has been removed. {hint}",
        "evalcases": f"{where}.evalcases has been removed. {hint}",
        "provider_output": f"{where}.provider_output is not supported in authored AgentV YAML. Use an "
        f"explicit deterministic target such as provider: cli for fixed outputs, or use a "
        f"replay/fixture target for captured provider responses.",
        "input": f"{where}.input has been removed from authored eval YAML. Put prompt text or "
        f"chat/system/user messages in top-level 'prompts' and put row-specific data in {where}.vars.",
        "expected_output": f"{where}.expected_output has been removed from authored eval YAML. Put "
        f"the reference answer in {where}.vars.expected_output and consume it with an explicit "
        f"assertion such as {{ type: 'llm-rubric', value: 'Matches the reference answer: "
        f"{{{{ expected_output }}}}' }}.",
    }
    if not rules.refuse_provider_output:
        del removed["provider_output"]
    for key, message in removed.items():
        _refuse_key(row, key, message, path)
    _refuse_transforms(row, where, path, preprocessors=True)
    _refuse_transforms(row.get("options"), f"{where}.options", path, preprocessors=False)
    asserts = row.get("assert")
    if asserts is not None and isinstance(asserts.value, list):
        for index, assertion in enumerate(asserts.value):
            _refuse_transforms(assertion, f"{where}.assert[{index}]", path, preprocessors=True)


def _refuse_transforms(holder: Node | None, where: str, path: str, preprocessors: bool) -> None:
    """rejectPostprocess (and rejectPreprocessors) at `where`."""
    if holder is None or not isinstance(holder.value, dict):
        return
    _refuse_key(
        holder, "postprocess", f"{where}.postprocess has been removed. Use {where}.transform instead.", path
    )
    if preprocessors:
        _refuse_key(
            holder,
            "preprocessors",
            f"{where}.preprocessors has been removed from authored eval YAML. Use {where}.transform instead.",
            path,
        )


def _refuse_key(holder: Node, key: str, message: str, path: str) -> None:
    found = holder.get(key)
    if found is not None:  # agentv asks `!== undefined`: even a null value is refused
        raise InputError(message, path, found.start_line)


def _merged(row: Node, test: Node, numbers: tuple[int, int, int, int]) -> Node:
    """mergeScenarioTestRows: `{...row, ...test}`, the merged objects and assertions, the id."""
    fields: dict[str, Node] = {**row.value, **test.value}
    for key in _MERGED_OBJECTS:
        merged = _merged_object(row.get(key), test.get(key))
        if merged is not None:
            fields[key] = merged
    assertions = [
        item
        for found in (row.get("assert"), test.get("assert"))
        if found is not None
        for item in (found.value if isinstance(found.value, list) else [found])
    ]
    if assertions:
        anchor = test.get("assert") or row.value["assert"]
        fields["assert"] = Node(assertions, anchor.start_line, anchor.end_line, anchor.text_line)
    fields["id"] = _id(row, test, numbers)
    return Node(fields, test.start_line, test.end_line, test.text_line)


def _merged_object(first: Node | None, second: Node | None) -> Node | None:
    """mergeJsonObjectFields: the keys of both objects, the second's winning; None when empty."""
    merged: dict[str, Node] = {}
    for found in (first, second):
        if found is not None and isinstance(found.value, dict):
            merged.update(found.value)
    if not merged:
        return None
    anchor = next(found for found in (second, first) if found is not None and isinstance(found.value, dict))
    return Node(merged, anchor.start_line, anchor.end_line, anchor.text_line)


def _id(row: Node, test: Node, numbers: tuple[int, int, int, int]) -> Node:
    scenario_index, row_index, test_index, test_count = numbers
    for owner in (test, row):
        own = owner.get("id")
        if own is not None and isinstance(own.value, str) and js_trim(own.value):
            if owner is test or test_count == 1:
                return own
            return Node(
                f"{own.value}__scenario_test_{test_index + 1}", own.start_line, own.end_line, own.text_line
            )
    return Node(
        f"scenario-{scenario_index + 1}-{row_index + 1}-{test_index + 1}",
        test.start_line,
        test.start_line,
        test.start_line,
    )


# ---- scenario files (agentv's newest commit: scenario-file-loader.ts) -------------------------


def _with_files(loader: _Loader, entries: list[Node], env: Callable[[Node], Node]) -> list[tuple[Node, str]]:
    """expandScenarioReferences: each `file://` entry replaced by the scenarios it names."""
    expanded: list[tuple[Node, str]] = []
    for entry in entries:
        if isinstance(entry.value, str) and entry.value.startswith("file://"):
            expanded.extend(_referenced(loader, entry, env))
        else:
            expanded.append((entry, loader.path))
    return expanded


def _referenced(loader: _Loader, entry: Node, env: Callable[[Node], Node]) -> list[tuple[Node, str]]:
    """resolveScenarioFileReference: one file, or every file a glob matches (in name order)."""
    raw = entry.value[len("file://") :]
    target = join(posixpath.dirname(loader.path), raw)
    if target is None:
        raise InputError(
            f"`scenarios` entry points outside the bundle: {entry.value}", loader.path, entry.start_line
        )
    if not any(char in raw for char in "*?{"):
        return [(scenario, target) for scenario in _scenario_file(loader, target, entry, env)]
    try:
        matches = fast_glob_paths(loader.bundle, target)
    except GlobNotRead as unread:
        raise InputError(
            f"this glob is not read by the inspector ({unread}): {entry.value}", loader.path, entry.start_line
        ) from None
    if not matches:
        loader.warnings.append(
            Diagnostic(
                f"Glob pattern matched no scenario files: {entry.value}", loader.path, entry.start_line
            )
        )
    return [(scenario, match) for match in matches for scenario in _scenario_file(loader, match, entry, env)]


def _scenario_file(loader: _Loader, path: str, entry: Node, env: Callable[[Node], Node]) -> list[Node]:
    """loadScenariosFromFile: a list of scenarios, or an object with a `scenarios` list."""
    text = loader.read(path)
    if text is None:
        raise InputError(f"Cannot read external scenario file: {path}", loader.path, entry.start_line)
    if not js_trim(text):
        loader.warnings.append(
            Diagnostic(f"External scenario file is empty, skipping: {path}", loader.path, entry.start_line)
        )
        return []
    extension = posixpath.splitext(path)[1].lower()
    if extension not in (".yaml", ".yml", ".json"):
        raise InputError(
            f"Unsupported external scenario file format '{extension}': {path}. Supported: .json, .yaml, .yml",
            loader.path,
            entry.start_line,
        )
    # JSON is read by the YAML reader, which keeps its lines (agentv's JSON.parse is stricter).
    node = loader.yaml(path, text)
    node = env(node) if node is not None else None
    listed = node.get("scenarios") if node is not None else None
    scenarios = node if node is not None and isinstance(node.value, list) else listed
    if scenarios is None or not isinstance(scenarios.value, list):
        raise InputError(
            f"External scenario file must contain a scenario array or an object with a scenarios array: {path}",
            path,
            1,
        )
    for index, scenario in enumerate(scenarios.value):
        if not isinstance(scenario.value, dict):
            raise InputError(
                f"External scenario file contains non-object entry at index {index}: {path}",
                path,
                scenario.start_line,
            )
    return list(scenarios.value)
