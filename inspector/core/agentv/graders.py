"""The judge's prompts: the messages agentv's LLM graders send, per case, with provenance.

Following agentv's own code at v4.42.4: `loaders/grader-parser.ts` parseGraders (which graders a
test has: its `assertions`, then the suite's; bare strings grouped into one `rubrics` grader;
`prompt:` inline text, or a template file only with a `file://` prefix), `registry/
builtin-graders.ts` (an inline prompt without template variables becomes the criteria), and
`graders/llm-grader.ts` (the default template, the rubric checklist, `substituteVariables`, and
the output-schema system prompt). A test without graders gets the default grader. `composite`
graders (`graders/composite.ts`) send their members' requests, then an LLM aggregator's; a
`code-grader` asks no model and is shown as a note naming its script. The candidate's answer is
unknown before a run: it stands as a MARKER placeholder. agentv 5's grader lists are read by
graders_v5 and worded here; conversation mode is conversation_graders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..js import JS_WHITESPACE, js_json, js_string
from ..js import js_trim as _trim
from ..model import (
    CANDIDATE_PLACEHOLDER,
    Diagnostic,
    GraderPrompt,
    LineSpan,
    Message,
    OriginKind,
)
from ..yaml_lines import Node
from .checks import check_note, custom_note, custom_script
from .grader_texts import (
    AGGREGATOR_PROMPT,
    DEFAULT_TEMPLATE,
    DEFAULT_TEMPLATE_V3,
    DEFAULT_TEMPLATE_V5,
    OUTPUT_SCHEMA,
    OUTPUT_SCHEMA_V3,
    PROMPTFOO_SCHEMA,
    RUBRIC_FORMAT,
    RUBRIC_OPENING_V3,
    RUBRIC_SCHEMA,
    RUBRIC_SCHEMA_V3,
    RUBRIC_SCHEMA_V5,
    SCORE_RANGE_FORMAT,
    SCORE_RANGE_OPENING_V3,
    SCORE_RANGE_SCHEMA,
    SCORE_RANGE_SCHEMA_V3,
    SCORE_RANGE_SCHEMA_V5,
    SKEPTICAL_RUBRIC_LINES,
    SKEPTICAL_SCORE_RANGE_LINES,
)
from .pieces import Made, Piece, fixed_segments, joined, segments
from .rubrics import (
    BadRubric,
    Rubric,
    checklist_line,
    operator_guidance,
    parse_inline,
    parse_item,
    scoring_lines,
)
from .schema import GRADER_KINDS, CaseSpec, GradingNodes

VARIABLE = re.compile(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}")
VALID_VARIABLES = frozenset(
    {
        "expected_output",
        "criteria",
        "metadata",
        "metadata_json",
        "rubrics",
        "rubrics_json",
        "input",
        "output",
        "file_changes",
        "tool_calls",
    }
)
PROMPT_FILE_PREFIX = "file://"
LLM_TYPES = frozenset({"llm-grader", "rubrics", "rubric"})
# agentv 3.8 still runs the *-judge names, as the *-grader ones (builtin-evaluators.ts).
RETIRED_V3 = {"llm-judge": "llm-grader", "code-judge": "code-grader"}
# What agentv 3.8 fills `{{ input }}`, `{{ expected_output }}` and `{{ output }}` with: its loaded
# input segments, expected segments and the run's output messages, each as JSON. The segments
# hold the absolute paths agentv resolved on its machine; the output is known only after the run.
V3_JSON_VARIABLES = {
    "input": "\u27e8the test's input segments as agentv 3.8 loaded them, as JSON\u27e9",
    "expected_output": "\u27e8the test's expected segments as agentv 3.8 loaded them, as JSON\u27e9",
    "output": "\u27e8the candidate's output messages as JSON, known only after the run\u27e9",
}


@dataclass(slots=True)
class Grader:
    """One grader that the page shows, as parseGraders leaves it: an LLM grader (prompt,
    rubrics), a script grader (`script`), or a composite (`members`, and an LLM aggregator's
    prompt in `aggregator`)."""

    name: str
    prompt: list[Piece] | None = None  # the resolved prompt text
    prompt_is_file: bool = False
    rubrics: list[Rubric] | None = None
    span: LineSpan | None = None
    script: Script | None = None
    members: list[Grader] | None = None
    aggregator: list[Piece] | None = None
    rubric_kind: bool = False  # agentv 5's `llm-rubric` (its own output schema)
    criteria: list[Piece] | None = None  # agentv 5: an `llm-rubric` value stands as the criteria
    note: str | None = None  # a grader that asks no judge: what it does instead (checks.py)
    custom: bool = False  # a type agentv must find as a custom assertion, and the bundle lacks
    judge: str | None = None  # agentv's main: the provider it asks (None: the run's judge)
    agent: bool = False  # agentv's main: `agent-rubric`, one prompt handed to an agent judge
    judge_named: bool = False  # agent-rubric: the judge is handed to the grader, not the run's


@dataclass(frozen=True, slots=True)
class Script:
    """What a code grader runs: its command (one string for a shell command line), and the
    script file when the bundle has it."""

    command: list[str]
    path: str | None
    target: bool = False  # script-grader.ts: with `target`, the script may call a model itself


@dataclass(slots=True)
class Inputs:
    """The case's side of every grader prompt, as pieces."""

    question: list[Piece]  # promptInputs.question, untrimmed
    criteria: list[Piece]
    reference: list[Piece]
    metadata: Any
    answer: list[Piece] | None = None  # None: the candidate's answer, a placeholder
    generation: int = 4  # agentv 5 words its prompts otherwise (see graders_v5)
    made: Made | None = None  # the segments the case's own messages made from these pieces
    agent_judge: bool = False  # the run's judge is agentv's own agent (GradingNodes.agent_judge)
    workspace: bool = False  # the test has a workspace (GradingNodes.workspace)


class Skip(Exception):
    """agentv skips the whole test (a grader it cannot load)."""


def case_inputs(case: CaseSpec, question: list[Piece], resolve, warnings: list[Diagnostic]) -> Inputs:
    grading = case.grading
    assert grading is not None
    return Inputs(
        question,
        _text_pieces(grading.criteria, case.path),
        _reference(grading, case.path, resolve, warnings),
        grading.metadata.plain() if grading.metadata is not None else None,
        generation=grading.generation,
        agent_judge=grading.agent_judge,
        workspace=grading.workspace,
    )


def turn_rubrics(texts: list[str], v5: bool = False) -> Grader:
    """orchestrator.ts buildTurnAssertions: a turn's string assertions as one rubric grader."""
    return Grader(
        "turn-llm-rubric" if v5 else "turn-rubrics",
        rubric_kind=v5,
        rubrics=[Rubric(f"criterion-{index + 1}", text, 1.0, False) for index, text in enumerate(texts)],
    )


def inline_grader(name: str, prompt: Node | None, span: LineSpan, path: str) -> Grader:
    """A turn's structured llm-grader, which agentv passes on unparsed: its prompt is text."""
    grader = Grader(name, span=span)
    if prompt is not None and isinstance(prompt.value, str):
        grader.prompt = _text_pieces(prompt, path)
    return grader


def prompts(grader: Grader, inputs: Inputs, within: str = "") -> list[GraderPrompt]:
    """A grader's requests in the order agentv sends them: a composite's members (run side by
    side), then its LLM aggregator, which reads their results."""
    name = within + grader.name
    if grader.note is not None:
        return [GraderPrompt(name, [], grader.note, grader.span, judge=grader.judge)]
    if grader.script is not None:
        return [GraderPrompt(name, [], _script_note(grader.script), grader.span, grader.script.path)]
    if inputs.agent_judge and grader.members is None and not grader.judge_named:
        return [_built_in_prompt(name, grader, inputs)]
    if grader.agent:
        note = agent_note(grader.judge, grader.judge_named)
        return [GraderPrompt(name, _delegated(grader, inputs), note, grader.span, judge=grader.judge)]
    if grader.members is None:
        return [GraderPrompt(name, _messages(grader, inputs), span=grader.span, judge=grader.judge)]
    found = [prompt for member in grader.members for prompt in prompts(member, inputs, f"{name} › ")]
    if grader.aggregator is not None:
        found.append(
            GraderPrompt(
                f"{name} › aggregator",
                [
                    Message("system", list(fixed_segments(OUTPUT_SCHEMA, OriginKind.DEFAULT_PROMPT))),
                    Message("user", segments(_strip(grader.aggregator))),
                ],
                span=grader.span,
            )
        )
    return found


def _script_note(script: Script) -> str:
    shown = " ".join(script.command)
    where = f"; the script is {script.path}" if script.path else ""
    if script.target:
        return (
            f"Runs `{shown}` on the answer after the run{where}. With `target` set, the script "
            "may call the model itself through agentv's proxy; what it sends is the script's "
            "own, so there is no prompt to show."
        )
    return (
        f"Runs `{shown}` on the answer after the run{where}. A script grader sends nothing to "
        "a model, so there is no prompt to show."
    )


# ---- which graders -------------------------------------------------------------------------------


def _graders(
    grading: GradingNodes, case: CaseSpec, resolve, warnings: list[Diagnostic], default: bool = True
) -> list[Grader] | None:
    found, loaded = _grader_list(grading.assertions, case, resolve, warnings)
    suite_found, suite_loaded = _grader_list(grading.suite_assertions, case, resolve, warnings)
    found += unplaced(suite_found)
    inline = grading.rubrics
    if inline is not None and isinstance(inline.value, list):
        # parseInlineRubrics counts only the strings and objects
        items = [item.plain() for item in inline.value if isinstance(item.value, str | dict)]
        rubrics = [
            rubric for rubric in (parse_inline(item, index) for index, item in enumerate(items)) if rubric
        ]
        if rubrics:
            found.insert(0, Grader("rubrics", rubrics=rubrics))
    if found or loaded or suite_loaded:
        return found
    # orchestrator.ts: a test without graders gets the default (not a conversation's transcript)
    return [Grader("llm-grader")] if default else None


def _grader_list(
    node: Node | None, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> tuple[list[Grader], int]:
    """parseGraderList: the LLM graders, and how many graders of any kind it loaded (none
    loaded, the default grader runs)."""
    if node is None or not isinstance(node.value, list):
        return [], 0
    items = grouped(node.value)
    graders: list[Grader] = []
    loaded = 0
    for entry in items:
        if isinstance(entry, list):
            if entry:
                rubrics = [
                    Rubric(f"rubric-{position + 1}", _trim(item.value), 1.0, True)
                    for position, item in enumerate(entry)
                ]
                graders.append(Grader("rubrics", rubrics=rubrics))
                loaded += 1
            continue
        grader = _grader(entry, case, resolve, warnings)
        if isinstance(grader, Grader):
            graders.append(grader)
        loaded += grader is not None
    return graders, loaded


def unplaced(graders: list[Grader]) -> list[Grader]:
    """Suite-level graders without a span: they are written in the suite's file (or a
    default_test file), which need not be the test's, and only line numbers are known."""
    for grader in graders:
        grader.span = None
        if grader.members:
            unplaced(grader.members)
    return graders


def grouped(items: list[Node]) -> list[Node | list[Node]]:
    """parseGraderList's first step: the non-blank bare strings, gathered into one list at the
    first string's place (they become one checklist grader); the other entries as they are."""
    entries: list[Node | list[Node]] = []
    strings: list[Node] = []
    for item in items:
        if isinstance(item.value, str):
            if item.value.strip():
                strings.append(item)
            if not any(isinstance(entry, list) for entry in entries):
                entries.append(strings)
        else:
            entries.append(item)
    return entries


def _grader(node: Node, case: CaseSpec, resolve, warnings: list[Diagnostic]) -> Grader | bool | None:
    """One entry: a Grader when it asks a model, True for another kind agentv loads, None when
    agentv skips it."""
    if not isinstance(node.value, dict):
        return None
    raw_type = node.get("type")
    if raw_type is None or not isinstance(raw_type.value, str):
        return None
    kind = _kind(raw_type.value, case)
    if kind in ("code-judge", "llm-judge"):
        return None  # retired names: agentv skips the grader with a warning
    raw_name = node.get("name")
    name = raw_name.value if raw_name is not None and isinstance(raw_name.value, str) else kind
    span = LineSpan(case.path, node.start_line, node.end_line)
    if kind == "composite":
        return _composite(node, name, span, case, resolve, warnings)
    if kind == "code-grader":
        script = _script(node, resolve)
        return Grader(name, span=span, script=script) if script is not None else None
    if kind not in LLM_TYPES:
        return _check(node, kind, name, span, resolve)
    if kind in ("rubrics", "rubric"):
        rubrics = _rubrics(
            node.get("criteria" if kind == "rubrics" else "rubrics"), name, case, shorthand=kind == "rubrics"
        )
        return Grader(name, rubrics=rubrics, span=span) if rubrics else None
    return _llm_grader(node, name, span, case, resolve, warnings)


def _kind(written: str, case: CaseSpec) -> str:
    """normalizeEvaluatorType: snake_case to kebab-case; agentv 3.8 runs the *-judge names as
    the *-grader ones."""
    kind = written.replace("_", "-")
    if case.grading is not None and case.grading.generation == 3:
        return RETIRED_V3.get(kind, kind)
    return kind


def _check(node: Node, kind: str, name: str, span: LineSpan, resolve) -> Grader | bool:
    """A grader that asks no model: a custom assertion found by name, or a built-in check that
    says what it does (True when there is nothing to say)."""
    if kind not in GRADER_KINDS:
        custom_file = custom_script(kind, resolve)
        return Grader(name, span=span, note=custom_note(kind, custom_file), custom=custom_file is None)
    note = check_note(kind, node.plain())
    return Grader(name, span=span, note=note) if note else True


def _llm_grader(
    node: Node, name: str, span: LineSpan, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> Grader | bool:
    grader = Grader(name, span=span)
    prompt = node.get("prompt")
    if prompt is not None and isinstance(prompt.value, dict):
        warnings.append(
            Diagnostic(
                f"grader {name!r}: a prompt made by a script is not shown (it runs only in agentv)",
                case.path,
                prompt.start_line,
            )
        )
        return True
    if prompt is not None and isinstance(prompt.value, str):
        grader.prompt, grader.prompt_is_file = text_prompt(prompt, name, case, resolve)
    rubrics_node = node.get("rubrics")
    if rubrics_node is not None and isinstance(rubrics_node.value, list):
        grader.rubrics = _rubrics(rubrics_node, name, case) or None
    return grader


AGGREGATORS = frozenset({"weighted_average", "threshold", "code-grader", "llm-grader"})
MEMBER_RESULTS = "\u27e8the members' results as JSON, known only after the run\u27e9"


def _composite(
    node: Node, name: str, span: LineSpan, case: CaseSpec, resolve, warnings: list[Diagnostic]
) -> Grader | None:
    """grader-parser.ts, `composite`: members each need a name and a grader type; an
    `llm-grader` aggregator sends the members' results with its prompt (inline text; a
    `file://` prompt sends the path as written, which is what agentv 4.42.4 does)."""
    members_node = next(
        (
            found
            for found in (node.get("assertions"), node.get("assert"), node.get("evaluators"))
            if found is not None
        ),
        None,
    )
    aggregator = node.get("aggregator")
    if (
        members_node is None
        or not isinstance(members_node.value, list)
        or aggregator is None
        or not isinstance(aggregator.value, dict)
    ):
        return None
    kind = _aggregator_kind(aggregator)
    if kind not in AGGREGATORS:
        return None
    members: list[Grader] = []
    loaded = 0
    for item in members_node.value:
        if not _is_member(item):
            continue
        member = _grader(item, case, resolve, warnings)
        if isinstance(member, Grader):
            members.append(member)
        loaded += member is not None
    if not loaded or not _aggregator_usable(aggregator, kind):
        return None
    prompt = _aggregator_prompt(aggregator.get("prompt"), case, resolve) if kind == "llm-grader" else None
    return Grader(name, span=span, members=members, aggregator=prompt)


def _aggregator_kind(aggregator: Node) -> str | None:
    """The aggregator's type, snake_case as kebab-case but for the two that keep underscores."""
    kind_node = aggregator.get("type")
    kind = kind_node.value if kind_node is not None and isinstance(kind_node.value, str) else None
    if kind is not None and kind not in ("weighted_average", "threshold"):
        return kind.replace("_", "-")
    return kind


def _is_member(item: Node) -> bool:
    """A composite member agentv loads: a name and a type it knows."""
    if not isinstance(item.value, dict):
        return False
    raw_name, raw_type = item.get("name"), item.get("type")
    return (
        raw_name is not None
        and isinstance(raw_name.value, str)
        and bool(raw_name.value)
        and raw_type is not None
        and raw_type.value in GRADER_KINDS
    )


def _aggregator_usable(aggregator: Node, kind: str | None) -> bool:
    """A code-grader aggregator needs a path, a threshold one a threshold within 0-1."""
    if kind == "code-grader":
        path = aggregator.get("path")
        return path is not None and isinstance(path.value, str) and bool(path.value)
    if kind == "threshold":
        threshold = aggregator.get("threshold")
        return (
            threshold is not None
            and not isinstance(threshold.value, bool)
            and isinstance(threshold.value, int | float)
            and 0 <= threshold.value <= 1
        )
    return True


RESULTS_VARIABLE = "{{EVALUATOR_RESULTS_JSON}}"


def _aggregator_prompt(node: Node | None, case: CaseSpec, resolve) -> list[Piece]:
    template: list[Piece] = [Piece(AGGREGATOR_PROMPT, OriginKind.DEFAULT_PROMPT)]
    if node is not None and isinstance(node.value, str) and node.value:
        raw = node.value
        if raw.startswith(PROMPT_FILE_PREFIX):
            reference = raw[len(PROMPT_FILE_PREFIX) :]
            if resolve(reference) is None:
                raise Skip(f"Composite aggregator in '{case.id}': prompt file not found: {reference}")
            # agentv 4.42.4 keeps the reference, not the file's text, as the prompt it sends.
            template = [Piece(reference, OriginKind.CASE_TEXT, case.path, node.text_line, node.end_line)]
        else:
            template = _text_pieces(node, case.path)
    result: list[Piece] = []
    for piece in template:
        start = 0
        for index, part in enumerate(piece.text.split(RESULTS_VARIABLE)):
            if index:
                result.append(Piece(MEMBER_RESULTS, OriginKind.MARKER))
            result.append(_slice(piece, start, start + len(part)))
            start += len(part) + len(RESULTS_VARIABLE)
    return [piece for piece in result if piece.text]


def _script(node: Node, resolve) -> Script | None:
    """code-grader: its command (`command`, else the retired `script`); a string runs through
    `sh -lc`; the last word names the script when it looks like a file."""
    raw = node.get("command") or node.get("script")
    if raw is None:
        return None
    value = raw.plain()
    if isinstance(value, str):
        if not value.strip():
            return None
        command, words = [value.strip()], value.split()  # agentv runs it with `sh -lc`
    elif isinstance(value, list) and value and all(isinstance(word, str) for word in value):
        command, words = list(value), list(value)
    else:
        return None
    found = None
    for word in reversed(words):
        if _looks_like_file(word):
            found = resolve(word)
            if found is not None:
                break
    return Script(command, found[1] if found is not None else None, node.get("target") is not None)


FILE_SUFFIX = re.compile(r"\.[cm]?[jt]sx?$|\.py$|\.sh$|\.bash$|\.rb$|\.go$|\.rs$", re.I)


def _looks_like_file(word: str) -> bool:
    """grader-parser.ts looksLikeFilePath."""
    return word.startswith(("/", ".")) or "/" in word or "\\" in word or bool(FILE_SUFFIX.search(word))


def text_prompt(node: Node, name: str, case: CaseSpec, resolve) -> tuple[list[Piece], bool]:
    raw = node.value
    if case.grading is not None and case.grading.generation == 3:
        return _prompt_v3(node, name, case, resolve)
    if not raw.startswith(PROMPT_FILE_PREFIX):
        # A bare string is inline text, even when it names a file.
        return _text_pieces(node, case.path), False
    reference = raw[len(PROMPT_FILE_PREFIX) :]
    found = resolve(reference)
    if found is None:
        raise Skip(f"Grader '{name}' in '{case.id}': prompt file not found: {reference}")
    display, path, text = found
    used = {match.group(1) for match in VARIABLE.finditer(text)}
    if not used & {"output", "expected_output"}:
        raise Skip(
            f"Grader '{name}' template ({display}): Missing required fields. Must include "
            "at least one of: {{ output }}, {{ expected_output }}"
        )
    return [Piece(text, OriginKind.FILE, path, 1)], True


def _prompt_v3(node: Node, name: str, case: CaseSpec, resolve) -> tuple[list[Piece], bool]:
    """evaluator-parser.ts at 3.8: a prompt naming a file found from the eval file's folder is
    that file (it must use `{{ output_text }}` or `{{ expected_output }}`, or agentv skips the
    test); any other text is used as written. Either way it is the whole template."""
    found = resolve(node.value)
    if found is None:
        return _text_pieces(node, case.path), True
    display, path, text = found
    used = {match.group(1) for match in VARIABLE.finditer(text)}
    if not used & {"output_text", "expected_output"}:
        raise Skip(
            f"Evaluator '{name}' template ({display}): Missing required fields. Must include at "
            "least one of: {{ output_text }}, {{ expected_output }}"
        )
    return [Piece(text, OriginKind.FILE, path, 1)], True


def _rubrics(node: Node | None, name: str, case: CaseSpec, shorthand: bool = False) -> list[Rubric]:
    """parseRubricItems (with the `rubrics` type's string shorthand). Raises Skip for a rubric
    agentv refuses (it skips the test)."""
    if node is None or not isinstance(node.value, list):
        return []
    rubrics = []
    for position, item in enumerate(node.value):
        if isinstance(item.value, str) and shorthand:
            if item.value:
                rubrics.append(Rubric(f"rubric-{position + 1}", item.value, 1.0, True))
            continue
        if not isinstance(item.value, dict):
            continue
        try:
            rubric = _rubric(item, position, name, case)
        except BadRubric as refused:
            raise Skip(str(refused)) from None
        if rubric is not None:
            rubrics.append(rubric)
    return rubrics


V3_UNREAD_RUBRIC_KEYS = frozenset({"operator", "criteria", "min_score"})


def _rubric(item: Node, position: int, name: str, case: CaseSpec) -> Rubric | None:
    """parseRubricItems for one object, as the case's agentv generation reads it."""
    raw = item.plain()
    where = f"in evaluator '{name}' in '{case.id}'"
    if case.grading is None or case.grading.generation != 3:
        return parse_item(raw, position, False, where)
    # 3.8 reads no operator, no `criteria` for the outcome and no `min_score`, and labels the
    # 0-10 `required_min_score` as written.
    raw = {key: value for key, value in raw.items() if key not in V3_UNREAD_RUBRIC_KEYS}
    rubric = parse_item(raw, position, False, where)
    if rubric is not None and rubric.min_score is not None:
        rubric = replace(rubric, min_score=raw["required_min_score"])
    return rubric


# ---- the case's side -----------------------------------------------------------------------------


def _text_pieces(node: Node | None, path: str) -> list[Piece]:
    if node is None or not isinstance(node.value, str) or not node.value:
        return []
    if node.pieces:
        return [piece for piece in node.pieces if piece.text]
    return [Piece(node.value, OriginKind.CASE_TEXT, path, node.text_line, node.end_line)]


def _reference(grading: GradingNodes, path: str, resolve, warnings: list[Diagnostic]) -> list[Piece]:
    """yaml-parser.ts reference_answer: the last expected message's content as
    processExpectedMessages leaves it (text as written, anything else as pretty JSON), or its
    tool calls as JSON."""
    if not grading.expected:
        return []
    last = grading.expected[-1]
    if isinstance(last.value, dict) and "role" in last.value:
        content, calls = last.get("content"), last.get("tool_calls")
    else:
        content, calls = last, None
    if content is not None and isinstance(content.value, str):
        return _text_pieces(content, path)
    found = _reference_value(content, calls, path, resolve, warnings)
    if found is None:
        return []
    source, value = found
    return [Piece(js_json(value), OriginKind.CASE_TEXT, path, source.start_line, source.end_line)]


def _reference_value(
    content: Node | None, calls: Node | None, path: str, resolve, warnings: list[Diagnostic]
) -> tuple[Node, Any] | None:
    """A content list or object, else the tool calls, as the JSON value agentv keeps, with the
    node it was written in."""
    if content is not None and isinstance(content.value, list):
        return content, [
            item
            for item in (_expected_item(node, path, resolve, warnings) for node in content.value)
            if item is not None
        ]
    if content is not None and isinstance(content.value, dict):
        return content, content.plain()
    if calls is not None and isinstance(calls.value, list):
        return calls, calls.plain()
    return None


def _expected_item(node: Node, path: str, resolve, warnings: list[Diagnostic]) -> Any:
    """One item of an expected message's content list, as processExpectedMessages keeps it."""
    value = node.value
    if isinstance(value, str):
        return {"type": "text", "value": value} if value else None
    if not isinstance(value, dict):
        return None
    kind, ref = node.get("type"), node.get("value")
    if kind is None or kind.value not in ("file", "image"):
        return node.plain()
    if ref is None or not isinstance(ref.value, str) or not ref.value:
        return None
    found = resolve(ref.value)
    if found is None:
        return None
    if kind.value == "image":
        warnings.append(
            Diagnostic(
                "an image in expected_output reaches the grader as a data URL the inspector does not show",
                path,
                node.start_line,
            )
        )
        return None
    display, bundle_path, text = found
    warnings.append(
        Diagnostic(
            f"expected_output's file {display!r} reaches the grader with its absolute path on the "
            "machine that runs agentv, shown as a placeholder",
            path,
            node.start_line,
        )
    )
    return {
        "type": "file",
        "path": display,
        "text": text.replace("\r\n", "\n"),
        "resolvedPath": ABSOLUTE_PATH.format(bundle_path),
    }


ABSOLUTE_PATH = "\u27e8{} as an absolute path on the machine that runs agentv\u27e9"


# ---- the prompts ---------------------------------------------------------------------------------


def _messages(grader: Grader, inputs: Inputs) -> list[Message]:
    if inputs.generation == 3:
        return _messages_v3(grader, inputs)
    v5 = inputs.generation == 5
    if grader.criteria is not None:
        inputs = replace(inputs, criteria=grader.criteria)
    template = grader.prompt
    if template is not None and not grader.prompt_is_file and not _has_variables(template, v5):
        inputs = replace(inputs, criteria=template)  # bare text: the criteria
        template = None
    if grader.rubrics:
        system, user = _rubric_prompt(grader.rubrics, inputs, template, v5)
    else:
        system = PROMPTFOO_SCHEMA if grader.rubric_kind else OUTPUT_SCHEMA
        user = _substitute(template or (_DEFAULT_V5 if v5 else _DEFAULT), _variables(inputs, None))
    # llm-providers.ts buildChatPrompt sends the question trimmed.
    return [
        Message("system", list(fixed_segments(system, OriginKind.DEFAULT_PROMPT))),
        Message("user", segments(_strip(user), inputs.made)),
    ]


def agent_note(judge: str | None, named: bool) -> str:
    """What an agent-rubric's judge is asked, by where the judge comes from (llm-grader.ts
    evaluate at 58f316ca2). Which kind of provider a judge is lives in the run's provider
    configuration, so the page names each form and when agentv sends it."""
    if named:
        return (
            f"agent-rubric: agentv hands this prompt to {judge}, the judge this grader names, in "
            "delegate mode whatever agent it is (a coding agent such as pi, codex or claude, or "
            "agentv's own agent); it reads the workspace and writes its verdict to a temporary "
            f"file. If {judge} is a plain chat model, agentv fails the check without asking."
        )
    asked = f"the run's judge ({judge}, from defaults.grader)" if judge else "the run's judge"
    return (
        f"agent-rubric: asked of {asked}. A coding agent (pi, codex, claude …) is handed this "
        "prompt and writes its verdict to a temporary file; agentv's own agent "
        "(`--grader-provider agentv`, or a judge of kind `agentv`) is asked with a system and a "
        "user prompt instead, and only when the test has a workspace (without one agentv fails "
        "the check): the render setting grader provider `agentv` shows that pair. A plain chat "
        "model makes agentv fail the check without asking."
    )


AGENT_JUDGE = "agentv"
NO_WORKSPACE = "llm-grader built-in agent mode requires a workspace (workspacePath is not set)"
BUILT_IN_SYSTEM_OPENING = [
    "You are an expert grader with access to the workspace filesystem.",
    "Use the provided tools to investigate the workspace and verify the criteria are met.",
    "Thoroughly examine relevant files before making your assessment.",
    "Be skeptical: award credit only for evidence you can support with the answer, file changes, "
    "tool calls, or concrete workspace paths.",
    "Each assertion evidence should cite paths, diffs, tool calls, or answer excerpts when available.",
]
BUILT_IN_USER_OPENING = [
    "Evaluate the candidate answer by investigating the workspace.",
    "Be skeptical: verify claims against concrete workspace paths, file changes, tool calls, or "
    "answer excerpts.",
]


def _built_in_prompt(name: str, grader: Grader, inputs: Inputs) -> GraderPrompt:
    """A grader asking the run's judge when that judge is agentv's own agent (llm-grader.ts
    evaluate at 58f316ca2: every LLM grader without a judge of its own, agent-rubric or not):
    evaluateBuiltIn's system and user prompts, or, without a workspace, agentv's failure."""
    if not inputs.workspace:
        note = (
            "The run's judge is agentv's own agent (grader provider agentv), which is asked only "
            "in a workspace, and this grader has none (an `environment` of type host gives a "
            "test one; a conversation's graders never have one): agentv fails the check without "
            f"asking, with “{NO_WORKSPACE}”."
        )
        return GraderPrompt(name, [], note, grader.span, judge=AGENT_JUDGE)
    note = (
        "Asked of agentv's own agent, the run's judge (grader provider agentv), in built-in mode: "
        "this system and user prompt, with tools to list, read and search the test's workspace; "
        "it writes its verdict to a temporary file under the workspace's .agentv/tmp."
    )
    return GraderPrompt(name, _built_in(grader, inputs), note, grader.span, judge=AGENT_JUDGE)


def _built_in(grader: Grader, inputs: Inputs) -> list[Message]:
    """llm-grader.ts buildAgentSystemPrompt and buildAgentUserPrompt at 58f316ca2: the output
    schema and the verdict contract in the system prompt; a grader's own template is the whole
    user prompt, else the case's sections and the rubrics, the verdict contract last."""
    inputs, template, rubrics = _agent_inputs(grader, inputs)
    schema = RUBRIC_SCHEMA_V5 if rubrics else OUTPUT_SCHEMA
    system = joined(
        [*map(_header, BUILT_IN_SYSTEM_OPENING), [], _header(schema), [], _verdict_contract()], "\n"
    )
    if template is not None:
        user = _substitute(template, _variables(inputs, rubrics or None))
    else:
        parts = _case_sections(inputs, BUILT_IN_USER_OPENING)
        if rubrics:
            parts += [_header("[[ ## rubrics ## ]]")]
            parts += [[Piece(_delegated_line(rubric), OriginKind.CASE_TEXT)] for rubric in rubrics]
            parts += [
                [],
                _header(
                    "For each rubric, investigate the workspace to determine if it is satisfied. "
                    "Provide brief reasoning."
                ),
            ]
        else:
            parts += [
                _header(
                    "Investigate the workspace to verify the criteria. Provide a score between 0.0 and 1.0."
                )
            ]
        user = joined([*parts, [], _verdict_contract()], "\n")
    return [Message("system", segments(system)), Message("user", segments(user, inputs.made))]


def _agent_inputs(grader: Grader, inputs: Inputs) -> tuple[Inputs, list[Piece] | None, list[Rubric]]:
    """What both agent prompts are built from (builtin-graders.ts llmGraderFactory): an
    llm-rubric's value as the criteria, an inline prompt without variables as the criteria too,
    else the prompt as the template; and the grader's rubrics."""
    if grader.criteria is not None:
        inputs = replace(inputs, criteria=grader.criteria)
    template = grader.prompt
    if template is not None and not grader.prompt_is_file and not _has_variables(template, True):
        inputs = replace(inputs, criteria=template)
        template = None
    return inputs, template, grader.rubrics or []


VERDICT_PATH = "\u27e8the verdict file's temporary path, made for each run\u27e9"
DELEGATE_OPENING = [
    "You are an expert grader. Investigate the workspace to verify the criteria are met.",
    "Be skeptical: award credit only for evidence you can support with the answer, file changes, "
    "tool calls, or concrete workspace paths.",
    "Each assertion evidence should cite paths, diffs, tool calls, or answer excerpts when available.",
]


def _verdict_contract() -> list[Piece]:
    """llm-grader.ts buildAgentVerdictFileInstructions at 58f316ca2, the path a placeholder."""
    return [
        Piece(
            "Agent grader verdict file contract:\nWrite exactly one JSON object to the verdict JSON file at: ",
            OriginKind.DEFAULT_PROMPT,
        ),
        Piece(VERDICT_PATH, OriginKind.MARKER),
        Piece(
            '\nThe JSON object must match this shape: {"pass": boolean, "score": number between 0.0 '
            'and 1.0, "reason": string}.\nDo not write Markdown, comments, arrays, or multiple JSON '
            "objects to the verdict file.\nAfter writing the file, your final assistant message may "
            "be brief; AgentV reads the verdict file first.",
            OriginKind.DEFAULT_PROMPT,
        ),
    ]


def _delegated(grader: Grader, inputs: Inputs) -> list[Message]:
    """llm-grader.ts buildDelegatedPrompt at 58f316ca2: one prompt, the verdict contract last."""
    inputs, template, rubrics = _agent_inputs(grader, inputs)
    if template is not None:
        if rubrics:
            schema = SCORE_RANGE_FORMAT if any(r.score_ranges for r in rubrics) else RUBRIC_FORMAT
        else:
            schema = OUTPUT_SCHEMA
        body = _substitute(template, _variables(inputs, rubrics or None)) + _header(f"\n\n{schema}\n\n")
        return [Message("user", segments(body + _verdict_contract(), inputs.made))]
    parts = _case_sections(inputs, DELEGATE_OPENING)
    if rubrics:
        parts += [_header("[[ ## rubrics ## ]]")]
        parts += [[Piece(_delegated_line(rubric), OriginKind.CASE_TEXT)] for rubric in rubrics]
        parts += [[], _header(RUBRIC_SCHEMA_V5)]
    else:
        parts += [_header(OUTPUT_SCHEMA)]
    parts += [[], _verdict_contract()]
    return [Message("user", segments(joined(parts, "\n"), inputs.made))]


def _delegated_line(rubric: Rubric) -> str:
    required = " (REQUIRED)" if rubric.required else ""
    weight = f" (weight: {js_string(rubric.weight)})" if rubric.weight != 1.0 else ""
    # A score-range item written without an outcome has none: JavaScript prints `undefined`.
    outcome = rubric.outcome if rubric.outcome or not rubric.score_ranges else "undefined"
    return f"- [{rubric.id}]{required}{weight}: {outcome}"


def _messages_v3(grader: Grader, inputs: Inputs) -> list[Message]:
    """agentv 3.8's llm-grader.ts: rubrics make the checklist or score-range prompt (a prompt of
    its own is not used then); otherwise the prompt (or the default template) is the whole user
    message, its variables filled. The AI SDK sends both as they are, untrimmed."""
    if grader.rubrics:
        scored = any(rubric.score_ranges for rubric in grader.rubrics)
        system = SCORE_RANGE_SCHEMA_V3 if scored else RUBRIC_SCHEMA_V3
        user = (_scored if scored else _checklist)(inputs, grader.rubrics)
    else:
        system = OUTPUT_SCHEMA_V3
        user = _substitute(grader.prompt or _DEFAULT_V3, _variables_v3(inputs))
    return [
        Message("system", list(fixed_segments(system, OriginKind.DEFAULT_PROMPT))),
        Message("user", segments([piece for piece in user if piece.text], inputs.made)),
    ]


def _variables_v3(inputs: Inputs) -> dict[str, list[Piece]]:
    """evaluateFreeform's variables at 3.8: the `*_text` ones trimmed, the JSON ones placeholders."""
    variables = {name: [Piece(text, OriginKind.MARKER)] for name, text in V3_JSON_VARIABLES.items()}
    variables.update(
        {
            "input_text": _strip(inputs.question),
            "output_text": _answer(inputs),
            "expected_output_text": _strip(inputs.reference),
            "criteria": _strip(inputs.criteria),
            "file_changes": [],
        }
    )
    return variables


def _rubric_prompt(
    rubrics: list[Rubric], inputs: Inputs, template: list[Piece] | None, v5: bool
) -> tuple[str, list[Piece]]:
    """The system text and user pieces of a grader with rubrics: score ranges when any rubric
    has them (llm-grader.ts evaluateWithScoreRanges), else a checklist. agentv 5 (llm-grader.ts
    at 5.3.1-next.1) gives a template only the format instructions."""
    if any(rubric.score_ranges for rubric in rubrics):
        v5_system = SCORE_RANGE_FORMAT if template is not None else SCORE_RANGE_SCHEMA_V5
        system = v5_system if v5 else SCORE_RANGE_SCHEMA
        written = _scored
    else:
        v5_system = RUBRIC_FORMAT if template is not None else RUBRIC_SCHEMA_V5
        system = v5_system if v5 else RUBRIC_SCHEMA
        written = _checklist
    user = (
        _substitute(template, _variables(inputs, rubrics))
        if template is not None
        else written(inputs, rubrics)
    )
    return system, user


# Pieces are frozen: agentv's own texts are one object each, in every case.
_DEFAULT = [Piece(DEFAULT_TEMPLATE, OriginKind.DEFAULT_PROMPT)]
_DEFAULT_V5 = [Piece(DEFAULT_TEMPLATE_V5, OriginKind.DEFAULT_PROMPT)]
_DEFAULT_V3 = [Piece(DEFAULT_TEMPLATE_V3, OriginKind.DEFAULT_PROMPT)]
_CANDIDATE = Piece(CANDIDATE_PLACEHOLDER, OriginKind.MARKER)


def _has_variables(pieces: list[Piece], v5: bool = False) -> bool:
    text = "".join(piece.text for piece in pieces)
    known = VALID_VARIABLES | {"rubric"} if v5 else VALID_VARIABLES
    return any(match.group(1) in known for match in VARIABLE.finditer(text))


def _answer(inputs: Inputs) -> list[Piece]:
    if inputs.answer is not None:
        return _strip(inputs.answer)
    return [_CANDIDATE]


def _variables(inputs: Inputs, rubrics: list[Rubric] | None) -> dict[str, list[Piece]]:
    rubric_values = [rubric.as_json() for rubric in rubrics] if rubrics else None

    def generated(value: Any, indent: int | None) -> list[Piece]:
        return [] if value is None else [Piece(js_json(value, indent), OriginKind.SEPARATOR)]

    variables = {
        "input": _strip(inputs.question),
        "output": _answer(inputs),
        "expected_output": _strip(inputs.reference),
        "criteria": _strip(inputs.criteria),
        "metadata": generated(inputs.metadata, 2),
        "metadata_json": generated(inputs.metadata, None),
        "rubrics": generated(rubric_values, 2),
        "rubrics_json": generated(rubric_values, None),
        "file_changes": [],
        "tool_calls": [],
    }
    if inputs.generation == 5:  # {{ rubric }}: the rubrics as JSON, else the criteria
        variables["rubric"] = variables["rubrics"] if rubrics else _strip(inputs.criteria)
    return variables


def _substitute(template: list[Piece], variables: dict[str, list[Piece]]) -> list[Piece]:
    """substituteVariables: each known `{{ name }}` becomes the value's pieces; unknown ones stay."""
    result: list[Piece] = []
    for piece in template:
        position = 0
        for start, end, name in _placeholders(piece.text):
            value = variables.get(name)
            if value is None:
                continue
            result.append(_slice(piece, position, start))
            result.extend(value)
            position = end
        result.append(_slice(piece, position, len(piece.text)) if position else piece)
    return [piece for piece in result if piece.text]


@lru_cache(maxsize=256)
def _placeholders(text: str) -> tuple[tuple[int, int, str], ...]:
    """Where a template's `{{ name }}`s are: agentv's default templates fill in every case."""
    return tuple((match.start(), match.end(), match.group(1)) for match in VARIABLE.finditer(text))


def _slice(piece: Piece, start: int, end: int) -> Piece:
    line = piece.first_line
    if line is not None:
        line += piece.text[:start].count("\n")
    elif piece.path is None and piece.via is None and piece.media is None:
        return _bare_slice(piece.text, piece.kind, start, end)
    return piece.with_text(piece.text[start:end], line)


@lru_cache(maxsize=256)
def _bare_slice(text: str, kind: OriginKind, start: int, end: int) -> Piece:
    """A stretch of agentv's own template text between its variables, cut once for every case."""
    return Piece(text[start:end], kind)


def _header(text: str) -> list[Piece]:
    return [Piece(text, OriginKind.DEFAULT_PROMPT)]


def _case_sections(inputs: Inputs, opening: list[str]) -> list[list[Piece]]:
    """The rubric prompts' first part: agentv's opening lines, then question, criteria, the
    reference answer when there is one, and the answer (no file changes or tool calls before a
    run)."""
    parts: list[list[Piece]] = [_header(line) for line in opening]
    parts += [
        [],
        _header("[[ ## question ## ]]"),
        inputs.question,
        [],
        _header("[[ ## criteria ## ]]"),
        inputs.criteria,
        [],
    ]
    if _trim("".join(piece.text for piece in inputs.reference)):
        parts += [_header("[[ ## reference_answer ## ]]"), inputs.reference, []]
    return parts + [_header("[[ ## answer ## ]]"), _answer(inputs), []]


def _checklist(inputs: Inputs, rubrics: list[Rubric]) -> list[Piece]:
    """llm-grader.ts buildRubricPrompt."""
    opening = [
        RUBRIC_OPENING_V3
        if inputs.generation == 3
        else "You are an expert grader. Evaluate the candidate answer against each rubric item below."
    ]
    if inputs.generation == 5:
        opening += SKEPTICAL_RUBRIC_LINES
    parts = _case_sections(inputs, opening) + [_header("[[ ## rubrics ## ]]")]
    guidance = operator_guidance(rubrics)
    if guidance:
        parts += [[], _header("Operator guidance:"), *(_header(f"- {line}") for line in guidance), []]
    parts += [[Piece(checklist_line(rubric), OriginKind.CASE_TEXT)] for rubric in rubrics]
    parts += [[], _header("For each rubric, determine if it is satisfied and provide brief reasoning.")]
    return joined(parts, "\n")


def _scored(inputs: Inputs, rubrics: list[Rubric]) -> list[Piece]:
    """llm-grader.ts buildScoreRangePrompt."""
    opening = [
        SCORE_RANGE_OPENING_V3
        if inputs.generation == 3
        else "You are an expert grader. Score the candidate answer on each criterion below "
        "using the provided score ranges.",
        "For each criterion, output an integer score from 0 to 10 based on which score "
        "range best matches the answer.",
    ]
    if inputs.generation == 5:
        opening += SKEPTICAL_SCORE_RANGE_LINES
    parts = _case_sections(inputs, opening) + [_header("[[ ## scoring_criteria ## ]]")]
    parts += [[Piece(line, OriginKind.CASE_TEXT)] if line else [] for line in scoring_lines(rubrics)]
    guidance = operator_guidance(rubrics)
    if guidance:
        parts += [[], *(_header(line) for line in guidance)]
    parts += [
        [],
        _header(
            "For each criterion, provide an integer score 0-10 that matches one of its defined score ranges."
        ),
    ]
    return joined(parts, "\n")


def _strip(pieces: list[Piece]) -> list[Piece]:
    """JS trim() over pieces, moving the first piece's line as text is cut."""
    result = [piece for piece in pieces if piece.text]
    while result and not _trim(result[0].text):
        result.pop(0)
    while result and not _trim(result[-1].text):
        result.pop()
    if result:
        # Pieces left as they are stay the same objects, sharing the segments made from them.
        first = result[0]
        kept = first.text.lstrip(JS_WHITESPACE)
        if len(kept) != len(first.text):
            line = first.first_line
            if line is not None:
                line += first.text[: len(first.text) - len(kept)].count("\n")
            result[0] = first.with_text(kept, line)
        last = result[-1]
        kept = last.text.rstrip(JS_WHITESPACE)
        if len(kept) != len(last.text):
            result[-1] = last.with_text(kept, last.first_line)
    return result
