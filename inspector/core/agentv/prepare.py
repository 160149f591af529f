"""Shared step of every profile: resolve each content block of a case into a typed part."""

from __future__ import annotations

import base64
import posixpath
from dataclasses import dataclass, field

from ..bundle import Bundle, decode, join, parent_folders
from ..conversations.media import from_url
from ..model import Diagnostic, LineSpan, Media, OriginKind, ToolCall
from .files import Missing, ResolvedFile, is_guideline, missing_message, resolve
from .pieces import Piece
from .schema import Block, CaseSpec, InputMessage

DEFAULT_SYSTEM_PROMPT = (
    "You are a careful assistant. Follow all provided instructions and do not fabricate results."
)


@dataclass(slots=True)
class Context:
    bundle: Bundle
    eval_path: str
    patterns: tuple[str, ...]
    system_prompt: str | None
    cache: dict = field(default_factory=dict)


def resolve_reference(context: Context, raw: str) -> tuple[str, str, str] | None:
    """file-resolver.ts resolveFileReference inside the bundle: (display path, bundle path, text)."""
    display = raw.lstrip("/\\") or raw
    key = f"v4\0{context.eval_path}\0{raw}"
    if key in context.cache:
        return context.cache[key]
    found = None
    # On the POSIX machines agentv runs on, a backslash is part of a file name, not a separator,
    # and no bundle file name holds one.
    folders = [] if "\\" in display else parent_folders(context.eval_path)
    for folder in folders:
        candidate = join(folder, display)
        if candidate is None:
            continue
        data = context.bundle.read(candidate)
        if data is not None:
            found = (display, candidate, decode(data).text)
            break
    context.cache[key] = found
    return found


@dataclass(slots=True)
class Part:
    kind: str  # "text", "file", "guideline", "image"
    block: Block
    file: ResolvedFile | None = None
    media: Media | None = None  # an image block's image, when it could be found

    def media_piece(self) -> Piece:
        assert self.media is not None
        return Piece(
            "",
            OriginKind.CASE_TEXT,
            self.block.path,
            self.block.start_line,
            self.block.end_line,
            media=self.media,
        )

    def text_piece(self) -> Piece:
        return Piece(
            self.block.value, OriginKind.CASE_TEXT, self.block.path, self.block.text_line, self.block.end_line
        )

    def file_piece(self, text: str | None = None) -> Piece:
        assert self.file is not None
        kind = OriginKind.GUIDELINE if self.kind == "guideline" else OriginKind.FILE
        via = None
        if self.block.path and self.block.start_line:
            via = LineSpan(
                self.block.path, self.block.start_line, self.block.end_line or self.block.start_line
            )
        return Piece(self.file.text if text is None else text, kind, self.file.path, 1, via=via)

    def marker(self, text: str) -> Piece:
        return Piece(text, OriginKind.MARKER, self.block.path, self.block.start_line, self.block.end_line)

    @property
    def basename(self) -> str:
        assert self.file is not None
        return posixpath.basename(self.file.path)


@dataclass(slots=True)
class Prepared:
    message: InputMessage
    parts: list[Part]

    @property
    def visible(self) -> bool:
        return any(part.kind != "guideline" for part in self.parts)

    @property
    def span(self) -> LineSpan:
        return LineSpan(self.message.path, self.message.start_line, self.message.end_line)


def prepare(
    case: CaseSpec,
    context: Context,
    warnings: list[Diagnostic],
    *,
    guidelines: bool,
    suite_files_are_guidelines: bool = False,
    exact_references: bool = False,
) -> list[Prepared]:
    """`exact_references`: file values as agentv 0.10-3.8 take them (see `files.resolve`), and an
    empty value skipped as they skip it, with no "not found" warning."""
    prepared = []
    for message in case.messages:
        parts: list[Part] = []
        for block in message.blocks:
            if block.kind in ("text", "json"):
                parts.append(Part("text", block))
                continue
            if block.kind == "image":
                parts.append(Part("image", block, media=image_media(context, block, warnings)))
                continue
            if exact_references and not block.value:
                warnings.append(
                    Diagnostic(
                        "an empty file reference: agentv skips it without a warning",
                        block.path,
                        block.start_line,
                    )
                )
                continue
            found = resolve(
                context.bundle, context.eval_path, block.value, context.cache, exact=exact_references
            )
            if isinstance(found, Missing):
                warnings.append(Diagnostic(missing_message(found), block.path, block.start_line))
                continue
            if found.problem:
                warnings.append(Diagnostic(f"{found.path} {found.problem}", block.path, block.start_line))
            guideline = guidelines and (
                (suite_files_are_guidelines and message.suite) or is_guideline(found.path, context.patterns)
            )
            parts.append(Part("guideline" if guideline else "file", block, found))
        prepared.append(Prepared(message, parts))
    return prepared


def tool_calls(message: InputMessage) -> list[ToolCall]:
    """OpenAI-style or agentv-style (`tool`/`input`) tool calls of an input message."""
    import json

    calls = []
    for index, raw in enumerate(message.tool_calls):
        found = raw.get("function")
        function: dict = found if isinstance(found, dict) else {}
        name = function.get("name") or raw.get("name") or raw.get("tool") or "tool"
        arguments = function.get("arguments", raw.get("arguments", raw.get("input", {})))
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = str(raw.get("id") or f"call_{index + 1}")
        calls.append(ToolCall(call_id, str(name), arguments))
    return calls


IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
}


def image_media(context: Context, block: Block, warnings: list[Diagnostic]) -> Media | None:
    """A `type: image` block's image: a URL as it is (never fetched), a data URL split, a bundle
    file read as base64. None, with a warning, when it is none of these."""
    value = block.value.strip()
    if value.startswith(("http://", "https://", "data:")):
        return from_url("image", value)
    found = resolve(context.bundle, context.eval_path, value, context.cache)
    if isinstance(found, Missing):
        warnings.append(Diagnostic(missing_message(found), block.path, block.start_line))
        return None
    media_type = IMAGE_TYPES.get(posixpath.splitext(found.path)[1].lower())
    data = context.bundle.read(found.path)
    if media_type is None or data is None:
        warnings.append(
            Diagnostic(
                f"{found.path} is not an image this inspector knows (png, "
                "jpeg, gif, webp, svg, bmp); shown as its path",
                block.path,
                block.start_line,
            )
        )
        return None
    return Media(
        "image",
        media_type=media_type,
        data=base64.b64encode(data).decode(),
        filename=posixpath.basename(found.path),
    )
