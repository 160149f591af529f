"""Plain-data views of the neutral model: the CLI's JSON contract and the API's detailed form."""

from __future__ import annotations

from typing import Any

from .model import Diagnostic, LineSpan, Media, Message, Origin, OriginKind, RenderedCase, ToolSpec


def chat_message(message: Message) -> dict[str, Any]:
    """A message in OpenAI chat shape: role, content, plus name/tool fields if set. Content is a
    string, or, when the message holds images or files, a list of content parts."""
    data: dict[str, Any] = {"role": message.role, "content": content(message)}
    if message.name is not None:
        data["name"] = message.name
    if message.tool_calls:
        data["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    return data


def content(message: Message) -> str | list[dict[str, Any]]:
    """A message's content: its text, or, when it holds images or files, OpenAI chat content
    parts: the text between them as `text` parts, each image an `image_url` part, each file a
    `file` part (see media_part). A join the renderer put next to an image is no text of its own."""
    segments = message.segments
    if not any(segment.media is not None for segment in segments):
        return message.content
    parts: list[dict[str, Any]] = []
    run: list[str] = []
    last = len(segments) - 1
    for position, segment in enumerate(segments):
        if segment.media is None:
            if segment.origin.kind is OriginKind.SEPARATOR and (
                (position > 0 and segments[position - 1].media is not None)
                or (position < last and segments[position + 1].media is not None)
            ):
                continue
            run.append(segment.text)
            continue
        if "".join(run):
            parts.append({"type": "text", "text": "".join(run)})
        run = []
        parts.append(media_part(segment.media))
    if "".join(run):
        parts.append({"type": "text", "text": "".join(run)})
    return parts


def media_part(media: Media) -> dict[str, Any]:
    """An image as `{"type": "image_url", "image_url": {"url", "detail"?, "file_id"?}}`, a file as
    `{"type": "file", "file": {"file_data"?, "file_url"?, "file_id"?, "filename"?}}`, as OpenAI
    Chat spells them. `url` is the image's own address (http(s) or a provider's file URI) or a
    data URL of its bytes; null when it is known only by a provider's file id. `file_url` (a
    file's address; OpenAI Responses' name for it) is the one key OpenAI Chat does not have."""
    if media.kind == "image":
        image: dict[str, Any] = {"url": media.url if media.url is not None else media.data_url}
        if media.detail is not None:
            image["detail"] = media.detail
        if media.file_id is not None:
            image["file_id"] = media.file_id
        return {"type": "image_url", "image_url": image}
    file: dict[str, Any] = {}
    if media.data is not None:
        file["file_data"] = media.data_url
    if media.url is not None:
        file["file_url"] = media.url
    if media.file_id is not None:
        file["file_id"] = media.file_id
    if media.filename is not None:
        file["filename"] = media.filename
    return {"type": "file", "file": file}


def diagnostic(item: Diagnostic) -> dict[str, Any]:
    return {
        "message": item.message,
        "path": item.path,
        "line": item.line,
        "column": item.column,
        "severity": item.severity,
    }


def span(item: LineSpan | None) -> dict[str, Any] | None:
    if item is None:
        return None
    return {"path": item.path, "start_line": item.start_line, "end_line": item.end_line}


def origin(item: Origin) -> dict[str, Any]:
    return {
        "kind": item.kind.value,
        "path": item.path,
        "start_line": item.start_line,
        "end_line": item.end_line,
        "via": span(item.via),
    }


def case_contract(case: RenderedCase) -> dict[str, Any]:
    """The `render` command's per-case object: {"id", "messages", "omitted", "warnings"}, and
    "tools" (OpenAI function tools) when the case offers the model any."""
    omitted = []
    for message in case.omitted_messages:
        entry = chat_message(message)
        entry["reason"] = message.omitted
        omitted.append(entry)
    return (
        {
            "id": case.id,
            "messages": [chat_message(message) for message in case.sent_messages],
            "omitted": omitted,
            "warnings": [diagnostic(item) for item in case.warnings],
        }
        | (
            {"tools": tools}
            if (tools := [function_tool(tool) for tool in case.tools if tool.raw is None])
            else {}
        )
        | (
            # gambit decks: the names --context-sample takes.
            {"samples": samples} if (samples := (case.metadata.get("gambit") or {}).get("samples")) else {}
        )
    )


def function_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool in OpenAI's chat function-tool shape."""
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    if tool.parameters is not None:
        function["parameters"] = tool.parameters
    return {"type": "function", "function": function}


def graders_contract(case: RenderedCase) -> list[dict[str, Any]]:
    """`render --graders`: each grader's name and the messages it sends (chat shape); a script
    grader, which sends none, says what it runs (`note`, `script`)."""
    return [
        {
            "name": grader.name,
            "messages": [chat_message(m) for m in grader.messages],
            **({"note": grader.note, "script": grader.script} if grader.note else {}),
            **({"judge": grader.judge} if grader.judge else {}),
        }
        for grader in case.graders
    ]


def _detailed_message(message: Message) -> dict[str, Any]:
    return {
        **chat_message(message),
        "span": span(message.span),
        "omitted": message.omitted,
        "segments": [{"text": seg.text, "origin": origin(seg.origin)} for seg in message.segments],
    }


def case_detail(case: RenderedCase) -> dict[str, Any]:
    """Everything the inspector knows about a case, segments and origins included."""
    return {
        "id": case.id,
        "span": span(case.span),
        "skipped": case.skipped,
        "metadata": case.metadata,
        "warnings": [diagnostic(item) for item in case.warnings],
        "messages": [_detailed_message(message) for message in case.messages],
        "graders": [
            {
                "name": grader.name,
                "messages": [_detailed_message(message) for message in grader.messages],
                "note": grader.note,
                "span": span(grader.span),
                "script": grader.script,
                "judge": grader.judge,
            }
            for grader in case.graders
        ],
        "tools": [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "strict": tool.strict,
            }
            for tool in case.tools
        ],
        "output_schema": None
        if case.output_schema is None
        else {
            "name": case.output_schema.name,
            "schema": case.output_schema.schema,
            "strict": case.output_schema.strict,
        },
    }
