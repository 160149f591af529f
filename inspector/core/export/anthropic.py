"""Anthropic Messages: system text pulled out of the array (seed 003), tool_use / tool_result
blocks, consecutive same-role turns merged."""

from __future__ import annotations

from typing import Any

from ..model import Media, Message, RenderedCase, Segment, ToolCall
from . import image_tokens, request
from .anthropic_cache import export_with_breakpoints
from .common import (
    ANTHROPIC,
    MAX_NAME,
    SAFE_ID_FULL,
    ExportResult,
    ExportSettings,
    Notes,
    ResolvedDefaults,
    TurnExport,
    Turns,
    arguments_object,
    blocks,
    empty_object_schema,
    kept_options,
    lint_name,
    media_what,
    safe_id,
)
from .request import put_field
from .spec import Batch, Billing, Http, PromptCache, Provider
from .templates import sdk_python, sdk_typescript

# Anthropic requires max_tokens, so a request gets one; temperature is the server's default.
DEFAULTS = ResolvedDefaults("claude-sonnet-4-6", max_tokens=1024)
SYSTEM_ROLES = frozenset({"system", "developer"})
# The version the SDKs named in PROVIDER.sdks send, so curl asks for the same API as the code.
API_VERSION = "2026-10-21"


class _Build(TurnExport):
    """One export's state while its messages are turned into Anthropic turns."""

    __slots__ = (
        "last_kind",
        "ids",
        "cleaned",
        "pending",
        "first_call",
        "same_api",
        "system_blocks",
        "string_turns",
    )

    def __init__(self, settings: ExportSettings):
        super().__init__(settings, "content")
        self.last_kind: str | None = None  # "user", "assistant" or "tool": the latest blocks' kind
        self.ids: dict[str, str] = {}  # original tool call id -> the id sent
        # Ids made by cleaning (usually none): a later id as written must not reuse one.
        self.cleaned: set[str] = set()
        self.first_call: int | None = None  # index of the first message with a tool call
        self.same_api = False  # whether the case is an Anthropic request read back
        self.system_blocks: list[dict[str, Any]] | None = None  # when system goes as blocks
        self.string_turns: list[int] = []  # turns to send as a string, as their source did
        self.pending: dict[str, int] = {}  # tool_use ids awaiting a tool_result in the next turn


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    build = _Build(settings)
    resolved = request.resolve(case, settings, PROVIDER, build.notes)
    build.same_api = case.metadata.get("format") == ANTHROPIC
    _convert(build, case)
    if build.pending:
        _lint_unanswered(build.pending, build.notes)
    _lint_turns(build.turns, build.notes)
    if build.first_call is not None and not case.tools:
        build.notes.lint(
            "the messages hold tool calls but the request defines no tools: "
            "Anthropic refuses tool_use blocks without `tools`",
            build.first_call,
        )
    if build.string_turns:
        _strings(build)
    payload: dict[str, Any] = {"model": resolved.model, "max_tokens": resolved.max_tokens}
    if build.system_blocks is not None:
        payload["system"] = build.system_blocks
    elif build.system_parts:
        payload["system"] = "\n\n".join(build.system_parts)
    payload["messages"] = build.turns.turns
    if case.tools:
        payload["tools"] = _tools(case, build.notes, build.same_api)
    if case.output_schema is not None:
        payload["output_config"] = {"format": {"type": "json_schema", "schema": case.output_schema.schema}}
    if resolved.temperature is not None:
        # The current Messages API (SDK request types included) has no sampling temperature.
        build.notes.change(
            f"temperature {resolved.temperature} left out: the Anthropic Messages API no longer takes one"
        )
    request.apply(case, PROVIDER, payload, build.notes)
    return ExportResult(
        ANTHROPIC,
        resolved.model,
        payload,
        build.notes.changes,
        build.notes.lints,
        list(case.warnings),
        case.id,
    )


def _convert(build: _Build, case: RenderedCase) -> None:
    """The messages into turns: each message by the one handler of its kind, which merges it
    into the turn before when the roles meet."""
    for index, message in enumerate(case.messages):
        if message.omitted is None:
            _message(build, case, message, index)


def _message(build: _Build, case: RenderedCase, message: Message, index: int) -> None:
    """One message, by its kind: assistant text and calls, a tool result, system text, or
    anything else as a user message."""
    role = message.role
    text = "".join([segment.text for segment in message.segments])
    parts = None if message.blocks is None else blocks(message)
    if role == "assistant":
        _assistant(build, message, text, index, parts)
    elif message.tool_call_id is not None and (role == "tool" or role == "function"):
        _tool_result(build, message, text, index, parts)
    elif role in SYSTEM_ROLES:
        _system(build, case, message, text, index, parts)
    else:
        _user(build, message, text, index, parts)


def _system(
    build: _Build, case: RenderedCase, message: Message, text: str, index: int, parts: list[Segment] | None
) -> None:
    """System text goes to the top-level system: one string, or text blocks when the source gave
    blocks (their cache_control kept)."""
    if parts is not None and build.system_blocks is None:
        build.system_blocks = [{"type": "text", "text": part} for part in build.system_parts]
    if build.system_blocks is not None:
        if parts is None:
            if text:
                build.system_blocks.append({"type": "text", "text": text})
        else:
            build.system_blocks += _blocks(build, parts, index, "a system message")
    if text:
        build.system_parts.append(text)
    if not (index == 0 and case.metadata.get("system_message") is True and build.same_api):
        build.notes.change(f"{message.role} message moved into the top-level system", index)


def _blocks(build: _Build, parts: list[Segment], index: int, where: str) -> list[dict[str, Any]]:
    """Content blocks: text, and images and documents where Anthropic takes them (user turns
    and tool results)."""
    result: list[dict[str, Any]] = []
    for segment in parts:
        if segment.raw is not None:  # a thinking block of an Anthropic request read back
            result.append(segment.raw)
            continue
        media = segment.media
        if media is None:
            block: dict[str, Any] = {"type": "text", "text": segment.text}
        elif where != "a user message" and where != "a tool result":
            build.notes.change(
                f"{media_what(media)} of {where} left out: Anthropic takes images "
                "and documents in user turns and tool results",
                index,
            )
            continue
        else:
            found = _media_block(build, media, index)
            if found is None:
                continue
            block = found
        if segment.options:
            block.update(
                kept_options(
                    segment.options, build.same_api, "a content block", build.notes, index, "Anthropic"
                )
            )
        result.append(block)
    return result


def _media_block(build: _Build, media: Media, index: int) -> dict[str, Any] | None:
    if media.data is not None:
        source: dict[str, Any] = {"type": "base64", "media_type": media.media_type or "", "data": media.data}
    elif media.url is not None and media.url.startswith(("http://", "https://")):
        source = {"type": "url", "url": media.url}
    elif media.file_id is not None and build.same_api:
        source = {"type": "file", "file_id": media.file_id}
    else:
        build.notes.change(f"{media_what(media)} given by another provider's file id or URI left out", index)
        return None
    if media.kind == "image":
        return {"type": "image", "source": source}
    if source["type"] == "base64" and media.media_type != "application/pdf":
        build.notes.lint(
            f"a {media.media_type or 'typeless'} document: Anthropic takes base64 documents as PDF", index
        )
    block = {"type": "document", "source": source}
    if media.filename is not None:
        block["title"] = media.filename
    return block


def _strings(build: _Build) -> None:
    """Turns opened by a message whose source content was a string, and still one text block,
    go back as that string."""
    turns = build.turns.turns
    for position in build.string_turns:
        turn = turns[position]
        content = turn["content"]
        if len(content) == 1:
            block = content[0]  # a text block with nothing else: {"type": "text", "text": ...}
            if len(block) == 2 and block.get("type") == "text" and "text" in block:
                turn["content"] = block["text"]


def _drop_name(build: _Build, message: Message, index: int) -> None:
    build.notes.change(f"name {message.name!r} dropped: Anthropic messages have no name", index)


def _assistant(build: _Build, message: Message, text: str, index: int, parts: list[Segment] | None) -> None:
    if message.name is not None:
        _drop_name(build, message, index)
    turns = build.turns
    if turns.role != "assistant" and build.pending:
        _lint_unanswered(build.pending, build.notes)
    if parts is not None:
        blocks = _assistant_blocks(build, message, parts, index)
    elif message.tool_calls:
        blocks = [{"type": "text", "text": text}] if text else []
        blocks += [
            _tool_use(build, call, index, position) for position, call in enumerate(message.tool_calls)
        ]
    elif text:
        blocks = [{"type": "text", "text": text}]
    else:
        blocks = [{"type": "text", "text": ""}]
        build.notes.lint("empty message: Anthropic rejects empty content", index)
    if message.blocks is False and turns.role != "assistant":
        build.string_turns.append(len(turns.turns))
    if turns.add("assistant", blocks, index):
        build.notes.change("merged into the previous assistant turn", index)
    build.last_kind = "assistant"


def _assistant_blocks(
    build: _Build, message: Message, parts: list[Segment], index: int
) -> list[dict[str, Any]]:
    blocks = _blocks(build, parts, index, "an assistant message")
    for call in message.tool_calls:
        blocks.append(_tool_use(build, call, index, len(blocks)))
    if not blocks:
        blocks = [{"type": "text", "text": ""}]
        build.notes.lint("empty message: Anthropic rejects empty content", index)
    return blocks


def _tool_use(build: _Build, call: ToolCall, index: int, position: int) -> dict[str, Any]:
    """A tool call as a tool_use block, under the id it is sent as."""
    call_id = build.ids.get(call.id) or _tool_use_id(build, call.id, index, position)
    if build.first_call is None:
        build.first_call = index
    block = {
        "type": "tool_use",
        "id": call_id,
        "name": call.name,
        "input": arguments_object(call.arguments, call.name, index, build.notes),
    }
    if call.options:
        block.update(
            kept_options(call.options, build.same_api, "a tool call", build.notes, index, "Anthropic")
        )
    build.pending[call_id] = index
    return block


def _tool_use_id(build: _Build, raw_id: str, index: int, position: int) -> str:
    """The id a tool call is sent under (the same for every later mention of it)."""
    call_id = build.ids.get(raw_id)
    if call_id is None:
        # safe_id's test inlined (the fallback id is only formatted when needed), with ASCII
        # identifiers, a subset of the allowed ids, as the cheap case.
        if (
            len(raw_id) <= MAX_NAME
            and ((raw_id.isascii() and raw_id.isidentifier()) or SAFE_ID_FULL.fullmatch(raw_id))
            and raw_id not in build.cleaned
        ):
            call_id = raw_id
        else:
            call_id = _unused_id(set(build.ids.values()), safe_id(raw_id, f"toolu_{index}_{position}"))
            build.cleaned.add(call_id)
            build.notes.change(f"tool call id {raw_id!r} sent as {call_id!r}", index)
        build.ids[raw_id] = call_id
    return call_id


def _unused_id(used: set[str], cleaned: str) -> str:
    """`cleaned`, or with a suffix when another call already went out under it: ids that differ
    only in characters Anthropic refuses (`call.1`, `call/1`) must stay two ids."""
    if cleaned not in used:
        return cleaned
    suffix = 2
    while True:
        candidate = f"{cleaned[: MAX_NAME - len(str(suffix)) - 1]}_{suffix}"
        if candidate not in used:
            return candidate
        suffix += 1


def _tool_result(build: _Build, message: Message, text: str, index: int, parts: list[Segment] | None) -> None:
    if message.name is not None:
        _drop_name(build, message, index)
    original = message.tool_call_id
    assert original is not None
    call_id = build.ids.get(original) or safe_id(original, f"toolu_{index}")
    if build.pending.pop(call_id, None) is None:
        build.notes.lint(
            f"tool result for {original!r} does not answer a tool_use of the assistant turn right before it",
            index,
        )
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": text if parts is None else _blocks(build, parts, index, "a tool result"),
    }
    if message.options:
        block.update(
            kept_options(message.options, build.same_api, "a tool result", build.notes, index, "Anthropic")
        )
    turns = build.turns
    if turns.role != "user":
        turns.content = [block]
        turns.role = "user"
        if not turns.turns:
            turns.first_source = index
        turns.turns.append({"role": "user", "content": turns.content})
        turns.last_source = index
    elif build.last_kind == "user":
        # tool_result blocks must open the user turn: put this one before the text.
        position = 0
        while position < len(turns.content) and turns.content[position]["type"] == "tool_result":
            position += 1
        turns.content.insert(position, block)
        build.notes.change("tool result placed before the user text of the same turn", index)
    else:
        turns.content.append(block)
    build.last_kind = "tool"


def _user(build: _Build, message: Message, text: str, index: int, parts: list[Segment] | None) -> None:
    """A user message, or anything else sent as one."""
    if message.name is not None:
        _drop_name(build, message, index)
    role = message.role
    if role != "user":
        reason = (
            "a tool result without a tool_call_id"
            if role in ("tool", "function")
            else f"role {role!r} is not an Anthropic role"
        )
        build.notes.change(f"{reason}; sent as a user message", index)
    blocks = (
        [{"type": "text", "text": text}] if parts is None else _blocks(build, parts, index, "a user message")
    )
    if not text and not any(block["type"] != "text" for block in blocks):
        build.notes.lint("empty message: Anthropic rejects empty content", index)
    if build.turns.add("user", blocks, index):
        if build.last_kind == "user":
            build.notes.change("merged into the previous user turn", index)
    elif message.blocks is False:
        build.string_turns.append(len(build.turns.turns) - 1)
    build.last_kind = "user"


def _lint_turns(turns: Turns, notes: Notes) -> None:
    """What the Messages API refuses in the order of the turns."""
    if turns.turns and turns.turns[0]["role"] != "user":
        notes.lint("the first message must be a user message", turns.first_source)
    if not turns.turns:
        notes.lint("the request has no user or assistant messages")
    elif turns.turns[-1]["role"] == "assistant":
        content = turns.turns[-1]["content"]
        last = content[-1]["text"] if content[-1]["type"] == "text" else None
        if last is not None and last != last.rstrip():
            notes.lint("a final assistant message (prefill) cannot end with whitespace", turns.last_source)


def _tools(case: RenderedCase, notes: Notes, same_api: bool) -> list[dict[str, Any]]:
    tools = []
    for tool in case.tools:
        if tool.raw is not None:  # a server tool of an Anthropic request read back
            tools.append(tool.raw)
            continue
        lint_name(tool.name, "tool", notes)
        entry: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            entry["description"] = tool.description
        if tool.strict is not None and same_api:  # strict tool use, as an Anthropic request wrote it
            entry["strict"] = tool.strict
        schema = tool.parameters if tool.parameters is not None else empty_object_schema()
        if schema.get("type") != "object":
            notes.lint(f"tool {tool.name!r}: input_schema must be an object schema")
        entry["input_schema"] = schema
        if tool.options:
            entry.update(
                kept_options(tool.options, same_api, f"tool {tool.name!r}", notes, None, "Anthropic")
            )
        tools.append(entry)
    return tools


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    for call_id, index in pending.items():
        notes.lint(f"tool_use {call_id!r} has no tool_result in the user turn right after it", index)
    pending.clear()


# Anthropic caches only up to a block marked with cache_control (at most four per request), in the
# order tools, system, messages, and only a prefix of at least the model's minimum.
DATED = r"(-\d{8}|-latest)?$"
CACHE = PromptCache(
    mode="breakpoints",
    system_first=True,
    minimums=(
        # The 4.6 models as the documentation lists them (quoted in anthropics/anthropic-sdk-python
        # issue 1194): Opus 4.6 with Opus 4.5 at 4,096, Sonnet 4.6 with Sonnet 4.5 at 1,024.
        (r"claude-(opus-4-6|opus-4-5|haiku-4-5)" + DATED, 4096),
        (r"claude-(3-5-haiku|3-haiku)" + DATED, 2048),
        (
            r"claude-(sonnet-4-6|sonnet-4-5|sonnet-4|opus-4-1|opus-4|3-7-sonnet|3-5-sonnet|3-opus)" + DATED,
            1024,
        ),
    ),
    fallback_minimum=4096,
    source="https://docs.claude.com/en/docs/build-with-claude/prompt-caching#cache-limitations "
    "(minimum cacheable prompt length per model)",
)


def _export_with_breakpoints(case: RenderedCase, settings: ExportSettings, marks: list[Any]) -> ExportResult:
    return export_with_breakpoints(export, case, settings, marks)


def _batch_id(case_id: str, fallback: str) -> str:
    """Message Batches custom ids: ^[a-zA-Z0-9_-]{1,64}$."""
    return safe_id(case_id, fallback)


# -- a request's common fields (export/request.py) the way this API spells them; returns the
# names it has no field for


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    choice: dict[str, Any] | None = None
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote max_tokens and named temperature itself
        if name == "stop":
            put_field(payload, "stop_sequences", value)
        elif name == "user":
            put_field(payload, "metadata", {"user_id": value})
        elif name == "effort":
            payload["output_config"] = {"effort": value, **payload.get("output_config", {})}
        elif name == "tool_choice":
            choice = (
                {"type": "tool", "name": value["name"]}
                if isinstance(value, dict)
                else {"type": {"auto": "auto", "required": "any", "none": "none"}.get(value, "auto")}
            )
        elif name != "parallel_tool_calls":
            missing.append(name)
    if "parallel_tool_calls" in common:
        if choice is None:
            choice = {"type": "auto"}
        if choice["type"] != "none":
            choice["disable_parallel_tool_use"] = not common["parallel_tool_calls"]
    if choice is not None:
        put_field(payload, "tool_choice", choice)
    return missing


PROVIDER = Provider(
    id=ANTHROPIC,
    label="Anthropic",
    defaults=DEFAULTS,
    export=export,
    encoding="o200k_base",
    exact_tokens=False,  # no local Claude tokenizer: an estimate
    batch=Batch(
        "custom_id",
        _batch_id,
        lambda custom_id, payload: {"custom_id": custom_id, "params": payload},
        max_id_length=64,
    ),
    http=Http(
        lambda _model: "https://api.anthropic.com/v1/messages",
        ("x-api-key: $ANTHROPIC_API_KEY", f"anthropic-version: {API_VERSION}"),
    ),
    python=lambda _result, literal, head: sdk_python(
        head,
        "import anthropic\n\nclient = anthropic.Anthropic()  # reads ANTHROPIC_API_KEY\n",
        literal,
        "client.messages.create(**payload)",
    ),
    typescript=lambda _result, literal, head: sdk_typescript(
        head,
        'import Anthropic from "@anthropic-ai/sdk";\n\n'
        "const client = new Anthropic(); // reads ANTHROPIC_API_KEY\n",
        literal,
        "client.messages.create(payload)",
    ),
    # The oldest releases the real-client check passes with (tests/oracle/min_sdk_versions.py):
    # anthropic 1.17 and @anthropic-ai/sdk 0.137 still ask for API version 2023-06-01.
    sdks=("anthropic>=2.0 (PyPI)", "@anthropic-ai/sdk>=1.0 (npm)"),
    image_tokens=image_tokens.anthropic,
    billing=Billing("anthropic", CACHE),
    own_keys=("max_tokens",),
    write_fields=_write_fields,
    export_with_breakpoints=_export_with_breakpoints,
)
