"""Each provider exporter's rules, changes and lints; seed 003 (AC2.1-AC2.5) and seed 002's contract
tests; the code forms, run for real against stand-in SDKs and a stand-in curl."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types

import pytest

from inspector.core.export import (
    PROVIDERS,
    REGISTRY,
    ExportSettings,
    batch_export,
    batch_jsonl,
    export_case,
    full_instructions,
    render_code,
)
from inspector.core.model import OutputSchema, ToolSpec

from .export_samples import (
    AWKWARD_TEXT,
    WEATHER_TOOL,
    call,
    case,
    message,
    sample_conversations,
    weather_conversation,
)


def changes(result) -> list[tuple[int | None, str]]:
    return [(change.message_index, change.message) for change in result.changes]


def lint_indexes(result) -> list[int | None]:
    return [lint.message_index for lint in result.lints]


# --- seed 003: system-role messages ---------------------------------------------------------------


def test_ac2_1_a_system_role_message_is_accepted_by_every_exporter():
    conversation = case(message("system", "Rules."), message("user", "Hi"))
    for provider in PROVIDERS:
        result = export_case(conversation, provider)
        assert "Rules." in json.dumps(result.payload), provider
        assert result.lints == [], provider


def test_ac2_2_anthropic_moves_system_messages_into_system_after_the_request_system():
    conversation = case(
        message("user", "Hi"), message("system", "Inline rule."), message("assistant", "Hello")
    )
    result = export_case(conversation, "anthropic", ExportSettings(system_prompt="Request system."))
    assert result.payload["system"] == "Request system.\n\nInline rule."
    assert [turn["role"] for turn in result.payload["messages"]] == ["user", "assistant"]
    assert changes(result) == [(1, "system message moved into the top-level system")]


def test_ac2_3_openai_chat_passes_system_messages_through_in_place():
    conversation = case(
        message("user", "Hi"), message("system", "Inline rule."), message("assistant", "Hello")
    )
    result = export_case(conversation, "openai-chat")
    assert result.payload["messages"] == [
        {"role": "user", "content": "Hi"},
        {"role": "system", "content": "Inline rule."},
        {"role": "assistant", "content": "Hello"},
    ]
    assert result.changes == []


def test_ac2_4_request_system_alone_still_works_for_both_adapters():
    conversation = case(message("user", "Hi"))
    settings = ExportSettings(system_prompt="Request system.")
    anthropic = export_case(conversation, "anthropic", settings)
    openai = export_case(conversation, "openai-chat", settings)
    assert anthropic.payload["system"] == "Request system."
    assert openai.payload["messages"][0] == {"role": "system", "content": "Request system."}
    assert openai.payload["messages"][1] == {"role": "user", "content": "Hi"}


def test_ac2_5_several_system_messages_concatenate_for_anthropic_and_stay_sequential_for_openai():
    conversation = case(
        message("system", "First."),
        message("user", "Hi"),
        message("system", "Second."),
        message("system", "Third."),
    )
    settings = ExportSettings(system_prompt="Zero.")
    anthropic = export_case(conversation, "anthropic", settings)
    assert anthropic.payload["system"] == "Zero.\n\nFirst.\n\nSecond.\n\nThird."
    openai = export_case(conversation, "openai-chat", settings)
    systems = [m["content"] for m in openai.payload["messages"] if m["role"] == "system"]
    assert systems == ["Zero.", "First.", "Second.", "Third."]


def test_anthropic_skips_empty_system_messages_when_joining():
    conversation = case(message("system", ""), message("system", "Only."), message("user", "Hi"))
    assert export_case(conversation, "anthropic").payload["system"] == "Only."


# --- seed 002: the Responses request as Codex's Prompt builds it ----------------------------------


def test_prompt_structure_matches_rust():
    result = export_case(case(message("user", "Hello")), "openai-responses")
    assert result.payload["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]}
    ]
    tools = export_case(weather_conversation(), "openai-responses").payload["tools"]
    assert isinstance(tools, list) and all("type" in tool for tool in tools)


def test_get_full_instructions_returns_base_instructions_when_no_override():
    assert full_instructions("You are a helpful assistant.") == "You are a helpful assistant."


def test_get_full_instructions_uses_override_when_provided():
    assert full_instructions("You are a helpful assistant.", "Custom system prompt") == "Custom system prompt"


def test_get_full_instructions_combines_base_and_user_instructions():
    combined = full_instructions("You are a coding assistant.", None, "Follow coding best practices.")
    assert combined.startswith("You are a coding assistant.")
    assert combined.endswith("Follow coding best practices.")


def test_responses_instructions_come_from_the_instructions_message_not_the_input():
    conversation = case(
        message("system", "Codex base instructions."),
        message("user", "Hello"),
        metadata={"instructions_message": True},
    )
    settings = ExportSettings(system_prompt="Default base.", user_instructions="Be careful.")
    result = export_case(conversation, "openai-responses", settings)
    assert result.payload["instructions"] == "Codex base instructions.\n\nBe careful."
    assert [item["role"] for item in result.payload["input"]] == ["user"]


def test_responses_without_instructions_message_keeps_system_text_as_an_input_item():
    conversation = case(message("system", "Inline."), message("user", "Hello"))
    result = export_case(conversation, "openai-responses", ExportSettings(system_prompt="Base."))
    assert result.payload["instructions"] == "Base."
    assert result.payload["input"][0] == {
        "type": "message",
        "role": "system",
        "content": [{"type": "input_text", "text": "Inline."}],
    }


def test_get_formatted_input_returns_cloned_array():
    conversation = weather_conversation()
    first = export_case(conversation, "openai-responses").payload["input"]
    second = export_case(conversation, "openai-responses").payload["input"]
    assert first == second
    assert first is not second and first[0] is not second[0]


def test_get_formatted_input_preserves_all_response_item_types():
    conversation = case(
        message("user", "Hello"),
        message("assistant", "", tool_calls=[call("call_1", "get_weather", "{}")]),
        message("tool", "sunny", tool_call_id="call_1"),
        message("assistant", "Hi"),
    )
    items = export_case(conversation, "openai-responses").payload["input"]
    assert [item["type"] for item in items] == ["message", "function_call", "function_call_output", "message"]
    assert items[1] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": "{}",
    }
    assert items[2] == {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}
    # Assistant history as string content: what both the SDK types and the live API accept.
    assert items[3] == {"type": "message", "role": "assistant", "content": "Hi"}


def test_responses_tools_are_flat_and_always_say_strict():
    strict_tool = ToolSpec("strict_one", None, {"type": "object", "properties": {}}, strict=True)
    result = export_case(case(message("user", "x"), tools=[WEATHER_TOOL, strict_tool]), "openai-responses")
    assert result.payload["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": WEATHER_TOOL.parameters,
            "strict": False,
        },
        {
            "type": "function",
            "name": "strict_one",
            "parameters": {"type": "object", "properties": {}},
            "strict": True,
        },
    ]


def test_responses_output_schema_goes_to_text_format():
    schema = OutputSchema("answer", {"type": "object"}, strict=True)
    result = export_case(case(message("user", "x"), output_schema=schema), "openai-responses")
    assert result.payload["text"] == {
        "format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}, "strict": True}
    }


def test_responses_lints_a_function_call_without_output():
    conversation = case(
        message("user", "x"),
        message("assistant", "", tool_calls=[call("c1", "f", "{}")]),
        message("user", "y"),
    )
    assert lint_indexes(export_case(conversation, "openai-responses")) == [1]


# --- OpenAI chat ----------------------------------------------------------------------------------


def test_openai_chat_sends_tool_calls_with_null_content_and_tool_messages():
    payload = export_case(weather_conversation(), "openai-chat").payload
    assistant = payload["messages"][2]
    assert assistant["content"] is None
    assert assistant["tool_calls"][0] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    assert payload["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21C"}
    assert payload["tools"][0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": WEATHER_TOOL.parameters,
        },
    }
    assert payload["tools"][1] == {"type": "function", "function": {"name": "get_time"}}


def test_openai_chat_lints_a_tool_call_without_a_following_tool_message():
    conversation = case(
        message("user", "x"),
        message("assistant", "", tool_calls=[call("a", "f", "{}"), call("b", "f", "{}")]),
        message("tool", "done", tool_call_id="a"),
        message("user", "next"),
    )
    result = export_case(conversation, "openai-chat")
    assert [(lint.message_index, "'b'" in lint.message) for lint in result.lints] == [(1, True)]


def test_openai_chat_lints_a_tool_message_answering_no_call():
    conversation = case(message("user", "x"), message("tool", "orphan", tool_call_id="zz"))
    assert lint_indexes(export_case(conversation, "openai-chat")) == [1]


def test_openai_chat_maps_unknown_roles_to_user_and_says_so():
    conversation = case(message("user", "x"), message("critic", "y"))
    result = export_case(conversation, "openai-chat")
    assert result.payload["messages"][1] == {"role": "user", "content": "y"}
    assert changes(result) == [(1, "role 'critic' is not an OpenAI chat role; sent as a user message")]


def test_openai_chat_response_format_and_settings():
    schema = OutputSchema("my answer", {"type": "object"}, strict=True)
    settings = ExportSettings(model="gpt-x", max_tokens=50, temperature=0.2)
    result = export_case(case(message("user", "x"), output_schema=schema), "openai-chat", settings)
    assert result.payload["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "my_answer", "schema": {"type": "object"}, "strict": True},
    }
    assert (
        result.payload["model"],
        result.payload["max_completion_tokens"],
        result.payload["temperature"],
    ) == ("gpt-x", 50, 0.2)
    assert changes(result) == [(None, "output schema name 'my answer' sent as 'my_answer'")]


def test_defaults_apply_when_settings_are_empty():
    conversation = case(message("user", "x"))
    for provider in PROVIDERS:
        result = export_case(conversation, provider)
        assert result.model == REGISTRY[provider].defaults.model
    assert export_case(conversation, "anthropic").payload["max_tokens"] == 1024
    assert "max_completion_tokens" not in export_case(conversation, "openai-chat").payload


def test_omitted_messages_are_not_sent_and_indexes_point_into_all_messages():
    conversation = case(
        message("user", "kept"),
        message("assistant", "dropped", omitted="budget"),
        message("critic", "mapped"),
    )
    result = export_case(conversation, "openai-chat")
    assert [m["content"] for m in result.payload["messages"]] == ["kept", "mapped"]
    assert [index for index, _ in changes(result)] == [2]


def test_the_case_warnings_travel_with_the_export():
    conversation = next(c for c in sample_conversations() if c.id == "schema")
    contract = export_case(conversation, "gemini").as_contract("schema")
    assert contract["warnings"][0]["message"] == "a warning from the loader"
    assert set(contract) == {"id", "payload", "changes", "lints", "warnings"}


# --- Anthropic ------------------------------------------------------------------------------------


def test_anthropic_sends_tool_use_with_parsed_input_and_results_first_in_the_next_user_turn():
    payload = export_case(weather_conversation(), "anthropic").payload
    assert payload["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}},
        ],
    }
    assert payload["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny, 21C"},
            {"type": "tool_result", "tool_use_id": "call_2", "content": '{"time": "12:00"}'},
        ],
    }
    assert payload["tools"][1] == {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}


def test_anthropic_puts_a_tool_result_before_user_text_of_the_same_turn():
    conversation = case(
        message("user", "x"),
        message("assistant", "", tool_calls=[call("a", "f", "{}")]),
        message("user", "interjection"),
        message("tool", "res", tool_call_id="a"),
        tools=[ToolSpec("f")],
    )
    result = export_case(conversation, "anthropic")
    assert [block["type"] for block in result.payload["messages"][2]["content"]] == ["tool_result", "text"]
    assert (3, "tool result placed before the user text of the same turn") in changes(result)
    assert result.lints == []


def test_anthropic_sanitises_tool_ids_consistently_and_says_so():
    conversation = next(c for c in sample_conversations() if c.id == "text and a call with an odd id")
    result = export_case(conversation, "anthropic")
    tool_use = result.payload["messages"][1]["content"][1]
    tool_result = result.payload["messages"][2]["content"][0]
    assert tool_use["id"] == tool_result["tool_use_id"] == "call_id_with_spaces"
    assert changes(result) == [(1, "tool call id 'call id/with spaces' sent as 'call_id_with_spaces'")]


def test_anthropic_keeps_ids_apart_that_differ_only_in_characters_it_refuses():
    conversation = case(
        message("user", "go"),
        message(
            "assistant",
            "",
            tool_calls=[
                call("call.1", "get_weather", "{}"),
                call("call/1", "get_weather", "{}"),
                call("call_1", "get_weather", "{}"),
            ],
        ),
        message("tool", "a", tool_call_id="call.1"),
        message("tool", "b", tool_call_id="call/1"),
        message("tool", "c", tool_call_id="call_1"),
        tools=[WEATHER_TOOL],
    )
    result = export_case(conversation, "anthropic")
    sent = [block["id"] for block in result.payload["messages"][1]["content"]]
    answered = [block["tool_use_id"] for block in result.payload["messages"][2]["content"]]
    assert len(set(sent)) == 3 and answered == sent
    assert result.lints == []


def test_anthropic_lints_tool_calls_when_the_request_defines_no_tools():
    conversation = case(
        message("user", "go"),
        message("assistant", "", tool_calls=[call("a", "get_weather", "{}")]),
        message("tool", "r", tool_call_id="a"),
    )
    result = export_case(conversation, "anthropic")
    assert [(lint.message_index, "defines no tools" in lint.message) for lint in result.lints] == [(1, True)]
    conversation.tools = [WEATHER_TOOL]
    assert export_case(conversation, "anthropic").lints == []


def test_anthropic_merges_consecutive_same_role_turns_and_says_so():
    conversation = case(message("user", "a"), message("user", "b"), message("assistant", "c"))
    result = export_case(conversation, "anthropic")
    assert result.payload["messages"][0] == {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
    assert changes(result) == [(1, "merged into the previous user turn")]


def test_anthropic_wraps_arguments_that_are_not_an_object():
    conversation = next(c for c in sample_conversations() if c.id == "bad arguments")
    result = export_case(conversation, "anthropic")
    assert result.payload["messages"][1]["content"][0]["input"] == {"arguments": "{not json"}
    assert [index for index, _ in changes(result)] == [1]


@pytest.mark.parametrize(
    ("messages", "expected_index"),
    [
        ([message("assistant", "I start")], 0),
        ([message("user", "x"), message("assistant", ""), message("user", "y")], 1),
        ([message("user", "x"), message("assistant", "prefill ")], 1),
        (
            [
                message("user", "x"),
                message("assistant", "", tool_calls=[call("t", "f", "{}")]),
                message("assistant", "no result"),
            ],
            1,
        ),
    ],
)
def test_anthropic_lints_what_the_api_rejects(messages, expected_index):
    assert expected_index in lint_indexes(export_case(case(*messages), "anthropic"))


def test_anthropic_output_schema_and_settings():
    schema = OutputSchema("answer", {"type": "object"})
    settings = ExportSettings(max_tokens=99, temperature=0.5)
    result = export_case(case(message("user", "x"), output_schema=schema), "anthropic", settings)
    payload = result.payload
    assert [change.message_index for change in result.changes] == [None]
    assert payload["output_config"] == {"format": {"type": "json_schema", "schema": {"type": "object"}}}
    assert payload["max_tokens"] == 99
    assert "temperature" not in payload


# --- Gemini ---------------------------------------------------------------------------------------


def test_gemini_uses_user_and_model_roles_and_recovers_function_names():
    payload = export_case(weather_conversation(), "gemini").payload
    assert payload["systemInstruction"] == {"parts": [{"text": "You are a weather bot."}]}
    assert [content["role"] for content in payload["contents"]] == ["user", "model", "user", "model", "user"]
    assert payload["contents"][1]["parts"] == [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_time", "args": {}}},
    ]
    assert payload["contents"][2]["parts"] == [
        {"functionResponse": {"name": "get_weather", "response": {"output": "sunny, 21C"}}},
        {"functionResponse": {"name": "get_time", "response": {"time": "12:00"}}},
    ]
    assert payload["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city",
                    "parametersJsonSchema": WEATHER_TOOL.parameters,
                },
                {"name": "get_time"},
            ]
        }
    ]


def test_gemini_output_schema_and_settings_go_to_generation_config():
    schema = OutputSchema("answer", {"type": "object"})
    payload = export_case(
        case(message("user", "x"), output_schema=schema),
        "gemini",
        ExportSettings(max_tokens=10, temperature=0.0),
    ).payload
    assert payload["generationConfig"] == {
        "maxOutputTokens": 10,
        "temperature": 0.0,
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object"},
    }
    assert "model" not in payload


def test_gemini_lints_a_response_count_that_does_not_match_the_calls():
    conversation = case(
        message("user", "x"),
        message("assistant", "", tool_calls=[call("a", "f", "{}"), call("b", "g", "{}")]),
        message("tool", "only one", tool_call_id="a"),
    )
    assert lint_indexes(export_case(conversation, "gemini")) == [2]


def test_gemini_lints_a_response_that_answers_no_call():
    conversation = case(message("user", "x"), message("tool", "orphan", tool_call_id="zz"))
    result = export_case(conversation, "gemini")
    assert lint_indexes(result) == [1, 1]


def test_gemini_lints_a_function_call_turn_that_opens_the_conversation():
    conversation = case(
        message("assistant", "", tool_calls=[call("a", "f", "{}")]), message("tool", "r", tool_call_id="a")
    )
    assert lint_indexes(export_case(conversation, "gemini")) == [0]


# --- code forms -----------------------------------------------------------------------------------


class Recorder:
    """Stands in for an SDK client: every method call records its keyword arguments."""

    def __init__(self, calls: list, path: str = ""):
        self._calls = calls
        self._path = path

    def __getattr__(self, name):
        return Recorder(self._calls, f"{self._path}.{name}".lstrip("."))

    def __call__(self, *args, **kwargs):
        self._calls.append((self._path, kwargs))
        return types.SimpleNamespace(text="response")


def run_python_form(code: str, monkeypatch) -> list:
    calls: list = []
    openai = types.ModuleType("openai")
    openai.OpenAI = lambda: Recorder(calls)
    anthropic = types.ModuleType("anthropic")
    anthropic.Anthropic = lambda: Recorder(calls)
    google = types.ModuleType("google")
    genai = types.ModuleType("google.genai")
    genai.Client = lambda **_: Recorder(calls)
    google.genai = genai
    for name, module in {
        "openai": openai,
        "anthropic": anthropic,
        "google": google,
        "google.genai": genai,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    exec(compile(code, "<export>", "exec"), {"__name__": "__main__", "print": lambda *a: None})
    return calls


AWKWARD_CASE = case(
    message("system", AWKWARD_TEXT),
    message("user", AWKWARD_TEXT),
    case_id="awk'ward\nid",
    tools=[WEATHER_TOOL],
    output_schema=OutputSchema("answer", {"type": "object"}),
)


@pytest.mark.parametrize(
    ("provider", "method"),
    [
        ("openai-chat", "chat.completions.create"),
        ("openai-responses", "responses.create"),
        ("anthropic", "messages.create"),
    ],
)
def test_python_form_calls_the_sdk_with_the_exact_payload(provider, method, monkeypatch):
    result = export_case(AWKWARD_CASE, provider)
    calls = run_python_form(render_code(result, "python"), monkeypatch)
    assert calls == [(method, result.payload)]


def test_python_form_for_gemini_passes_contents_and_config(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gk")
    result = export_case(AWKWARD_CASE, "gemini", ExportSettings(max_tokens=5))
    calls = run_python_form(render_code(result, "python"), monkeypatch)
    path, kwargs = calls[0]
    assert path == "models.generate_content"
    assert kwargs["model"] == REGISTRY["gemini"].defaults.model
    assert kwargs["contents"] == result.payload["contents"]
    assert kwargs["config"] == {
        "systemInstruction": result.payload["systemInstruction"],
        "tools": result.payload["tools"],
        "maxOutputTokens": 5,
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object"},
    }


def test_gemini_sdk_accepts_the_python_form_config():
    from google.genai import types as genai_types

    result = export_case(AWKWARD_CASE, "gemini", ExportSettings(max_tokens=5, temperature=0.1))
    from inspector.core.export.code import gemini_config

    config = genai_types.GenerateContentConfig.model_validate(gemini_config(result.payload))
    assert config.system_instruction.parts[0].text == AWKWARD_TEXT
    assert config.max_output_tokens == 5


# A provider with its own CLI (Bedrock's AWS CLI) is run for real in its client test instead.
@pytest.mark.parametrize("provider", [name for name in PROVIDERS if REGISTRY[name].shell is None])
def test_curl_form_sends_the_payload_byte_for_byte_with_the_key_from_the_environment(provider):
    result = export_case(AWKWARD_CASE, provider)
    command = render_code(result, "curl")
    # A stand-in curl prints its arguments and the body it reads from stdin.
    script = (
        'curl() { printf "%s\\n" "$@"; echo "--body--"; cat; }\n'
        "export OPENAI_API_KEY=ok ANTHROPIC_API_KEY=ak GEMINI_API_KEY=gk\n" + command + "\n"
    )
    output = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    arguments, body = output.split("--body--\n", 1)
    assert json.loads(body) == result.payload
    assert "Bearer ok" in arguments or "x-api-key: ak" in arguments or "x-goog-api-key: gk" in arguments
    assert "--data-binary" in arguments


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_typescript_form_is_valid_and_embeds_the_exact_payload(provider, tmp_path):
    result = export_case(AWKWARD_CASE, provider)
    code = render_code(result, "typescript")
    source = tmp_path / "export.mjs"
    source.write_text(code, encoding="utf-8")
    subprocess.run(["node", "--check", str(source)], check=True, capture_output=True)
    # Evaluate just the payload expression in node to prove the embedded JSON parses back exactly.
    expression = code.split("const payload = ", 1)[1].split(";\n", 1)[0]
    probe = tmp_path / "probe.mjs"
    probe.write_text(f"process.stdout.write(JSON.stringify({expression}));\n", encoding="utf-8")
    printed = subprocess.run(["node", str(probe)], check=True, capture_output=True, text=True)
    assert json.loads(printed.stdout) == result.payload


def test_json_form_is_the_payload():
    result = export_case(weather_conversation(), "openai-chat")
    assert json.loads(render_code(result, "json")) == result.payload


def test_unknown_form_and_provider_are_refused():
    with pytest.raises(ValueError):
        render_code(export_case(weather_conversation(), "openai-chat"), "cobol")
    with pytest.raises(ValueError):
        export_case(weather_conversation(), "mistral")


# --- batch ----------------------------------------------------------------------------------------


def test_openai_batch_lines_carry_the_case_id_and_endpoint():
    cases = [weather_conversation("first case"), weather_conversation("second")]
    for provider, url in (("openai-chat", "/v1/chat/completions"), ("openai-responses", "/v1/responses")):
        lines = [json.loads(line) for line in batch_jsonl(cases, provider).splitlines()]
        assert [(line["custom_id"], line["method"], line["url"]) for line in lines] == [
            ("first case", "POST", url),
            ("second", "POST", url),
        ]
        assert lines[0]["body"] == export_case(cases[0], provider).payload


def test_anthropic_batch_sanitises_and_deduplicates_custom_ids():
    cases = [weather_conversation("a/b"), weather_conversation("a_b"), weather_conversation("x" * 80)]
    batch = batch_export(cases, "anthropic")
    lines = [json.loads(line) for line in batch.jsonl.splitlines()]
    assert [line["custom_id"] for line in lines] == ["a_b", "a_b-2", "x" * 64]
    assert lines[0]["params"] == export_case(cases[0], "anthropic").payload
    assert len(batch.notes) == 3


def test_gemini_batch_lines_use_key_and_request():
    line = json.loads(batch_jsonl([weather_conversation("w1")], "gemini"))
    assert line == {"key": "w1", "request": export_case(weather_conversation("w1"), "gemini").payload}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_code_form_names_the_sdk_versions_it_needs(provider):
    result = export_case(weather_conversation(), provider)
    spec = REGISTRY[provider]
    python_needs = [sdk.removesuffix(" (PyPI)") for sdk in spec.sdks if sdk.endswith("(PyPI)")]
    npm_needs = [sdk.removesuffix(" (npm)") for sdk in spec.sdks if sdk.endswith("(npm)")]
    assert python_needs and npm_needs
    python_head = render_code(result, "python").split("\nimport", 1)[0]
    typescript_head = render_code(result, "typescript").split("\nimport", 1)[0]
    assert all(f'"{package}"' in python_head for package in python_needs)
    assert all(package.split(">=")[0] in typescript_head for package in npm_needs)
