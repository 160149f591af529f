"""Every agentv schema generation, normalised into one shape.

Classic v2 (`evalcases`, `input_messages`, `expected_messages`, `outcome`), the `input` /
`expected_output` shorthands, `tests` / `eval_cases` (inline or a path to a cases file), `criteria` /
`expected_outcome`, suite-level `input` and `input_files`, and JSONL datasets with a sidecar YAML all
become `CaseSpec`s: messages made of typed blocks that still know their file and lines. Nothing here
reads referenced files or decides how text is joined; that is the profiles' job.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..bundle import Bundle, join
from ..model import Diagnostic, InputError
from ..yaml_lines import Node, check_size, load_jsonl, load_yaml

# The assertion kinds agentv 4 accepts: a test's `assertions`, and a composite's members.
GRADER_KINDS = frozenset(
    {
        "code-grader",
        "llm-grader",
        "rubric",
        "composite",
        "tool-trajectory",
        "field-accuracy",
        "latency",
        "cost",
        "token-usage",
        "execution-metrics",
        "skill-trigger",
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
        "rubrics",
        "inline-assert",
    }
)

ROLES = ("system", "user", "assistant", "tool")
# agentv keeps a case only when something says how to grade it.
GRADING_KEYS = (
    "criteria",
    "expected_outcome",
    "outcome",
    "expected_output",
    "expected_messages",
    "assertions",
    "assert",
    "evaluators",
    "rubrics",
    "turns",
)
METADATA_KEYS = (
    "criteria",
    "expected_outcome",
    "outcome",
    "conversation_id",
    "note",
    "execution",
    "evaluators",
    "assertions",
    "assert",
    "rubrics",
    "turns",
    "mode",
    "aggregation",
    "metadata",
    "workspace",
    "tags",
    "description",
)


# Block and InputMessage are msgspec Structs (a C __init__): a suite of a thousand tests makes
# several of each per test. Untracked by the collector (gc=False): they hold text, lines, pieces
# and the nodes they were read from, never themselves. A changed copy is msgspec.structs.replace.
class Block(msgspec.Struct, gc=False):
    kind: str  # "text", "file", "image" or "json"
    value: str  # the text, the file reference as written, or the JSON rendering
    path: str  # bundle path of the file the block is written in
    start_line: int
    end_line: int
    text_line: int  # where the text itself starts (block scalars start a line below `|`)
    pieces: list[Any] | None = None  # agentv 5: template text and variables, each with its origin


class InputMessage(msgspec.Struct, gc=False):
    role: str
    blocks: list[Block]
    path: str
    start_line: int
    end_line: int
    suite: bool = False  # from the suite-level `input`
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: list[dict[str, Any]] = msgspec.field(default_factory=list)
    problem: str | None = None  # why agentv would not send it (e.g. an unknown role)
    raw_content: Any = None  # agentv 4: the content as written (conversation mode sends it)
    # agentv 4's reader keeps the content's node instead: only conversation mode reads it, so the
    # plain copy is made then (see written_content).
    raw_node: Any = None


def written_content(message: InputMessage) -> Any:
    """The message's content as written, with line information stripped."""
    return message.raw_node.plain() if message.raw_node is not None else message.raw_content


@dataclass(slots=True)
class GradingNodes:
    """What agentv 4's LLM graders build their prompts from, as written in the test (and suite)."""

    criteria: Node | None  # `criteria`, or the retired `expected_outcome`
    expected: list[Node]  # the expected messages (expandExpectedOutputShorthand)
    assertions: Node | None  # the test's grader list
    suite_assertions: Node | None  # the suite's grader list, appended after the test's
    rubrics: Node | None  # the test's inline `rubrics` (deprecated), run first
    metadata: Node | None  # the test's `metadata`
    generation: int = 4  # 5: agentv 5's `assert` lists (graders_v5); 3: agentv 3.8's evaluators
    rubric_prompt: Node | None = None  # agentv 5: default_test.options.rubric_prompt
    newest: bool = False  # agentv's main after 5.3.1-next.1 (v5_next.py): its grader rules
    judge: str | None = None  # newest: the test's judge (options.provider, else defaults.grader)
    default_judge: str | None = None  # newest: the file's defaults.grader (None: the run's judge)
    # newest: `judge` is the test's own options.provider, which agentv hands each grader as its
    # provider (grader-parser.ts), not the run's judge: an agent-rubric then gets the delegate form.
    judge_named: bool = False
    # newest: the test has a workspace (an `environment` of type host, the test's else the file's),
    # which agentv's own agent needs to be asked at all (llm-grader.ts evaluateBuiltIn).
    workspace: bool = False
    # newest: the run's judge is agentv's own agent (the `grader_provider` setting, agentv's
    # `--grader-provider agentv`): graders asking the run's judge get the built-in pair.
    agent_judge: bool = False


@dataclass(slots=True)
class CaseSpec:
    id: str
    path: str
    start_line: int
    end_line: int
    messages: list[InputMessage]
    metadata: dict[str, Any] = field(default_factory=dict)
    skipped: str | None = None
    warnings: list[Diagnostic] = field(default_factory=list)
    turns: list[Any] | None = None  # agentv 4 `mode: conversation`: the turn nodes
    grading: GradingNodes | None = None  # agentv 3.8, 4 and 5: what its LLM graders read


@dataclass(slots=True)
class Suite:
    path: str
    cases: list[CaseSpec]
    warnings: list[Diagnostic] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def _json_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


class _Reader:
    """Turns the nodes of one suite into CaseSpecs, collecting warnings instead of failing."""

    def __init__(self, eval_path: str):
        self.eval_path = eval_path
        self.suite_assertions: Node | None = None  # the suite's evaluators (agentv 3.8 reads them)

    def warn(self, warnings: list[Diagnostic], message: str, path: str, node: Node | None) -> None:
        warnings.append(Diagnostic(message, path, node.start_line if node else None))

    # ---- content and messages ------------------------------------------------------------------

    def blocks(self, content: Node, path: str, warnings: list[Diagnostic], where: str) -> list[Block]:
        value = content.value
        if isinstance(value, str):
            return [Block("text", value, path, content.start_line, content.end_line, content.text_line)]
        if isinstance(value, list):
            blocks: list[Block] = []
            for item in value:
                blocks.extend(self._block(item, path, warnings, where))
            return blocks
        if isinstance(value, dict):
            if "type" in value:
                return self._block(content, path, warnings, where)
            return [
                Block(
                    "json",
                    _json_text(content.plain()),
                    path,
                    content.start_line,
                    content.end_line,
                    content.start_line,
                )
            ]
        if value is None:
            self.warn(warnings, f"{where}: content is empty", path, content)
            return []
        # Numbers and booleans: agentv stringifies what YAML typed for the author.
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        self.warn(
            warnings,
            f"{where}: content should be text, got {type(value).__name__} {text}; it is sent as text",
            path,
            content,
        )
        return [Block("text", text, path, content.start_line, content.end_line, content.text_line)]

    def _block(self, item: Node, path: str, warnings: list[Diagnostic], where: str) -> list[Block]:
        if isinstance(item.value, str):
            return [Block("text", item.value, path, item.start_line, item.end_line, item.text_line)]
        if not isinstance(item.value, dict):
            self.warn(
                warnings,
                f"{where}: a content block must be a mapping with type and value; this one is dropped",
                path,
                item,
            )
            return []
        kind_node, value_node = item.get("type"), item.get("value")
        kind = kind_node.value if kind_node else None
        if kind not in ("text", "file", "image"):
            self.warn(
                warnings,
                f"{where}: unknown content block type {kind!r} (expected text, "
                f"file or image); the block is dropped",
                path,
                item,
            )
            return []
        if value_node is None or not isinstance(value_node.value, (str, int, float)):
            if kind == "text" and value_node is not None and isinstance(value_node.value, (dict, list)):
                return [
                    Block(
                        "json",
                        _json_text(value_node.plain()),
                        path,
                        value_node.start_line,
                        value_node.end_line,
                        value_node.start_line,
                    )
                ]
            self.warn(
                warnings, f"{where}: a {kind} block needs a string value; the block is dropped", path, item
            )
            return []
        text = str(value_node.value)
        return [Block(kind, text, path, value_node.start_line, value_node.end_line, value_node.text_line)]

    def message(
        self, node: Node, path: str, warnings: list[Diagnostic], where: str, default_role: str = "user"
    ) -> InputMessage | None:
        if not isinstance(node.value, dict):
            if isinstance(node.value, str):
                blocks = self.blocks(node, path, warnings, where)
                return InputMessage(default_role, blocks, path, node.start_line, node.end_line)
            self.warn(
                warnings,
                f"{where}: a message must be a mapping with role and content; it is dropped",
                path,
                node,
            )
            return None
        role_node = node.get("role")
        problem = None
        role = role_node.value if role_node is not None else None
        if not isinstance(role, str):
            self.warn(
                warnings, f"{where}: a message without a role string; it is shown but not sent", path, node
            )
            role, problem = "unknown", "the message has no role"
        elif role not in ROLES:
            self.warn(
                warnings,
                f"{where}: unknown role {role!r} (agentv accepts "
                f"{', '.join(ROLES)}); it is shown but not sent",
                path,
                role_node,
            )
            problem = f"unknown role {role!r}"
        content = node.get("content")
        blocks = self.blocks(content, path, warnings, where) if content is not None else []
        message = InputMessage(
            role,
            blocks,
            path,
            node.start_line,
            node.end_line,
            problem=problem,
            raw_content=content.plain() if content is not None else None,
        )
        for key in ("name", "tool_call_id"):
            value = node.get(key)
            if value is not None and isinstance(value.value, (str, int)):
                setattr(message, key, str(value.value))
        calls = node.get("tool_calls")
        if calls is not None and isinstance(calls.value, list):
            message.tool_calls = [call.plain() for call in calls.value if isinstance(call.value, dict)]
        return message

    def messages(
        self, node: Node | None, path: str, warnings: list[Diagnostic], where: str, default_role: str = "user"
    ) -> list[InputMessage]:
        """A message list from any shorthand: string, one message, an object, or an array."""
        if node is None or node.value is None:
            return []
        value = node.value
        if isinstance(value, str):
            return [
                InputMessage(
                    default_role,
                    self.blocks(node, path, warnings, where),
                    path,
                    node.start_line,
                    node.end_line,
                    raw_content=value,
                )
            ]
        if isinstance(value, dict):
            if "role" in value:
                message = self.message(node, path, warnings, where, default_role)
                return [message] if message else []
            if "content" in value:
                return [
                    InputMessage(
                        default_role,
                        self.blocks(value["content"], path, warnings, where),
                        path,
                        node.start_line,
                        node.end_line,
                    )
                ]
            return [
                InputMessage(
                    default_role,
                    self.blocks(node, path, warnings, where),
                    path,
                    node.start_line,
                    node.end_line,
                )
            ]
        if isinstance(value, list):
            return self.message_list(node, path, warnings, where, default_role)
        self.warn(
            warnings, f"{where}: expected text or a list of messages, got {type(value).__name__}", path, node
        )
        return []

    def message_list(
        self, node: Node, path: str, warnings: list[Diagnostic], where: str, default_role: str
    ) -> list[InputMessage]:
        """An array: of messages, or of content blocks (one message), else each item read as a
        message with its problems."""
        value = node.value
        if value and all(isinstance(item.value, dict) and "role" in item.value for item in value):
            return self.each_message(value, path, warnings, where, default_role)
        if all(isinstance(item.value, dict) and "type" in item.value for item in value):
            return [
                InputMessage(
                    default_role,
                    self.blocks(node, path, warnings, where),
                    path,
                    node.start_line,
                    node.end_line,
                )
            ]
        return self.each_message(value, path, warnings, where, default_role)

    def each_message(
        self, items: list[Node], path: str, warnings: list[Diagnostic], where: str, default_role: str
    ) -> list[InputMessage]:
        result = []
        for index, item in enumerate(items):
            message = self.message(item, path, warnings, f"{where}[{index}]", default_role)
            if message:
                result.append(message)
        return result

    def file_blocks(
        self, node: Node | None, path: str, warnings: list[Diagnostic], where: str
    ) -> list[Block]:
        if node is None or node.value is None:
            return []
        items = node.value if isinstance(node.value, list) else [node]
        blocks = []
        for item in items:
            if isinstance(item.value, str):
                blocks.append(Block("file", item.value, path, item.start_line, item.end_line, item.text_line))
            else:
                self.warn(warnings, f"{where}: each entry must be a file path", path, item)
        return blocks

    # ---- cases ---------------------------------------------------------------------------------

    def case(
        self,
        node: Node,
        path: str,
        index: int,
        suite_input: list[InputMessage],
        suite_files: list[Block],
        seen: dict[str, int],
    ) -> CaseSpec:
        warnings: list[Diagnostic] = []
        if not isinstance(node.value, dict):
            spec = CaseSpec(
                f"#{index + 1}",
                path,
                node.start_line,
                node.end_line,
                [],
                skipped="not a mapping",
                warnings=warnings,
            )
            self.warn(warnings, f"case #{index + 1} is not a mapping; agentv skips it", path, node)
            return spec
        id_node = node.get("id")
        case_id = _case_id(id_node)
        display_id = case_id or f"#{index + 1}"
        where = f"case {display_id}"
        skip_defaults = _skips_defaults(node)

        input_node = node.get("input_messages") or node.get("input")
        messages = self.messages(input_node, path, warnings, f"{where} input")
        files = [] if skip_defaults else list(suite_files)
        files += self.file_blocks(node.get("input_files"), path, warnings, f"{where} input_files")
        if files:
            _attach_files(messages, files, path)
        has_own_input = bool(messages)
        if not skip_defaults and suite_input:
            messages = [*suite_input, *messages]

        expected_node = node.get("expected_messages") or node.get("expected_output")
        expected = self.messages(
            expected_node, path, warnings, f"{where} expected output", default_role="assistant"
        )
        metadata = _case_metadata(node, expected)
        skipped = _skip_reason(node, case_id, has_own_input)
        if skipped:
            self.warn(
                warnings,
                f"{where}: agentv skips this case ({skipped}): Skipping incomplete eval case",
                path,
                node,
            )
        if case_id is not None:
            if case_id in seen:
                self.warn(
                    warnings,
                    f"duplicate case id {case_id!r} (first used on line {seen[case_id]})",
                    path,
                    id_node,
                )
            else:
                seen[case_id] = node.start_line
        return CaseSpec(
            display_id,
            path,
            node.start_line,
            node.end_line,
            messages,
            metadata,
            skipped,
            warnings,
            grading=_grading_v3(node, expected_node, self.suite_assertions),
        )


def case_graders(node: Node) -> Node | None:
    """grader-parser.ts parseGraders (evaluator-parser.ts parseEvaluators at 3.8): assertions >
    assert > execution.evaluators > evaluators."""
    fields = node.value  # a test's mapping
    execution = fields.get("execution")
    for found in (
        fields.get("assertions"),
        fields.get("assert"),
        execution.get("evaluators") if execution is not None and isinstance(execution.value, dict) else None,
        fields.get("evaluators"),
    ):
        if found is not None and found.value is not None:
            return found
    return None


def suite_graders(root: Node) -> Node | None:
    """yaml-parser.ts: the suite's `assertions` (or `assert`), else its execution's list."""
    execution = root.get("execution")
    candidates = [root.get("assertions"), root.get("assert")]
    if execution is not None and isinstance(execution.value, dict):
        candidates += [execution.get("assertions"), execution.get("assert"), execution.get("evaluators")]
    return next((found for found in candidates if found is not None and found.value is not None), None)


def _grading_v3(node: Node, expected: Node | None, suite_assertions: Node | None) -> GradingNodes:
    """What agentv 3.8's evaluators read (yaml-parser.ts at v3.8.0): `criteria`, else the
    deprecated `expected_outcome`; the expected messages; the test's evaluators, then the
    suite's unless `execution.skip_defaults`; inline `rubrics`; `metadata`."""
    criteria = node.get("criteria")
    if not (criteria is not None and isinstance(criteria.value, str) and criteria.value):
        criteria = node.get("expected_outcome") or criteria
    return GradingNodes(
        criteria,
        _expected_nodes(expected),
        case_graders(node),
        None if _skips_defaults(node) else suite_assertions,
        node.get("rubrics"),
        node.get("metadata"),
        generation=3,
    )


def _expected_nodes(node: Node | None) -> list[Node]:
    """The expected messages as written: a list of messages, or one value standing for one."""
    if node is None or node.value is None:
        return []
    value = node.value
    if (
        isinstance(value, list)
        and value
        and all(isinstance(item.value, dict) and "role" in item.value for item in value)
    ):
        return list(value)
    return [node]


def _case_id(id_node: Node | None) -> str | None:
    """A string or number id, stripped; a blank one is no id."""
    if (
        id_node is not None
        and isinstance(id_node.value, (str, int, float))
        and not isinstance(id_node.value, bool)
    ):
        return str(id_node.value).strip() or None
    return None


def _skips_defaults(node: Node) -> bool:
    execution = node.get("execution")
    if execution is None or not isinstance(execution.value, dict):
        return False
    flag = execution.get("skip_defaults")
    return flag is not None and flag.value is True


def _attach_files(messages: list[InputMessage], files: list[Block], path: str) -> None:
    """agentv puts input files first in the case's first user message (one is made if none)."""
    target = next((m for m in messages if m.role == "user"), None)
    if target is None:
        first = files[0]
        target = InputMessage("user", [], path, first.start_line, first.end_line)
        messages.append(target)
    target.blocks[:0] = files


def _case_metadata(node: Node, expected: list[InputMessage]) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    for key in METADATA_KEYS:
        if key in node.value:
            metadata[key] = node.value[key].plain()
    if expected:
        metadata["expected_messages"] = [
            {
                "role": m.role,
                "content": "\n".join(b.value for b in m.blocks),
                **({"tool_calls": m.tool_calls} if m.tool_calls else {}),
            }
            for m in expected
        ]
    return metadata


def _skip_reason(node: Node, case_id: str | None, has_own_input: bool) -> str | None:
    if case_id is None:
        return "the case has no id"
    if not has_own_input:
        return "the case has no input messages"
    if not any(key in node.value for key in GRADING_KEYS):
        return "the case has no criteria, expected output or assertions"
    return None


def _suite_messages(reader: _Reader, root: Node, path: str, warnings: list[Diagnostic]) -> list[InputMessage]:
    messages = reader.messages(root.get("input"), path, warnings, "suite input")
    for message in messages:
        message.suite = True
    return messages


def read_suite(bundle: Bundle, path: str) -> Suite:
    """Load an eval file (YAML or JSONL) from the bundle into CaseSpecs."""
    data = bundle.read(path)
    if data is None:
        raise InputError("file not found in the bundle", path)
    check_size(data, path)
    from ..bundle import decode

    decoded = decode(data)
    warnings: list[Diagnostic] = []  # an undecodable byte is noted by documents.render_document
    reader = _Reader(path)
    if path.lower().endswith(".jsonl"):
        return _read_jsonl_suite(bundle, path, decoded.text, reader, warnings)
    return _read_yaml_suite(bundle, path, decoded.text, reader, warnings)


def _read_jsonl_suite(
    bundle: Bundle, path: str, text: str, reader: _Reader, warnings: list[Diagnostic]
) -> Suite:
    """One case a line; the suite's input and metadata from a sidecar `<name>.yaml`."""
    from ..bundle import decode

    records = load_jsonl(text, path)
    metadata: dict[str, Any] = {}
    sidecar = path[: -len(".jsonl")] + ".yaml"
    suite_input: list[InputMessage] = []
    suite_files: list[Block] = []
    sidecar_data = bundle.read(sidecar)
    if sidecar_data is not None:
        check_size(sidecar_data, sidecar)
        side = load_yaml(decode(sidecar_data).text, sidecar)
        if side is not None and isinstance(side.value, dict):
            metadata = side.plain()
            suite_input = _suite_messages(reader, side, sidecar, warnings)
            suite_files = reader.file_blocks(side.get("input_files"), sidecar, warnings, "suite input_files")
    if not records:
        raise InputError("the dataset has no cases (no JSON lines)", path)
    seen: dict[str, int] = {}
    cases = [
        reader.case(record, path, index, suite_input, suite_files, seen)
        for index, record in enumerate(records)
    ]
    return Suite(path, cases, warnings, metadata)


# A test's own keys and the keys of the files a suite names for its providers and defaults.
_ONE_TEST_KEYS = ("input", "vars", "assert", "criteria", "expected_output", "threshold", "options")
_SETTINGS_KEYS = ("providers", "provider", "grader")


def _read_through_a_suite(root: Node) -> str:
    """agentv's example folders hold files a suite reads, beside the suites; each is uploaded with
    them and listed on its own, so the refusal says what the file is."""
    if any(key in root.value for key in _ONE_TEST_KEYS):
        return (
            "; it reads as one test or a test's defaults, which a suite reads (a sub-folder's "
            "`case.yaml` of `tests: ./folder/`, or `default_test: file://...`): open the suite"
        )
    if any(key in root.value for key in _SETTINGS_KEYS):
        return "; it holds providers or defaults, which the suites that name them read"
    return ""


def _read_yaml_suite(
    bundle: Bundle, path: str, text: str, reader: _Reader, warnings: list[Diagnostic]
) -> Suite:
    seen: dict[str, int] = {}
    root = load_yaml(text, path)
    if root is None:
        raise InputError("the file is empty; an eval file needs `tests` (or `evalcases`)", path, 1)
    if (
        isinstance(root.value, list)
        and root.value
        and all(isinstance(item.value, dict) for item in root.value)
    ):
        # A bare list is a cases file that a suite pulls in with `tests: ./file.yaml`; render it on
        # its own rather than refuse it, and say what the suite would add.
        warnings.append(
            Diagnostic(
                "this file is a bare list of cases, as a suite's `tests: <file>` uses; it is rendered "
                "on its own, without any suite-level input the suite adds",
                path,
                root.start_line,
            )
        )
        cases = [reader.case(item, path, index, [], [], seen) for index, item in enumerate(root.value)]
        return Suite(path, cases, warnings, {})
    if not isinstance(root.value, dict):
        raise InputError(
            f"an eval file must be a mapping with `tests` (or `evalcases`), not a "
            f"{type(root.value).__name__}",
            path,
            root.start_line,
        )
    tests = root.get("tests") or root.get("eval_cases") or root.get("evalcases")
    if tests is None:
        raise InputError(
            "no cases: the file has no `tests`, `eval_cases` or `evalcases` list"
            + _read_through_a_suite(root),
            path,
            root.start_line,
        )
    suite_input = _suite_messages(reader, root, path, warnings)
    reader.suite_assertions = suite_graders(root)
    suite_files = reader.file_blocks(root.get("input_files"), path, warnings, "suite input_files")
    metadata = {
        key: node.plain()
        for key, node in root.value.items()
        if key not in ("tests", "eval_cases", "evalcases")
    }

    cases = _suite_cases(bundle, path, tests, reader, (suite_input, suite_files), seen)
    return Suite(path, cases, warnings, metadata)


def _suite_cases(
    bundle: Bundle,
    path: str,
    tests: Node,
    reader: _Reader,
    suite: tuple[list[InputMessage], list[Block]],
    seen: dict[str, int],
) -> list[CaseSpec]:
    """The cases `tests` lists (inline or in a cases file), each with the suite's input and files."""
    undecodable: list[Diagnostic] = []  # the cases file's, named on each of its cases
    cases_path, items = _case_items(bundle, path, tests, undecodable)
    if not items:
        raise InputError("no cases: the cases list is empty", cases_path, tests.start_line)
    cases = [reader.case(item, cases_path, index, *suite, seen) for index, item in enumerate(items)]
    for case in cases:
        case.warnings[:0] = undecodable
    return cases


def _case_items(
    bundle: Bundle, path: str, tests: Node, undecodable: list[Diagnostic]
) -> tuple[str, list[Node]]:
    """The cases `tests` lists, and the file they are in."""
    if isinstance(tests.value, str):
        return _cases_file(bundle, path, tests, undecodable)
    if isinstance(tests.value, list):
        return path, tests.value
    raise InputError(
        f"`tests` must be a list of cases, not a {type(tests.value).__name__}", path, tests.start_line
    )


def _cases_file(
    bundle: Bundle, path: str, tests: Node, undecodable: list[Diagnostic]
) -> tuple[str, list[Node]]:
    """`tests: ./cases.yaml` keeps the cases in another file of the bundle; `undecodable` gets
    the file's bytes that are not UTF-8, if any."""
    from ..bundle import decode

    cases_path = join(posixpath.dirname(path), tests.value.strip())
    if cases_path is None:
        raise InputError(f"`tests` points outside the bundle: {tests.value}", path, tests.start_line)
    cases_data = bundle.read(cases_path)
    if cases_data is None:
        raise InputError(
            f"`tests` file not found: {tests.value} (looked for {cases_path})", path, tests.start_line
        )
    check_size(cases_data, cases_path)
    decoded = decode(cases_data)
    if decoded.problem:
        undecodable.append(Diagnostic(f"the file {decoded.problem}", cases_path, decoded.problem_line))
    cases_text = decoded.text
    if cases_path.lower().endswith(".jsonl"):
        return cases_path, load_jsonl(cases_text, cases_path)
    loaded = load_yaml(cases_text, cases_path)
    if loaded is None or not isinstance(loaded.value, list):
        raise InputError("the cases file must hold a list of cases", cases_path, 1)
    return cases_path, loaded.value
