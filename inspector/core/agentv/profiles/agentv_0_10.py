"""agentv v0.5.3 to v0.10.x: `=== name ===` headers for guidelines and files."""

from __future__ import annotations

from ...model import RenderedCase
from ..pieces import Piece, sep, strip
from ..prepare import Context, Part
from ..schema import CaseSpec
from . import legacy


def _guideline(part: Part) -> list[Piece]:
    # `=== name ===\n<content>`, the entry trimmed as a whole (yaml-parser.ts L589-598)
    return strip([sep(f"=== {part.basename} ===\n"), part.file_piece()])


def _file(part: Part, name: str) -> list[Piece]:
    # formatSegment (L557-563): nothing for an empty file, else the raw text under a header
    assert part.file is not None
    if not part.file.text:
        return []
    return [sep(f"=== {name} ===\n"), part.file_piece()]


STYLE = legacy.Style(
    release="agentv 0.10.1",
    guideline=_guideline,
    file=_file,
    tool_as_assistant=False,
    suite_files_are_guidelines=False,
    repeat_code_blocks=True,
    attach_pattern_files=False,
    object_content=False,
    config_needs_schema=True,
    skips_without_input=False,
)


def render(case: CaseSpec, context: Context) -> RenderedCase:
    return legacy.render(case, context, STYLE)
