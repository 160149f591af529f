"""Anthropic's Messages prompt as promptfoo reads it (parseMessages, anthropic/util.ts): shared by
the bodies that carry Anthropic's messages (Anthropic Messages, Claude on Vertex, Claude on Bedrock
InvokeModel), so it lives in none of their modules."""

from __future__ import annotations

import json
from typing import Any


def anthropic_messages(text: str) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """parseMessages (anthropic/util.ts): a JSON chat array, else `system:`/`user:`/`assistant:`
    lines, each line trimmed and blank lines dropped."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, list):
        system_message = next(
            (item for item in parsed if isinstance(item, dict) and item.get("role") == "system"), None
        )
        messages = [
            {
                "role": item["role"],
                "content": item["content"]
                if isinstance(item.get("content"), list)
                else [{"type": "text", "text": item.get("content")}],
            }
            for item in parsed
            if isinstance(item, dict) and item.get("role") and item["role"] != "system"
        ]
        system = None
        if system_message is not None:
            content = system_message.get("content")
            system = content if isinstance(content, list) else [{"type": "text", "text": content}]
        return system, messages
    return _anthropic_lines(text)


def _anthropic_lines(text: str) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    system = None
    messages: list[dict[str, Any]] = []
    role: str | None = None
    content: list[str] = []

    def push() -> None:
        nonlocal content
        if role and content:
            messages.append({"role": role, "content": [{"type": "text", "text": "\n".join(content)}]})
            content = []

    for line in (line.strip() for line in text.split("\n")):
        if not line:
            continue
        if line.startswith("system:"):
            system = [{"type": "text", "text": line[7:].strip()}]
        elif line.startswith("thinking:"):
            continue
        elif line.startswith(("user:", "assistant:")):
            push()
            role = "user" if line.startswith("user:") else "assistant"
            content.append(line[line.index(":") + 1 :].strip())
        else:
            role = role or "user"
            content.append(line)
    push()
    if not messages and system is None:
        messages.append({"role": "user", "content": [{"type": "text", "text": text.strip()}]})
    return system, messages
