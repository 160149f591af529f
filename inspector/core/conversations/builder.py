"""What the three request-body readers share: the file's line spans, warnings, and the small
conversions from request JSON to the neutral model (text, content parts, tools, the case)."""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
from typing import Any

from ..model import (
    Diagnostic,
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolSpec,
)
from ..sourcemap import Spans
from .media import MediaReader


class Builder:
    def __init__(self, path: str, spans: Spans):
        self.path = path
        self.spans = spans
        self.warnings: list[Diagnostic] = []
        # Origins are frozen values: text from the same lines shares one (a body given as dicts
        # has no lines at all, a one-line JSON file one line), and building one costs more than
        # looking it up.
        self._origins: dict[tuple[OriginKind, tuple[int, int] | None], Origin] = {}

    def lines(self, where: tuple) -> tuple[int | None, int | None]:
        return self.spans.get(where, (None, None))

    def line(self, where: tuple) -> int | None:
        return self.lines(where)[0]

    def span(self, where: tuple) -> LineSpan | None:
        lines = self.spans.get(where)  # once per message: self.lines inlined
        if lines is None:
            return None
        start, end = lines
        return None if start is None else LineSpan(self.path, start, end if end is not None else start)

    def origin(self, where: tuple, kind: OriginKind = OriginKind.CASE_TEXT) -> Origin:
        lines = self.spans.get(where)
        found = self._origins.get((kind, lines))
        if found is None:
            start, end = (None, None) if lines is None else lines
            found = self._origins[kind, lines] = Origin(kind, self.path, start, end)
        return found

    def warn(self, message: str, where: tuple) -> None:
        self.warnings.append(Diagnostic(message, self.path, self.line(where)))

    def text(self, value: Any, where: tuple, what: str) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        self.warn(f"{what} is not a string; shown as JSON", where)
        return json.dumps(value, ensure_ascii=False)

    def parts(
        self, content: Any, where: tuple, text_types: tuple[str, ...], media: MediaReader | None = None
    ) -> list[Segment]:
        """Segments for string content or a list of content parts: text parts as text (their
        other keys kept as options), images and files the format's `media` reader knows as media
        segments, anything else as a marker."""
        if content is None:
            return []
        if isinstance(content, str):
            return [Segment(content, self.origin(where))] if content else []
        if not isinstance(content, list):
            return [Segment(self.text(content, where, "content"), self.origin(where))]
        segments: list[Segment] = []
        for index, part in enumerate(content):
            if segments:
                segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
            segments.append(self.part(part, where + (index,), text_types, media))
        return segments

    @staticmethod
    def shape(content: Any) -> bool | None:
        """Message.blocks for a source content: a list of blocks, a string, or neither."""
        if isinstance(content, list):
            return True
        return False if isinstance(content, str) else None

    @staticmethod
    def separator() -> Segment:
        """What joins two blocks of a message for display (exporters leave it out of blocks)."""
        return Segment("\n", Origin(OriginKind.SEPARATOR))

    def part(
        self, part: Any, where: tuple, text_types: tuple[str, ...], media: MediaReader | None
    ) -> Segment:
        if isinstance(part, str):
            return Segment(part, self.origin(where))
        if isinstance(part, dict) and part.get("type") in text_types:
            text = self.text(part.get("text"), where + ("text",), "a text part")
            return Segment(text, self.origin(where + ("text",)), options=self.options(part, {"type", "text"}))
        found = media(part) if media is not None and isinstance(part, dict) else None
        if found is not None:
            item, used = found
            return Segment("", self.origin(where), media=item, options=self.options(part, used))
        kind = part.get("type", "part") if isinstance(part, dict) else type(part).__name__
        self.warn(f"the {kind} content part is not text; shown as a marker", where)
        return Segment(f"<{kind}>", self.origin(where, OriginKind.MARKER))

    @staticmethod
    def options(item: dict[str, Any], used: AbstractSet[str]) -> dict[str, Any] | None:
        """The keys of a source block the neutral model has no place for."""
        rest = {key: value for key, value in item.items() if key not in used}
        return rest or None

    def arguments(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        return json.dumps({} if value is None else value, ensure_ascii=False)

    def case(
        self,
        case_id: str,
        messages: list[Message],
        data: dict,
        modelled: frozenset[str],
        nested: dict[str, frozenset[str]] | None = None,
    ) -> RenderedCase:
        """The case, with the request's other fields kept (`metadata["request"]`): all but the
        `modelled` keys and, inside the `nested` objects, the modelled sub-keys."""
        request: dict[str, Any] = {}
        for key, value in data.items():
            if key in modelled:
                continue
            if nested and key in nested and isinstance(value, dict):
                value = {inner: item for inner, item in value.items() if inner not in nested[key]}
                if not value:
                    continue
            request[key] = value
        case = RenderedCase(id=case_id, messages=messages, span=self.span(()), warnings=self.warnings)
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
            kind = tool.get("type")
            if isinstance(kind, str) and kind not in ("function", "custom"):
                # Anthropic's server tools and OpenAI's built-in tools: kept as they are.
                label = tool.get("name")
                specs.append(ToolSpec(name=label if isinstance(label, str) else kind, raw=tool))
                continue
            function: dict = tool["function"] if isinstance(tool.get("function"), dict) else tool
            name = function.get("name")
            if not isinstance(name, str) or not name:
                kind = tool.get("type", "tool")
                self.warn(f"a {kind} tool without a function name is not shown", where + (index,))
                continue
            parameters = function.get("parameters", function.get("input_schema"))
            used = {"type", "function", "name", "description", "parameters", "input_schema", "strict"}
            # Where the function's own fields are, for the lines of a warning about one.
            inside = where + ((index, "function") if function is not tool else (index,))
            specs.append(
                ToolSpec(
                    name=name,
                    description=self.description(function, inside),
                    parameters=parameters if isinstance(parameters, dict) else None,
                    strict=self.flag(function.get("strict"), inside + ("strict",)),
                    options=self.options(tool, used),
                )
            )
        return specs

    def optional_text(self, value: Any, where: tuple, what: str) -> str | None:
        """`text`, where no value stays None."""
        return None if value is None else self.text(value, where, what)

    def description(self, tool: dict, where: tuple) -> str | None:
        return self.optional_text(tool.get("description"), where + ("description",), "a tool's description")

    def flag(self, value: Any, where: tuple) -> bool | None:
        """A true/false field (`strict`); anything else is left out, and said so."""
        if value is None or isinstance(value, bool):
            return value
        self.warn(f"`{where[-1]}` is not true or false; left out", where)
        return None

    def output_schema(self, name: str, fields: dict, where: tuple) -> OutputSchema:
        """A JSON-schema output format (OpenAI's `json_schema`, Responses' `text.format`): its
        fields read as the model holds them, whatever the request put there."""
        raw_name, schema, description = (
            fields.get("name", name),
            fields.get("schema"),
            fields.get("description"),
        )
        return OutputSchema(
            name=raw_name
            if isinstance(raw_name, str)
            else self.text(raw_name, where + ("name",), "the schema's name"),
            schema=schema if isinstance(schema, dict) else {},
            strict=self.flag(fields.get("strict"), where + ("strict",)),
            description=self.optional_text(description, where + ("description",), "the schema's description"),
        )

    def message_items(self, data: dict):
        """(source path, message) for each entry of `messages`, each checked to have a role."""
        for index, item in enumerate(self.messages(data)):
            yield ("messages", index), item

    def messages(self, data: dict) -> list[dict]:
        """The entries of `messages`, all checked to be objects with a string role."""
        raw = data.get("messages")
        if not isinstance(raw, list):
            raise InputError("`messages` must be a list", self.path, self.line(("messages",)))
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or not isinstance(item.get("role"), str):
                raise InputError(
                    "each message needs a string `role`", self.path, self.line(("messages", index))
                )
        return raw
