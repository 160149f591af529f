"""`--profile auto`: which agentv generation an eval file is written for, and why.

The schemas barely overlap: agentv 5 files fill top-level `prompts` from `tests[].vars` (and refuse
`input` in inline tests), agentv 4 files write each test's `input` under `tests`, and the classic
files the seed describes use `evalcases` and `input_messages`. An agentv 5 file that uses what only
agentv's main after v5.3.1-next.1 accepts (`providers`, `defaults`, judges named with `provider`,
`agent-rubric`, `file://` scenario files) is read by that commit's profile.
"""

from __future__ import annotations

import re

from ..bundle import Bundle
from ..model import InputError
from ..safe_parse import LimitExceeded
from ..yaml_lines import Node, check_size, load_jsonl, load_yaml

_NEWER_SCHEMA_KEY = re.compile(r"^(?:tests|prompts|default_test)[ \t]*:", re.MULTILINE)
CLASSIC = ("spec", "the file uses the classic `evalcases`/`input_messages` schema")


def choose_profile(bundle: Bundle, path: str) -> tuple[str, str]:
    data = bundle.read(path)
    decoded = bundle.text(path)
    if data is None or decoded is None:
        return CLASSIC
    newer = False
    try:
        check_size(data, path)  # a file the readers refuse by size is never parsed to choose one
        if path.lower().endswith(".jsonl"):
            records = load_jsonl(decoded.text, path)
            return _for_records(records, "each line")
        # Read it the way the reader it will choose reads it (agentv 4 and 5: the `yaml` package's
        # YAML 1.2; the classic readers: PyYAML's 1.1), so that reader finds the tree already
        # parsed. Either way the keys this decision looks at come out the same.
        newer = bool(_NEWER_SCHEMA_KEY.search(decoded.text))
        root = load_yaml(decoded.text, path, agentv=newer)
    except LimitExceeded:
        raise
    except InputError:
        if newer:
            raise  # agentv 4 and 5 refuse it, where the classic reader might read it
        return ("spec", "the file cannot be read as YAML; the classic reader reports why")
    if root is None or not isinstance(root.value, dict):
        return CLASSIC
    keys = root.value
    for key in ("prompts", "default_test", "scenarios"):
        if key in keys:
            return _newest_or(keys, ("agentv-5", f"the file has top-level `{key}` (agentv 5's schema)"))
    if "tests" in keys:
        found = _for_tests(keys)
        return _newest_or(keys, found) if found[0] == "agentv-5" else found
    return _for_classic_keys(keys)


NEWEST = "agentv-5-next-58f316c"


def _newest_or(keys: dict[str, Node], tag: tuple[str, str]) -> tuple[str, str]:
    """An agentv 5 file that uses what only agentv's main after v5.3.1-next.1 accepts (the tag
    refuses top-level `providers` and `agent-rubric`, and ignores the rest) is read by it."""
    for key in ("providers", "defaults"):
        if key in keys:
            return (
                NEWEST,
                _promptfoo_too(keys, f"the file has top-level `{key}` (agentv's main after 5.3.1-next.1)"),
            )
    if _names_scenario_file(keys.get("scenarios")):
        # The tag refuses such an entry ("scenarios[0] must be an object"); agentv's own
        # examples/features/scenarios is written this way.
        return (
            NEWEST,
            "the file's `scenarios` name a scenario file with `file://` (agentv's main after 5.3.1-next.1)",
        )
    holders = [keys.get("default_test"), *_entries(keys.get("tests"))]
    for holder in holders:
        if holder is None or not isinstance(holder.value, dict):
            continue
        options = holder.value.get("options")
        if options is not None and isinstance(options.value, dict) and "provider" in options.value:
            return (
                NEWEST,
                "a test picks its judge with `options.provider` (agentv's main after 5.3.1-next.1)",
            )
    for grader in _assertions(keys, holders):
        kind = grader.value.get("type")
        if kind is not None and kind.value == "agent-rubric":
            return (NEWEST, "the file uses `agent-rubric` (agentv's main after 5.3.1-next.1)")
        if "provider" in grader.value:
            return (NEWEST, "an assertion names its judge with `provider` (agentv's main after 5.3.1-next.1)")
    return tag


def _assertions(keys: dict[str, Node], holders: list[Node | None]) -> list[Node]:
    lists = [keys.get("assert")] + [
        holder.value.get("assert")
        for holder in holders
        if holder is not None and isinstance(holder.value, dict)
    ]
    return [entry for found in lists for entry in _entries(found)]


def _for_tests(keys: dict[str, Node]) -> tuple[str, str]:
    """A file with `tests`: agentv 4 unless its tests fill a prompt from `vars` alone."""
    entries = _entries(keys.get("tests"))
    if _names_csv(keys["tests"]):
        return ("agentv-5", "the file's `tests` name a CSV file (agentv 5 reads them, agentv 4 does not)")
    if any("input" in entry.value for entry in entries) or "input" in keys:
        return ("agentv-4", "the file's `tests` carry `input` (agentv 4's schema)")
    if entries and any("vars" in entry.value for entry in entries):
        return ("agentv-5", "the file's tests have `vars` and no `input` (agentv 5's schema)")
    return ("agentv-4", "the file has `tests` (agentv 4's schema)")


def _for_classic_keys(keys: dict[str, Node]) -> tuple[str, str]:
    """`evalcases` (or `eval_cases`): agentv 4 when they carry `input`, else the classic schema."""
    for key in ("evalcases", "eval_cases"):
        cases = _entries(keys.get(key))
        if any("input_messages" in case.value for case in cases) or not cases:
            return CLASSIC
        if any("input" in case.value for case in cases):
            return ("agentv-4", f"the file's `{key}` carry `input` (agentv 4's schema)")
    return CLASSIC


def _names_csv(tests: Node) -> bool:
    named = tests.value if isinstance(tests.value, list) else [tests]
    return any(isinstance(item.value, str) and item.value.strip().lower().endswith(".csv") for item in named)


def _promptfoo_too(keys: dict[str, Node], reason: str) -> str:
    """promptfoo/detect.py left a file with promptfoo's three keys to agentv by its name or an
    agentv key: a promptfoo user (a config pasted under the paste box's `eval.yaml`) learns the way
    back."""
    if not all(shared in keys for shared in ("prompts", "providers", "tests")):
        return reason
    return (
        f"{reason}; promptfoo's config has its `prompts`, `providers` and `tests` too: read it as "
        "promptfoo to see what promptfoo sends"
    )


def _names_scenario_file(scenarios: Node | None) -> bool:
    named = scenarios.value if scenarios is not None and isinstance(scenarios.value, list) else []
    return any(isinstance(item.value, str) and item.value.startswith("file://") for item in named)


def _entries(node: Node | None) -> list[Node]:
    if node is None or not isinstance(node.value, list):
        return []
    return [item for item in node.value if isinstance(item.value, dict)]


def _for_records(records: list[Node], where: str) -> tuple[str, str]:
    cases = [record for record in records if isinstance(record.value, dict)]
    if any("input_messages" in case.value for case in cases) or not cases:
        return CLASSIC
    return ("agentv-4", f"{where} holds a test with `input` (agentv 4's schema)")
