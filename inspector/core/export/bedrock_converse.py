"""AWS Bedrock Converse (`POST /model/{modelId}/converse`): a `system` list of text blocks,
user/assistant `messages` of content blocks (`text`, `toolUse`, `toolResult`), `inferenceConfig`,
`toolConfig` and `outputConfig`, as botocore's `bedrock-runtime` service model defines them.

The payload is the HTTP body: the model id travels in the URL, so the code forms pass it beside
the payload (`modelId=`, `--model-id`), which is also how Bedrock's batch jobs take Converse
records (`{"recordId", "modelInput"}`, the model chosen when the job is created).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from ..conversations.bedrock import INFERENCE
from ..model import Media, Message, RenderedCase, Segment, ToolCall
from . import request
from .common import (
    BEDROCK_CONVERSE,
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
    safe_id,
)
from .spec import Batch, Billing, Http, PromptCache, Provider, Shell

# Amazon Nova Lite: Active in Bedrock's model lifecycle, served on demand under its base model id
# (no cross-region inference profile needed) in us-east-1, and it takes everything this export
# sends: system blocks, tools, tool results and images. Max tokens and temperature: the model's.
DEFAULTS = ResolvedDefaults("amazon.nova-lite-v1:0")
REGION = "us-east-1"  # where the default model is served on demand; the SDKs' own region wins
SYSTEM_ROLES = frozenset({"system", "developer"})
# botocore's ToolUseId shape: [a-zA-Z0-9_.:-]+, 1 to 64 characters.
TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
TOOL_USE_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_.:-]")
MAX_TEMPERATURE = 1.0  # InferenceConfigurationTemperatureFloat: 0 to 1


class _Build(TurnExport):
    """One export's state while its messages become Converse turns."""

    __slots__ = ("last_kind", "ids", "used_ids", "pending", "uses_tools", "same_api", "system_blocks")

    def __init__(self, settings: ExportSettings):
        super().__init__(settings, "content")
        self.last_kind: str | None = None  # "user", "assistant" or "tool": the latest blocks' kind
        self.ids: dict[str, str] = {}  # original tool call id -> the toolUseId sent
        self.used_ids: set[str] = set()  # toolUseIds sent, so two originals never share one
        self.pending: dict[str, int] = {}  # toolUseIds awaiting a toolResult in the next turn
        self.uses_tools = False  # a toolUse or toolResult block was sent
        self.same_api = False  # whether the case is a Converse request read back
        self.system_blocks: list[dict[str, Any]] = []  # system blocks read from a Converse body


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    build = _Build(settings)
    resolved = request.resolve(case, settings, PROVIDER, build.notes)
    build.same_api = case.metadata.get("format") == BEDROCK_CONVERSE
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        role = message.role
        text = message.content
        if role == "assistant":
            _assistant(build, message, text, index)
        elif message.tool_call_id is not None and role in ("tool", "function"):
            _tool_result(build, message, text, index)
        elif role in SYSTEM_ROLES:
            _system(build, message, text, index)
        else:
            _user(build, message, text, index)
    _lint_unanswered(build.pending, build.notes)
    _lint_turns(build.turns, build.notes)

    payload: dict[str, Any] = {"messages": build.turns.turns}
    if build.system_parts or build.system_blocks:
        payload["system"] = [{"text": part} for part in build.system_parts] + build.system_blocks
    inference = _inference_config(resolved.max_tokens, resolved.temperature, build.notes)
    if inference:
        payload["inferenceConfig"] = inference
    if case.tools:
        payload["toolConfig"] = {"tools": _tools(case, build)}
    elif build.uses_tools:
        build.notes.lint(
            "the messages hold tool calls or results but the case declares no tools: "
            "Bedrock requires toolConfig whenever toolUse or toolResult blocks are sent"
        )
    if case.output_schema is not None:
        schema = case.output_schema
        payload["outputConfig"] = {
            "textFormat": {
                "type": "json_schema",
                "structure": {
                    "jsonSchema": {
                        "schema": json.dumps(schema.schema, ensure_ascii=False),
                        "name": schema.name,
                    }
                },
            }
        }
    request.apply(case, PROVIDER, payload, build.notes)
    return ExportResult(
        BEDROCK_CONVERSE,
        resolved.model,
        payload,
        build.notes.changes,
        build.notes.lints,
        list(case.warnings),
        case.id,
    )


def _system(build: _Build, message: Message, text: str, index: int) -> None:
    role = message.role
    if message.blocks:
        parts = blocks(message) or []
        if build.same_api and role == "system":
            # A Converse system list read back: the same blocks, cache points and all.
            build.system_blocks += _content_blocks(build, parts, index)
            return
        texts = [part.text for part in parts if part.media is None and part.text]
        if len(texts) == len(parts) and texts:
            # Several system blocks stay several: Converse's system is a list too.
            build.system_parts += texts
            build.notes.change(f"{role} message moved into the top-level system list", index)
            return
    if text:
        build.system_parts.append(text)
        build.notes.change(f"{role} message moved into the top-level system list", index)
    else:
        build.notes.change(f"empty {role} message left out: system blocks cannot be empty", index)


def _text_block(text: str, build: _Build, index: int) -> dict[str, Any]:
    if not text.strip():
        build.notes.lint(
            "blank message: Bedrock rejects a text block that is empty or only whitespace", index
        )
    return {"text": text}


def _drop_name(build: _Build, message: Message, index: int) -> None:
    build.notes.change(f"name {message.name!r} dropped: Converse messages have no name", index)


def _assistant(build: _Build, message: Message, text: str, index: int) -> None:
    if message.name is not None:
        _drop_name(build, message, index)
    if build.turns.role != "assistant":
        _lint_unanswered(build.pending, build.notes)
    parts = blocks(message) if message.blocks else None
    if message.tool_calls:
        content: list[dict[str, Any]] = [{"text": text}] if text.strip() else []
        if parts is not None:
            content = _content_blocks(
                build,
                [
                    part
                    for part in parts
                    if part.raw is not None or part.media is not None or part.text.strip()
                ],
                index,
            )
        if text and not text.strip():
            build.notes.change("whitespace-only text beside the tool calls left out", index)
        content += _tool_uses(build, message.tool_calls, index)
    elif parts is not None:
        content = _content_blocks(build, parts, index)
    else:
        content = [_text_block(text, build, index)]
    if build.turns.add("assistant", content, index):
        build.notes.change("merged into the previous assistant turn", index)
    build.last_kind = "assistant"


def _tool_uses(build: _Build, calls: list[ToolCall], index: int) -> list[dict[str, Any]]:
    """An assistant message's calls as toolUse blocks, each with what its options add after it."""
    content: list[dict[str, Any]] = []
    for position, call in enumerate(calls):
        call_id = build.ids.get(call.id) or _tool_use_id(build, call.id, index, position)
        use = {
            "toolUseId": call_id,
            "name": call.name,
            "input": arguments_object(call.arguments, call.name, index, build.notes),
        }
        inner, trailing = _options(build, call.options, "a tool call", index)
        content += [{"toolUse": {**use, **inner}}, *trailing]
        build.pending[call_id] = index
    build.uses_tools = True
    return content


def _tool_use_id(build: _Build, raw_id: str, index: int, position: int) -> str:
    """The toolUseId a call is sent under: its own id when Bedrock allows it, else a cleaned one
    that no other call of the request uses."""
    call_id = raw_id
    if not TOOL_USE_ID.fullmatch(raw_id) or raw_id in build.used_ids:
        base = TOOL_USE_ID_UNSAFE.sub("_", raw_id)[:56] or f"tooluse_{index}_{position}"
        call_id, suffix = base, 2
        while call_id in build.used_ids:
            call_id = f"{base}_{suffix}"
            suffix += 1
        build.notes.change(f"tool call id {raw_id!r} sent as {call_id!r}", index)
    build.ids[raw_id] = call_id
    build.used_ids.add(call_id)
    return call_id


def _tool_result(build: _Build, message: Message, text: str, index: int) -> None:
    if message.name is not None:
        _drop_name(build, message, index)
    original = message.tool_call_id
    assert original is not None
    call_id = build.ids.get(original) or TOOL_USE_ID_UNSAFE.sub("_", original)[:64] or "tooluse"
    if build.pending.pop(call_id, None) is None:
        build.notes.lint(
            f"tool result for {original!r} does not answer a toolUse of the assistant turn right before it",
            index,
        )
    parts = blocks(message) if message.blocks else None
    result: dict[str, Any] = {
        "toolUseId": call_id,
        "content": [_text_block(text, build, index)]
        if parts is None
        else _content_blocks(build, parts, index),
    }
    inner, trailing = _options(build, message.options, "a tool result", index)
    block = {"toolResult": {**result, **inner}}
    build.uses_tools = True
    turns = build.turns
    if turns.role == "user" and build.last_kind == "user":
        # Tool results open the user turn (Claude on Bedrock requires it): before the text.
        position = 0
        while position < len(turns.content) and "toolResult" in turns.content[position]:
            position += 1
        turns.content[position:position] = [block, *trailing]
        build.notes.change("tool result placed before the user text of the same turn", index)
    else:
        turns.add("user", [block, *trailing], index)
    build.last_kind = "tool"


def _user(build: _Build, message: Message, text: str, index: int) -> None:
    """A user message, or anything else sent as one."""
    if message.name is not None:
        _drop_name(build, message, index)
    role = message.role
    if role != "user":
        reason = (
            "a tool result without a tool_call_id"
            if role in ("tool", "function")
            else f"role {role!r} is not a Converse role"
        )
        build.notes.change(f"{reason}; sent as a user message", index)
    if (
        build.turns.add("user", _user_blocks(build, message, text, index), index)
        and build.last_kind == "user"
    ):
        build.notes.change("merged into the previous user turn", index)
    build.last_kind = "user"


# Converse names an image's or a document's format, not its media type.
IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}


def _user_blocks(build: _Build, message: Message, text: str, index: int) -> list[dict[str, Any]]:
    """Text, and images and documents as Converse blocks (base64 `bytes` in the JSON body)."""
    parts = blocks(message)
    if parts is None:
        return [_text_block(text, build, index)]
    return _content_blocks(build, parts, index)


def _content_blocks(build: _Build, parts: list[Segment], index: int) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    for position, segment in enumerate(parts):
        media = segment.media
        if segment.raw is not None:  # reasoning or json content of a Converse request read back
            block = segment.raw
        elif media is None:
            block = _text_block(segment.text, build, index)
        else:
            block = _media_block(build, media, index, position)
        inner, trailing = _options(build, segment.options, "a content block", index)
        result += [{**block, **inner}, *trailing]
    return result


def _options(
    build: _Build, options: dict[str, Any] | None, what: str, index: int | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A source block's other keys: for a Converse request read back, the keys to put back in the
    block and the cachePoint block that followed it; for another API's, named in Changes."""
    if not options:
        return {}, []
    if not build.same_api:
        kept_options(options, False, what, build.notes, index, "Bedrock Converse")
        return {}, []
    inner = {key: value for key, value in options.items() if key != "cachePoint"}
    return inner, [{"cachePoint": options["cachePoint"]}] if "cachePoint" in options else []


def _media_block(build: _Build, media: Media, index: int, position: int) -> dict[str, Any]:
    formats = IMAGE_FORMATS if media.kind == "image" else DOCUMENT_FORMATS
    fmt = formats.get((media.media_type or "").lower())
    if media.data is None or fmt is None:
        # Converse takes bytes or an S3 location, and only these formats: say where it is instead.
        where = media.url or media.file_id or "(no location)"
        what = "an image" if media.kind == "image" else "a file"
        reason = (
            "Bedrock Converse takes images and documents as bytes or from S3, not by URL or file id"
            if media.data is None
            else f"Bedrock Converse takes no {media.media_type or 'untyped'} {media.kind}"
        )
        build.notes.change(f"{what} sent as its address in a text block: {reason}", index)
        return {"text": f"[{what[3:] if what.startswith('an ') else what[2:]}: {where}]"}
    if media.kind == "image":
        return {"image": {"format": fmt, "source": {"bytes": media.data}}}
    # A document needs a name of letters, digits, spaces, hyphens, brackets; unique per request.
    name = re.sub(r"[^A-Za-z0-9 \-()\[\]]", " ", (media.filename or "").rsplit(".", 1)[0]).strip()
    return {
        "document": {
            "format": fmt,
            "name": (name or f"document {index}-{position}")[:200],
            "source": {"bytes": media.data},
        }
    }


def _inference_config(max_tokens: Any, temperature: Any, notes: Notes) -> dict[str, Any]:
    config: dict[str, Any] = {}
    # A raw request's values come as it gave them, numbers or not.
    if max_tokens is not None:
        config["maxTokens"] = max_tokens
        if type(max_tokens) is not int:
            notes.lint(f"inferenceConfig.maxTokens {max_tokens!r} is not a whole number")
        elif max_tokens < 1:
            notes.lint("inferenceConfig.maxTokens must be at least 1")
    if temperature is not None:
        config["temperature"] = temperature
        if type(temperature) is not int and type(temperature) is not float:
            notes.lint(f"inferenceConfig.temperature {temperature!r} is not a number")
        elif not 0 <= temperature <= MAX_TEMPERATURE:
            notes.lint(f"inferenceConfig.temperature {temperature} is outside Bedrock's 0 to 1")
    return config


def _tools(case: RenderedCase, build: _Build) -> list[dict[str, Any]]:
    notes = build.notes
    tools: list[dict[str, Any]] = []
    for tool in case.tools:
        if tool.raw is not None:  # a system tool of a Converse request read back
            tools.append(tool.raw)
            continue
        lint_name(tool.name, "tool", notes)
        spec: dict[str, Any] = {"name": tool.name}
        if tool.description:
            spec["description"] = tool.description
        elif tool.description is not None:
            notes.change(f"tool {tool.name!r}: empty description left out (Bedrock refuses one)")
        schema = tool.parameters if tool.parameters is not None else empty_object_schema()
        if schema.get("type") != "object":
            notes.lint(f"tool {tool.name!r}: inputSchema.json must be an object schema")
        spec["inputSchema"] = {"json": schema}
        if tool.strict is not None:
            spec["strict"] = tool.strict
        inner, trailing = _options(build, tool.options, f"tool {tool.name!r}", None)
        tools += [{"toolSpec": {**spec, **inner}}, *trailing]
    return tools


def _lint_turns(turns: Turns, notes: Notes) -> None:
    """What Converse refuses in the order of the turns."""
    if not turns.turns:
        notes.lint("the request has no user or assistant messages")
    elif turns.turns[0]["role"] != "user":
        notes.lint("a conversation must start with a user message", turns.first_source)


def _lint_unanswered(pending: dict[str, int], notes: Notes) -> None:
    for call_id, index in pending.items():
        notes.lint(f"toolUse {call_id!r} has no toolResult in the user turn right after it", index)
    pending.clear()


def _endpoint(model: str) -> str:
    return f"https://bedrock-runtime.{REGION}.amazonaws.com/model/{quote(model, safe='')}/converse"


CREDENTIALS = (
    "region and credentials from the AWS SDK's usual chain: AWS_REGION, "
    "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws"
)


def _has_bytes(result: ExportResult) -> bool:
    return '"bytes"' in json.dumps(result.payload)


def _python(result: ExportResult, literal: str, head: str) -> str:
    if not _has_bytes(result):
        return (
            f"{head}import json\n\nimport boto3\n\n"
            f"# {CREDENTIALS}\n"
            'client = boto3.client("bedrock-runtime")\n'
            f"payload = json.loads({literal})\n"
            f"response = client.converse(modelId={json.dumps(result.model)}, **payload)\n"
            'print(response["output"])\n'
        )
    # The JSON body carries images and documents as base64; boto3 takes the bytes and encodes
    # them itself.
    return (
        f"{head}import base64\nimport json\n\nimport boto3\n\n"
        f"# {CREDENTIALS}\n"
        'client = boto3.client("bedrock-runtime")\n'
        f'payload = json.loads({literal}, object_hook=lambda item: {{**item, "bytes": '
        'base64.b64decode(item["bytes"])} if isinstance(item.get("bytes"), str) else item)\n'
        f"response = client.converse(modelId={json.dumps(result.model)}, **payload)\n"
        'print(response["output"])\n'
    )


def _typescript(result: ExportResult, literal: str, head: str) -> str:
    # Images and documents travel as base64 in the JSON body; the SDK takes their bytes.
    reviver = (
        ', (key, value) => key === "bytes" && typeof value === "string" '
        '? Buffer.from(value, "base64") : value'
        if _has_bytes(result)
        else ""
    )
    return (
        f"{head}import {{ BedrockRuntimeClient, ConverseCommand }} from "
        '"@aws-sdk/client-bedrock-runtime";\n\n'
        f"// {CREDENTIALS}\n"
        "const client = new BedrockRuntimeClient({});\n"
        f"const payload = JSON.parse({literal}{reviver});\n"
        "const response = await client.send(\n"
        f"  new ConverseCommand({{ modelId: {json.dumps(result.model)}, ...payload }}));\n"
        "console.log(JSON.stringify(response.output, null, 2));\n"
    )


def _aws_cli(model: str, body: str, delimiter: str) -> str:
    # --cli-input-json takes the body and the model id, a URI parameter, goes beside it. The body
    # goes through a file: the CLI reads a file:// argument twice, so stdin would arrive empty.
    # Images and documents are base64 in the body: AWS CLI v2 reads them so when told; v1 would
    # encode the base64 text again and send other bytes, so it must refuse the flag instead.
    binary = "--cli-binary-format base64 " if '"bytes"' in body else ""
    needs = "# Needs AWS CLI v2 (images and documents go as base64: --cli-binary-format).\n" if binary else ""
    return (
        f"{needs}# {CREDENTIALS}\n"
        'payload="$(mktemp)"\n'
        f"cat > \"$payload\" <<'{delimiter}'\n{body}\n{delimiter}\n"
        f"aws bedrock-runtime converse --model-id {_shell_word(model)} {binary}"
        '--cli-input-json "file://$payload"\n'
        'rm -f "$payload"\n'
    )


def _shell_word(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


# -- a request's common fields (export/request.py) the way this API spells them; returns the
# names it has no field for


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    inference: dict[str, Any] = payload.get("inferenceConfig", {})
    by_name = {name: key for key, name in INFERENCE.items()}
    for name, value in common.items():
        if name in ("max_tokens", "temperature"):
            continue  # the exporter wrote them
        if name in by_name:
            inference.setdefault(by_name[name], value)
        elif name == "tool_choice" and "toolConfig" in payload and value != "none":
            # Converse has no "none": a choice only goes beside tools.
            payload["toolConfig"].setdefault(
                "toolChoice",
                {"tool": {"name": value["name"]}}
                if isinstance(value, dict)
                else {"auto": {}}
                if value == "auto"
                else {"any": {}},
            )
        else:
            missing.append(name)
    if inference:
        payload["inferenceConfig"] = inference
    return missing


PROVIDER = Provider(
    id=BEDROCK_CONVERSE,
    label="AWS Bedrock Converse",
    defaults=DEFAULTS,
    export=export,
    encoding="o200k_base",
    exact_tokens=False,  # no local tokenizer for Bedrock's models: an estimate
    batch=Batch(
        "recordId",
        lambda case_id, fallback: safe_id(case_id, fallback),
        lambda record_id, payload: {"recordId": record_id, "modelInput": payload},
        max_id_length=64,
    ),
    http=Http(_endpoint, ()),
    python=_python,
    typescript=_typescript,
    sdks=(
        "boto3>=1.43 (PyPI)",
        "@aws-sdk/client-bedrock-runtime>=3.1164 (npm)",
        "awscli>=1.45 (PyPI) for the AWS CLI form",
    ),
    shell=Shell("AWS CLI", _aws_cli),
    # genai-prices files Bedrock under "aws" (Nova Lite: $0.06 / $0.24 per million tokens, as AWS
    # lists it). Converse caches up to explicit cachePoint blocks.
    billing=Billing(
        "aws",
        PromptCache(
            mode="breakpoints",
            system_first=True,
            minimums=((r"(?:[a-z]{2,4}\.)?amazon\.nova-(?:micro|lite|pro|premier)", 1024),),
            fallback_minimum=4096,
            source="https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html "
            "(minimum tokens per cache checkpoint, per model)",
        ),
    ),
    family="bedrock",
    write_fields=_write_fields,
)
