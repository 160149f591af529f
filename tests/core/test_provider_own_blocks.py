"""What only one API has (Anthropic's thinking blocks and server tools, OpenAI's built-in tools,
Gemini's googleSearch) goes back unchanged to that API and is named in Changes for another."""

from __future__ import annotations

import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.export import PROVIDERS, export_case, provider_spec
from inspector.core.formats import render_conversation_file
from inspector.core.model import RenderedCase
from inspector.core.serialize import case_contract

from .sdk_types import build_validators

TOOL = {"name": "lookup", "input_schema": {"type": "object"}}
ANTHROPIC = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 2048,
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "tools": [TOOL, {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
    "messages": [
        {"role": "user", "content": "Find it."},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should look.", "signature": "c2ln"},
                {"type": "redacted_thinking", "data": "ZGF0YQ=="},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]},
    ],
}
RESPONSES = {
    "model": "gpt-5.4-mini",
    "input": [{"type": "message", "role": "user", "content": "Search the news."}],
    "tools": [
        {"type": "web_search"},
        {"type": "function", "name": "lookup", "parameters": {"type": "object"}, "strict": False},
    ],
}
GEMINI = {
    "contents": [{"role": "user", "parts": [{"text": "Who won?"}]}],
    "tools": [{"functionDeclarations": [{"name": "lookup"}]}, {"googleSearch": {}}],
}


@pytest.fixture(scope="module")
def validators():
    return build_validators()


def read(body: dict, fmt: str) -> RenderedCase:
    bundle = MemoryBundle({"request.json": json.dumps(body).encode()})
    [case] = render_conversation_file(bundle, "request.json", fmt).cases
    return case


@pytest.mark.parametrize(
    ("fmt", "body"), [("anthropic", ANTHROPIC), ("openai-responses", RESPONSES), ("gemini", GEMINI)]
)
def test_a_request_with_its_apis_own_blocks_and_tools_comes_back_unchanged(fmt, body, validators):
    validators[fmt](body)
    result = export_case(read(body, fmt), fmt)
    assert result.payload == body
    assert result.changes == []


def test_thinking_blocks_add_no_text_to_the_assistant_turn():
    assistant = read(ANTHROPIC, "anthropic").messages[1]
    assert assistant.content == "Looking."


@pytest.mark.parametrize("target", [p for p in PROVIDERS if p != "anthropic"])
def test_thinking_blocks_and_server_tools_are_named_when_sent_elsewhere(target, validators):
    result = export_case(read(ANTHROPIC, "anthropic"), target)
    validators[target](result.payload)
    text = json.dumps(result.payload)
    assert "I should look." not in text and "web_search" not in text
    left_out = [(c.message, c.message_index) for c in result.changes if "left out" in c.message]
    assert (f"Anthropic's thinking block left out: {_label(target)} has no such block", 1) in left_out
    assert (
        f"Anthropic's redacted_thinking block left out: {_label(target)} has no such block",
        1,
    ) in left_out
    assert any(
        "tool 'web_search' left out: Anthropic's own web_search_20250305 tool" in m for m, _ in left_out
    )


@pytest.mark.parametrize(
    ("fmt", "body", "name"),
    [("openai-responses", RESPONSES, "web_search"), ("gemini", GEMINI, "googleSearch")],
)
def test_built_in_tools_are_named_when_sent_elsewhere(fmt, body, name, validators):
    result = export_case(read(body, fmt), "anthropic")
    validators["anthropic"](result.payload)
    assert [tool["name"] for tool in result.payload["tools"]] == ["lookup"]
    assert any(f"tool {name!r} left out" in change.message for change in result.changes)


def test_the_cli_contract_lists_only_function_tools():
    contract = case_contract(read(GEMINI, "gemini"))
    assert [tool["function"]["name"] for tool in contract["tools"]] == ["lookup"]


def _label(provider: str) -> str:
    return provider_spec(provider).label


BEDROCK = {
    "messages": [
        {"role": "user", "content": [{"text": "Find it."}]},
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "I should look.", "signature": "c2ln"}}},
                {"toolUse": {"toolUseId": "tooluse_1", "name": "lookup", "input": {}}},
            ],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "found"}]}}],
        },
    ],
    "toolConfig": {
        "tools": [
            {"toolSpec": {"name": "lookup", "inputSchema": {"json": {"type": "object"}}}},
            {"systemTool": {"name": "nova_grounding"}},
        ]
    },
}


def test_converse_reasoning_and_system_tools_come_back_unchanged(validators):
    validators["bedrock-converse"](BEDROCK)
    result = export_case(read(BEDROCK, "bedrock-converse"), "bedrock-converse")
    assert result.payload == BEDROCK
    assert result.changes == []


def test_converse_reasoning_and_system_tools_are_named_when_sent_elsewhere(validators):
    result = export_case(read(BEDROCK, "bedrock-converse"), "anthropic")
    validators["anthropic"](result.payload)
    assert "I should look." not in json.dumps(result.payload)
    messages = [(change.message, change.message_index) for change in result.changes]
    assert ("Bedrock Converse's reasoningContent block left out: Anthropic has no such block", 1) in messages
    assert any(
        "tool 'nova_grounding' left out: Bedrock Converse's own systemTool tool" in m for m, _ in messages
    )


JSON_RESULT = {"status": "found", "items": [1, 2], "note": None, "Ünï": "✓"}
BEDROCK_JSON = {
    "messages": [
        {"role": "user", "content": [{"text": "Find it."}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "lookup", "input": {}}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_1",
                        "content": [{"text": "Result:"}, {"json": JSON_RESULT}],
                    }
                },
                {"cachePoint": {"type": "default"}},
                {"text": "Go on."},
            ],
        },
    ],
    "toolConfig": {"tools": [{"toolSpec": {"name": "lookup", "inputSchema": {"json": {"type": "object"}}}}]},
}


def test_converse_json_tool_results_come_back_unchanged(validators):
    validators["bedrock-converse"](BEDROCK_JSON)
    case = read(BEDROCK_JSON, "bedrock-converse")
    result = export_case(case, "bedrock-converse")
    assert result.payload == BEDROCK_JSON
    assert result.changes == []
    [tool] = [message for message in case.messages if message.role == "tool"]
    # Content, not a marker: the value as JSON text, traced to the block it was written in.
    json_segment = tool.segments[-1]
    assert json.loads(json_segment.text) == JSON_RESULT
    assert json_segment.origin.kind == "case" and json_segment.raw == {"json": JSON_RESULT}
    assert not any(warning.message.startswith("the part") for warning in case.warnings)


@pytest.mark.parametrize("target", [p for p in PROVIDERS if p != "bedrock-converse"])
def test_converse_json_tool_results_go_elsewhere_as_json_text(target, validators):
    result = export_case(read(BEDROCK_JSON, "bedrock-converse"), target)
    validators[target](result.payload)
    text = json.dumps(result.payload, ensure_ascii=False)
    assert json.dumps(json.dumps(JSON_RESULT, ensure_ascii=False), ensure_ascii=False)[1:-1] in text
    assert (f"Bedrock Converse's json content sent as JSON text: {_label(target)} has no such block", 2) in [
        (change.message, change.message_index) for change in result.changes
    ]
