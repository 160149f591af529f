import json

from inspector.core.context import apply_budget, build_context, plan_budget
from inspector.core.model import Message, Origin, OriginKind, RenderedCase, Segment, ToolCall
from inspector.core.tokens import message_token_counts


def msg(role: str, text: str = "", **fields) -> Message:
    return Message(role, [Segment(text, Origin(OriginKind.CASE_TEXT))] if text else [], **fields)


def call(call_id: str, name: str = "lookup") -> ToolCall:
    return ToolCall(call_id, name, json.dumps({"q": call_id}))


def test_all_messages_are_included_in_order_after_the_system_prompt():
    conversation = [
        msg("user", "one"),
        msg("assistant", "two"),
        msg("user", "three"),
        msg("assistant", "four"),
        msg("user", "five"),
    ]
    result = build_context(conversation, "Be kind.")
    assert result.messages[0] == {"role": "system", "content": "Be kind."}
    assert [m["content"] for m in result.messages[1:]] == ["one", "two", "three", "four", "five"]


def test_roles_are_mapped_to_the_chat_roles():
    result = build_context([msg("human", "hi"), msg("ai", "hello"), msg("developer", "d")], "S")
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "developer"]


def test_an_empty_conversation_gives_only_the_system_prompt():
    assert build_context([], "Configured prompt").messages == [
        {"role": "system", "content": "Configured prompt"}
    ]


def test_tool_calls_and_results_use_the_openai_shape():
    conversation = [
        msg("user", "find"),
        msg("assistant", tool_calls=[call("c1")]),
        msg("tool", "found", tool_call_id="c1"),
    ]
    _, _, assistant, tool = build_context(conversation, "S").messages
    assert assistant["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "c1"}'}}
    ]
    assert tool == {"role": "tool", "content": "found", "tool_call_id": "c1"}


def test_a_missing_tool_result_keeps_the_call():
    conversation = [msg("user", "find"), msg("assistant", tool_calls=[call("c1")])]
    messages = build_context(conversation, "S").messages
    assert messages[-1]["tool_calls"][0]["id"] == "c1"


def long_conversation(turns: int) -> list[Message]:
    messages = []
    for index in range(turns):
        messages.append(msg("user", f"question {index} " + "word " * 40))
        messages.append(msg("assistant", f"answer {index} " + "word " * 40))
    return messages


def test_a_budget_drops_the_oldest_messages_and_keeps_the_system_prompt():
    conversation = long_conversation(10)
    result = build_context(conversation, "System prompt.", max_tokens=300)
    assert result.messages[0]["role"] == "system"
    assert result.messages[-1]["content"] == conversation[-1].content
    kept = [m["content"] for m in result.messages[1:]]
    dropped = [m.content for m in result.dropped]
    assert dropped == [m.content for m in conversation[: len(dropped)]]
    assert kept == [m.content for m in conversation[len(dropped) :]]
    assert "300-token budget" in result.warning
    sent = [msg("system", "System prompt.")] + conversation[len(dropped) :]
    assert sum(message_token_counts(sent)) + 3 <= 300


def test_a_budget_never_separates_a_tool_call_from_its_results():
    conversation = [
        msg("user", "start " + "word " * 50),
        msg("assistant", tool_calls=[call("a"), call("b")]),
        msg("tool", "result a " + "word " * 50, tool_call_id="a"),
        msg("tool", "result b", tool_call_id="b"),
        msg("user", "last question"),
    ]
    full = sum(message_token_counts(conversation)) + 3
    for budget in range(20, full, 7):
        plan = plan_budget(conversation, budget)
        dropped = set(plan.dropped)
        assert ({1, 2, 3} <= dropped) or not ({1, 2, 3} & dropped), budget
        assert dropped == set(range(len(dropped))), budget  # oldest first


def test_apply_budget_marks_omitted_messages_with_the_reason_and_warns():
    case = RenderedCase("c", [msg("system", "S")] + long_conversation(5))
    plan = apply_budget(case, 200)
    assert plan.dropped
    assert case.messages[0].omitted is None
    assert all(m.omitted == "dropped to fit the 200-token budget" for m in case.omitted_messages)
    assert case.omitted_messages == case.messages[1 : 1 + len(plan.dropped)]
    assert "oldest message(s) dropped" in case.warnings[-1].message


def test_a_budget_that_fits_changes_nothing():
    case = RenderedCase("c", long_conversation(2))
    plan = apply_budget(case, 100_000)
    assert not plan.dropped and not case.warnings and not case.omitted_messages


def test_a_budget_below_the_last_turn_keeps_it_and_says_the_budget_is_exceeded():
    case = RenderedCase("c", [msg("system", "S")] + long_conversation(4))
    apply_budget(case, 10)
    assert case.sent_messages == [case.messages[0]] + case.messages[-2:]
    assert all(m.omitted for m in case.messages[1:-2])
    assert "still over budget" in case.warnings[-1].message


def test_the_kept_conversation_never_opens_on_an_assistant_reply_or_tool_result():
    conversation = [
        msg("user", "first " + "word " * 80),
        msg("assistant", "reply " + "word " * 5, tool_calls=[call("a")]),
        msg("tool", "result", tool_call_id="a"),
        msg("assistant", "done"),
        msg("user", "next question"),
    ]
    plan = plan_budget(conversation, 40)
    kept = [m for i, m in enumerate(conversation) if i not in plan.dropped]
    assert kept[0].role == "user"
    assert kept[-1].content == "next question"


def test_a_system_prompt_over_the_budget_is_kept_and_reported():
    case = RenderedCase("c", [msg("system", "word " * 100)] + long_conversation(2))
    apply_budget(case, 10)
    assert case.sent_messages == [case.messages[0]] + case.messages[-2:]
    assert "still over budget" in case.warnings[-1].message
