"""Gemini generateContent request bodies (REST, camelCase): systemInstruction, user and model
contents, functionCall and functionResponse parts, inlineData and fileData."""

from __future__ import annotations

import json
from typing import Any

from ..model import (
    InputError,
    Message,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
    ToolSpec,
)
from . import media
from .builder import Builder
from .spec import RequestFormat

MODELLED = frozenset({"contents", "systemInstruction", "system_instruction", "tools"})
SCHEMA_KEYS = frozenset({"responseJsonSchema", "responseMimeType"})
ROLES = {"model": "assistant", "user": "user"}


class _Calls:
    """Gemini links a response to its call by name (and by id when the request has one): the
    neutral model needs an id on both, so calls without one get `call_<n>`."""

    def __init__(self) -> None:
        self.count = 0
        self.unanswered: dict[str, list[str]] = {}

    def call(self, name: str, given: Any) -> str:
        self.count += 1
        call_id = given if isinstance(given, str) and given else f"call_{self.count}"
        self.unanswered.setdefault(name, []).append(call_id)
        return call_id

    def response(self, name: str, given: Any) -> str:
        waiting = self.unanswered.get(name, [])
        if isinstance(given, str) and given:
            if given in waiting:
                waiting.remove(given)
            return given
        return waiting.pop(0) if waiting else f"unanswered_{name}"


def gemini(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages: list[Message] = []
    # The REST API takes the snake_case spelling too, and some clients (promptfoo) send it.
    system_key = "systemInstruction" if "systemInstruction" in data else "system_instruction"
    system = data.get(system_key)
    if isinstance(system, dict):
        segments = _texts(b, system.get("parts"), (system_key, "parts"))
        messages.append(
            Message(
                "system",
                segments,
                span=b.span((system_key,)),
                blocks=True,
                options=b.options(system, {"parts"}),
            )
        )
    contents = data.get("contents")
    if not isinstance(contents, list):
        raise InputError("`contents` must be a list", b.path, b.line(("contents",)))
    calls = _Calls()
    starts = []  # index of each content's first message, so the Gemini export keeps contents apart
    for index, content in enumerate(contents):
        where = ("contents", index)
        if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
            raise InputError("each content needs a list of `parts`", b.path, b.line(where))
        starts.append(len(messages))
        messages.extend(_content(b, content, where, calls))
    generation = data.get("generationConfig")
    schema = generation.get("responseJsonSchema") if isinstance(generation, dict) else None
    case = b.case(
        case_id,
        messages,
        data,
        MODELLED,
        {"generationConfig": SCHEMA_KEYS} if isinstance(schema, dict) else None,
    )
    case.metadata["content_starts"] = starts
    if isinstance(system, dict) and system_key != "systemInstruction":
        case.metadata["system_key"] = system_key
    case.tools = _tools(b, data.get("tools"))
    if isinstance(data.get("tools"), list):
        # Exported back to Gemini, the tools go as they were sent: the tool list shows each
        # declaration, not how they were grouped or spelled (`parameters`, a tool object holding
        # declarations and googleSearch together).
        case.metadata["tools_sent"] = data["tools"]
    if isinstance(schema, dict):
        case.output_schema = OutputSchema(name="output", schema=schema)
    return case


def _texts(b: Builder, parts: Any, where: tuple) -> list[Segment]:
    segments: list[Segment] = []
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        if segments:
            segments.append(b.separator())
        segments.append(_part(b, part, where + (index,)))
    return segments


def _part(b: Builder, part: Any, where: tuple) -> Segment:
    if isinstance(part, dict) and isinstance(part.get("text"), str):
        return Segment(part["text"], b.origin(where + ("text",)), options=b.options(part, {"text"}))
    found = media.gemini(part) if isinstance(part, dict) else None
    if found is not None:
        item, used = found
        return Segment("", b.origin(where), media=item, options=b.options(part, used))
    kind = next(iter(part), "part") if isinstance(part, dict) and part else "part"
    b.warn(f"a {kind} part is not text; shown as a marker", where)
    return Segment(f"<{kind}>", b.origin(where, OriginKind.MARKER))


def _content(b: Builder, content: dict, where: tuple, calls: _Calls) -> list[Message]:
    role = content.get("role", "user")
    role = ROLES.get(role, role) if isinstance(role, str) else "user"
    segments: list[Segment] = []
    tool_calls: list[ToolCall] = []
    responses: list[Message] = []
    for index, part in enumerate(content["parts"]):
        part_where = where + ("parts", index)
        call = part.get("functionCall") if isinstance(part, dict) else None
        answer = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(call, dict):
            name = str(call.get("name", ""))
            tool_calls.append(
                ToolCall(
                    calls.call(name, call.get("id")),
                    name,
                    b.arguments(call.get("args")),
                    origin=b.origin(part_where),
                    options=b.options(call, {"name", "args"}),
                )
            )
        elif isinstance(answer, dict):
            name = str(answer.get("name", ""))
            responses.append(
                Message(
                    "tool",
                    [Segment(_response_text(answer.get("response")), b.origin(part_where))],
                    tool_call_id=calls.response(name, answer.get("id")),
                    span=b.span(part_where),
                    options=b.options(answer, {"name", "response"}),
                )
            )
        else:
            if segments:
                segments.append(b.separator())
            segments.append(_part(b, part, part_where))
    messages = list(responses)
    if segments or tool_calls or not responses:
        messages.append(
            Message(
                role,
                segments,
                tool_calls=tool_calls,
                span=b.span(where),
                blocks=True,
                options=b.options(content, {"role", "parts"}),
            )
        )
    return messages


def _response_text(response: Any) -> str:
    """A function response as the tool result text: `{"output": text}` is the text (the form the
    exporter wraps plain text in), any other object its JSON."""
    if isinstance(response, dict) and set(response) == {"output"} and isinstance(response["output"], str):
        return response["output"]
    return json.dumps(response if response is not None else {}, ensure_ascii=False)


def _tools(b: Builder, tools: Any) -> list[ToolSpec]:
    specs: list[ToolSpec] = []
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        declarations = tool.get("functionDeclarations") if isinstance(tool, dict) else None
        if not isinstance(declarations, list):
            if isinstance(tool, dict) and len(tool) == 1:
                # googleSearch, codeExecution, urlContext ...: Gemini's own, kept as it is.
                specs.append(ToolSpec(next(iter(tool)), raw=tool))
            else:
                b.warn("a tool without functionDeclarations is not shown", ("tools", index))
            continue
        for declaration in declarations:
            if not isinstance(declaration, dict) or not isinstance(declaration.get("name"), str):
                b.warn("a function declaration without a name is not shown", ("tools", index))
                continue
            parameters = declaration.get("parametersJsonSchema", declaration.get("parameters"))
            specs.append(
                ToolSpec(
                    declaration["name"],
                    b.description(declaration, ("tools", index)),
                    parameters if isinstance(parameters, dict) else None,
                    options=b.options(
                        declaration, {"name", "description", "parametersJsonSchema", "parameters"}
                    ),
                )
            )
    return specs


GENERATION = {
    "maxOutputTokens": "max_tokens",
    "temperature": "temperature",
    "topP": "top_p",
    "topK": "top_k",
    "stopSequences": "stop",
    "seed": "seed",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
    "candidateCount": "n",
}
MODES = {"AUTO": "auto", "ANY": "required", "NONE": "none"}


def read_fields(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    generation = request.get("generationConfig")
    if isinstance(generation, dict):
        for key, name in GENERATION.items():
            if generation.get(key) is not None:
                common[name] = generation[key]
        thinking = generation.get("thinkingConfig")
        if isinstance(thinking, dict) and set(thinking) == {"thinkingLevel"}:
            common["effort"] = str(thinking["thinkingLevel"]).lower()
        if set(generation) <= {*GENERATION, "thinkingConfig"} and (
            "thinkingConfig" not in generation or "effort" in common
        ):
            consumed.add("generationConfig")
    _read_tool_choice(request, common, consumed)


def _read_tool_choice(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    calling = (
        (request.get("toolConfig") or {}).get("functionCallingConfig")
        if isinstance(request.get("toolConfig"), dict)
        else None
    )
    if isinstance(calling, dict):
        mode = calling.get("mode")
        names = calling.get("allowedFunctionNames")
        if mode == "ANY" and isinstance(names, list) and len(names) == 1:
            common["tool_choice"] = {"name": names[0]}
        elif isinstance(mode, str) and mode in MODES and not names:
            common["tool_choice"] = MODES[mode]
        if "tool_choice" in common and set(request["toolConfig"]) == {"functionCallingConfig"}:
            consumed.add("toolConfig")


def matches(data: dict) -> bool:
    contents = data.get("contents")
    return (
        isinstance(contents, list)
        and bool(contents)
        and all(isinstance(item, dict) and isinstance(item.get("parts"), list) for item in contents)
    )


FORMAT: RequestFormat = RequestFormat(
    "gemini",
    "Gemini",
    matches=matches,
    read=lambda b, case_id, data, _options: gemini(b, case_id, data),
    read_fields=read_fields,
    detect_rank=40,
)
