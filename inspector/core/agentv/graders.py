"""The judge's prompts: the messages agentv 4.42.4's LLM graders send, per case, with provenance.

Following agentv's own code at v4.42.4: `loaders/grader-parser.ts` parseGraders (which graders a
test has: its `assertions`, then the suite's; bare strings grouped into one `rubrics` grader;
`prompt:` inline text, or a template file only with a `file://` prefix), `registry/
builtin-graders.ts` (an inline prompt without template variables becomes the criteria), and
`graders/llm-grader.ts` (the default template, the rubric checklist, `substituteVariables`, and
the output-schema system prompt). A test without graders gets the default grader. The candidate's
answer is unknown before a run: it stands as a MARKER placeholder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..model import CANDIDATE_PLACEHOLDER, Diagnostic, GraderPrompt, Message, OriginKind
from .pieces import Piece, joined, segments
from .schema import CaseSpec, GradingNodes
from .v4 import js_json
from .yamltree import Node

VARIABLE = re.compile(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}")
VALID_VARIABLES = frozenset({"expected_output", "criteria", "metadata", "metadata_json", "rubrics",
                             "rubrics_json", "input", "output", "file_changes", "tool_calls"})
PROMPT_FILE_PREFIX = "file://"
LLM_TYPES = frozenset({"llm-grader", "rubrics", "rubric"})

DEFAULT_TEMPLATE = """You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input}}

[[ ## reference_answer ## ]]
{{expected_output}}

[[ ## answer ## ]]
{{output}}"""  # noqa: E501  (agentv's text, line for line)

OUTPUT_SCHEMA = "\n".join([
    "You must respond with a single JSON object matching this schema:",
    "",
    "{",
    '  "score": <number between 0.0 and 1.0>,',
    '  "assertions": [',
    "    {",
    '      "text": "<brief description of what was checked>",',
    '      "passed": <boolean>,',
    '      "evidence": "<concise evidence, 1-2 sentences, optional>"',
    "    }",
    "  ],",
    '  "details": {<optional object with domain-specific structured metrics>}',
    "}",
])

RUBRIC_SCHEMA = """You are an expert grader. Evaluate the candidate answer against each rubric item.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (rubric id)",
      "satisfied": boolean,
      "reasoning": "string (brief explanation)"
    }
  ],
  "overall_reasoning": "string (summary)"
}"""

JS_WHITESPACE = " \t\n\r\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


@dataclass(frozen=True, slots=True)
class Rubric:
    id: str
    outcome: str
    weight: float
    required: bool


@dataclass(slots=True)
class Grader:
    """One LLM grader as parseGraders leaves it."""

    name: str
    prompt: list[Piece] | None = None  # the resolved prompt text
    prompt_is_file: bool = False
    rubrics: list[Rubric] | None = None


@dataclass(slots=True)
class Inputs:
    """The case's side of every grader prompt, as pieces."""

    question: list[Piece]  # promptInputs.question, untrimmed
    criteria: list[Piece]
    reference: list[Piece]
    metadata: Any


class Skip(Exception):
    """agentv skips the whole test (a grader it cannot load)."""


def grader_prompts(case: CaseSpec, question: list[Piece], resolve, warnings: list[Diagnostic]
                   ) -> list[GraderPrompt]:
    """The graders' messages for a case agentv runs. `resolve(raw)` finds a file the way agentv's
    resolveFileReference does: (display path, bundle path, text) or None. Raises Skip."""
    grading = case.grading
    assert grading is not None
    graders = _graders(grading, case, resolve, warnings)
    inputs = Inputs(question, _text_pieces(grading.criteria, case.path),
                    _reference(grading, case.path, resolve, warnings),
                    grading.metadata.plain() if grading.metadata is not None else None)
    return [GraderPrompt(grader.name, _messages(grader, inputs)) for grader in graders]


# ---- which graders -------------------------------------------------------------------------------

def _graders(grading: GradingNodes, case: CaseSpec, resolve, warnings: list[Diagnostic]
             ) -> list[Grader]:
    found, loaded = _grader_list(grading.assertions, case, resolve, warnings)
    suite_found, suite_loaded = _grader_list(grading.suite_assertions, case, resolve, warnings)
    found += suite_found
    inline = grading.rubrics
    if inline is not None and isinstance(inline.value, list):
        rubrics = _rubrics(inline, "rubrics", case, warnings, shorthand=True)
        if rubrics:
            found.insert(0, Grader("rubrics", rubrics=rubrics))
    if found or loaded or suite_loaded:
        return found
    return [Grader("llm-grader")]  # orchestrator.ts: a test without graders gets the default


def _grader_list(node: Node | None, case: CaseSpec, resolve, warnings: list[Diagnostic]
                 ) -> tuple[list[Grader], int]:
    """parseGraderList: the LLM graders, and how many graders of any kind it loaded (none
    loaded, the default grader runs)."""
    if node is None or not isinstance(node.value, list):
        return [], 0
    items: list[Node | list[Node]] = []
    strings: list[Node] = []
    for item in node.value:
        if isinstance(item.value, str):
            if item.value.strip():
                strings.append(item)
            if not any(isinstance(entry, list) for entry in items):
                items.append(strings)
        else:
            items.append(item)
    graders: list[Grader] = []
    loaded = 0
    for entry in items:
        if isinstance(entry, list):
            if entry:
                rubrics = [Rubric(f"rubric-{position + 1}", _trim(item.value), 1.0, True)
                           for position, item in enumerate(entry)]
                graders.append(Grader("rubrics", rubrics=rubrics))
                loaded += 1
            continue
        grader = _grader(entry, case, resolve, warnings)
        if isinstance(grader, Grader):
            graders.append(grader)
        loaded += grader is not None
    return graders, loaded


def _grader(node: Node, case: CaseSpec, resolve, warnings: list[Diagnostic]
            ) -> Grader | bool | None:
    """One entry: a Grader when it asks a model, True for another kind agentv loads, None when
    agentv skips it."""
    if not isinstance(node.value, dict):
        return None
    raw_type = node.get("type")
    if raw_type is None or not isinstance(raw_type.value, str):
        return None
    kind = raw_type.value.replace("_", "-")
    if kind in ("code-judge", "llm-judge"):
        return None  # retired names: agentv skips the grader with a warning
    if kind not in LLM_TYPES:
        if kind == "composite":
            warnings.append(Diagnostic("a composite grader's LLM members are not shown",
                                       case.path, node.start_line))
        return True
    raw_name = node.get("name")
    name = raw_name.value if raw_name is not None and isinstance(raw_name.value, str) else kind
    if kind == "rubrics":
        rubrics = _rubrics(node.get("criteria"), name, case, warnings, shorthand=True)
        return Grader(name, rubrics=rubrics) if rubrics else None
    if kind == "rubric":
        rubrics = _rubrics(node.get("rubrics"), name, case, warnings)
        return Grader(name, rubrics=rubrics) if rubrics else None
    grader = Grader(name)
    prompt = node.get("prompt")
    if prompt is not None and isinstance(prompt.value, dict):
        warnings.append(Diagnostic(f"grader {name!r}: a prompt made by a script is not shown (it "
                                   "runs only in agentv)", case.path, prompt.start_line))
        return True
    if prompt is not None and isinstance(prompt.value, str):
        grader.prompt, grader.prompt_is_file = _prompt(prompt, name, case, resolve)
    rubrics_node = node.get("rubrics")
    if rubrics_node is not None and isinstance(rubrics_node.value, list):
        grader.rubrics = _rubrics(rubrics_node, name, case, warnings) or None
    return grader


def _prompt(node: Node, name: str, case: CaseSpec, resolve) -> tuple[list[Piece], bool]:
    raw = node.value
    if not raw.startswith(PROMPT_FILE_PREFIX):
        # A bare string is inline text, even when it names a file.
        return _text_pieces(node, case.path), False
    reference = raw[len(PROMPT_FILE_PREFIX):]
    found = resolve(reference)
    if found is None:
        raise Skip(f"Grader '{name}' in '{case.id}': prompt file not found: {reference}")
    display, path, text = found
    used = {match.group(1) for match in VARIABLE.finditer(text)}
    if not used & {"output", "expected_output"}:
        raise Skip(f"Grader '{name}' template ({display}): Missing required fields. Must include "
                   "at least one of: {{ output }}, {{ expected_output }}")
    return [Piece(text, OriginKind.FILE, path, 1)], True


def _rubrics(node: Node | None, name: str, case: CaseSpec, warnings: list[Diagnostic],
             shorthand: bool = False) -> list[Rubric]:
    """parseRubricItems (with the `rubrics` type's string shorthand): checklist rubrics only."""
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
        fields = item.plain()
        if fields.get("score_ranges") is not None or fields.get("operator") is not None:
            warnings.append(Diagnostic(f"grader {name!r}: rubrics with score ranges or operators "
                                       "are not shown", case.path, item.start_line))
            return []
        outcome = fields.get("outcome") if isinstance(fields.get("outcome"), str) else (
            fields.get("criteria") if isinstance(fields.get("criteria"), str) else "")
        if not outcome:
            continue
        weight = fields.get("weight")
        required = fields.get("required")
        rubrics.append(Rubric(
            fields["id"] if isinstance(fields.get("id"), str) else f"rubric-{position + 1}",
            outcome, float(weight) if isinstance(weight, int | float) and not isinstance(
                weight, bool) else 1.0, required if isinstance(required, bool) else True))
    return rubrics


# ---- the case's side -----------------------------------------------------------------------------

def _text_pieces(node: Node | None, path: str) -> list[Piece]:
    if node is None or not isinstance(node.value, str) or not node.value:
        return []
    if node.pieces:
        return [piece for piece in node.pieces if piece.text]
    return [Piece(node.value, OriginKind.CASE_TEXT, path, node.text_line, node.end_line)]


def _reference(grading: GradingNodes, path: str, resolve, warnings: list[Diagnostic]
               ) -> list[Piece]:
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
    value: Any = None
    if content is not None and isinstance(content.value, list):
        value = [item for item in (_expected_item(node, path, resolve, warnings)
                                    for node in content.value) if item is not None]
    elif content is not None and isinstance(content.value, dict):
        value = content.plain()
    elif calls is not None and isinstance(calls.value, list):
        content, value = calls, calls.plain()
    if value is None or content is None:
        return []
    return [Piece(js_json(value), OriginKind.CASE_TEXT, path, content.start_line,
                  content.end_line)]


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
        warnings.append(Diagnostic("an image in expected_output reaches the grader as a data URL "
                                   "the inspector does not show", path, node.start_line))
        return None
    display, bundle_path, text = found
    warnings.append(Diagnostic(
        f"expected_output's file {display!r} reaches the grader with its absolute path on the "
        "machine that runs agentv, shown as a placeholder", path, node.start_line))
    return {"type": "file", "path": display, "text": text.replace("\r\n", "\n"),
            "resolvedPath": ABSOLUTE_PATH.format(bundle_path)}


ABSOLUTE_PATH = "\u27e8{} as an absolute path on the machine that runs agentv\u27e9"


# ---- the prompts ---------------------------------------------------------------------------------

def _messages(grader: Grader, inputs: Inputs) -> list[Message]:
    template = grader.prompt
    if template is not None and not grader.prompt_is_file and not _has_variables(template):
        inputs = replace(inputs, criteria=template)  # bare text: the criteria
        template = None
    if grader.rubrics:
        system = RUBRIC_SCHEMA
        user = (_substitute(template, _variables(inputs, grader.rubrics)) if template is not None
                else _checklist(inputs, grader.rubrics))
    else:
        system = OUTPUT_SCHEMA
        user = _substitute(template or [Piece(DEFAULT_TEMPLATE, OriginKind.DEFAULT_PROMPT)],
                           _variables(inputs, None))
    # llm-providers.ts buildChatPrompt sends the question trimmed.
    return [Message("system", segments([Piece(system, OriginKind.DEFAULT_PROMPT)])),
            Message("user", segments(_strip(user)))]


def _has_variables(pieces: list[Piece]) -> bool:
    text = "".join(piece.text for piece in pieces)
    return any(match.group(1) in VALID_VARIABLES for match in VARIABLE.finditer(text))


def _candidate() -> list[Piece]:
    return [Piece(CANDIDATE_PLACEHOLDER, OriginKind.MARKER)]


def _variables(inputs: Inputs, rubrics: list[Rubric] | None) -> dict[str, list[Piece]]:
    rubric_values = [_rubric_json(rubric) for rubric in rubrics] if rubrics else None

    def generated(value: Any, indent: int | None) -> list[Piece]:
        return [] if value is None else [Piece(js_json(value, indent), OriginKind.SEPARATOR)]

    return {
        "input": _strip(inputs.question), "output": _candidate(),
        "expected_output": _strip(inputs.reference), "criteria": _strip(inputs.criteria),
        "metadata": generated(inputs.metadata, 2), "metadata_json": generated(inputs.metadata, None),
        "rubrics": generated(rubric_values, 2), "rubrics_json": generated(rubric_values, None),
        "file_changes": [], "tool_calls": [],
    }


def _rubric_json(rubric: Rubric) -> dict[str, Any]:
    return {"id": rubric.id, "outcome": rubric.outcome, "weight": rubric.weight,
            "required": rubric.required}


def _substitute(template: list[Piece], variables: dict[str, list[Piece]]) -> list[Piece]:
    """substituteVariables: each known `{{ name }}` becomes the value's pieces; unknown ones stay."""
    result: list[Piece] = []
    for piece in template:
        position = 0
        for match in VARIABLE.finditer(piece.text):
            value = variables.get(match.group(1))
            if value is None:
                continue
            result.append(_slice(piece, position, match.start()))
            result.extend(value)
            position = match.end()
        result.append(_slice(piece, position, len(piece.text)))
    return [piece for piece in result if piece.text]


def _slice(piece: Piece, start: int, end: int) -> Piece:
    line = piece.first_line
    if line is not None:
        line += piece.text[:start].count("\n")
    return piece.with_text(piece.text[start:end], line)


def _checklist(inputs: Inputs, rubrics: list[Rubric]) -> list[Piece]:
    """llm-grader.ts buildRubricPrompt, without file changes or tool calls (none before a run)."""
    def header(text: str) -> list[Piece]:
        return [Piece(text, OriginKind.DEFAULT_PROMPT)]

    parts: list[list[Piece]] = [
        header("You are an expert grader. Evaluate the candidate answer against each rubric item "
               "below."), [], header("[[ ## question ## ]]"), inputs.question, [],
        header("[[ ## criteria ## ]]"), inputs.criteria, []]
    if _trim("".join(piece.text for piece in inputs.reference)):
        parts += [header("[[ ## reference_answer ## ]]"), inputs.reference, []]
    parts += [header("[[ ## answer ## ]]"), _candidate(), [], header("[[ ## rubrics ## ]]")]
    for rubric in rubrics:
        required = " (REQUIRED)" if rubric.required else ""
        weight = f" (weight: {_js_number(rubric.weight)})" if rubric.weight != 1.0 else ""
        parts.append([Piece(f"- [{rubric.id}]{required}{weight}: {rubric.outcome}",
                            OriginKind.CASE_TEXT)])
    parts += [[], header("For each rubric, determine if it is satisfied and provide brief "
                         "reasoning.")]
    return joined(parts, "\n")


def _js_number(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def _strip(pieces: list[Piece]) -> list[Piece]:
    """JS trim() over pieces, moving the first piece's line as text is cut."""
    result = [piece for piece in pieces if piece.text]
    while result and not _trim(result[0].text):
        result.pop(0)
    while result and not _trim(result[-1].text):
        result.pop()
    if result:
        first = result[0]
        kept = first.text.lstrip(JS_WHITESPACE)
        line = first.first_line
        if line is not None:
            line += first.text[:len(first.text) - len(kept)].count("\n")
        result[0] = first.with_text(kept, line)
        result[-1] = result[-1].with_text(result[-1].text.rstrip(JS_WHITESPACE),
                                          result[-1].first_line)
    return result
