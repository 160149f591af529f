"""The judge's prompts of a test in `mode: conversation`, as agentv 4.42.4 sends them.

orchestrator.ts runConversationMode grades turn by turn: after each answer, the turn's graders
(its string assertions as one `turn-rubrics` rubric grader, `turn-llm-rubric` in agentv 5, then
its other assertions as written; a turn with only `expected_output` gets agentv 4's default
grader, and nothing in agentv 5) read the conversation so far
as `role: content` lines (`window_size` keeps the system messages and the last turns). After the
last turn the test's own graders read the whole transcript, which is also their answer. Every
answer the model gives is unknown before the run: each stands as a placeholder naming its turn.
"""

from __future__ import annotations

from dataclasses import replace

from ..js import js_json
from ..model import CANDIDATE_PLACEHOLDER, Diagnostic, GraderPrompt, LineSpan, OriginKind
from ..yaml_lines import Node
from .case_graders import parsed_graders
from .checks import check_note
from .graders import Grader, Inputs, case_inputs, inline_grader, prompts, turn_rubrics
from .pieces import Piece, joined, sep
from .rubrics import raw_rubric
from .schema import CaseSpec

# (role, pieces); pieces None: agentv sends JSON the inspector cannot reproduce.
Entry = tuple[str, list[Piece] | None]
UNKNOWN_JSON = "\u27e8this message as JSON with its files' absolute paths on agentv's machine\u27e9"


def answer_placeholder(turn: int) -> str:
    return f"\u27e8the candidate's answer to turn {turn}\u27e9"


def turn_input(turn: Node, path: str) -> list[Piece]:
    """A turn's input as agentv sends it: its text, or anything else as compact JSON."""
    value = turn.get("input") if isinstance(turn.value, dict) else None
    if value is not None and isinstance(value.value, str):
        return [Piece(value.value, OriginKind.CASE_TEXT, path, value.text_line, value.end_line)]
    text = js_json(value.plain(), indent=None) if value is not None else ""
    return [Piece(text, OriginKind.CASE_TEXT, path, turn.start_line, turn.end_line)]


def conversation_graders(
    case: CaseSpec, initial: list[Entry], turns: list[Node], resolve, warnings: list[Diagnostic]
) -> list[GraderPrompt]:
    """Each turn's graders, then the transcript graders. Raises graders.Skip."""
    assert case.grading is not None
    v5 = case.grading.generation == 5
    window = case.metadata.get("window_size")
    if not (isinstance(window, int | float) and not isinstance(window, bool) and window >= 1):
        window = None
    history = list(initial)
    found: list[GraderPrompt] = []
    for number, turn in enumerate(turns, 1):
        history.append(("user", turn_input(turn, case.path)))
        history.append(("assistant", [Piece(answer_placeholder(number), OriginKind.MARKER)]))
        graders = _turn_graders(turn, case, warnings, v5)
        if not graders:
            continue
        context = _context(_windowed(history, window))
        inputs = _graded_without_workspace(case_inputs(case, context, resolve, warnings))
        inputs.answer = [Piece(answer_placeholder(number), OriginKind.MARKER)]
        for grader in graders:
            found += prompts(grader, inputs, f"turn {number} \u203a ")
    if found and case.metadata.get("on_turn_failure") == "stop":
        warnings.append(
            Diagnostic(
                "on_turn_failure: stop: agentv grades a turn only while every "
                "earlier turn passes; the graders of every turn are shown",
                case.path,
                case.start_line,
            )
        )
    listed = parsed_graders(case, resolve, warnings, default=False)
    if listed:
        transcript = _context(history)
        inputs = _graded_without_workspace(case_inputs(case, transcript, resolve, warnings))
        inputs.answer = transcript
        for grader in listed:
            found += prompts(_final_output_is(grader, transcript), inputs, "conversation \u203a ")
    return found


def _graded_without_workspace(inputs: Inputs) -> Inputs:
    """runConversationMode grades each turn and the transcript with no workspace path
    (orchestrator.ts at 58f316ca2), whatever the test's `environment`: agentv's own agent, as the
    run's judge, is never asked there."""
    inputs.workspace = False
    return inputs


def _final_output_is(grader: Grader, transcript: list[Piece]) -> Grader:
    """A transcript grader's answer is the whole transcript, `trajectory:goal-success`'s "Final
    output" too (trajectory.ts reads the candidate the orchestrator hands it)."""
    if grader.criteria is None or not any(piece.text == CANDIDATE_PLACEHOLDER for piece in grader.criteria):
        return grader
    criteria: list[Piece] = []
    for piece in grader.criteria:
        criteria += transcript if piece.text == CANDIDATE_PLACEHOLDER else [piece]
    return replace(grader, criteria=criteria)


def _turn_graders(turn: Node, case: CaseSpec, warnings: list[Diagnostic], v5: bool) -> list[Grader]:
    """buildTurnAssertions; no assertions but an expected_output: the default grader (agentv 4;
    agentv 5 grades nothing then)."""
    if not isinstance(turn.value, dict):
        return []
    assertions = turn.get("assert" if v5 else "assertions")
    listed = assertions.value if assertions is not None and isinstance(assertions.value, list) else []
    expected = turn.get("expected_output")
    if not listed:
        return [Grader("llm-grader")] if expected is not None and expected.plain() and not v5 else []
    texts = [item.value for item in listed if isinstance(item.value, str)]
    graders = [turn_rubrics(texts, v5)] if texts else []
    for item in listed:
        if isinstance(item.value, dict):
            found = _turn_grader(item, case, warnings, v5)
            if found is not None:
                _turn_judge(item, found, case, warnings)
                graders.append(found)
    _default_judges(graders, case)
    return graders


def _default_judges(graders: list[Grader], case: CaseSpec) -> None:
    """agentv's main: a turn's grader that names no judge asks the run's (`defaults.grader`)."""
    if case.grading is not None and case.grading.newest:
        for grader in graders:
            if not grader.judge_named:
                grader.judge = case.grading.default_judge


def _turn_grader(item: Node, case: CaseSpec, warnings: list[Diagnostic], v5: bool) -> Grader | None:
    """One object of a turn's assertions: a judge's prompt, or what a check does instead."""
    kind = item.get("type")
    kind_name = kind.value if kind is not None and isinstance(kind.value, str) else None
    label = _turn_grader_label(item, kind_name)
    span = LineSpan(case.path, item.start_line, item.end_line)
    if kind is None or kind.value not in _turn_llm_kinds(case, v5):
        note = check_note(kind_name, item.plain()) if kind_name is not None else None
        # A check that asks no model says what it does instead.
        return Grader(label, span=span, note=note) if note is not None else None
    grader = inline_grader(label, item.get("prompt"), span, case.path)
    rubrics = item.get("rubrics")
    if rubrics is not None and isinstance(rubrics.value, list) and rubrics.value:
        grader.rubrics = _raw_rubrics(rubrics, label, case, warnings)
        if grader.rubrics is None:
            return None
    if kind.value in ("llm-rubric", "agent-rubric"):  # builtin-graders.ts: its value stands as the criteria
        grader.rubric_kind = True
        grader.agent = kind.value == "agent-rubric"
        value = item.get("value")
        if value is not None and isinstance(value.value, str):
            grader.criteria = [
                Piece(value.value, OriginKind.CASE_TEXT, case.path, value.text_line, value.end_line)
            ]
    return grader


def _turn_llm_kinds(case: CaseSpec, v5: bool) -> tuple[str, ...]:
    if not v5:
        return ("llm-grader",)
    newest = case.grading is not None and case.grading.newest
    return ("llm-grader", "llm-rubric", "agent-rubric") if newest else ("llm-grader", "llm-rubric")


def _turn_judge(item: Node, grader: Grader, case: CaseSpec, warnings: list[Diagnostic]) -> None:
    """agentv's main: the orchestrator hands a turn's assertion objects to the graders unparsed
    (buildTurnAssertions), so grader-parser.ts never turns their `provider` into the judge; the
    LLM grader factory reads the raw `target` instead (builtin-graders.ts llmGraderFactory). A
    turn's grader asks the judge its `target` names, else the run's (`defaults.grader`), never
    the test's `options.provider`."""
    if case.grading is None or not case.grading.newest:
        return
    target = item.get("target")
    if target is not None and isinstance(target.value, str) and target.value:
        grader.judge = target.value
        grader.judge_named = True
        return
    provider = item.get("provider")
    if provider is not None:
        warnings.append(
            Diagnostic(
                f"turn grader {grader.name!r}: agentv hands a turn's assertions to its graders "
                "unparsed, so their `provider` is not read and the run's judge asks (a `target` "
                "there names the judge, though `agentv validate` calls it removed)",
                case.path,
                provider.start_line,
            )
        )


def _turn_grader_label(item: Node, kind_name: str | None) -> str:
    name = item.get("name")
    if name is not None and isinstance(name.value, str):
        return name.value
    return kind_name if kind_name is not None else "grader"


def _raw_rubrics(rubrics: Node, label: str, case: CaseSpec, warnings: list[Diagnostic]) -> list | None:
    """buildTurnAssertions passes the assertion on as written: its rubrics are not parsed, so
    one the page cannot show as the judge sees it drops the grader, with a warning."""
    raw = [raw_rubric(entry) if isinstance(entry, dict) else None for entry in rubrics.plain()]
    if None in raw:
        warnings.append(
            Diagnostic(
                f"turn grader {label!r}: a rubric that is not an "
                "object, or score ranges not written as [min, max] "
                "pairs, reach the judge in a form not shown",
                case.path,
                rubrics.start_line,
            )
        )
        return None
    return [rubric for rubric in raw if rubric is not None]


def _windowed(history: list[Entry], window: float | None) -> list[Entry]:
    """buildWindowedHistory: the system messages, then the last 2 x window others."""
    if window is None:
        return history
    systems = [entry for entry in history if entry[0] == "system"]
    others = [entry for entry in history if entry[0] != "system"]
    return systems + others[-int(window * 2) :]


def _context(history: list[Entry]) -> list[Piece]:
    """buildConversationContext: `role: content` per message, a blank line between."""
    return joined(
        (
            [sep(f"{role}: "), *(pieces if pieces is not None else [Piece(UNKNOWN_JSON, OriginKind.MARKER)])]
            for role, pieces in history
        ),
        "\n\n",
    )
