"""agentv v0.11.0 to v3.8.x: files wrapped in `<file path="...">` tags, still with guidelines; the
judge's prompts as agentv 3.8.0's evaluators send them (graders.py, generation 3)."""

from __future__ import annotations

from ...model import RenderedCase
from ..pieces import Piece, sep, strip
from ..prepare import Context, Part
from ..schema import CaseSpec
from . import legacy
from .agentv_4 import attach_graders


def file_tag(part: Part, name: str) -> list[Piece]:
    body = strip([part.file_piece()])
    return [sep(f'<file path="{name}">\n'), *body, sep("\n</file>")]


def _guideline(part: Part) -> list[Piece]:
    return file_tag(part, part.basename)


def _file(part: Part, name: str) -> list[Piece]:
    # segment-formatter.ts L68-72: nothing for an empty file
    assert part.file is not None
    if not part.file.text:
        return []
    return file_tag(part, name)


STYLE = legacy.Style(
    release="agentv 3.8.0",
    guideline=_guideline,
    file=_file,
    tool_as_assistant=True,
    suite_files_are_guidelines=True,
    repeat_code_blocks=False,
    attach_pattern_files=True,
    object_content=True,
    config_needs_schema=False,
    skips_without_input=True,
    judge=attach_graders,
)


def render(case: CaseSpec, context: Context) -> RenderedCase:
    return legacy.render(case, context, STYLE)
