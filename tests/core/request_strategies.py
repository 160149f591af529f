"""Hypothesis strategies for raw requests of each provider, valid under that SDK's request type.

One neutral plan (system text, user turns with text, images and files, assistant turns with text
and tool calls, tool results) is drawn, then written in a provider's own spelling with that
provider's request fields and shape choices (string or block content, cache_control, ...).
"""

from __future__ import annotations

import base64
import json
import string
from typing import Any

from hypothesis import strategies as st

TEXT = st.text(alphabet=string.ascii_letters + string.digits + " .,!?-éü✓", min_size=1, max_size=16).map(
    lambda text: "t" + text.strip()
)
NAMES = st.sampled_from(["get_weather", "lookup", "search_docs"])
DATA = st.binary(min_size=1, max_size=12).map(lambda raw: base64.b64encode(raw).decode())
ARGS = st.dictionaries(st.sampled_from(["city", "q", "n"]), st.one_of(st.integers(-5, 5), TEXT), max_size=2)
EFFORTS = st.sampled_from(["low", "medium", "high"])
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


@st.composite
def media(draw, kinds: tuple[str, ...] = ("image-url", "image-data", "file-data")) -> dict:
    kind = draw(st.sampled_from(kinds))
    if kind == "image-url":
        return {"kind": "image", "url": f"https://example.com/{draw(st.integers(1, 99))}.png"}
    if kind == "image-data":
        return {
            "kind": "image",
            "media_type": draw(st.sampled_from(["image/png", "image/jpeg"])),
            "data": draw(DATA),
        }
    return {"kind": "file", "media_type": "application/pdf", "data": draw(DATA)}


ALL_MEDIA = ("image-url", "image-data", "file-data")
# Bedrock Converse takes images and documents only as bytes (or from S3): no web addresses.
BYTES_MEDIA = ("image-data", "file-data")


@st.composite
def plans(draw, kinds: tuple[str, ...] = ALL_MEDIA) -> dict[str, Any]:
    """A conversation that alternates user and assistant turns and answers every tool call."""
    turns: list[tuple] = []
    if draw(st.booleans()):
        turns.append(("system", draw(st.lists(TEXT, min_size=1, max_size=2))))
    call_number = 0
    for _ in range(draw(st.integers(1, 3))):
        blocks = [("text", draw(TEXT))]
        blocks += [("media", item) for item in draw(st.lists(media(kinds), max_size=2))]
        turns.append(("user", blocks))
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call_number += 1
            calls.append((f"call_{call_number}", draw(NAMES), draw(ARGS)))
        text = draw(st.one_of(st.none(), TEXT)) if calls else draw(TEXT)
        turns.append(("assistant", text, calls))
        for call_id, name, _ in calls:
            turns.append(("tool", call_id, name, draw(TEXT)))
    turns.append(("user", [("text", draw(TEXT))]))
    tools = [
        {
            "name": name,
            "description": draw(st.one_of(st.none(), TEXT)),
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
        for name in ("get_weather", "lookup", "search_docs")
    ]
    return {
        "turns": turns,
        "tools": tools,
        "structured": draw(st.booleans()),
        "tool_choice": draw(st.one_of(st.none(), st.sampled_from(["auto", "required"]), NAMES)),
        "max_tokens": draw(st.integers(1, 4096)),
        "stop": draw(st.lists(TEXT, max_size=2)),
        "temperature": draw(st.one_of(st.none(), st.sampled_from([0.0, 0.2, 1.0]))),
        "top_p": draw(st.one_of(st.none(), st.sampled_from([0.5, 0.9]))),
        "seed": draw(st.one_of(st.none(), st.integers(0, 1000))),
        "effort": draw(st.one_of(st.none(), EFFORTS)),
        "user": draw(st.one_of(st.none(), TEXT)),
        "strings": draw(st.booleans()),
    }


def _maybe(request: dict[str, Any], key: str, value: Any) -> None:
    if value is not None and value != []:
        request[key] = value


# -- OpenAI Chat --------------------------------------------------------------------------------


def _chat_media(item: dict) -> dict:
    url = item.get("url") or f"data:{item['media_type']};base64,{item['data']}"
    if item["kind"] == "image":
        return {"type": "image_url", "image_url": {"url": url}}
    return {"type": "file", "file": {"file_data": url, "filename": "doc.pdf"}}


@st.composite
def openai_chat(draw, kinds: tuple[str, ...] = ALL_MEDIA) -> dict[str, Any]:
    plan = draw(plans(kinds))
    messages: list[dict[str, Any]] = []
    for turn in plan["turns"]:
        if turn[0] == "system":
            messages += [{"role": "system", "content": text} for text in turn[1]]
        elif turn[0] == "user":
            blocks = turn[1]
            if plan["strings"] and len(blocks) == 1:
                messages.append({"role": "user", "content": blocks[0][1]})
            else:
                messages.append(
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": value} if kind == "text" else _chat_media(value)
                            for kind, value in blocks
                        ],
                    }
                )
        elif turn[0] == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": turn[1]}
            if turn[2]:
                entry["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for call_id, name, args in turn[2]
                ]
            messages.append(entry)
        else:
            messages.append({"role": "tool", "tool_call_id": turn[1], "content": turn[3]})
    request: dict[str, Any] = {
        "model": draw(st.sampled_from(["gpt-4o", "gpt-5.4-mini"])),
        "messages": messages,
    }
    request["tools"] = [
        {"type": "function", "function": {key: value for key, value in tool.items() if value is not None}}
        for tool in plan["tools"]
    ]
    choice = plan["tool_choice"]
    if choice is not None:
        request["tool_choice"] = (
            choice if choice in ("auto", "required") else {"type": "function", "function": {"name": choice}}
        )
    if plan["structured"]:
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
        }
    request[draw(st.sampled_from(["max_tokens", "max_completion_tokens"]))] = plan["max_tokens"]
    _maybe(request, "stop", plan["stop"])
    for key in ("temperature", "top_p", "seed", "user"):
        _maybe(request, key, plan[key])
    _maybe(request, "reasoning_effort", plan["effort"])
    if draw(st.booleans()):
        request["metadata"] = {"run": draw(TEXT)}
    if draw(st.booleans()):
        request["parallel_tool_calls"] = draw(st.booleans())
    if draw(st.booleans()):
        request["logprobs"] = True  # a field no other provider has
    return request


# -- OpenAI Responses ---------------------------------------------------------------------------


def _responses_media(item: dict) -> dict:
    if item["kind"] == "image":
        url = item.get("url") or f"data:{item['media_type']};base64,{item['data']}"
        return {"type": "input_image", "image_url": url, "detail": "auto"}
    return {
        "type": "input_file",
        "file_data": f"data:{item['media_type']};base64,{item['data']}",
        "filename": "doc.pdf",
    }


@st.composite
def openai_responses(draw, kinds: tuple[str, ...] = ALL_MEDIA) -> dict[str, Any]:
    plan = draw(plans(kinds))
    items: list[dict[str, Any]] = []
    instructions = None
    for turn in plan["turns"]:
        if turn[0] == "system":
            instructions = "\n".join(turn[1])
        elif turn[0] == "user":
            blocks = turn[1]
            content: Any = (
                blocks[0][1]
                if plan["strings"] and len(blocks) == 1
                else [
                    {"type": "input_text", "text": value} if kind == "text" else _responses_media(value)
                    for kind, value in blocks
                ]
            )
            items.append({"type": "message", "role": "user", "content": content})
        elif turn[0] == "assistant":
            if turn[1] is not None:
                items.append({"type": "message", "role": "assistant", "content": turn[1]})
            items += [
                {"type": "function_call", "call_id": call_id, "name": name, "arguments": json.dumps(args)}
                for call_id, name, args in turn[2]
            ]
        else:
            items.append({"type": "function_call_output", "call_id": turn[1], "output": turn[3]})
    request: dict[str, Any] = {"model": draw(st.sampled_from(["gpt-4o", "gpt-5.4-mini"]))}
    _maybe(request, "instructions", instructions)
    request["input"] = items
    request["tools"] = [
        {
            "type": "function",
            "name": tool["name"],
            **({"description": tool["description"]} if tool["description"] else {}),
            "parameters": tool["parameters"],
            "strict": False,
        }
        for tool in plan["tools"]
    ]
    if draw(st.booleans()):  # a built-in tool: OpenAI's own
        request["tools"].append(
            draw(
                st.sampled_from(
                    [{"type": "web_search"}, {"type": "code_interpreter", "container": {"type": "auto"}}]
                )
            )
        )
    choice = plan["tool_choice"]
    if choice is not None:
        request["tool_choice"] = (
            choice if choice in ("auto", "required") else {"type": "function", "name": choice}
        )
    if plan["structured"]:
        request["text"] = {
            "format": {"type": "json_schema", "name": "answer", "schema": SCHEMA, "strict": True}
        }
    request["max_output_tokens"] = plan["max_tokens"]
    for key in ("temperature", "top_p", "user"):
        _maybe(request, key, plan[key])
    if plan["effort"]:
        request["reasoning"] = {"effort": plan["effort"]}
    if draw(st.booleans()):
        request["store"] = False  # a field no other provider has
    return request


# -- Anthropic ----------------------------------------------------------------------------------

CACHE = {"type": "ephemeral"}


def _anthropic_media(item: dict) -> dict:
    source = (
        {"type": "url", "url": item["url"]}
        if "url" in item
        else {"type": "base64", "media_type": item["media_type"], "data": item["data"]}
    )
    return {"type": "image" if item["kind"] == "image" else "document", "source": source}


@st.composite
def anthropic(draw, kinds: tuple[str, ...] = ALL_MEDIA) -> dict[str, Any]:
    plan = draw(plans(kinds))
    request: dict[str, Any] = {
        "model": draw(st.sampled_from(["claude-sonnet-4-6", "claude-opus-4-7"])),
        "max_tokens": plan["max_tokens"],
    }
    messages: list[dict[str, Any]] = []
    turns = plan["turns"]
    position = 0
    while position < len(turns):
        turn = turns[position]
        if turn[0] == "system":
            request["system"] = (
                "\n".join(turn[1])
                if plan["strings"]
                else [
                    {
                        "type": "text",
                        "text": text,
                        **({"cache_control": CACHE} if draw(st.booleans()) else {}),
                    }
                    for text in turn[1]
                ]
            )
        elif turn[0] == "user":
            blocks = turn[1]
            if plan["strings"] and len(blocks) == 1:
                messages.append({"role": "user", "content": blocks[0][1]})
            else:
                content = [
                    {"type": "text", "text": value} if kind == "text" else _anthropic_media(value)
                    for kind, value in blocks
                ]
                if draw(st.booleans()):
                    content[-1]["cache_control"] = CACHE
                messages.append({"role": "user", "content": content})
        elif turn[0] == "assistant":
            content = [{"type": "text", "text": turn[1]}] if turn[1] is not None else []
            content += [
                {"type": "tool_use", "id": call_id, "name": name, "input": args}
                for call_id, name, args in turn[2]
            ]
            thinking = draw(st.sampled_from([None, "thinking", "redacted_thinking"]))
            if thinking == "thinking":
                content.insert(0, {"type": "thinking", "thinking": draw(TEXT), "signature": draw(DATA)})
            elif thinking == "redacted_thinking":
                content.insert(0, {"type": "redacted_thinking", "data": draw(DATA)})
            if plan["strings"] and not turn[2] and not thinking:
                messages.append({"role": "assistant", "content": turn[1]})
            else:
                messages.append({"role": "assistant", "content": content})
            results = []
            while position + 1 < len(turns) and turns[position + 1][0] == "tool":
                position += 1
                results.append(
                    {"type": "tool_result", "tool_use_id": turns[position][1], "content": turns[position][3]}
                )
            if results:
                # The next user turn's text follows the results in the same user message.
                position += 1
                user = turns[position]
                results += [
                    {"type": "text", "text": value} if kind == "text" else _anthropic_media(value)
                    for kind, value in user[1]
                ]
                messages.append({"role": "user", "content": results})
        position += 1
    request["messages"] = messages
    request["tools"] = [
        {
            "name": tool["name"],
            **({"description": tool["description"]} if tool["description"] else {}),
            "input_schema": tool["parameters"],
        }
        for tool in plan["tools"]
    ]
    if draw(st.booleans()):
        request["tools"][-1]["cache_control"] = CACHE
    if draw(st.booleans()):  # a server tool: Anthropic's own
        request["tools"].append(
            {"type": "web_search_20250305", "name": "web_search", "max_uses": draw(st.integers(1, 5))}
        )
    choice = plan["tool_choice"]
    if choice is not None:
        request["tool_choice"] = (
            {"type": "auto"}
            if choice == "auto"
            else {"type": "any"}
            if choice == "required"
            else {"type": "tool", "name": choice}
        )
    output: dict[str, Any] = {}
    if plan["structured"]:
        output["format"] = {"type": "json_schema", "schema": SCHEMA}
    if plan["effort"]:
        output["effort"] = plan["effort"]
    _maybe(request, "output_config", output or None)
    _maybe(request, "stop_sequences", plan["stop"])
    if plan["user"]:
        request["metadata"] = {"user_id": plan["user"]}
    if draw(st.booleans()):
        request["thinking"] = {"type": "adaptive"}  # a field no other provider has
    return request


# -- Gemini -------------------------------------------------------------------------------------


def _gemini_media(item: dict) -> dict:
    if "url" in item:
        return {"fileData": {"mimeType": "image/png", "fileUri": item["url"]}}
    return {"inlineData": {"mimeType": item["media_type"], "data": item["data"]}}


@st.composite
def gemini(draw, kinds: tuple[str, ...] = ALL_MEDIA) -> dict[str, Any]:
    plan = draw(plans(kinds))
    contents: list[dict[str, Any]] = []
    request: dict[str, Any] = {}
    turns = plan["turns"]
    position = 0
    while position < len(turns):
        turn = turns[position]
        if turn[0] == "system":
            request["systemInstruction"] = {"parts": [{"text": text} for text in turn[1]]}
        elif turn[0] == "user":
            contents.append(
                {
                    "role": "user",
                    "parts": [
                        {"text": value} if kind == "text" else _gemini_media(value) for kind, value in turn[1]
                    ],
                }
            )
        elif turn[0] == "assistant":
            parts: list[dict[str, Any]] = [{"text": turn[1]}] if turn[1] is not None else []
            parts += [{"functionCall": {"name": name, "args": args}} for _, name, args in turn[2]]
            contents.append({"role": "model", "parts": parts})
            responses = []
            while position + 1 < len(turns) and turns[position + 1][0] == "tool":
                position += 1
                responses.append(
                    {
                        "functionResponse": {
                            "name": turns[position][2],
                            "response": {"output": turns[position][3]},
                        }
                    }
                )
            if responses:
                contents.append({"role": "user", "parts": responses})
        position += 1
    request["contents"] = contents
    request["tools"] = [
        {
            "functionDeclarations": [
                {
                    "name": tool["name"],
                    **({"description": tool["description"]} if tool["description"] else {}),
                    "parametersJsonSchema": tool["parameters"],
                }
                for tool in plan["tools"]
            ]
        }
    ]
    if draw(st.booleans()):  # Google Search grounding: Gemini's own
        request["tools"].append({"googleSearch": {}})
    choice = plan["tool_choice"]
    if choice is not None:
        request["toolConfig"] = {
            "functionCallingConfig": {"mode": "AUTO"}
            if choice == "auto"
            else {"mode": "ANY"}
            if choice == "required"
            else {"mode": "ANY", "allowedFunctionNames": [choice]}
        }
    generation: dict[str, Any] = {"maxOutputTokens": plan["max_tokens"]}
    for key, name in (("temperature", "temperature"), ("topP", "top_p"), ("seed", "seed")):
        if plan[name] is not None:
            generation[key] = plan[name]
    if plan["stop"]:
        generation["stopSequences"] = plan["stop"]
    if plan["effort"]:
        generation["thinkingConfig"] = {"thinkingLevel": plan["effort"].upper()}
    if plan["structured"]:
        generation["responseMimeType"] = "application/json"
        generation["responseJsonSchema"] = SCHEMA
    request["generationConfig"] = generation
    if draw(st.booleans()):
        request["safetySettings"] = [
            {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}
        ]  # Gemini's own
    return request


# -- Bedrock Converse ---------------------------------------------------------------------------

CACHE_POINT = {"cachePoint": {"type": "default"}}


# A tool result's `json` content: any JSON document (Converse's Document type).
JSON_CONTENT = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


def _bedrock_media(item: dict, number: int) -> dict:
    if item["kind"] == "image":
        return {"image": {"format": item["media_type"].split("/")[1], "source": {"bytes": item["data"]}}}
    return {"document": {"format": "pdf", "name": f"doc {number}", "source": {"bytes": item["data"]}}}


def _bedrock_assistant(draw, turn: tuple) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"text": turn[1]}] if turn[1] is not None else []
    content += [
        {"toolUse": {"toolUseId": call_id, "name": name, "input": args}} for call_id, name, args in turn[2]
    ]
    reasoning = draw(st.sampled_from([None, "text", "redacted"]))
    if reasoning == "text":  # the model's reasoning: Converse's own
        content.insert(
            0, {"reasoningContent": {"reasoningText": {"text": draw(TEXT), "signature": draw(DATA)}}}
        )
    elif reasoning == "redacted":
        content.insert(0, {"reasoningContent": {"redactedContent": draw(DATA)}})
    return content


def _bedrock_tools(draw, plan: dict[str, Any]) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = [
        {
            "toolSpec": {
                "name": tool["name"],
                **({"description": tool["description"]} if tool["description"] else {}),
                "inputSchema": {"json": tool["parameters"]},
            }
        }
        for tool in plan["tools"]
    ]
    if draw(st.booleans()):
        tools.append(CACHE_POINT)
    if draw(st.booleans()):  # a tool Bedrock runs itself: Converse's own
        tools.append({"systemTool": {"name": "nova_grounding"}})
    return tools


@st.composite
def bedrock_converse(draw, kinds: tuple[str, ...] = BYTES_MEDIA) -> dict[str, Any]:
    plan = draw(plans(kinds))
    request: dict[str, Any] = {}
    messages: list[dict[str, Any]] = []
    turns = plan["turns"]
    documents = 0

    def user_blocks(blocks: list) -> list[dict[str, Any]]:
        nonlocal documents
        content = []
        for kind, value in blocks:
            documents += kind == "media"
            content.append({"text": value} if kind == "text" else _bedrock_media(value, documents))
        if draw(st.booleans()):
            content.append(CACHE_POINT)
        return content

    position = 0
    while position < len(turns):
        turn = turns[position]
        if turn[0] == "system":
            request["system"] = [{"text": text} for text in turn[1]]
            if draw(st.booleans()):
                request["system"].append(CACHE_POINT)
        elif turn[0] == "user":
            messages.append({"role": "user", "content": user_blocks(turn[1])})
        elif turn[0] == "assistant":
            messages.append({"role": "assistant", "content": _bedrock_assistant(draw, turn)})
            results = []
            while position + 1 < len(turns) and turns[position + 1][0] == "tool":
                position += 1
                content: list[dict[str, Any]] = [{"text": turns[position][3]}]
                if draw(st.booleans()):  # structured content: Converse's own
                    content = [{"json": draw(JSON_CONTENT)}]
                result: dict[str, Any] = {"toolUseId": turns[position][1], "content": content}
                if draw(st.booleans()):
                    result["status"] = "success"  # Converse's own
                results.append({"toolResult": result})
            if results:
                # The next user turn's text follows the results in the same user message.
                position += 1
                messages.append({"role": "user", "content": results + user_blocks(turns[position][1])})
        position += 1
    request["messages"] = messages
    request["toolConfig"] = {"tools": _bedrock_tools(draw, plan)}
    choice = plan["tool_choice"]
    if choice is not None:
        request["toolConfig"]["toolChoice"] = (
            {"auto": {}}
            if choice == "auto"
            else {"any": {}}
            if choice == "required"
            else {"tool": {"name": choice}}
        )
    inference: dict[str, Any] = {"maxTokens": plan["max_tokens"]}
    for key, name in (("temperature", "temperature"), ("topP", "top_p")):
        if plan[name] is not None:
            inference[key] = plan[name]
    if plan["stop"]:
        inference["stopSequences"] = plan["stop"]
    request["inferenceConfig"] = inference
    if plan["structured"]:
        request["outputConfig"] = {
            "textFormat": {
                "type": "json_schema",
                "structure": {"jsonSchema": {"schema": json.dumps(SCHEMA), "name": "answer"}},
            }
        }
    if draw(st.booleans()):
        request["additionalModelRequestFields"] = {"top_k": 5}  # Bedrock's own
    return request


REQUESTS = {
    "openai-chat": openai_chat(),
    "openai-responses": openai_responses(),
    "anthropic": anthropic(),
    "gemini": gemini(),
    "bedrock-converse": bedrock_converse(),
}
# The same requests with images and files as bytes only, for round trips through Bedrock.
BYTES_REQUESTS = {
    "openai-chat": openai_chat(BYTES_MEDIA),
    "openai-responses": openai_responses(BYTES_MEDIA),
    "anthropic": anthropic(BYTES_MEDIA),
    "gemini": gemini(BYTES_MEDIA),
    "bedrock-converse": bedrock_converse(),
}
