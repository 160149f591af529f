"""agentv 5's eval files (tag v5.3.1-next.1): `prompts` filled from `tests[].vars`.

The steps follow `packages/core/src/evaluation/yaml-parser.ts` loadTestsFromParsedYamlValue at that
tag: refuse the v4 keys agentv 5 removed (with its messages), merge `default_test.vars` into each
test, expand every test once per prompt (ids `<id>__prompt_<prompt id>` when there are several),
expand array-valued vars into one test per combination, render the templates with the test's vars
(see nunjucks.py), then read each test as agentv 4 does (v4.py). What agentv 5 sends from there on
(buildPromptInputs, formatSegment, the providers) is unchanged since 4.42.4, so the agentv-4
renderer renders these cases.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..bundle import Bundle, fast_glob_paths, join, parent_folders
from ..fast_glob import GlobNotRead, has_magic
from ..js import js_json
from ..model import Diagnostic, InputError, LineSpan, OriginKind
from ..yaml_lines import Node
from .case_files import cases_of
from .nunjucks import Renderer, Where
from .pieces import Piece
from .scenarios import AT_TAG, NEWEST_COMMIT, lower_scenarios
from .schema import CaseSpec, Suite
from .v4 import (
    _case,
    _env_warning,
    _is_message,
    _Loader,
    _open,
    _path_of,
    _refuse_bad_graph,
    _text,
    note_undecodable,
)

_ENV_OUTPUT = re.compile(r"\{\{\s*env\.([\s\S]*?)\}\}")
_WHOLE_ENV = re.compile(r"^\s*\{\{\s*env\.[\s\S]*?\}\}\s*$")
_REPLACE_HINT = (
    "Put prompt text or chat/system/user messages in top-level 'prompts' and put "
    "row-specific data in tests[].vars."
)
_EXPECTED_HINT = (
    "and consume it with an explicit assertion such as { type: 'llm-rubric', value: "
    "'Matches the reference answer: {{ expected_output }}' }."
)


@dataclass(slots=True)
class Prompt:
    """parsePromptDefinition: an id for the expanded test ids and the template to render."""

    id: str
    template: Node | None
    unsupported: str | None = None  # why the inspector cannot produce this prompt's text


class NewerRules(Protocol):
    """What a later agentv (v5_next.py) reads differently from the tag: keys it refuses, and
    which judge each test's graders ask."""

    def refuse(self, root: Node, default_test: Node | None, default_path: str, path: str) -> None: ...

    def mark(self, case: CaseSpec, test: Node, default_test: Node | None, root: Node) -> None: ...


def read_suite_v5(bundle: Bundle, path: str, newer: NewerRules | None = None) -> Suite:
    """`newer`: what agentv's newest commit (58f316ca2, v5_next.py) reads differently; with it, CSV
    files and `scenarios` are read as that commit reads them too (scenario files and globs,
    `provider_output` refused)."""
    loader, text, jsonl_suite = _open(bundle, path)
    if jsonl_suite is not None:
        return jsonl_suite
    root = _suite_root(loader, path, text)
    default_test, default_path = _checked_root(loader, root, path, newer)
    items = _test_items(loader, root, newer is not None)
    rules = NEWEST_COMMIT if newer is not None else AT_TAG
    items += lower_scenarios(loader, root.get("scenarios"), _env_of(loader), rules)
    prompts = _prompts(loader, root)
    if prompts is not None and root.get("input_files") is not None:
        raise InputError(
            "Top-level 'input' and 'input_files' cannot be combined with 'prompts'.",
            path,
            root.value["input_files"].start_line,
        )
    default_vars = _default_vars(default_test)
    graders = (_root_graders(root, default_test), _rubric_prompt(root))

    cases: list[CaseSpec] = []
    seen: dict[str, int] = {}
    for item, item_path in items:
        item = _merge_default_vars(item, item_path, default_vars, default_path)
        for expanded, prompt, notes in _expand_prompts(item, prompts, item_path):
            variants = _split_list_vars(loader, item, expanded, prompt, notes, item_path, len(cases))
            for variant, variant_notes in variants:
                case = _render_case(loader, variant, item_path, len(cases), root, seen, prompt, graders)
                case.warnings[:0] = variant_notes
                if newer is not None:
                    newer.mark(case, variant, default_test, root)
                cases.append(case)
    _refuse_bad_graph(cases, loader)
    note_undecodable(cases, loader)
    _env_warning(loader, "{{ env.NAME }}")
    metadata = {key: node.plain() for key, node in root.value.items() if key != "tests"}
    return Suite(path, cases, loader.warnings, metadata)


def _checked_root(
    loader: _Loader, root: Node, path: str, newer: NewerRules | None
) -> tuple[Node | None, str]:
    """The keys agentv refuses, in its order, and the suite's `default_test` with its file."""
    _refuse_removed_keys(root, path)
    default_test, default_path = _default_test(loader, root)
    if newer is not None:
        newer.refuse(root, default_test, default_path, path)
    _refuse_aliases(root, path)
    if root.get("nunjucks_filters") is not None:
        loader.warnings.append(_filters_not_run(root.value["nunjucks_filters"], path))
    return default_test, default_path


def _root_graders(root: Node, default_test: Node | None) -> Node | None:
    has_root_graders = root.get("assert") is not None or (
        default_test is not None and default_test.get("assert") is not None
    )
    return _suite_graders(root, default_test) if has_root_graders else None


def _filters_not_run(filters: Node, path: str) -> Diagnostic:
    """yaml-parser.ts loadNunjucksFilters imports each file as a filter: code, not run here."""
    names = ", ".join(f"`{name}`" for name in filters.value) if isinstance(filters.value, dict) else ""
    listed = f" ({names})" if names else ""
    return Diagnostic(
        f"`nunjucks_filters`{listed} are JavaScript files agentv imports and runs as template "
        "filters; the inspector does not run them, so a template using one cannot be rendered",
        path,
        filters.start_line,
    )


def _suite_root(loader: _Loader, path: str, text: str) -> Node:
    """The suite's mapping, its `{{ env.NAME }}` rendered."""
    root = loader.yaml(path, text)
    if root is not None:
        root = _interpolate_env(root, loader.env_used)
    if root is None or not isinstance(root.value, dict):
        raise InputError(
            f"Invalid test file format: {path}", path, root.start_line if root is not None else 1
        )
    return root


def _refuse_aliases(root: Node, path: str) -> None:
    for alias in ("eval_cases", "evalcases"):
        if alias in root.value:
            raise InputError(
                f"Invalid eval file {path}: Top-level '{alias}' has been removed from "
                f"authored eval YAML. Use 'tests' instead.",
                path,
                root.value[alias].start_line,
            )


def _default_vars(default_test: Node | None) -> Node | None:
    default_vars = default_test.get("vars") if default_test is not None else None
    if default_vars is not None and not isinstance(default_vars.value, dict):
        return None
    return default_vars


def _split_list_vars(
    loader: _Loader,
    item: Node,
    expanded: Node,
    prompt: Prompt | None,
    notes: list[Diagnostic],
    item_path: str,
    index: int,
) -> list[tuple[Node, list[Diagnostic]]]:
    """One test per value of each list var (expandArrayVars), each with the notes it carries;
    `index` is the number of tests made before."""
    variants, listed = _expand_array_vars(expanded)
    if not variants:
        loader.warnings.append(
            Diagnostic(
                f"test {_text(item.get('id')) or f'#{index + 1}'!r} has a var holding an "
                f"empty list; agentv expands it into no tests at all",
                item_path,
                item.start_line,
            )
        )
    if listed and prompt is not None and prompt.template is not None:
        names = ", ".join(f"`{name}`" for name in listed)
        notes = [
            *notes,
            Diagnostic(
                f"agentv renders the prompt before it splits list vars into tests, so "
                f"{names} prints as the whole list (joined with commas) in every one of them",
                item_path,
                item.start_line,
            ),
        ]
    return [(variant, notes) for variant in variants]


# ---- refusals ---------------------------------------------------------------------------------


# agentv 5's refusals of keys it removed, in the order it checks them; the first found stops the
# file. A root key is asked of the suite, a test key of every entry of `tests` ({number} its index).
_REMOVED_KEYS: tuple[tuple[str, str, str], ...] = (
    (
        "root",
        "workers",
        "workers has been removed from eval YAML. Set authored eval concurrency "
        "with evaluate_options.max_concurrency.",
    ),
    (
        "root",
        "input",
        "Top-level 'input' has been removed from authored eval YAML. Author prompt "
        "text or chat messages in top-level 'prompts' and put shared data in default_test.vars or "
        "per-row data in tests[].vars.",
    ),
    ("test", "input", "tests[{number}].input has been removed from authored eval YAML. " + _REPLACE_HINT),
    (
        "root",
        "expected_output",
        "Top-level 'expected_output' has been removed from authored eval "
        "YAML. Put reference answers in default_test.vars.expected_output or "
        "tests[].vars.expected_output " + _EXPECTED_HINT,
    ),
    (
        "default_test",
        "expected_output",
        "default_test.expected_output has been removed from "
        "authored eval YAML. Put shared reference answers in default_test.vars.expected_output "
        + _EXPECTED_HINT,
    ),
    (
        "test",
        "expected_output",
        "tests[{number}].expected_output has been removed from authored "
        "eval YAML. Put the reference answer in tests[].vars.expected_output " + _EXPECTED_HINT,
    ),
    (
        "root",
        "imports",
        "Top-level 'imports' is not supported. Run eval files directly with CLI "
        "multi-file selection and tags for grouping.",
    ),
    (
        "root",
        "preprocessors",
        "preprocessors has been removed from authored eval YAML. Use "
        "default_test.options.transform or assertion-level transform instead.",
    ),
    (
        "test options",
        "postprocess",
        "tests[{number}].options.postprocess has been removed. Use "
        "tests[{number}].options.transform instead.",
    ),
)


def _refuse_removed_keys(root: Node, path: str) -> None:
    """rejectAuthoredWorkers, rejectAuthoredDirectInput, rejectAuthoredExpectedOutput,
    rejectTopLevelImports and rejectAuthoredPostprocess, with agentv 5's messages."""
    tests = root.get("tests")
    entries = tests.value if tests is not None and isinstance(tests.value, list) else []
    for where, key, message in _REMOVED_KEYS:
        for number, holder in _key_holders(root, entries, where):
            if holder is not None and holder.get(key) is not None:
                raise InputError(message.replace("{number}", str(number)), path, holder.value[key].start_line)


def _key_holders(root: Node, entries: list[Node], where: str) -> list[tuple[int, Node | None]]:
    """The mappings a removed key is looked for in (each with its test's index)."""
    if where == "root":
        return [(0, root)]
    if where == "default_test":
        return [(0, root.get("default_test"))]
    tests = [(number, entry) for number, entry in enumerate(entries) if isinstance(entry.value, dict)]
    if where == "test":
        return list(tests)
    return [(number, entry.get("options")) for number, entry in tests]


# ---- env, default_test, tests -----------------------------------------------------------------


def _interpolate_env(node: Node, used: set[str]) -> Node:
    """interpolateEnv with an empty environment: `{{ env.NAME }}` renders as nothing, the way
    nunjucks prints an unset variable; text holding `${{` is left alone, as agentv leaves it."""
    value = node.value
    if isinstance(value, str):
        if "${{" in value or "env." not in value:
            return node
        names = [name.strip().split("|")[0].strip() for name in _ENV_OUTPUT.findall(value)]
        if not names:
            return node
        # AGENTV_REPO_ROOT is agentv's own (createEvalConfigEnv): the bundle's root, so "".
        used.update(name for name in names if name != "AGENTV_REPO_ROOT")
        rendered = "" if _WHOLE_ENV.match(value) else _ENV_OUTPUT.sub("", value)
        return Node(rendered, node.start_line, node.end_line, node.text_line)
    if isinstance(value, list):
        return Node(
            [_interpolate_env(item, used) for item in value], node.start_line, node.end_line, node.text_line
        )
    if isinstance(value, dict):
        return Node(
            {key: _interpolate_env(item, used) for key, item in value.items()},
            node.start_line,
            node.end_line,
            node.text_line,
        )
    return node


def _resolve(bundle: Bundle, eval_path: str, raw: str) -> tuple[str, str] | None:
    """file-resolver.ts resolveFileReference: (display path, bundle path), searched from the eval
    file's folder up to the root."""
    display = raw.lstrip("/\\") or raw
    if "\\" in display:
        return None
    for folder in parent_folders(eval_path):
        candidate = join(folder, display)
        if candidate is not None and bundle.read(candidate) is not None:
            return display, candidate
    return None


def _default_test(loader: _Loader, root: Node) -> tuple[Node | None, str]:
    """resolveDefaultTestValue: inline, or a `file://` YAML file."""
    node = root.get("default_test")
    if node is None or not isinstance(node.value, str):
        return (node if node is not None and isinstance(node.value, dict) else None), loader.path
    raw = node.value
    if raw.strip().startswith("ref://"):
        raise InputError(
            f"default_test is {raw.strip()!r}: agentv looks `ref://` names up in the `refs` of its "
            "config.yaml; the inspector does not resolve them (write the file:// reference it "
            "stands for)",
            loader.path,
            node.start_line,
        )
    if not raw.startswith("file://"):
        raise InputError(
            f"Invalid default_test reference '{raw}'. Use file://... or ref://name "
            f"that resolves to file://... .",
            loader.path,
            node.start_line,
        )
    found = _resolve(loader.bundle, loader.path, raw[len("file://") :])
    if found is None:
        raise InputError(
            f"default_test file not found: {raw[len('file://') :]}", loader.path, node.start_line
        )
    display, path = found
    text = loader.read(path) or ""
    loaded = loader.yaml(path, text)
    loaded = _interpolate_env(loaded, loader.env_used) if loaded is not None else None
    if loaded is None or not isinstance(loaded.value, dict):
        raise InputError(
            f"default_test file must contain a YAML object: {display}", loader.path, node.start_line
        )
    for key, problem in (
        ("description", "must not define description"),
        ("assertions", "must use assert, not assertions"),
    ):
        if key in loaded.value:
            raise InputError(f"default_test file {problem}: {display}", path, loaded.value[key].start_line)
    return loaded, path


def _test_items(loader: _Loader, root: Node, newest_commit: bool) -> list[tuple[Node, str]]:
    tests = root.get("tests")
    path = loader.path
    if tests is not None and isinstance(tests.value, str):
        return _shorthand_tests(loader, tests, newest_commit)
    if tests is None or not isinstance(tests.value, list):
        if root.get("scenarios") is not None:
            return []
        raise InputError(
            f"Invalid test file format: {path} - missing 'tests' field", path, (tests or root).start_line
        )
    items: list[tuple[Node, str]] = []
    for item in tests.value:
        if isinstance(item.value, str):
            items.extend(_referenced_tests(loader, item, newest_commit))
        elif isinstance(item.value, dict) and "include" in item.value:
            raise InputError(
                "`include` entries in `tests` are not read by the inspector; list the case files instead",
                path,
                item.start_line,
            )
        else:
            items.append((item, path))
    return items


def _referenced_tests(loader: _Loader, item: Node, newest_commit: bool) -> list[tuple[Node, str]]:
    """A `tests` entry naming a cases file (`file://…`: a file, or the files a glob names) or,
    bare, a shorthand (`_shorthand_tests`): its tests, each with the file it came from."""
    if not item.value.startswith("file://"):
        return _shorthand_tests(loader, item, newest_commit)
    env = _env_of(loader)
    # resolveFileReference: the reference as written (not trimmed); a glob is `*`, `?` or `{`
    reference = item.value.removeprefix("file://")
    if not any(char in reference for char in "*?{"):
        target = _tests_path(loader, item, reference)
        return cases_of(loader, target, item, env, folders=False, newest_commit=newest_commit)
    matches = agentv_glob(loader, item, _tests_path(loader, item, reference))
    if not matches:
        loader.warnings.append(
            Diagnostic(f"Glob pattern matched no files: {item.value}", loader.path, item.start_line)
        )
    return [
        found
        for match in matches
        for found in cases_of(loader, match, item, env, folders=False, newest_commit=newest_commit)
    ]


def agentv_glob(loader: _Loader, item: Node, pattern: str) -> list[str]:
    """The files fast-glob lists for a glob in `tests` or `scenarios` (fast_glob.py); a form
    the inspector does not reproduce refuses the file at the entry's line."""
    try:
        return fast_glob_paths(loader.bundle, pattern)
    except GlobNotRead as unread:
        raise InputError(
            f"this glob is not read by the inspector ({unread}): {item.value}", loader.path, item.start_line
        ) from None


def _shorthand_tests(loader: _Loader, item: Node, newest_commit: bool) -> list[tuple[Node, str]]:
    """loadRawCasesFromShorthand (`tests: <path>` or a bare entry; `file://` may lead): each
    file or folder it names, a glob's matches in name order; an eval file is refused."""
    raw = item.value.strip()
    reference = raw.removeprefix("file://")
    paths = [_tests_path(loader, item, reference)]
    if has_magic(reference):  # resolveIncludePaths' hasGlobMagic
        paths = agentv_glob(loader, item, paths[0])
    found: list[tuple[Node, str]] = []
    for path in paths:
        if re.search(r"\.eval\.ya?ml$", path, re.IGNORECASE):
            raise InputError(
                f"tests shorthand imports raw case files only. Use an include entry with type: suite "
                f"to import eval suites: {raw}",
                loader.path,
                item.start_line,
            )
        found += cases_of(loader, path, item, _env_of(loader), newest_commit=newest_commit)
    return found


def _tests_path(loader: _Loader, item: Node, reference: str) -> str:
    target = join(posixpath.dirname(loader.path), reference)
    if target is None:
        raise InputError(f"`tests` points outside the bundle: {item.value}", loader.path, item.start_line)
    return target


def _env_of(loader: _Loader) -> Callable[[Node], Node]:
    return lambda node: _interpolate_env(node, loader.env_used)


def _merge_default_vars(item: Node, item_path: str, default_vars: Node | None, default_path: str) -> Node:
    """mergeDefaultTestVarsIntoCases: the test's own vars win."""
    if not isinstance(item.value, dict):
        return item
    own = item.get("vars")
    if own is not None and not isinstance(own.value, dict):
        return item
    merged: dict[str, Node] = {}
    for source, path in ((default_vars, default_path), (own, item_path)):
        if source is None:
            continue
        for key, value in source.value.items():
            merged[key] = _traced(value, path)  # each var remembers its file
    if not merged:
        return item
    anchor = own or default_vars or item
    return Node(
        {**item.value, "vars": Node(merged, anchor.start_line, anchor.end_line, anchor.text_line)},
        item.start_line,
        item.end_line,
        item.text_line,
    )


# ---- prompts ----------------------------------------------------------------------------------


def _stable_id(value: Any) -> str:
    """stablePromptId: the first 12 hex digits of sha256(JSON.stringify(value))."""
    return hashlib.sha256(js_json(value, indent=None).encode()).hexdigest()[:12]


def _safe_id(value: str) -> str:
    """safePromptId."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", value.strip()).strip("-")
    return safe[:48] if safe else _stable_id(value)


def _is_chat(node: Node) -> bool:
    """isChatPromptArray."""
    return (
        isinstance(node.value, list)
        and bool(node.value)
        and all(isinstance(item.value, dict) and _is_message(item) for item in node.value)
    )


def _traced(
    node: Node, path: str, kind: OriginKind = OriginKind.CASE_TEXT, via: LineSpan | None = None
) -> Node:
    """The prompt with every string marked as written in `path`, so rendered text points there
    even when the test itself lives in another file."""
    value = node.value
    if isinstance(value, str):
        piece = Piece(value, kind, path, node.text_line, node.end_line, via=via)
        return Node(value, node.start_line, node.end_line, node.text_line, pieces=[piece])
    marker = [Piece("", kind, path, node.start_line, node.end_line, via=via)]
    if isinstance(value, list):
        return Node(
            [_traced(item, path, kind, via) for item in value],
            node.start_line,
            node.end_line,
            node.text_line,
            pieces=marker,
        )
    if isinstance(value, dict):
        return Node(
            {key: _traced(item, path, kind, via) for key, item in value.items()},
            node.start_line,
            node.end_line,
            node.text_line,
            pieces=marker,
        )
    return Node(value, node.start_line, node.end_line, node.text_line, pieces=marker)


def _prompts(loader: _Loader, root: Node) -> list[Prompt] | None:
    """parseSuitePrompts: one entry, a chat array, or a list of entries."""
    raw = root.get("prompts")
    if raw is None or raw.value is None:
        return None
    entries = raw.value if isinstance(raw.value, list) and not _is_chat(raw) else [raw]
    return [_prompt(loader, entry, index) for index, entry in enumerate(entries)]


def _prompt(loader: _Loader, entry: Node, index: int) -> Prompt:
    path = loader.path
    value = entry.value
    if isinstance(value, str):
        if value.startswith("file://"):
            return _file_prompt(loader, value, entry, None)
        return Prompt(f"prompt-{_stable_id(value)}", _traced(entry, path))
    if isinstance(value, list):
        if not _is_chat(entry):
            raise InputError(
                "Invalid prompts entry: arrays must be chat messages or a top-level list of prompt entries.",
                path,
                entry.start_line,
            )
        return Prompt(f"chat-{_stable_id(entry.plain())}", _traced(entry, path))
    if not isinstance(value, dict):
        raise InputError(
            f"Invalid prompts[{index}]: expected string, chat array, or object.", path, entry.start_line
        )
    explicit = (_text(entry.get("id")) or "").strip() or None
    for key in ("function_file", "function", "command"):
        if key in value:
            runs = js_json(value[key].plain(), indent=None)
            return Prompt(
                explicit or f"function-{_stable_id(value[key].plain())}",
                None,
                unsupported=f"prompts[{index}] is produced by running {key} {runs}; "
                f"the inspector does not run code, so it cannot show the "
                f"text",
            )
    # The first of these keys the object has says what the prompt is, as agentv asks them.
    for key, read in _PROMPT_OBJECT_KEYS:
        if key in value:
            return read(loader, entry, index, explicit)
    if _is_message(entry):
        chat = Node([entry], entry.start_line, entry.end_line, entry.text_line)
        return Prompt(explicit or f"chat-{_stable_id(entry.plain())}", _traced(chat, path))
    raise InputError(
        f"Invalid prompts[{index}]: expected prompt, messages, file, or function.", path, entry.start_line
    )


def _prompt_of_file(loader: _Loader, entry: Node, index: int, explicit: str | None) -> Prompt:
    reference = _text(entry.get("file"))
    if not reference:
        raise InputError(
            f"Invalid prompts[{index}].file: expected non-empty string.", loader.path, entry.start_line
        )
    return _file_prompt(loader, reference, entry, explicit)


def _prompt_of_messages(loader: _Loader, entry: Node, index: int, explicit: str | None) -> Prompt:
    messages = entry.value["messages"]
    if not _is_chat(messages):
        raise InputError(
            f"Invalid prompts[{index}].messages: expected chat message array.",
            loader.path,
            messages.start_line,
        )
    return Prompt(explicit or f"chat-{_stable_id(messages.plain())}", _traced(messages, loader.path))


def _prompt_of_prompt(loader: _Loader, entry: Node, index: int, explicit: str | None) -> Prompt:
    prompt = entry.value["prompt"]
    if not isinstance(prompt.value, str) and not _is_chat(prompt):
        raise InputError(
            f"Invalid prompts[{index}].prompt: expected string or chat message array.",
            loader.path,
            prompt.start_line,
        )
    kind = "chat" if isinstance(prompt.value, list) else "string"
    return Prompt(explicit or f"{kind}-{_stable_id(prompt.plain())}", _traced(prompt, loader.path))


def _prompt_of_raw(loader: _Loader, entry: Node, index: int, explicit: str | None) -> Prompt:
    raw_node = entry.value["raw"]
    raw = _text(raw_node)
    if not raw:
        raise InputError(
            f"Invalid prompts[{index}].raw: expected non-empty string.", loader.path, raw_node.start_line
        )
    return Prompt(explicit or f"string-{_stable_id(raw)}", _traced(raw_node, loader.path))


_PROMPT_OBJECT_KEYS = (
    ("file", _prompt_of_file),
    ("messages", _prompt_of_messages),
    ("prompt", _prompt_of_prompt),
    ("raw", _prompt_of_raw),
)


def _file_prompt(loader: _Loader, reference: str, entry: Node, explicit: str | None) -> Prompt:
    """readPromptFile: the file's text (CRLF as LF) is the template."""
    raw = reference.removeprefix("file://")
    found = _resolve(loader.bundle, loader.path, raw)
    if found is None:
        raise InputError(f"Prompt file not found: {raw.lstrip('/')}", loader.path, entry.start_line)
    display, path = found
    text = loader.read(path) or ""
    lines = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    via = LineSpan(loader.path, entry.start_line, entry.end_line)
    template = _traced(Node(text, 1, lines, 1), path, OriginKind.FILE, via)
    return Prompt(explicit or display, template)


# ---- expansion --------------------------------------------------------------------------------


def _expand_prompts(
    item: Node, prompts: list[Prompt] | None, path: str
) -> list[tuple[Node, Prompt | None, list[Diagnostic]]]:
    """expandPromptMatrix: each test once per prompt; its own `input` becomes vars.input."""
    if prompts is None or not isinstance(item.value, dict):
        return [(item, None, [])]
    fields = _input_as_var(dict(item.value))
    several = len(prompts) > 1
    expanded: list[tuple[Node, Prompt | None, list[Diagnostic]]] = []
    for prompt in prompts:
        copy: dict[str, Node | None] = dict(_prompt_ids(fields, _safe_id(prompt.id)) if several else fields)
        notes: list[Diagnostic] = []
        if prompt.template is not None:
            copy["input"], notes = _prompt_input(prompt.template, fields.get("vars"), path)
        expanded.append((Node(copy, item.start_line, item.end_line, item.text_line), prompt, notes))
    return expanded


def _input_as_var(fields: dict[str, Node]) -> dict[str, Node]:
    """A test's own `input` moves into its vars as `input` (its input_files go)."""
    if "input" not in fields:
        return fields
    own = fields.pop("input")
    fields.pop("input_files", None)
    variables = fields.get("vars")
    merged = dict(variables.value) if variables is not None and isinstance(variables.value, dict) else {}
    merged["input"] = own
    anchor = variables or own
    fields["vars"] = Node(merged, anchor.start_line, anchor.end_line, anchor.text_line)
    return fields


def _prompt_ids(fields: dict[str, Node], prompt_id: str) -> dict[str, Node]:
    """With several prompts, a test's id and the ids it depends on gain `__prompt_<id>`."""
    copy = dict(fields)
    source_id = _text(fields.get("id"))
    if source_id:
        node = fields["id"]
        copy["id"] = Node(f"{source_id}__prompt_{prompt_id}", node.start_line, node.end_line, node.text_line)
    depends = fields.get("depends_on")
    if depends is not None and isinstance(depends.value, list):
        copy["depends_on"] = Node(
            [
                Node(f"{dep.value}__prompt_{prompt_id}", dep.start_line, dep.end_line, dep.text_line)
                if isinstance(dep.value, str)
                else dep
                for dep in depends.value
            ],
            depends.start_line,
            depends.end_line,
            depends.text_line,
        )
    return copy


def _prompt_input(template: Node, variables: Node | None, path: str) -> tuple[Node | None, list[Diagnostic]]:
    """renderPromptInput renders the prompt with the test's vars (a test without vars keeps
    the template as written); interpolateRawEvalCase renders the result once more."""
    if variables is None or not isinstance(variables.value, dict):
        return template, []
    renderer = Renderer(variables, _origins_for(variables, path))
    return renderer.node(template, path), renderer.warnings


def _expand_array_vars(item: Node) -> tuple[list[Node], list[str]]:
    """expandArrayVarCases: a var holding a list of strings (or an empty list) gives one test per
    value; several such vars give every combination. Also returns the names of those vars."""
    variables = item.get("vars") if isinstance(item.value, dict) else None
    if variables is None or not isinstance(variables.value, dict):
        return [item], []
    combinations: list[dict[str, Node]] = [{}]
    listed: list[str] = []
    for key, value in variables.value.items():
        values = value.value
        if isinstance(values, list) and (not values or isinstance(values[0].value, str)):
            choices = list(values)
            listed.append(key)  # even one value: the var becomes that string, not the list
        else:
            choices = [value]
        combinations = [{**combination, key: choice} for combination in combinations for choice in choices]
    if not listed:
        return [item], []
    return [
        Node(
            {
                **item.value,
                "vars": Node(combination, variables.start_line, variables.end_line, variables.text_line),
            },
            item.start_line,
            item.end_line,
            item.text_line,
        )
        for combination in combinations
    ], listed


# ---- one test ---------------------------------------------------------------------------------


def _suite_graders(root: Node, default_test: Node | None) -> Node:
    """yaml-parser.ts combineInheritedAssertions: `default_test.assert`, then the suite's."""
    items: list[Node] = []
    for found in (default_test.get("assert") if default_test is not None else None, root.get("assert")):
        if found is not None:
            items.extend(found.value if isinstance(found.value, list) else [found])
    return Node(items, root.start_line, root.end_line, root.text_line)


def _rubric_prompt(root: Node) -> Node | None:
    """config-loader.ts extractDefaultTestRubricPrompt: an inline default_test's
    `options.rubric_prompt` (text, a list or an object), every llm-rubric's default prompt."""
    default_test = root.get("default_test")
    options = default_test.get("options") if default_test is not None else None
    found = options.get("rubric_prompt") if options is not None else None
    return found if found is not None and isinstance(found.value, str | list | dict) else None


def _render_case(
    loader: _Loader,
    item: Node,
    path: str,
    index: int,
    root: Node,
    seen: dict[str, int],
    prompt: Prompt | None,
    graders: tuple[Node | None, Node | None],
) -> CaseSpec:
    """One test; `graders`: the suite's grader list and llm-rubric's default prompt."""
    suite_graders, rubric_prompt = graders
    if not isinstance(item.value, dict):
        return _case(loader, item, path, index, None, None, seen, generation=5)
    if prompt is not None and prompt.unsupported:
        case_id = _text(item.get("id")) or f"#{index + 1}"
        return CaseSpec(
            case_id,
            path,
            item.start_line,
            item.end_line,
            [],
            {"prompt": prompt.id},
            skipped=prompt.unsupported,
            warnings=[Diagnostic(prompt.unsupported, loader.path, item.start_line)],
        )
    variables = item.get("vars")
    renderer = None
    if variables is not None and isinstance(variables.value, dict):
        renderer = Renderer(variables, _origins_for(variables, path))
        rendered_id = renderer.node(item.get("id"), path)
        if rendered_id is not None:
            item = Node({**item.value, "id": rendered_id}, item.start_line, item.end_line, item.text_line)

    fallback: list[Node | None] = [None]

    def interpolate(node: Node | None, _variables: Node | None) -> Node | None:
        if renderer is None or (node is not None and node is fallback[0]):
            return node  # PROMPT.md is read after the test's fields are rendered, as it is
        return renderer.node(node, path)

    if prompt is None and item.get("input") is None:
        item = _prompt_md(loader, item, root, interpolate)
        fallback[0] = item.get("input")
    case = _case(
        loader,
        item,
        path,
        index,
        None,
        root.get("input_files"),
        seen,
        interpolate=interpolate,
        generation=5,
        root_graders=suite_graders is not None,
        suite_graders=suite_graders,
        rubric_prompt=rubric_prompt,
    )
    if renderer is not None:
        case.warnings.extend(renderer.warnings)
    if prompt is not None:
        case.metadata["prompt"] = prompt.id
    return case


def _origins_for(variables: Node, path: str) -> dict[str, Where]:
    """Where each var is written: the file its node carries (a default_test file's vars carry
    theirs), else the test's."""
    return {
        key: Where(_path_of(value, path), value.text_line, value.end_line)
        for key, value in variables.value.items()
    }


def _prompt_md(loader: _Loader, item: Node, root: Node, interpolate: Any) -> Node:
    """loadPromptMdFallback: a test without input takes PROMPT.md from its input_files (or the
    suite's), else the PROMPT.md beside the eval file."""
    own_files = interpolate(item.get("input_files"), None)
    source = _listed_files(own_files, interpolate(root.get("input_files"), None))
    entry = next(
        (
            node
            for node in (source.value if source is not None else [])
            if isinstance(node.value, str) and re.split(r"[\\/]", node.value)[-1] == "PROMPT.md"
        ),
        None,
    )
    path = _prompt_md_path(loader, entry)
    text = loader.read(path) if path is not None else None  # the readers' size check included
    if path is None or text is None:
        return item
    via = LineSpan(loader.path, entry.start_line, entry.end_line) if entry is not None else None
    lines = max(1, text.count("\n") + 1)
    prompt = Node(
        text,
        item.start_line,
        item.start_line,
        item.start_line,
        pieces=[Piece(text, OriginKind.FILE, path, 1, lines, via=via)],
    )
    fields = dict(item.value)
    fields["input"] = prompt
    if entry is not None and source is own_files:
        assert source is not None
        # The test's own input_files lose the PROMPT.md it became the input.
        rest = [node for node in source.value if node is not entry]
        if rest:
            fields["input_files"] = Node(rest, source.start_line, source.end_line, source.text_line)
        else:
            fields.pop("input_files", None)
    return Node(fields, item.start_line, item.end_line, item.text_line)


def _listed_files(own_files: Node | None, suite_files: Node | None) -> Node | None:
    """The test's input_files list, else the suite's."""
    if own_files is not None and isinstance(own_files.value, list):
        return own_files
    if suite_files is not None and isinstance(suite_files.value, list):
        return suite_files
    return None


def _prompt_md_path(loader: _Loader, entry: Node | None) -> str | None:
    """The PROMPT.md listed (None when it is not in the bundle), else the one beside the file."""
    if entry is None:
        return posixpath.join(posixpath.dirname(loader.path), "PROMPT.md")
    found = _resolve(loader.bundle, loader.path, entry.value)
    return found[1] if found is not None else None
