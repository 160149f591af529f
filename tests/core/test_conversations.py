import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import detect_format, render_document
from inspector.core.formats import render_conversation_file, sniff
from inspector.core.model import InputError, OriginKind
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message
from tests.conftest import REPO, corpus_files

CHAT = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "You are helpful."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Weather in"}, {"type": "text", "text": "Paris?"}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather",
                "parameters": {"type": "object"},
                "strict": True,
            },
        }
    ],
    "response_format": {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": True},
    },
}

ANTHROPIC_YAML = """\
model: claude-sonnet-4-5
max_tokens: 1024
system: Be terse.
messages:
  - role: user
    content: Weather in Paris?
  - role: assistant
    content:
      - type: text
        text: Checking.
      - type: tool_use
        id: toolu_1
        name: get_weather
        input: {city: Paris}
  - role: user
    content:
      - type: tool_result
        tool_use_id: toolu_1
        content: sunny
      - type: text
        text: Thanks
tools:
  - name: get_weather
    description: Weather
    input_schema: {type: object}
"""

RESPONSES = {
    "model": "gpt-5",
    "instructions": "Answer briefly.",
    "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        {"type": "message", "role": "assistant", "content": "It is sunny."},
    ],
    "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": True}],
    "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}}},
}


def render(name: str, text: str, input_format: str = "auto", **options):
    bundle = MemoryBundle({name: text.encode()})
    return render_document(bundle, name, RenderOptions(input_format=input_format, **options))


def test_openai_chat_round_trips_into_the_neutral_model():
    [case] = render("chat.json", json.dumps(CHAT, indent=2)).cases
    assert case.id == "chat"
    sent = [chat_message(m) for m in case.messages]
    assert sent[0] == CHAT["messages"][0]
    assert sent[1] == {"role": "user", "content": "Weather in\nParis?"}
    assert sent[2]["tool_calls"] == CHAT["messages"][2]["tool_calls"]
    assert sent[3:] == CHAT["messages"][3:]
    assert case.tools[0].name == "get_weather" and case.tools[0].strict is True
    assert case.output_schema.name == "answer" and case.output_schema.schema == {"type": "object"}
    assert case.metadata["request"] == {"model": "gpt-4o"}


def test_json_message_spans_point_at_the_message_lines():
    text = json.dumps(CHAT, indent=2)
    lines = text.split("\n")
    [case] = render("chat.json", text).cases
    for message in case.messages:
        held = "\n".join(lines[message.span.start_line - 1 : message.span.end_line])
        assert f'"role": "{message.role}"' in held
    tool = case.messages[3]
    origin = tool.segments[0].origin
    assert origin.kind == OriginKind.CASE_TEXT and '"sunny"' in lines[origin.start_line - 1]


def test_anthropic_yaml_keeps_tool_use_ids_and_pairs_results_as_tool_messages():
    [case] = render("request.yaml", ANTHROPIC_YAML).cases
    roles = [m.role for m in case.messages]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assistant = case.messages[2]
    assert assistant.content == "Checking."
    [call] = assistant.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == ("toolu_1", "get_weather", {"city": "Paris"})
    assert case.messages[3].tool_call_id == "toolu_1" and case.messages[3].content == "sunny"
    assert case.messages[4].content == "Thanks"
    assert case.tools[0].parameters == {"type": "object"}
    lines = ANTHROPIC_YAML.split("\n")
    assert (case.messages[1].span.start_line, case.messages[1].span.end_line) == (5, 6)
    assert "sunny" in lines[case.messages[3].segments[0].origin.start_line - 1]


def test_responses_request_keeps_call_ids_and_sends_instructions_first():
    [case] = render("r.json", json.dumps(RESPONSES, indent=1)).cases
    assert [m.role for m in case.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert case.messages[0].content == "Answer briefly." and case.metadata["instructions_message"] is True
    assert case.messages[2].tool_calls[0].id == "call_1"
    assert case.messages[3].tool_call_id == "call_1"
    assert case.tools[0].strict is True and case.output_schema.name == "out"


def test_codex_prompt_uses_the_configured_prompt_as_base_instructions():
    prompt = {
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}],
        "tools": [],
        "user_instructions": "Follow coding best practices.",
        "output_schema": {"type": "object"},
    }
    [case] = render("p.json", json.dumps(prompt), system_prompt="You are a coding assistant.").cases
    system = case.messages[0]
    assert "You are a coding assistant." in system.content
    assert "Follow coding best practices." in system.content
    assert system.segments[0].origin.kind == OriginKind.DEFAULT_PROMPT
    assert case.output_schema.schema == {"type": "object"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (json.dumps(CHAT), "openai-chat"),
        (ANTHROPIC_YAML, "anthropic"),
        (json.dumps(RESPONSES), "openai-responses"),
        ('{"messages": [{"role": "user", "content": "hi"}]}', "openai-chat"),
        (
            '{"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "image", "source": '
            '{"type": "url", "url": "https://example.com/a.png"}}]}]}',
            "anthropic",
        ),
        ('{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}', "gemini"),
        ('{"input": "hi", "model": "gpt-5"}', "openai-responses"),
        ("description: x\ninput: shared text\ntests:\n  - id: a\n    input: hi\n", None),
        ("evalcases:\n  - id: a\n    input_messages: [{role: user, content: hi}]\n", None),
        ("not: [a, request", None),
        ("plain text", None),
    ],
)
def test_format_detection(text, expected):
    assert sniff(text) == expected


def test_agentv_eval_files_are_not_taken_for_requests():
    own = [
        *REPO.glob("fixtures/examples/*/evals/*.yaml"),
        *REPO.glob("tests/fixtures/*/evals/**/*.yaml"),
        *REPO.glob("tests/oracle/regressions/*/evals/*.yaml"),
    ]
    assert len(own) >= 10
    for path in own + corpus_files("agentv/**/*.yaml")[:40]:
        assert sniff(path.read_text(encoding="utf-8")) is None, path
        assert detect_format(path.name, path.read_text(encoding="utf-8")) == "agentv"


def test_detection_can_be_overridden():
    text = '{"messages": [{"role": "user", "content": "hi"}], "system": "s"}'
    assert sniff(text) == "anthropic"
    [case] = render("x.json", text, input_format="openai-chat").cases
    assert case.metadata["format"] == "openai-chat"


def test_invalid_json_names_line_and_column():
    with pytest.raises(InputError) as caught:
        render("x.json", '{"messages": [\n  {"role": "user",, }\n]}', input_format="openai-chat")
    assert caught.value.diagnostic.line == 2 and caught.value.diagnostic.column is not None


def test_a_body_that_is_no_known_request_is_a_clear_error():
    bundle = MemoryBundle({"x.json": b'{"hello": 1}'})
    with pytest.raises(InputError, match="not a request body"):
        render_conversation_file(bundle, "x.json", "auto")


def test_a_top_level_system_makes_a_body_anthropic_even_beside_system_role_messages():
    # Seed 003's ModelRequest: `system` on top and system-role messages in the array.
    text = json.dumps(
        {
            "system": "Top.",
            "messages": [{"role": "system", "content": "Inline."}, {"role": "user", "content": "hi"}],
        }
    )
    assert sniff(text) == "anthropic"
    [case] = render("x.json", text).cases
    assert [(m.role, m.content) for m in case.messages] == [
        ("system", "Top."),
        ("system", "Inline."),
        ("user", "hi"),
    ]


def test_a_top_level_system_read_as_openai_chat_is_kept_and_named():
    text = '{"messages": [{"role": "user", "content": "hi"}], "system": "s"}'
    [case] = render("x.json", text, input_format="openai-chat").cases
    assert [(m.role, m.content) for m in case.messages] == [("system", "s"), ("user", "hi")]
    assert any("`system` is not an OpenAI Chat field" in w.message for w in case.warnings)
