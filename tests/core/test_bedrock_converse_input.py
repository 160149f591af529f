"""A raw Bedrock Converse request body is an input: recognised by `auto` without taking other
formats' files, read into the neutral model, and carried field by field when exported."""

from __future__ import annotations

import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import detect_format
from inspector.core.export import export_case
from inspector.core.formats import render_conversation_file, sniff
from inspector.core.model import RenderedCase

from .sdk_types import BotocoreValidator, build_validators

PNG = "iVBORw0KGgo="
PDF = "JVBERi0xLjQ="
BODY = {
    "system": [{"text": "You are terse."}, {"cachePoint": {"type": "default"}}],
    "messages": [
        {
            "role": "user",
            "content": [
                {"text": "What is in these?"},
                {"image": {"format": "png", "source": {"bytes": PNG}}},
                {"document": {"format": "pdf", "name": "report", "source": {"bytes": PDF}}},
                {"cachePoint": {"type": "default"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"text": "Let me look it up."},
                {"toolUse": {"toolUseId": "tooluse_1", "name": "lookup", "input": {"q": "report"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_1",
                        "content": [{"text": "found"}],
                        "status": "success",
                    }
                },
                {"text": "Summarise."},
            ],
        },
    ],
    "inferenceConfig": {"maxTokens": 300, "temperature": 0.2, "topP": 0.9, "stopSequences": ["END"]},
    "toolConfig": {
        "tools": [
            {
                "toolSpec": {
                    "name": "lookup",
                    "description": "Look up a word.",
                    "inputSchema": {"json": {"type": "object"}},
                }
            },
            {"cachePoint": {"type": "default"}},
        ],
        "toolChoice": {"any": {}},
    },
    "additionalModelRequestFields": {"top_k": 5},
}


def read(body: dict, fmt: str = "auto") -> RenderedCase:
    bundle = MemoryBundle({"request.json": json.dumps(body, indent=2).encode()})
    [case] = render_conversation_file(bundle, "request.json", fmt).cases
    return case


def test_a_converse_body_is_recognised_as_bedrock_converse():
    text = json.dumps(BODY)
    assert sniff(text) == "bedrock-converse"
    assert detect_format("request.json", text) == "bedrock-converse"


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
        {"system": [{"type": "text", "text": "s"}], "messages": [{"role": "user", "content": "hi"}]},
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                        }
                    ],
                }
            ]
        },
        {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        },
    ],
)
def test_other_providers_bodies_are_not_taken_for_converse(body):
    assert sniff(json.dumps(body)) != "bedrock-converse"


def test_a_converse_body_reads_into_messages_media_tools_and_results():
    case = read(BODY)
    assert case.metadata["format"] == "bedrock-converse"
    assert [(m.role, m.content) for m in case.messages] == [
        ("system", "You are terse."),
        ("user", "What is in these?\n\n"),
        ("assistant", "Let me look it up."),
        ("tool", "found"),
        ("user", "Summarise."),
    ]
    media = [s.media for s in case.messages[1].segments if s.media is not None]
    assert [(m.kind, m.media_type, m.data, m.filename) for m in media] == [
        ("image", "image/png", PNG, None),
        ("file", "application/pdf", PDF, "report.pdf"),
    ]
    assert case.messages[2].tool_calls[0].id == "tooluse_1"
    assert case.messages[3].tool_call_id == "tooluse_1"
    assert [tool.name for tool in case.tools] == ["lookup"]


def test_a_converse_body_exported_to_converse_is_the_same_body_without_changes():
    result = export_case(read(BODY), "bedrock-converse")
    BotocoreValidator()(result.payload)
    assert result.payload == BODY
    assert result.changes == []


def test_converse_settings_map_to_anthropic_and_its_own_fields_are_named():
    result = export_case(read(BODY), "anthropic")
    build_validators()["anthropic"](result.payload)
    payload = result.payload
    assert payload["max_tokens"] == 300
    assert payload["stop_sequences"] == ["END"]
    assert payload["tool_choice"] == {"type": "any"}
    changes = "\n".join(change.message for change in result.changes)
    assert "cachePoint" in changes
    assert "'additionalModelRequestFields' left out" in changes
    assert "top_p left out" in changes
    assert "temperature 0.2 left out" in changes


def test_other_providers_settings_map_to_converse():
    chat = {
        "model": "gpt-4o",
        "max_tokens": 200,
        "temperature": 0.5,
        "top_p": 0.8,
        "seed": 7,
        "stop": "DONE",
        "tool_choice": {"type": "function", "function": {"name": "lookup"}},
        "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look."},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
        ],
    }
    result = export_case(read(chat), "bedrock-converse")
    BotocoreValidator()(result.payload)
    payload = result.payload
    assert payload["inferenceConfig"] == {
        "maxTokens": 200,
        "temperature": 0.5,
        "topP": 0.8,
        "stopSequences": ["DONE"],
    }
    assert payload["toolConfig"]["toolChoice"] == {"tool": {"name": "lookup"}}
    assert payload["messages"][0]["content"][1] == {"image": {"format": "png", "source": {"bytes": PNG}}}
    changes = "\n".join(change.message for change in result.changes)
    assert "seed left out" in changes
    assert "model 'gpt-4o' belongs to OpenAI Chat" in changes


def test_converse_content_that_is_not_a_list_is_a_warning_with_its_line():
    body = {"messages": [{"role": "user", "content": "hi"}], "inferenceConfig": {"maxTokens": 5}}
    case = read(body)
    assert case.metadata["format"] == "bedrock-converse"
    [warning] = case.warnings
    assert "list of blocks" in warning.message and warning.line == 5
