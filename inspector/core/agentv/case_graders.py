"""The judge's prompts for a case agentv runs: its grader list read by its agentv generation's
rules (graders.py for agentv 4's `assertions`, graders_v5 for agentv 5's `assert`), each grader's
messages worded by graders.py. Apart from graders.py, which graders_v5 builds on, so that neither
imports the other. Conversation mode is conversation_graders.
"""

from __future__ import annotations

from ..model import Diagnostic, GraderPrompt
from .graders import Grader, Skip, _graders, case_inputs, prompts
from .graders_v5 import graders_v5
from .pieces import Made, Piece
from .schema import CaseSpec


def grader_prompts(
    case: CaseSpec, question: list[Piece], resolve, warnings: list[Diagnostic], made: Made | None = None
) -> list[GraderPrompt]:
    """The graders' messages for a case agentv runs. `resolve(raw)` finds a file the way agentv's
    resolveFileReference does: (display path, bundle path, text) or None. `made`: the segments
    the case's messages made, which the question's share. Raises Skip."""
    graders = parsed_graders(case, resolve, warnings) or []
    inputs = case_inputs(case, question, resolve, warnings)
    inputs.made = made
    return [prompt for grader in graders for prompt in prompts(grader, inputs)]


def parsed_graders(
    case: CaseSpec, resolve, warnings: list[Diagnostic], default: bool = True
) -> list[Grader] | None:
    """grader-parser.ts parseGraders by the case's generation: the test's list, then the
    suite's. Without `default`, agentv 3.8 and 4 give None for a test that loads no grader: the
    default grader runs then, but grades no transcript in conversation mode. Raises Skip."""
    grading = case.grading
    assert grading is not None
    if grading.generation == 5:
        return graders_v5(grading, case, resolve, warnings)
    return _graders(grading, case, resolve, warnings, default)


def grader_skip(case: CaseSpec, resolve) -> str | None:
    """Why agentv's loader skips the test for its graders (parseGraders throws; the loader logs
    "Skipping test" and reads on), or None."""
    if case.grading is None:
        return None
    try:
        parsed_graders(case, resolve, [])
    except Skip as skip:
        return str(skip)
    return None
