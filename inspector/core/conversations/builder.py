"""What the three request-body readers share: the file's line spans, warnings, and the small
conversions from request JSON to the neutral model (text, content parts, tools, the case)."""

from __future__ import annotations

import json
from typing import Any

from ..model import (
    Diagnostic,
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    Segment,
    ToolSpec,
)
from ..sourcemap import Spans


class Builder:
    def __init__(self, path: str, spans: Spans):
        self.path = path
        self.spans = spans
        self.warnings: list[Diagnostic] = []

    def lines(self, where: tuple) -> tuple[int | None, int | None]:
        return self.spans.get(where, (None, None))

    def line(self, where: tuple) -> int | None:
        return self.lines(where)[0]

    def span(self, where: tuple) -> LineSpan | None:
        start, end = self.lines(where)
        return None if start is None else LineSpan(self.path, start, end if end is not None
                                                   else start)

    def origin(self, where: tuple, kind: OriginKind = OriginKind.CASE_TEXT) -> Origin:
        start, end = self.lines(where)
        return Origin(kind, self.path, start, end)

    def warn(self, message: str, where: tuple) -> None:
        self.warnings.append(Diagnostic(message, self.path, self.line(where)))

    def text(self, value: Any, where: tuple, what: str) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        self.warn(f"{what} is not a string; shown as JSON", where)
        return json.dumps(value, ensure_ascii=False)

    def parts(self, content: Any, where: tuple, text_types: tuple[str, ...]) -> list[Segment]:
        """Segments for string content or a list of content parts; non-text parts become markers."""
        if content is None:
            return []
        if isinstance(content, str):
            return [Segment(content, self.origin(where))] if content else []
        if not isinstance(content, list):
            return [Segment(self.text(content, where, "content"), self.origin(where))]
        segments: list[Segment] = []
        for index, part in enumerate(content):
            part_where = where + (index,)
            if segments:
                segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
            if isinstance(part, str):
                segments.append(Segment(part, self.origin(part_where)))
            elif isinstance(part, dict) and part.get("type") in text_types:
                text = self.text(part.get("text"), part_where + ("text",), "a text part")
                segments.append(Segment(text, self.origin(part_where + ("text",))))
            else:
                kind = part.get("type", "part") if isinstance(part, dict) else type(part).__name__
                self.warn(f"the {kind} content part is not text; shown as a marker", part_where)
                segments.append(Segment(f"<{kind}>", self.origin(part_where, OriginKind.MARKER)))
        if segments and segments[-1].origin.kind == OriginKind.SEPARATOR:
            segments.pop()
        return segments

    def arguments(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        return json.dumps({} if value is None else value, ensure_ascii=False)

    def case(self, case_id: str, messages: list[Message], data: dict) -> RenderedCase:
        request = {key: value for key, value in data.items()
                   if key not in ("messages", "input", "tools", "system", "instructions",
                                  "response_format", "text", "output_schema", "output_config",
                                  "base_instructions_override", "user_instructions")}
        case = RenderedCase(id=case_id, messages=messages, span=self.span(()),
                            warnings=self.warnings)
        if request:
            case.metadata["request"] = request
        return case

    def tools(self, tools: Any, where: tuple) -> list[ToolSpec]:
        if tools is None:
            return []
        if not isinstance(tools, list):
            self.warn("`tools` must be a list; ignored", where)
            return []
        specs = []
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict):
                self.warn("a tool must be an object; ignored", where + (index,))
                continue
            function: dict = tool["function"] if isinstance(tool.get("function"), dict) else tool
            name = function.get("name")
            if not isinstance(name, str) or not name:
                kind = tool.get("type", "tool")
                self.warn(f"a {kind} tool without a function name is not shown", where + (index,))
                continue
            parameters = function.get("parameters", function.get("input_schema"))
            specs.append(ToolSpec(name=name, description=function.get("description"),
                                  parameters=parameters if isinstance(parameters, dict) else None,
                                  strict=function.get("strict")))
        return specs

    def message_items(self, data: dict):
        """(source path, message) for each entry of `messages`, each checked to have a role."""
        raw = data.get("messages")
        if not isinstance(raw, list):
            raise InputError("`messages` must be a list", self.path, self.line(("messages",)))
        for index, item in enumerate(raw):
            where = ("messages", index)
            if not isinstance(item, dict) or not isinstance(item.get("role"), str):
                raise InputError("each message needs a string `role`", self.path, self.line(where))
            yield where, item


