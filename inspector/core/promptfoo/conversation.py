"""`_conversation`: what promptfoo gives a prompt that names it, the earlier evaluations of the same
provider, prompt and `metadata.conversationId` in run order (the evaluator's conversationKey and
updateConversationHistory), each answer the candidate placeholder (the prompt itself for the echo provider). promptfoo fills it in the
order evaluations finish, which is this order when they run one at a time (`-j 1`, as promptfoo
advises for conversations)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .graders import CANDIDATE_PLACEHOLDER
from .prompts import Prompt
from .providers import Provider

NAME = "_conversation"


@dataclass
class Conversations:
    turns: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @staticmethod
    def key(provider: Provider, prompt: Prompt, prompt_idx: int, conversation_id: Any) -> str:
        return json.dumps([provider.key, prompt.label, prompt_idx, conversation_id])

    def attach(self, key: str, prompt: Prompt, values: dict[str, Any]) -> None:
        if NAME in prompt.raw:
            values[NAME] = list(self.turns.get(key, []))

    def record(self, key: str, rendered_text: str, answer: Any = CANDIDATE_PLACEHOLDER) -> None:
        try:
            rendered_json = json.loads(rendered_text)
        except ValueError:
            rendered_json = None
        last = rendered_json[-1] if isinstance(rendered_json, list) and rendered_json else None
        last_input = (last.get("content") or last) if isinstance(last, dict) else last
        self.turns.setdefault(key, []).append(
            {
                "prompt": rendered_json or rendered_text,
                "input": last_input or rendered_json or rendered_text,
                "output": answer,
            }
        )
