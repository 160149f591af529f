"""The Bedrock Converse exporter's own rules: the system list, turns of content blocks, tool ids
as Bedrock allows them, inferenceConfig, toolConfig, outputConfig, and what Bedrock would refuse."""

from __future__ import annotations

import json

from inspector.core.export import ExportSettings, batch_export, export_case, render_code
from inspector.core.model import OutputSchema, ToolSpec

from .export_samples import WEATHER_TOOL, call, case, message, weather_conversation

PROVIDER = "bedrock-converse"


def bedrock(rendered, settings: ExportSettings | None = None):
    return export_case(rendered, PROVIDER, settings)


def lint_texts(result) -> list[tuple[int | None, str]]:
    return [(lint.message_index, lint.message) for lint in result.lints]


def test_system_messages_become_one_block_each_after_the_request_level_prompt():
    result = bedrock(
        case(message("system", "One."), message("user", "Hi"), message("developer", "Two.")),
        ExportSettings(system_prompt="Request."),
    )
    assert result.payload["system"] == [{"text": "Request."}, {"text": "One."}, {"text": "Two."}]
    assert result.payload["messages"] == [{"role": "user", "content": [{"text": "Hi"}]}]
    assert [change.message_index for change in result.changes] == [0, 2]


def test_tool_calls_and_results_become_tool_use_and_tool_result_blocks():
    payload = bedrock(weather_conversation()).payload
    assert payload["messages"][1]["content"][0] == {
        "toolUse": {"toolUseId": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
    }
    assert payload["messages"][2] == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "call_1", "content": [{"text": "sunny, 21C"}]}},
            {"toolResult": {"toolUseId": "call_2", "content": [{"text": '{"time": "12:00"}'}]}},
        ],
    }
    assert payload["toolConfig"]["tools"][0] == {
        "toolSpec": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "inputSchema": {"json": WEATHER_TOOL.parameters},
        }
    }


def test_tool_ids_keep_the_characters_bedrock_allows_and_never_collide():
    result = bedrock(
        case(
            message("user", "Go"),
            message(
                "assistant",
                "",
                tool_calls=[
                    call("call.1:a", "f", "{}"),
                    call("call/1", "f", "{}"),
                    call("call 1", "f", "{}"),
                    call("call_1", "f", "{}"),
                ],
            ),
            message("tool", "a", tool_call_id="call.1:a"),
            message("tool", "b", tool_call_id="call/1"),
            message("tool", "c", tool_call_id="call 1"),
            message("tool", "d", tool_call_id="call_1"),
            tools=[ToolSpec("f")],
        )
    )
    sent = [block["toolUse"]["toolUseId"] for block in result.payload["messages"][1]["content"]]
    answered = [block["toolResult"]["toolUseId"] for block in result.payload["messages"][2]["content"]]
    assert sent == ["call.1:a", "call_1", "call_1_2", "call_1_3"]
    assert answered == sent
    assert result.lints == []


def test_same_role_messages_merge_and_tool_results_open_the_user_turn():
    result = bedrock(
        case(
            message("user", "Look"),
            message("assistant", "", tool_calls=[call("c1", "f", "{}")]),
            message("user", "also this"),
            message("tool", "found", tool_call_id="c1"),
            tools=[ToolSpec("f")],
        )
    )
    assert result.payload["messages"][2]["content"] == [
        {"toolResult": {"toolUseId": "c1", "content": [{"text": "found"}]}},
        {"text": "also this"},
    ]
    assert result.lints == []


def test_tool_blocks_without_declared_tools_are_linted():
    result = bedrock(
        case(
            message("user", "Go"),
            message("assistant", "", tool_calls=[call("c1", "f", "{}")]),
            message("tool", "ok", tool_call_id="c1"),
        )
    )
    assert "toolConfig" not in result.payload
    assert any("requires toolConfig" in text for _, text in lint_texts(result))


def test_what_bedrock_refuses_is_linted_at_its_message():
    result = bedrock(
        case(
            message("assistant", "Hello"),
            message("user", "   "),
            message("assistant", "", tool_calls=[call("c1", "f", "{}")]),
        ),
        ExportSettings(temperature=1.5),
    )
    found = lint_texts(result)
    assert (0, "a conversation must start with a user message") in found
    assert any(index == 1 and "blank" in text for index, text in found)
    assert any(index == 2 and "no toolResult" in text for index, text in found)
    assert any("temperature 1.5" in text for _, text in found)


def test_settings_go_to_inference_config_and_the_schema_to_output_config():
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    result = bedrock(
        case(message("user", "JSON please"), output_schema=OutputSchema("summary", schema, strict=True)),
        ExportSettings(max_tokens=300, temperature=0.2, model="m.x-v1:0"),
    )
    assert result.model == "m.x-v1:0" and "modelId" not in result.payload
    assert result.payload["inferenceConfig"] == {"maxTokens": 300, "temperature": 0.2}
    json_schema = result.payload["outputConfig"]["textFormat"]["structure"]["jsonSchema"]
    assert json.loads(json_schema["schema"]) == schema and json_schema["name"] == "summary"


def test_the_defaults_send_no_inference_config_and_name_a_bedrock_model():
    result = bedrock(case(message("user", "Hi")))
    assert "inferenceConfig" not in result.payload
    assert result.model == "amazon.nova-lite-v1:0"


def test_code_forms_pass_the_model_beside_the_body():
    result = bedrock(case(message("user", "Hi")), ExportSettings(model="us.it's:0"))
    assert 'client.converse(modelId="us.it\'s:0", **payload)' in render_code(result, "python")
    assert "--model-id 'us.it'\"'\"'s:0'" in render_code(result, "curl")
    assert 'new ConverseCommand({ modelId: "us.it\'s:0", ...payload })' in render_code(result, "typescript")


def test_batch_records_carry_record_ids_and_the_converse_body():
    batch = batch_export([weather_conversation("w/1"), weather_conversation("w_1")], PROVIDER)
    lines = [json.loads(line) for line in batch.jsonl.splitlines()]
    assert [line["recordId"] for line in lines] == ["w_1", "w_1-2"]
    assert lines[0]["modelInput"] == bedrock(weather_conversation("w/1")).payload
