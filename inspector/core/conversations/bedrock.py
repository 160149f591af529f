"""AWS Bedrock Converse request bodies: a `system` list, `messages` of type-less content blocks
(`text`, `image`, `document`, `toolUse`, `toolResult`, `cachePoint`), `toolConfig` and
`inferenceConfig`, as botocore's `bedrock-runtime` service model spells them.

A `cachePoint` block marks the end of what the block before it caches, so it is kept as an option
of that block (`{"cachePoint": ...}`): the Converse exporter writes it back right after the block,
other providers name it in Changes.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import msgspec

from ..model import (
    Media,
    Message,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
    ToolSpec,
)
from .builder import Builder
from .spec import RequestFormat, role_messages

MODELLED = frozenset({"messages", "system"})
CACHE_POINT = "cachePoint"
# Converse names a format where the others give a media type.
IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
DOCUMENT_TYPES = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
}
# The content block kinds Converse has; a block is an object with exactly one of them.
BLOCK_KINDS = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
        "searchResult",
    }
)
BODY_KEYS = frozenset(
    {
        "inferenceConfig",
        "toolConfig",
        "additionalModelRequestFields",
        "additionalModelResponseFieldPaths",
        "guardrailConfig",
        "promptVariables",
        "performanceConfig",
        "requestMetadata",
        "outputConfig",
    }
)


def looks_bedrock(data: dict[str, Any], messages: list) -> bool:
    """Whether a body with `messages` is a Converse one: Converse's own top-level fields, or
    content blocks without a `type` (OpenAI's parts and Anthropic's blocks always have one)."""
    if BODY_KEYS & data.keys():
        return True
    system = data.get("system")
    if isinstance(system, list) and system and all(_is_block(item) for item in system):
        return True
    lists = [
        message.get("content")
        for message in messages
        if isinstance(message.get("content"), list) and message.get("content")
    ]
    return bool(lists) and all(_is_block(block) for content in lists for block in content)


def _is_block(block: Any) -> bool:
    return isinstance(block, dict) and "type" not in block and len(block.keys() & BLOCK_KINDS) == 1


def bedrock(b: Builder, case_id: str, data: dict) -> RenderedCase:
    messages: list[Message] = []
    system = data.get("system")
    if system is not None:
        if not isinstance(system, list):
            b.warn("`system` must be a list of blocks; shown as JSON", ("system",))
            system = [{"text": b.text(system, ("system",), "system")}]
        # Each system block is a system message of its own, as several system prompts are.
        for index, segment in enumerate(_blocks(b, system, ("system",))[0]):
            if segment.origin.kind is not OriginKind.SEPARATOR:
                messages.append(Message("system", [segment], span=b.span(("system", index)), blocks=True))
    for where, item in b.message_items(data):
        messages.extend(_message(b, item, where))
    tool_config = data.get("toolConfig")
    output = data.get("outputConfig")
    schema = _output_schema(output)
    nested = {"toolConfig": frozenset({"tools"})}
    if schema is not None:
        nested["outputConfig"] = frozenset({"textFormat"})
    case = b.case(case_id, messages, data, MODELLED, nested)
    if isinstance(tool_config, dict):
        case.tools = _tools(b, tool_config.get("tools"), ("toolConfig", "tools"))
    case.output_schema = schema
    if system:
        case.metadata["system_message"] = True
    return case


def _message(b: Builder, item: dict, where: tuple) -> list[Message]:
    role, content = item["role"], item.get("content")
    extra = b.options(item, {"role", "content"})
    if not isinstance(content, list):
        b.warn("Converse content must be a list of blocks", where + ("content",))
        return [Message(role, b.parts(content, where + ("content",), ()), span=b.span(where), options=extra)]
    segments, calls, results = _blocks(b, content, where + ("content",))
    messages = list(results)
    if segments or calls or not results:
        messages.append(
            Message(role, segments, tool_calls=calls, span=b.span(where), blocks=True, options=extra)
        )
    return messages


def _blocks(
    b: Builder, content: list, where: tuple, in_result: bool = False
) -> tuple[list[Segment], list[ToolCall], list[Message]]:
    """A content list's text and media segments, tool calls and tool results; a cachePoint
    becomes an option of the item right before it. Inside a toolResult, a `json` block is its
    value as JSON text, kept whole (`raw`) so Converse gets the block back as it was."""
    segments: list[Segment] = []
    calls: list[ToolCall] = []
    results: list[Message] = []
    last: str | None = None  # which list the latest item went to
    for index, block in enumerate(content):
        block_where = where + (index,)
        if not isinstance(block, dict):
            b.warn("a content block must be an object; shown as a marker", block_where)
            block = {"unknown": block}
        if CACHE_POINT in block and len(block) == 1 and last is not None:
            _mark_cache_point(segments, calls, results, last, block[CACHE_POINT])
            continue
        if "toolUse" in block and isinstance(block["toolUse"], dict):
            calls.append(_tool_call(b, block["toolUse"], block_where + ("toolUse",)))
            last = "calls"
        elif "toolResult" in block and isinstance(block["toolResult"], dict):
            results.append(_tool_result(b, block["toolResult"], block_where + ("toolResult",)))
            last = "results"
        else:
            _add_segment(b, segments, block, block_where, in_result)
            last = "segments"
    return segments, calls, results


def _tool_call(b: Builder, use: dict[str, Any], where: tuple) -> ToolCall:
    return ToolCall(
        id=str(use.get("toolUseId", "")),
        name=str(use.get("name", "")),
        arguments=b.arguments(use.get("input")),
        origin=b.origin(where),
        options=b.options(use, {"toolUseId", "name", "input"}),
    )


def _add_segment(
    b: Builder, segments: list[Segment], block: dict[str, Any], where: tuple, in_result: bool
) -> None:
    """A text, media, reasoning or (in a tool result) `json` block, after a separator when text
    came before it."""
    if "reasoningContent" in block and len(block) == 1:
        # The model's reasoning: kept whole for Converse, no text of its own.
        segments.append(Segment("", b.origin(where, OriginKind.MARKER), raw=block))
        return
    if any(segment.raw is None or segment.text for segment in segments):
        segments.append(b.separator())
    if in_result and "json" in block and len(block) == 1:
        segments.append(
            Segment(json.dumps(block["json"], ensure_ascii=False), b.origin(where + ("json",)), raw=block)
        )
    else:
        segments.append(_segment(b, block, where))


def _mark_cache_point(
    segments: list[Segment], calls: list[ToolCall], results: list[Message], last: str, point: Any
) -> None:
    if last == "segments":
        segments[-1] = msgspec.structs.replace(
            segments[-1], options={**(segments[-1].options or {}), CACHE_POINT: point}
        )
    elif last == "calls":
        calls[-1] = msgspec.structs.replace(
            calls[-1], options={**(calls[-1].options or {}), CACHE_POINT: point}
        )
    else:
        results[-1].options = {**(results[-1].options or {}), CACHE_POINT: point}


def _segment(b: Builder, block: dict[str, Any], where: tuple) -> Segment:
    if isinstance(block.get("text"), str):
        return Segment(block["text"], b.origin(where + ("text",)), options=b.options(block, {"text"}))
    found = media(block)
    if found is not None:
        item, used = found
        return Segment("", b.origin(where), media=item, options=b.options(block, used))
    return b.part(block, where, (), None)


def media(block: dict[str, Any]) -> tuple[Media, set[str]] | None:
    """An image or document block with its bytes (base64 in the JSON body) as Media."""
    for key, types, kind in (("image", IMAGE_TYPES, "image"), ("document", DOCUMENT_TYPES, "file")):
        value = block.get(key)
        if not isinstance(value, dict):
            continue
        source = value.get("source")
        fmt = value.get("format")
        used = {"format", "source"} | ({"name"} if kind == "file" else set())
        if (
            not isinstance(fmt, str)
            or fmt not in types
            or not isinstance(source, dict)
            or set(source) != {"bytes"}
            or not isinstance(source["bytes"], str)
            or set(value) - used
        ):
            return None
        name = value.get("name")
        # The name gets the format as its extension, as other providers' file names have one.
        filename = f"{name}.{fmt}" if isinstance(name, str) else None
        return Media(kind, media_type=types[fmt], data=source["bytes"], filename=filename), {key}
    return None


def _tool_result(b: Builder, result: dict[str, Any], where: tuple) -> Message:
    content = result.get("content")
    if isinstance(content, list):
        segments = _blocks(b, content, where + ("content",), in_result=True)[0]
    else:
        segments = b.parts(content, where + ("content",), ())
    message = Message(
        "tool",
        segments,
        tool_call_id=str(result.get("toolUseId", "")),
        span=b.span(where),
        blocks=True,
        options=b.options(result, {"toolUseId", "content"}),
    )
    if result.get("status") == "error":
        b.warn(f"tool result {message.tool_call_id} has status error", where)
    return message


def _tools(b: Builder, tools: Any, where: tuple) -> list[ToolSpec]:
    if not isinstance(tools, list):
        if tools is not None:
            b.warn("`toolConfig.tools` must be a list; ignored", where)
        return []
    specs: list[ToolSpec] = []
    for index, tool in enumerate(tools):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if isinstance(tool, dict) and set(tool) == {CACHE_POINT} and specs:
            last = specs[-1]
            specs[-1] = dataclasses.replace(
                last, options={**(last.options or {}), CACHE_POINT: tool[CACHE_POINT]}
            )
            continue
        system_tool = tool.get("systemTool") if isinstance(tool, dict) else None
        if isinstance(system_tool, dict) and isinstance(system_tool.get("name"), str):
            # A tool Bedrock runs itself: Converse's own, kept as it is.
            specs.append(ToolSpec(name=system_tool["name"], raw=tool))
            continue
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            b.warn("a tool that is not a toolSpec with a name is not shown", where + (index,))
            continue
        specs.append(_tool_spec(b, spec, where + (index,)))
    return specs


def _tool_spec(b: Builder, spec: dict[str, Any], where: tuple) -> ToolSpec:
    schema = spec.get("inputSchema")
    parameters = schema.get("json") if isinstance(schema, dict) else None
    strict = spec.get("strict")
    return ToolSpec(
        name=spec["name"],
        description=b.description(spec, where),
        parameters=parameters if isinstance(parameters, dict) else None,
        strict=strict if isinstance(strict, bool) else None,
        options=b.options(spec, {"name", "description", "inputSchema", "strict"}),
    )


def _output_schema(output: Any) -> OutputSchema | None:
    """outputConfig's JSON schema (sent as a string of JSON), when that is all textFormat holds."""
    fmt = output.get("textFormat") if isinstance(output, dict) else None
    structure = fmt.get("structure") if isinstance(fmt, dict) else None
    spec = structure.get("jsonSchema") if isinstance(structure, dict) else None
    if not (
        isinstance(fmt, dict)
        and fmt.get("type") == "json_schema"
        and set(fmt) == {"type", "structure"}
        and isinstance(spec, dict)
        and set(spec) <= {"schema", "name"}
        and isinstance(spec.get("schema"), str)
    ):
        return None
    try:
        schema = json.loads(spec["schema"])
    except ValueError:
        return None
    if not isinstance(schema, dict) or json.dumps(schema, ensure_ascii=False) != spec["schema"]:
        return None  # written back it would be another string: keep the field as it was
    return OutputSchema(name=str(spec.get("name", "output")), schema=schema)


INFERENCE = {
    "maxTokens": "max_tokens",
    "temperature": "temperature",
    "topP": "top_p",
    "stopSequences": "stop",
}
CHOICES = {"auto": "auto", "any": "required"}


def read_fields(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    inference = request.get("inferenceConfig")
    if isinstance(inference, dict):
        for key, name in INFERENCE.items():
            if inference.get(key) is not None:
                common[name] = inference[key]
        if set(inference) <= INFERENCE.keys():
            consumed.add("inferenceConfig")
    _read_tool_choice(request, common, consumed)


def _read_tool_choice(request: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    # The reader keeps toolConfig without its tools: what is left is the tool choice.
    tool_config = request.get("toolConfig")
    choice = tool_config.get("toolChoice") if isinstance(tool_config, dict) else None
    if isinstance(choice, dict) and len(choice) == 1:
        [(kind, value)] = choice.items()
        if kind in CHOICES:
            common["tool_choice"] = CHOICES[kind]
        elif kind == "tool" and isinstance(value, dict) and isinstance(value.get("name"), str):
            common["tool_choice"] = {"name": value["name"]}
    if (
        isinstance(tool_config, dict)
        and set(tool_config) <= {"toolChoice"}
        and ("toolChoice" not in tool_config or "tool_choice" in common)
    ):
        consumed.add("toolConfig")


def matches(data: dict) -> bool:
    messages = role_messages(data)
    return messages is not None and looks_bedrock(data, messages)


FORMAT: RequestFormat = RequestFormat(
    "bedrock-converse",
    "Bedrock Converse",
    matches=matches,
    read=lambda b, case_id, data, _options: bedrock(b, case_id, data),
    read_fields=read_fields,
    family="bedrock",
    detect_rank=10,
)
