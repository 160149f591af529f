"""agentv 4's loader, read the way agentv 4.42.4 reads an eval file.

Later agentv releases are stricter and more literal than the classic schema the other profiles read:
`tests` only take `input` (never `input_messages`), ids must be strings, a message that is not a
well-formed test message is dropped silently, `input_files` only combine with a string `input`,
`{{ var }}` and `${{ ENV }}` are substituted before anything else, and YAML is read as YAML 1.2 with
repeated keys refused. Each rule below names the function of agentv 4.42.4 it follows
(`packages/core/src/evaluation/...`).

The result is the same `Suite` of `CaseSpec`s the other readers produce, so provenance (every block
knows its file and lines) works the same way; blocks that agentv keeps but never renders are kept as
kind "opaque" so the page can say why they are not sent.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from msgspec import structs

from ..bundle import Bundle, decode, join
from ..js import js_json, js_json_value, js_number, js_trim, js_truthy
from ..model import Diagnostic, InputError
from ..yaml_lines import Node, check_size, from_plain, load_jsonl, load_yaml
from .case_graders import grader_skip
from .prepare import Context, resolve_reference
from .schema import (
    GRADER_KINDS,
    Block,
    CaseSpec,
    GradingNodes,
    InputMessage,
    Suite,
    case_graders,
    suite_graders,
)
from .test_folders import folder_cases, is_folder

ROLES = ("system", "user", "assistant", "tool")
INCOMPLETE = (
    "Missing required fields: id, input, and at least one of criteria/expected_output/assertions/turns"
)
INCOMPLETE_V5 = (
    "Missing required fields: id, input or PROMPT.md, and at least one of "
    "criteria/expected_output/assert/turns"
)
INCOMPLETE_JSONL = "Missing required fields: id, input, and at least one of criteria/expected_output/assert"

# interpolation.ts. JavaScript's `$` (no m flag) matches only at the very end, Python's also before
# a final newline: `\Z` is the JavaScript meaning.
_ENV = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_WHOLE_ENV = re.compile(r"^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\Z")
_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")
_WHOLE_VAR = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}\Z")


def _truthy(node: Node | None) -> bool:
    return node is not None and js_truthy(node.value)


def _text(node: Node | None) -> str | None:
    """agentv's asString: the value when it is a string, else nothing."""
    return node.value if node is not None and isinstance(node.value, str) else None


# ---- substitution -----------------------------------------------------------------------------


def _interpolate_env(node: Node, used: set[str]) -> Node:
    """interpolateEnv with an empty environment: the inspector has none, so every `${{ NAME }}`
    is what agentv sends when NAME is unset."""
    value = node.value
    if isinstance(value, str):
        if "${{" not in value:
            return node
        whole = _WHOLE_ENV.match(value)
        if whole:
            used.add(whole.group(1))
            return structs.replace(node, value="")  # coercePrimitive("") is ""

        def unset(match: re.Match[str]) -> str:
            used.add(match.group(1))
            return ""

        return structs.replace(node, value=_ENV.sub(unset, value))
    if isinstance(value, list):
        return _rebuilt(node, [_interpolate_env(item, used) for item in value])
    if isinstance(value, dict):
        return _rebuilt(node, {key: _interpolate_env(item, used) for key, item in value.items()})
    return node


def _rebuilt(node: Node, value: list[Any] | dict[str, Any]) -> Node:
    """The collection with these items: the node itself when every item is the one it had (trees
    are never changed in place), so a file without substitutions is not copied node by node."""
    before = node.value.values() if isinstance(value, dict) else node.value
    after = value.values() if isinstance(value, dict) else value
    if all(new is old for new, old in zip(after, before, strict=True)):
        return node
    return Node(value, node.start_line, node.end_line, node.text_line, node.pieces)


def _lookup(variables: Node, expression: str) -> Node | None:
    current: Node | None = variables
    for part in expression.split("."):
        if current is None or not isinstance(current.value, dict):
            return None
        current = current.value.get(part)
    return current


def _stringify(node: Node) -> str:
    if isinstance(node.value, str):
        return node.value
    plain = js_json_value(node.plain())
    if isinstance(plain, bool):
        return "true" if plain else "false"
    if plain is None:
        return "null"
    if isinstance(plain, (dict, list)):
        return js_json(plain, indent=None)
    if isinstance(plain, float):
        return js_number(plain)
    return str(plain)


def _interpolate_vars(node: Node | None, variables: Node | None) -> Node | None:
    """interpolateTemplateVars: a value that is only `{{ name }}` becomes the variable itself (any
    type); `{{ name }}` inside text becomes its text; unknown names stay as written."""
    if node is None or variables is None:
        return node
    value = node.value
    if isinstance(value, str):
        whole = _WHOLE_VAR.match(value)
        if whole:
            found = _lookup(variables, whole.group(1))
            return node if found is None else found
        if "{{" not in value:
            return node

        def substitute(match: re.Match[str]) -> str:
            found = _lookup(variables, match.group(1))
            return match.group(0) if found is None else _stringify(found)

        return structs.replace(node, value=_VAR.sub(substitute, value))
    if isinstance(value, list):
        return _rebuilt(node, [_interpolate_vars(item, variables) for item in value])
    if isinstance(value, dict):
        return _rebuilt(node, {key: _interpolate_vars(item, variables) for key, item in value.items()})
    return node


# ---- messages ---------------------------------------------------------------------------------


def _is_message(node: Node) -> bool:
    """types.ts isTestMessage."""
    fields = node.value
    if not isinstance(fields, dict):
        return False
    # Node.get is a Python call: the mapping's own get, now that it is known to be one (the
    # loader asks forty thousand times per thousand tests).
    role = _text(fields.get("role"))
    if role not in ROLES:
        return False
    content = fields.get("content")
    if content is not None:
        if isinstance(content.value, (str, dict)):
            return True
        if isinstance(content.value, list) and all(
            isinstance(item.value, (str, dict)) for item in content.value
        ):
            return True
    calls = fields.get("tool_calls")
    return calls is not None and isinstance(calls.value, list) and bool(calls.value)


def _expand_input(node: Node | None, json_chat: bool = False) -> list[Node] | None:
    """shorthand-expansion.ts expandInputShorthand: message nodes, or None when there is no input.
    A plain string or an object without `role` becomes one user message (a synthetic node); from
    agentv 5 on (json_chat), text that is a JSON array of messages is those messages."""
    if node is None or node.value is None:
        return None
    value = node.value
    if isinstance(value, str):
        parsed = _json_chat(node) if json_chat else None
        return parsed or [_synthetic_message("user", node)]
    if isinstance(value, dict):
        if "role" in value:
            return [node] if _is_message(node) else None
        return [_synthetic_message("user", node)]
    if isinstance(value, list):
        messages = [item for item in value if _is_message(item)]
        return messages or None
    return None


def _json_chat(node: Node) -> list[Node] | None:
    """parseChatArrayPrompt (agentv 5): every entry must be a message."""
    import json

    text = js_trim(node.value)
    if not text.startswith("["):
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, list) or not parsed:
        return None
    messages = [from_plain(item, node.start_line) for item in parsed]
    if not all(_is_message(message) for message in messages):
        return None
    return [_traced_like(message, node) for message in messages]


def _traced_like(message: Node, text: Node) -> Node:
    """A message parsed out of templated text: its strings point where that text came from."""
    where = text.pieces[0] if text.pieces and len(text.pieces) == 1 else None
    if where is None:
        return message

    def mark(node: Node) -> Node:
        if isinstance(node.value, str):
            return Node(
                node.value,
                node.start_line,
                node.end_line,
                node.text_line,
                pieces=[where.with_text(node.value, where.first_line)],
            )
        if isinstance(node.value, list):
            return Node([mark(item) for item in node.value], node.start_line, node.end_line, node.text_line)
        if isinstance(node.value, dict):
            return Node(
                {key: mark(item) for key, item in node.value.items()},
                node.start_line,
                node.end_line,
                node.text_line,
            )
        return node

    return mark(message)


def _expand_expected(node: Node | None) -> list[Node]:
    """expandExpectedOutputShorthand, reduced to whether there is any expected message."""
    if node is None or node.value is None:
        return []
    value = node.value
    if isinstance(value, str):
        return [node]
    if isinstance(value, list):
        if value and isinstance(value[0].value, dict) and "role" in value[0].value:
            return [item for item in value if _is_message(item)]
        return [node]
    if isinstance(value, dict):
        if "role" in value:
            return [node] if _is_message(node) else []
        return [node]
    return []


def _synthetic_message(role: str, content: Node) -> Node:
    role_node = Node(role, content.start_line, content.start_line, content.start_line)
    return Node(
        {"role": role_node, "content": content},
        content.start_line,
        content.end_line,
        content.start_line,
        pieces=_marker(content),
    )


def _marker(node: Node) -> list | None:
    """An empty piece naming the file a templated node was written in (agentv 5 only)."""
    if not node.pieces:
        return None
    return [node.pieces[0].with_text("", node.pieces[0].first_line)]


def _path_of(node: Node, default: str) -> str:
    """The file a node was written in: its own when agentv 5 moved it from a prompt or another
    file, else the file being read."""
    return node.pieces[0].path if node.pieces and node.pieces[0].path else default


def _input_files_message(files: Node, text: Node) -> Node | None:
    """expandInputFilesShorthand: file blocks first, then the text, in one user message."""
    if not isinstance(files.value, list):
        return None
    paths = [item for item in files.value if isinstance(item.value, str)]
    if not paths or not isinstance(text.value, str):
        return None
    blocks = []
    for item in paths:
        kind = Node("file", item.start_line, item.start_line, item.start_line)
        blocks.append(Node({"type": kind, "value": item}, item.start_line, item.end_line, item.start_line))
    kind = Node("text", text.start_line, text.start_line, text.start_line)
    blocks.append(Node({"type": kind, "value": text}, text.start_line, text.end_line, text.start_line))
    content = Node(blocks, files.start_line, max(files.end_line, text.end_line), files.start_line)
    return _synthetic_message("user", content)


def _blocks(content: Node, path: str) -> list[Block]:
    """message-processor.ts processMessages + input-message-utils.ts extractContentSegments."""
    value = content.value
    path = _path_of(content, path)
    if isinstance(value, str):
        if not value.strip():
            return []
        return [
            Block(
                "text",
                value,
                path,
                content.start_line,
                content.end_line,
                content.text_line,
                _pieces_of(content),
            )
        ]
    if isinstance(value, dict):
        text = js_json(content.plain())
        return [Block("json", text, path, content.start_line, content.end_line, content.start_line)]
    if not isinstance(value, list):
        return []
    return [block for block in (_item_block(item, path) for item in value) if block is not None]


def _item_block(item: Node, path: str) -> Block | None:
    """One entry of a content list: a string, or a typed block."""
    if isinstance(item.value, str):
        if not item.value:
            return None
        return Block(
            "text",
            item.value,
            _path_of(item, path),
            item.start_line,
            item.end_line,
            item.text_line,
            _pieces_of(item),
        )
    fields = item.value
    if not isinstance(fields, dict):
        return None
    kind = _text(fields.get("type"))
    value_node = fields.get("value")
    if kind in ("file", "image"):
        reference = _text(value_node)
        if not reference:
            return None
        assert value_node is not None
        return Block(
            kind,
            reference,
            _path_of(value_node, path),
            value_node.start_line,
            value_node.end_line,
            value_node.text_line,
        )
    if kind == "text" and value_node is not None and isinstance(value_node.value, str):
        return Block(
            "text",
            value_node.value,
            _path_of(value_node, path),
            value_node.start_line,
            value_node.end_line,
            value_node.text_line,
            _pieces_of(value_node),
        )
    # agentv keeps the block but formats it to nothing (formatSegment returns undefined).
    return Block(
        "opaque",
        f"type {kind!r}" if kind else "no type",
        _path_of(item, path),
        item.start_line,
        item.end_line,
        item.start_line,
    )


def _pieces_of(node: Node) -> list | None:
    """The origins of a templated string, when they still add up to its text."""
    if node.pieces and "".join(piece.text for piece in node.pieces) == node.value:
        return node.pieces
    return None


def _message(node: Node, path: str, suite: bool) -> InputMessage | None:
    path = _path_of(node, path)
    fields = node.value if isinstance(node.value, dict) else {}  # a message (see _is_message)
    role = _text(fields.get("role")) or "user"
    content = fields.get("content")
    if content is None or not isinstance(content.value, (str, dict, list)):
        return None  # processMessages drops a message whose content is neither
    return InputMessage(
        role, _blocks(content, path), path, node.start_line, node.end_line, suite=suite, raw_node=content
    )


# ---- the suite --------------------------------------------------------------------------------


class _Loader:
    def __init__(self, bundle: Bundle, path: str):
        self.bundle = bundle
        self.path = path
        self.warnings: list[Diagnostic] = []
        self.env_used: set[str] = set()
        # Files read with bytes that are not UTF-8, by path: their cases say so (see note_undecodable)
        self.undecodable: dict[str, Diagnostic] = {}

    def yaml(self, path: str, text: str) -> Node | None:
        data = self.bundle.read(path) or b""
        if data.startswith(b"\xef\xbb\xbf-"):
            # agentv's YAML reader (yaml 2.9) fails on a byte-order mark right before a top-level
            # `-`, though it skips one before anything else.
            raise InputError(
                "agentv cannot read this file: it starts with a byte-order mark "
                'followed by `-` (yaml 2.9 reports "Unexpected scalar at node '
                'end"); save it without the BOM',
                path,
                1,
                1,
            )
        return load_yaml(text, path, agentv=True)

    def read(self, path: str) -> str | None:
        data = self.bundle.read(path)
        if data is None:
            return None
        check_size(data, path)
        decoded = decode(data)
        if decoded.problem and path != self.path:  # the eval file's own is noted on its cases
            self.undecodable[path] = Diagnostic(f"the file {decoded.problem}", path, decoded.problem_line)
        return decoded.text

    def env(self, node: Node, text: str | None = None) -> Node:
        """The tree with `${{ NAME }}` substituted. Given the text it was read from, a text that
        cannot hold one is not walked: only a backslash escape in quotes could spell one out."""
        if text is not None and "${{" not in text and "\\" not in text:
            return node
        return _interpolate_env(node, self.env_used)

    def evaluator(self, node: Node | None, context: str, path: str | None = None) -> None:
        """grader-parser.ts coerceEvaluator: the retired *-judge names stop the whole file."""
        name = _text(node)
        if name is None:
            return
        normalized = name.replace("_", "-")
        if normalized in ("code-judge", "llm-judge"):
            raise InputError(
                f"Unsupported grader '{name}' in {context}. Use "
                f"'{normalized.replace('-judge', '-grader')}' instead.",
                path or self.path,
                node.start_line if node else None,
            )
        if normalized not in GRADER_KINDS:
            self.warnings.append(
                Diagnostic(
                    f"Unknown grader '{name}' in {context}, falling back to default",
                    path or self.path,
                    node.start_line if node else None,
                )
            )


def _open(bundle: Bundle, path: str) -> tuple[_Loader, str, Suite | None]:
    """The loader and the file's text; for a JSONL file (which agentv 4 and 5 read alike) the
    whole suite already."""
    loader = _Loader(bundle, path)
    text = loader.read(path)
    if text is None:
        raise InputError("file not found in the bundle", path)
    if path.lower().endswith(".jsonl"):
        return loader, text, _read_jsonl(loader, text)
    return loader, text, None


def read_suite_v4(bundle: Bundle, path: str) -> Suite:
    loader, text, jsonl_suite = _open(bundle, path)
    if jsonl_suite is not None:
        return jsonl_suite
    root = loader.yaml(path, text)
    root = loader.env(root, text) if root is not None else None
    if root is None or not isinstance(root.value, dict):
        raise InputError(
            f"Invalid test file format: {path} (agentv needs a mapping with `tests`)",
            path,
            root.start_line if root is not None else 1,
        )
    tests = root.get("tests")
    for legacy in ("eval_cases", "evalcases"):
        if tests is None and root.get(legacy) is not None:
            tests = root.value[legacy]
            loader.warnings.append(
                Diagnostic(f"'{legacy}' is deprecated. Use 'tests' instead.", path, tests.start_line)
            )
    loader.evaluator(root.get("evaluator"), "global")
    items = _test_items(loader, root, tests)
    suite_input = root.get("input")
    suite_files = root.get("input_files")
    cases: list[CaseSpec] = []
    seen: dict[str, int] = {}
    graders = suite_graders(root)
    for index, (item, item_path) in enumerate(items):
        cases.append(
            _case(loader, item, item_path, index, suite_input, suite_files, seen, suite_graders=graders)
        )
    metadata = {
        key: node.plain()
        for key, node in root.value.items()
        if key not in ("tests", "eval_cases", "evalcases")
    }
    _refuse_bad_graph(cases, loader)
    note_undecodable(cases, loader)
    _env_warning(loader)
    return Suite(path, cases, loader.warnings, metadata)


def note_undecodable(cases: list[CaseSpec], loader: _Loader) -> None:
    """A cases file read with replaced bytes is named on each case it holds; any other file so
    read (a default_test file, a prompt file) on the eval file."""
    for path, warning in loader.undecodable.items():
        holders = [case for case in cases if case.path == path]
        for case in holders:
            case.warnings.insert(0, warning)
        if not holders:
            loader.warnings.append(warning)


def _refuse_bad_graph(cases: list[CaseSpec], loader: _Loader) -> None:
    """orchestrator.ts validateDependencyGraph over the tests agentv loaded: a repeated id, a
    `depends_on` naming no test or the test itself, or a cycle stops the whole run. The cases stay
    visible, each marked with agentv's refusal."""
    reason = _graph_problem(_loaded(cases, loader))
    if reason is None:
        return
    loader.warnings.append(
        Diagnostic(f"agentv refuses the whole file ({reason})", loader.path, severity="error")
    )
    for case in cases:
        case.skipped = case.skipped or f"agentv refuses the whole file ({reason})"


def _loaded(cases: list[CaseSpec], loader: _Loader) -> list[CaseSpec]:
    """The tests agentv's loader keeps, which drops each test whose graders it cannot read too.
    The inspector reads graders as it renders them, and here only when they can matter to the
    graph: most files repeat no id and have no `depends_on`."""
    loaded = [case for case in cases if not case.skipped]
    if not _duplicate_id(loaded) and not any(_dependencies(case) for case in loaded):
        return loaded
    resolve = partial(resolve_reference, Context(loader.bundle, loader.path, (), None))
    return [case for case in loaded if grader_skip(case, resolve) is None]


def _graph_problem(loaded: list[CaseSpec]) -> str | None:
    depends = {case.id: found for case in loaded if (found := _dependencies(case))}
    # agentv checks in this order and reports the first problem only.
    return (
        _duplicate_id(loaded) or _unknown_dependency(depends, {case.id for case in loaded}) or _cycle(depends)
    )


def _dependencies(case: CaseSpec) -> list[str]:
    written = case.metadata.get("depends_on")
    return [dep for dep in written if isinstance(dep, str)] if isinstance(written, list) else []


def _duplicate_id(loaded: list[CaseSpec]) -> str | None:
    ids: set[str] = set()
    for case in loaded:
        if case.id in ids:
            return f"Duplicate test ID '{case.id}' — each test must have a unique ID"
        ids.add(case.id)
    return None


def _unknown_dependency(depends: dict[str, list[str]], ids: set[str]) -> str | None:
    """A `depends_on` naming no loaded test, or the test itself."""
    for case_id, deps in depends.items():
        for dep in deps:
            if dep not in ids:
                return f"Test '{case_id}' depends on '{dep}', but no test with that ID exists in this suite"
            if dep == case_id:
                return f"Test '{case_id}' depends on itself"
    return None


def _cycle(depends: dict[str, list[str]]) -> str | None:
    visited: set[str] = set()
    visiting: set[str] = set()

    def visit(node: str, path: list[str]) -> str | None:
        if node in visiting:
            cycle = [*path[path.index(node) :], node]
            return f"Circular dependency detected: {' → '.join(cycle)}"
        if node in visited:
            return None
        visiting.add(node)
        path.append(node)
        for dep in depends.get(node, []):
            found = visit(dep, path)
            if found:
                return found
        path.pop()
        visiting.discard(node)
        visited.add(node)
        return None

    for node in depends:
        found = visit(node, [])
        if found:
            return found
    return None


def _env_warning(loader: _Loader, syntax: str = "${{ NAME }}") -> None:
    if loader.env_used:
        names = ", ".join(sorted(loader.env_used))
        loader.warnings.append(
            Diagnostic(
                f"agentv fills {syntax} from its environment ({names}); the inspector has none, "
                f"so these render empty, as agentv sends them when the variables are unset",
                loader.path,
            )
        )


def _test_items(loader: _Loader, root: Node, tests: Node | None) -> list[tuple[Node, str]]:
    """yaml-parser.ts: `tests` inline (with file:// entries) or as a path to a cases file."""
    path = loader.path
    if tests is not None and isinstance(tests.value, str):
        return _tests_of_path(loader, tests)
    if tests is None or not isinstance(tests.value, list):
        raise InputError(
            f"Invalid test file format: {path} - missing 'tests' field", path, (tests or root).start_line
        )
    items: list[tuple[Node, str]] = []
    for item in tests.value:
        if isinstance(item.value, str) and item.value.startswith("file://"):
            reference = item.value[len("file://") :]
            if any(char in reference for char in "*?{"):
                raise InputError(
                    "file:// glob patterns in `tests` are not read by the inspector", path, item.start_line
                )
            target = join(posixpath.dirname(path), reference)
            if target is None:
                raise InputError(
                    f"`tests` entry points outside the bundle: {item.value}", path, item.start_line
                )
            items.extend((case, target) for case in _cases_file(loader, target, item))
        else:
            items.append((item, path))
    return items


def _tests_of_path(loader: _Loader, tests: Node) -> list[tuple[Node, str]]:
    """`tests: <path>`: a cases file, or a folder of case.yaml files (loadCasesFromDirectory)."""
    cases_path = join(posixpath.dirname(loader.path), tests.value)
    if cases_path is None:
        raise InputError(f"`tests` points outside the bundle: {tests.value}", loader.path, tests.start_line)
    if is_folder(loader.bundle, cases_path):
        found = folder_cases(loader, cases_path, tests, template_refused=False)
        return [(loader.env(item), case_path) for item, case_path in found]
    return [(item, cases_path) for item in _cases_file(loader, cases_path, tests)]


def _cases_file(loader: _Loader, path: str, reference: Node) -> list[Node]:
    """case-file-loader.ts loadCasesFromFile."""
    text = loader.read(path)
    if text is None:
        if any(name.startswith(path.rstrip("/") + "/") for name in loader.bundle.paths()):
            raise InputError(
                "`tests` names a folder of case.yaml files; the inspector reads `tests` files, not folders",
                loader.path,
                reference.start_line,
            )
        raise InputError(f"Cannot read external test file: {path}", loader.path, reference.start_line)
    if not text.strip():
        loader.warnings.append(
            Diagnostic(f"External test file is empty, skipping: {path}", loader.path, reference.start_line)
        )
        return []
    extension = posixpath.splitext(path)[1].lower()
    if extension in (".yaml", ".yml"):
        node = loader.yaml(path, text)
        node = loader.env(node, text) if node is not None else None
        if node is None or not isinstance(node.value, list):
            raise InputError(f"External test file must contain a YAML array: {path}", path, 1)
        for item in node.value:
            if not isinstance(item.value, dict):
                raise InputError(
                    f"External test file contains non-object entry: {path}", path, item.start_line
                )
        return list(node.value)
    if extension == ".jsonl":
        return [loader.env(record) for record in load_jsonl(text, path, "Malformed JSONL")]
    raise InputError(
        f"Unsupported external test file format '{extension}': {path}. Supported: .yaml, .yml, .jsonl",
        loader.path,
        reference.start_line,
    )


Interpolate = Callable[[Node | None, Node | None], Node | None]
METADATA_KEYS = (
    "criteria",
    "expected_outcome",
    "conversation_id",
    "execution",
    "assertions",
    "assert",
    "rubrics",
    "mode",
    "aggregation",
    "metadata",
    "workspace",
    "tags",
    "description",
    "vars",
    "window_size",
    "depends_on",
    "on_dependency_failure",
    "on_turn_failure",
    "evaluators",
    "suite",
)


@dataclass(frozen=True, slots=True)
class _Rules:
    """How one agentv generation reads a test. The JSONL loader knows no `vars`, no conversation
    mode and no `depends_on`; agentv 5 (see v5.py) renders fields with its own templates, reads a
    JSON chat array given as text, counts suite graders as a test's evaluation and words its skips
    its own way."""

    jsonl: bool = False
    generation: int = 4
    root_graders: bool = False
    interpolate: Interpolate | None = None


@lru_cache(maxsize=8)
def _plain_rules(jsonl: bool, generation: int, root_graders: bool) -> _Rules:
    """The rules of a generation without a template renderer: one value for every test (a frozen
    dataclass takes a microsecond to make)."""
    return _Rules(jsonl, generation, root_graders)


def _case(
    loader: _Loader,
    node: Node,
    path: str,
    index: int,
    suite_input: Node | None,
    suite_files: Node | None,
    seen: dict[str, int],
    jsonl: bool = False,
    interpolate: Interpolate | None = None,
    generation: int = 4,
    root_graders: bool = False,
    suite_graders: Node | None = None,
    rubric_prompt: Node | None = None,
) -> CaseSpec:
    """yaml-parser.ts loadTestsFromParsedYamlValue, one entry of `tests`."""
    rules = _case_rules(jsonl, generation, root_graders, interpolate)
    if not isinstance(node.value, dict):
        return CaseSpec(
            f"#{index + 1}",
            path,
            node.start_line,
            node.end_line,
            [],
            skipped="not a mapping",
            warnings=[Diagnostic("Skipping invalid test entry (expected object)", path, node.start_line)],
        )
    render = interpolate or _interpolate_vars
    fields: dict[str, Node] = node.value  # the test's mapping, asked directly (see _is_message)
    case_id = _text(fields.get("id"))
    variables = _case_variables(fields, jsonl)
    field = _case_field(fields, variables, interpolate)
    warnings: list[Diagnostic] = []
    outcome = _outcome(node, field, case_id, path, rules, warnings)
    execution = fields.get("execution")
    skip_defaults = _skips_defaults(execution)
    case_messages = _written_messages(
        field, suite_files if not skip_defaults else None, lambda found: render(found, variables), rules
    )
    expected = _expand_expected(field("expected_output"))
    skipped = _skip_reason(
        node, case_id, bool(outcome) or bool(expected), case_messages, skip_defaults, rules
    )
    if not skipped and fields.get("evaluator") is not None:
        # Only a loaded test reaches coerceEvaluator; a retired grader name there stops the file.
        loader.evaluator(fields.get("evaluator"), case_id or "unknown")

    # A skipped test never reaches the suite's input; skip_defaults leaves it out.
    suite_messages = (
        _suite_messages(suite_input, lambda found: render(found, variables))
        if not skipped and not skip_defaults
        else []
    )
    messages = _input_messages(suite_messages, loader.path, True) + _input_messages(
        case_messages or [], path, False
    )

    conversation = _conversation_turns(node, lambda turn: render(turn, variables), rules)
    metadata = _case_metadata(node, jsonl, conversation, expected, field)
    if skipped:
        warnings.append(Diagnostic(f"agentv skips this case: {skipped}", path, node.start_line))
    if case_id:
        _note_repeat(case_id, node, path, seen, warnings)
    grading = _grading_nodes(
        node, field, expected, skipped, rules, None if skip_defaults else suite_graders, rubric_prompt
    )
    return CaseSpec(
        case_id or f"#{index + 1}",
        path,
        node.start_line,
        node.end_line,
        messages,
        metadata,
        skipped,
        warnings,
        turns=conversation,
        grading=grading,
    )


def _case_rules(jsonl: bool, generation: int, root_graders: bool, interpolate: Interpolate | None) -> _Rules:
    if interpolate is None:
        return _plain_rules(jsonl, generation, root_graders)
    return _Rules(jsonl, generation, root_graders, interpolate)


def _case_field(
    fields: dict[str, Node], variables: Node | None, interpolate: Interpolate | None
) -> Callable[[str], Node | None]:
    """A key of the test, its templates rendered with the test's variables."""
    if variables is None and interpolate is None:
        # Without variables _interpolate_vars leaves each node as it is: the mapping's own get.
        return fields.get
    render = interpolate or _interpolate_vars

    def rendered(name: str) -> Node | None:
        return render(fields.get(name), variables)

    return rendered


def _skip_reason(
    node: Node,
    case_id: str | None,
    graded: bool,
    case_messages: list[Node] | None,
    skip_defaults: bool,
    rules: _Rules,
) -> str | None:
    """Why agentv skips the test: no id, nothing that grades it, or no input."""
    has_spec = _has_spec(node, graded, skip_defaults, rules)
    if not case_id or not has_spec or not case_messages:
        return _incomplete(node, case_id, rules)
    return None


def _suite_messages(suite_input: Node | None, render: Callable[[Node], Node | None]) -> list[Node]:
    if not _truthy(suite_input):
        return []
    assert suite_input is not None
    return _expand_input(render(suite_input)) or []


def _input_messages(items: list[Node], path: str, from_suite: bool) -> list[InputMessage]:
    return [m for m in (_message(item, path, from_suite) for item in items) if m]


def _case_variables(fields: dict[str, Node], jsonl: bool) -> Node | None:
    """The test's `vars` mapping, which only a YAML test's own `vars` interpolate."""
    variables = fields.get("vars")
    if jsonl or variables is None or not isinstance(variables.value, dict):
        return None
    return variables


def _skips_defaults(execution: Node | None) -> bool:
    """`execution.skip_defaults: true`: the suite's input, files and graders stay out of the test."""
    return (
        execution is not None
        and isinstance(execution.value, dict)
        and "skip_defaults" in execution.value
        and execution.value["skip_defaults"].value is True
    )


def _case_metadata(
    node: Node,
    jsonl: bool,
    conversation: list[Node] | None,
    expected: list[Node],
    field: Callable[[str], Node | None],
) -> dict[str, Any]:
    # The JSONL loader has no `depends_on`.
    metadata: dict[str, Any] = {
        key: node.value[key].plain()
        for key in METADATA_KEYS
        if key in node.value and not (jsonl and key == "depends_on")
    }
    if conversation is not None:
        metadata["turns"] = [turn.plain() for turn in conversation]
    expected_node = field("expected_output")
    if expected and expected_node is not None:
        metadata["expected_output"] = expected_node.plain()
    return metadata


def _grading_nodes(
    node: Node,
    field: Callable[[str], Node | None],
    expected: list[Node],
    skipped: str | None,
    rules: _Rules,
    suite_graders: Node | None,
    rubric_prompt: Node | None,
) -> GradingNodes | None:
    """What the test's graders are read from; agentv 5 grades only the tests it loads."""
    if rules.generation == 4:
        return GradingNodes(
            _outcome_node(node, field),
            expected,
            case_graders(node),
            suite_graders,
            field("rubrics"),
            field("metadata"),
        )
    if skipped:
        return None
    # agentv 5: the test's `assert` (rendered with its vars), else its execution's.
    execution = node.value.get("execution")
    own = (
        field("assert")
        if node.get("assert") is not None
        else (
            execution.get("assert") if execution is not None and isinstance(execution.value, dict) else None
        )
    )
    return GradingNodes(
        _outcome_node(node, field),
        expected,
        own,
        suite_graders,
        None,
        field("metadata"),
        generation=5,
        rubric_prompt=rubric_prompt,
    )


def _outcome_node(node: Node, field: Callable[[str], Node | None]) -> Node | None:
    """The node `_outcome` read the criteria from."""
    criteria = field("criteria")
    if _text(criteria) or node.get("expected_outcome") is None:
        return criteria
    return field("expected_outcome")


def _outcome(
    node: Node,
    field: Callable[[str], Node | None],
    case_id: str | None,
    path: str,
    rules: _Rules,
    warnings: list[Diagnostic],
) -> str | None:
    """`criteria`, or the retired `expected_outcome` with agentv's warning."""
    outcome = _text(field("criteria"))
    if not outcome and node.get("expected_outcome") is not None:
        outcome = _text(field("expected_outcome"))
        if outcome:
            advice = (
                "has been removed. Use 'assert' instead."
                if rules.generation == 5
                else "is deprecated. Use 'criteria' instead."
            )
            warnings.append(
                Diagnostic(
                    f"Test '{case_id or 'unknown'}': 'expected_outcome' {advice}",
                    path,
                    node.value["expected_outcome"].start_line,
                )
            )
    return outcome


def _written_messages(
    field: Callable[[str], Node | None],
    suite_files: Node | None,
    render: Callable[[Node], Node | None],
    rules: _Rules,
) -> list[Node] | None:
    """resolveInputMessages: `input`, with the test's (or else the suite's) `input_files`."""
    files = field("input_files")
    if files is not None and files.value is None:
        files = None  # `??` treats null as missing
    if files is None and _truthy(suite_files):
        assert suite_files is not None
        files = render(suite_files)
    raw_input = field("input")
    if files is not None and files.value is not None:
        made = _input_files_message(files, raw_input) if raw_input is not None else None
        return [made] if made is not None else None
    return _expand_input(raw_input, json_chat=rules.generation == 5)


def _has_spec(node: Node, graded: bool, skip_defaults: bool, rules: _Rules) -> bool:
    """Whether the test says how it is evaluated, as each loader counts it."""
    if graded or node.get("assert") is not None:
        return True
    if rules.jsonl:  # jsonl-parser.ts counts only criteria, expected_output and `assert`
        return False
    turns = node.get("turns")
    if turns is not None and isinstance(turns.value, list) and bool(turns.value):
        return True
    if rules.generation == 5:
        return rules.root_graders and not skip_defaults
    return node.get("assertions") is not None


def _incomplete(node: Node, case_id: str | None, rules: _Rules) -> str:
    if rules.jsonl:
        return (
            f"Skipping incomplete test at line {node.start_line}: {case_id or 'unknown'}. {INCOMPLETE_JSONL}"
        )
    missing = INCOMPLETE_V5 if rules.generation == 5 else INCOMPLETE
    return f"Skipping incomplete test: {case_id or 'unknown'}. {missing}"


def _conversation_turns(
    node: Node, render: Callable[[Node], Node | None], rules: _Rules
) -> list[Node] | None:
    """`mode: conversation` turns, rendered (the JSONL loader has no conversation mode)."""
    fields = node.value  # a test's mapping (see _is_message)
    turns = fields.get("turns")
    if (
        rules.jsonl
        or _text(fields.get("mode")) != "conversation"
        or turns is None
        or not isinstance(turns.value, list)
        or not turns.value
    ):
        return None
    return [rendered for turn in turns.value if (rendered := render(turn)) is not None]


def _note_repeat(
    case_id: str, node: Node, path: str, seen: dict[str, int], warnings: list[Diagnostic]
) -> None:
    if case_id in seen:
        warnings.append(
            Diagnostic(
                f"duplicate case id {case_id!r} (first used on line {seen[case_id]})",
                path,
                node.value["id"].start_line,
            )
        )
    else:
        seen[case_id] = node.start_line


def _read_jsonl(loader: _Loader, text: str) -> Suite:
    """jsonl-parser.ts loadTestsFromJsonl: one case a line; the sidecar gives only evaluator and
    execution defaults (no suite input)."""
    path = loader.path
    sidecar_path = path[: -len(".jsonl")] + ".yaml"
    sidecar_text = loader.read(sidecar_path)
    metadata: dict[str, Any] = {}
    if sidecar_text is not None:
        try:
            side = loader.yaml(sidecar_path, sidecar_text)
        except InputError as error:
            loader.warnings.append(
                Diagnostic(
                    f"Could not read sidecar metadata from {sidecar_path}: {error.diagnostic.message}",
                    sidecar_path,
                    error.diagnostic.line,
                )
            )
            side = None
        if side is not None:
            side = loader.env(side)
            if isinstance(side.value, dict):
                metadata = side.plain()
                loader.evaluator(side.get("evaluator"), "sidecar", sidecar_path)
            else:
                loader.warnings.append(
                    Diagnostic(f"Invalid sidecar metadata format in {sidecar_path}", sidecar_path)
                )
    records = [loader.env(record) for record in load_jsonl(text, path, "Invalid JSON")]
    cases = []
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        cases.append(_case(loader, record, path, index, None, None, seen, jsonl=True))
    _refuse_bad_graph(cases, loader)
    note_undecodable(cases, loader)
    _env_warning(loader)
    return Suite(path, cases, loader.warnings, metadata)
