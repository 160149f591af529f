"""agentv v0.5.3 to v0.10.x: `=== name ===` headers for guidelines and files."""

from __future__ import annotations

from ...model import RenderedCase
from ..pieces import Piece, sep, strip
from ..prepare import Context, Part
from ..schema import CaseSpec
from . import legacy


def _guideline(part: Part) -> list[Piece]:
    return [sep(f"=== {part.basename} ===\n"), *strip([part.file_piece()])]


def _file(part: Part) -> list[Piece]:
    assert part.file is not None
    return [sep(f"=== {part.file.display} ===\n"), part.file_piece()]


STYLE = legacy.Style(guideline=_guideline, file=_file, tool_as_assistant=False,
                     suite_files_are_guidelines=False, drop_slash_files_in_multi_turn=True)


def render(case: CaseSpec, context: Context) -> RenderedCase:
    return legacy.render(case, context, STYLE)
