"""Raw conversations: OpenAI Chat, Anthropic Messages and OpenAI Responses / Codex Prompt requests.
(Stub: the deck and conversation issue fills this in.)"""

from __future__ import annotations


def sniff(text: str) -> str | None:
    """The conversation format of a request body, or None when it is not one."""
    return None


def render_conversation_file(bundle, path, input_format, options):
    raise NotImplementedError
