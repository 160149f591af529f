"""OpenAI Chat request bodies of every shape the reader takes, untidy ones included: calls left
unanswered, results for no call, ids a provider refuses, arguments that are no JSON object,
empty and odd content, names and unknown keys, roles no provider has; and, with `hostile`, any
value of any field replaced by one of another JSON type.

Drawn from a `random.Random`, so one generator serves hypothesis (`st.randoms()`) and a plain
seeded loop (a subprocess comparing compiled and plain-Python exporters).
"""

from __future__ import annotations

import copy
import random
from typing import Any

ROLES = ("user", "assistant", "tool", "system", "developer", "function", "critic")
TEXTS = (
    "Hello.",
    "",
    " ",
    "ends with a space ",
    '{"json": true}',
    "{not json",
    "two\nlines",
    "ü ✓ 字",
    '  {"padded": 1}',
    '{"a": 1} trailing',
)
ODD_IDS = ("call.3", "call/3", "x" * 70, "", "call 1", "ça", "toolu_9")
NAMES = ("get_weather", "lookup", "bad name!", "")
ARGUMENTS = (
    '{"city": "Paris"}',
    "{}",
    ' {"a": 1}',
    '{"a": 1} ',
    "[1, 2]",
    "not json",
    "",
    '"text"',
    '{"a": {"b": [1, 2]}}',
    '{"a": 1}{"b": 2}',
)
MODELS = ("gpt-4o", "claude-sonnet-4-5", "gemini-2.5-pro", "o3")


JUNK = (
    0,
    1,
    -1,
    2.5,
    True,
    False,
    None,
    "",
    "text",
    [],
    [1, "a"],
    {},
    {"k": "v"},
    [{"type": "text"}],
    {"type": "text", "text": 1},
)


def chat_body(rng: random.Random, hostile: bool = False) -> dict[str, Any]:
    """A body: half of them conversations that answer their calls in order (the shapes the
    exporters' fast paths take), the rest anything; `hostile` then puts values of the wrong type
    in a few places."""
    body = _chat_body(rng)
    if hostile:
        for _ in range(rng.randint(1, 3)):
            spoil(rng, body)
    return body


def spoil(rng: random.Random, value: Any) -> None:
    """Replace one value somewhere inside `value` (a dict or list) with junk."""
    while True:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        if not keys:
            return
        key = rng.choice(keys)
        inner = value[key]
        if isinstance(inner, (dict, list)) and inner and rng.random() < 0.75:
            value = inner
            continue
        value[key] = copy.deepcopy(rng.choice(JUNK))
        return


def _chat_body(rng: random.Random) -> dict[str, Any]:
    tidy = rng.random() < 0.5
    messages = _tidy(rng) if tidy else _untidy(rng)
    body: dict[str, Any] = {"messages": messages}
    if rng.random() < 0.3:
        body["model"] = rng.choice(MODELS)
    if rng.random() < 0.2:
        body["temperature"] = rng.choice((0, 0.5, 1.2, 1, True, "hot", None))
    if rng.random() < 0.2:
        body["max_tokens"] = rng.choice((1, 256, True, 1.5, "100", None))
    if rng.random() < 0.3:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": name, "parameters": {"type": "object", "properties": {}}},
            }
            for name in rng.sample(NAMES[:2], rng.randint(1, 2))
        ]
    if rng.random() < 0.1:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": {"type": "object"}},
        }
    if rng.random() < 0.05:
        body["system"] = "Top-level system text."
    return body


def _call(rng: random.Random, number: int, odd: bool) -> dict[str, Any]:
    call_id = rng.choice(ODD_IDS) if odd and rng.random() < 0.3 else f"call_{number}"
    arguments: Any = rng.choice(ARGUMENTS) if odd else f'{{"n": {number}}}'
    if odd and rng.random() < 0.1:
        arguments = {"as": "object"}
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": rng.choice(NAMES) if odd else "lookup", "arguments": arguments},
    }


def _tidy(rng: random.Random) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        messages.append({"role": rng.choice(("system", "developer")), "content": rng.choice(TEXTS)})
    number = 0
    for _ in range(rng.randint(1, 4)):
        messages.append({"role": "user", "content": f"Question {number}?"})
        calls = []
        for _ in range(rng.randint(0, 2)):
            number += 1
            calls.append(_call(rng, number, odd=rng.random() < 0.1))
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": rng.choice((None, "Looking.")) if calls else "Yes.",
        }
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": rng.choice(TEXTS)})
        if calls:
            messages.append({"role": "assistant", "content": "Done."})
    if rng.random() < 0.5:
        messages.append({"role": "user", "content": "Thanks."})
    return messages


def _untidy(rng: random.Random) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    ids: list[str] = []
    for number in range(rng.randint(0, 8)):
        role = rng.choice(ROLES)
        message: dict[str, Any] = {"role": role}
        shape = rng.random()
        if shape < 0.7:
            message["content"] = rng.choice(TEXTS)
        elif shape < 0.8:
            message["content"] = None
        elif shape < 0.9:
            message["content"] = [{"type": "text", "text": rng.choice(TEXTS)}]
        if role == "assistant" and rng.random() < 0.6:
            message["tool_calls"] = [
                _call(rng, number * 10 + index, odd=rng.random() < 0.5) for index in range(rng.randint(1, 3))
            ]
            ids += [call["id"] for call in message["tool_calls"]]
        if role in ("tool", "function") and rng.random() < 0.85:
            message["tool_call_id"] = rng.choice(ids) if ids and rng.random() < 0.7 else rng.choice(ODD_IDS)
        if rng.random() < 0.05:
            message["name"] = "bob"
        if rng.random() < 0.05:
            message["cache_control"] = {"type": "ephemeral"}
        messages.append(message)
    return messages
