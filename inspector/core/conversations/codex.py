"""Seed 002: the Codex `Prompt` and how its full instructions are assembled."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ModelFamily:
    family: str
    base_instructions: str
    supports_reasoning_summaries: bool = False
    needs_special_apply_patch_instructions: bool = False
    # Appended when the family needs them and no apply_patch tool is offered.
    apply_patch_instructions: str | None = None


@dataclass(slots=True)
class Prompt:
    input: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    base_instructions_override: str | None = None
    user_instructions: str | None = None
    output_schema: Any = None


def get_full_instructions(prompt: Prompt, model: ModelFamily) -> str:
    """The override if set, else the family's base instructions, then the user instructions."""
    sections = [
        prompt.base_instructions_override
        if prompt.base_instructions_override is not None
        else model.base_instructions
    ]
    if prompt.user_instructions:
        sections.append(prompt.user_instructions)
    if (
        model.needs_special_apply_patch_instructions
        and model.apply_patch_instructions
        and not any(_tool_name(tool) == "apply_patch" for tool in prompt.tools)
    ):
        sections.append(model.apply_patch_instructions)
    return "\n".join(section for section in sections if section)


def get_formatted_input(prompt: Prompt) -> list[dict[str, Any]]:
    """A new list holding the same items, every item type kept (seed 002: a shallow clone)."""
    return list(prompt.input)


def _tool_name(tool: Any) -> str | None:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    return function.get("name") if isinstance(function, dict) else tool.get("name")
