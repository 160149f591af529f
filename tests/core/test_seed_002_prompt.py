"""Seed 002's contract tests for the Codex Prompt, ported from vitest."""

from dataclasses import fields

from inspector.core.conversations import ModelFamily, Prompt, get_formatted_input, get_full_instructions


def family(base: str) -> ModelFamily:
    return ModelFamily(
        family="gpt-5",
        base_instructions=base,
        supports_reasoning_summaries=True,
        needs_special_apply_patch_instructions=False,
    )


def test_prompt_structure_matches_rust():
    prompt = Prompt(
        input=[{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]}],
        tools=[],
    )
    names = {field.name for field in fields(Prompt)}
    assert {"input", "tools", "base_instructions_override", "user_instructions", "output_schema"} == names
    assert isinstance(prompt.input, list) and "type" in prompt.input[0]
    assert isinstance(prompt.tools, list)


def test_prompt_supports_optional_fields():
    prompt = Prompt(
        input=[],
        tools=[],
        base_instructions_override="Custom instructions",
        user_instructions="Development guidelines",
        output_schema={"type": "object"},
    )
    assert prompt.base_instructions_override == "Custom instructions"
    assert prompt.user_instructions == "Development guidelines"
    assert prompt.output_schema == {"type": "object"}


def test_get_full_instructions_returns_base_instructions_when_no_override():
    assert get_full_instructions(Prompt(), family("You are a helpful assistant.")) == (
        "You are a helpful assistant."
    )


def test_get_full_instructions_uses_override_when_provided():
    prompt = Prompt(base_instructions_override="Custom system prompt")
    assert get_full_instructions(prompt, family("You are a helpful assistant.")) == "Custom system prompt"


def test_get_full_instructions_combines_base_and_user():
    result = get_full_instructions(
        Prompt(user_instructions="Follow coding best practices."), family("You are a coding assistant.")
    )
    assert "You are a coding assistant." in result
    assert "Follow coding best practices." in result
    assert result.index("You are a coding assistant.") < result.index("Follow coding best practices.")


def test_apply_patch_instructions_are_added_only_when_the_family_needs_them_and_no_tool_exists():
    needy = ModelFamily(
        "gpt-4.1",
        "Base.",
        needs_special_apply_patch_instructions=True,
        apply_patch_instructions="Use apply_patch.",
    )
    assert get_full_instructions(Prompt(), needy).endswith("Use apply_patch.")
    with_tool = Prompt(tools=[{"type": "function", "name": "apply_patch"}])
    assert "Use apply_patch." not in get_full_instructions(with_tool, needy)


def test_get_formatted_input_returns_cloned_array():
    original = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]},
    ]
    prompt = Prompt(input=original, tools=[])
    result = get_formatted_input(prompt)
    assert result == original
    assert result is not original
    assert len(result) == 2 and result[0] == original[0]


def test_get_formatted_input_preserves_all_response_item_types():
    prompt = Prompt(
        input=[
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        ],
        tools=[],
    )
    result = get_formatted_input(prompt)
    assert [item["type"] for item in result] == ["message", "function_call", "function_call_output"]
