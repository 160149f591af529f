"""Hand-built conversations for the exporter tests: tool calls, system text, awkward characters."""

from __future__ import annotations

from inspector.core.model import (
    Diagnostic,
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    Segment,
    ToolCall,
    ToolSpec,
)

CASE_ORIGIN = Origin(OriginKind.CASE_TEXT, "evals/case.yaml", 1, 1)
WEATHER_TOOL = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TIME_TOOL = ToolSpec("get_time", None, None)
AWKWARD_TEXT = (
    "He said \"it's done\" \\ ''' ``` `${HOME}` $OPENAI_API_KEY \n"
    "PROMPT_INSPECTOR_PAYLOAD\nJSON\n'single' — ünïcødé ✓ \t tab \u2028 end"
)


def message(role: str, text: str = "", **fields) -> Message:
    segments = [Segment(text, CASE_ORIGIN)] if text else []
    return Message(role, segments, **fields)


def call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(call_id, name, arguments)


def case(*messages: Message, case_id: str = "case-1", **fields) -> RenderedCase:
    return RenderedCase(case_id, list(messages), **fields)


def weather_conversation(case_id: str = "weather") -> RenderedCase:
    """System text, a user question, two parallel tool calls and their results, an answer."""
    return case(
        message("system", "You are a weather bot."),
        message("user", "Weather and time in Paris?"),
        message(
            "assistant",
            "",
            tool_calls=[call("call_1", "get_weather", '{"city": "Paris"}'), call("call_2", "get_time", "")],
        ),
        message("tool", "sunny, 21C", tool_call_id="call_1"),
        message("tool", '{"time": "12:00"}', tool_call_id="call_2"),
        message("assistant", "It is sunny and noon."),
        message("user", "Thanks!"),
        case_id=case_id,
        tools=[WEATHER_TOOL, TIME_TOOL],
    )


def sample_conversations() -> list[RenderedCase]:
    """Shapes every exporter must turn into a payload the provider's SDK types accept."""
    return [
        weather_conversation(),
        case(message("user", "Hi"), case_id="plain"),
        case(
            message("developer", "Be terse."),
            message("user", AWKWARD_TEXT),
            message("assistant", "Sure: " + AWKWARD_TEXT),
            message("user", "again"),
            case_id="awkward text",
        ),
        case(
            message("system", "One."),
            message("system", "Two."),
            message("user", "Go"),
            message("user", "Go on"),
            message("assistant", "Done"),
            message("assistant", "Really done"),
            case_id="same-role runs",
        ),
        case(
            message("user", "Look it up"),
            message(
                "assistant", "Checking.", tool_calls=[call("call id/with spaces", "lookup", '{"q": "x"}')]
            ),
            message("tool", "[1, 2, 3]", tool_call_id="call id/with spaces"),
            message("user", "And?"),
            case_id="text and a call with an odd id",
        ),
        case(
            message("user", "Summarise"),
            message("assistant", "old answer", omitted="budget"),
            message("user", "Return JSON"),
            case_id="schema",
            output_schema=OutputSchema(
                "summary",
                {
                    "type": "object",
                    "properties": {"title": {"type": "string"}},
                    "required": ["title"],
                    "additionalProperties": False,
                },
                strict=True,
            ),
            warnings=[Diagnostic("a warning from the loader", "evals/case.yaml", 3)],
        ),
        case(
            message("user", "Broken arguments"),
            message("assistant", "", tool_calls=[call("c1", "get_weather", "{not json")]),
            message("tool", "error: bad arguments", tool_call_id="c1"),
            case_id="bad arguments",
            tools=[WEATHER_TOOL],
        ),
        case(
            message("user", "Hi"),
            message("wizard", "odd role"),
            message("function", "legacy result"),
            case_id="odd roles",
        ),
        # Seed 002: a Codex Prompt whose instructions were shown as the first message.
        case(
            message("developer", "You are Codex."),
            message("user", "Hello"),
            message("assistant", "", tool_calls=[call("call_1", "get_weather", "{}")]),
            message("tool", "sunny", tool_call_id="call_1"),
            case_id="codex prompt",
            metadata={"instructions_message": True},
        ),
        # Seed 003: system-role messages between the turns, beside a request-level system prompt.
        case(
            message("system", "First."),
            message("user", "Hi"),
            message("system", "Second."),
            message("assistant", "Hello"),
            message("system", "Third."),
            message("user", "Bye"),
            case_id="seed 003 system messages",
        ),
    ]
