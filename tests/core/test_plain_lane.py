"""A request given as dicts exports to the same result whether its messages take the exporters'
plain lane (no Message per message) or the neutral model: payload, changes, lints, warnings; and
no body, however wrong its values' types, makes an exporter fail with anything but InputError."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import inspector.core.export as export_module
from inspector.core.conversations import read_plain_request, read_request
from inspector.core.export import PROVIDERS, ExportSettings, export_case, export_request
from inspector.core.model import InputError

from .chat_bodies import chat_body

SETTINGS = (ExportSettings(), ExportSettings(model="claude-opus-4-6", max_tokens=50,
                                             system_prompt="Configured system prompt."))


def outcome(function, *args):
    """The result, or the error a user would see."""
    try:
        return function(*args)
    except InputError as error:
        return ("InputError", str(error))


def via_the_model(body: dict, provider: str, export_settings: ExportSettings):
    return export_case(read_request(body, "openai-chat", "request.json"), provider,
                       export_settings)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(SETTINGS), st.booleans())
def test_a_body_exports_through_the_lane_as_through_the_model(rng, export_settings, hostile):
    body = chat_body(rng, hostile)
    for provider in PROVIDERS:
        expected = outcome(via_the_model, copy.deepcopy(body), provider, export_settings)
        actual = outcome(export_request, copy.deepcopy(body), "openai-chat", provider,
                         export_settings)
        assert actual == expected, provider


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.booleans())
def test_a_plain_entry_becomes_the_message_the_reader_makes(rng, hostile):
    body = chat_body(rng, hostile)
    read = read_plain_request(copy.deepcopy(body), "openai-chat", "request.json")
    if read is None:
        return
    case, plain = read
    whole = read_request(copy.deepcopy(body), "openai-chat", "request.json")
    assert case.messages == []
    assert [plain.message(index) for index in range(len(plain.entries))] == whole.messages
    assert (case.metadata, case.tools, case.output_schema, case.warnings) == (
        whole.metadata, whole.tools, whole.output_schema, whole.warnings)


def test_most_generated_bodies_take_the_lane():
    # The comparison above proves the lane only if the lane is taken.
    plain = sum(read_plain_request(chat_body(random.Random(seed)), "openai-chat", "r.json")
                is not None for seed in range(300))
    assert plain >= 150


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_a_plain_body_is_exported_without_reading_it_into_messages(monkeypatch, provider):
    body = {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."}]}
    expected = via_the_model(copy.deepcopy(body), provider, ExportSettings())

    def refuse(*_args, **_kwargs):
        raise AssertionError("a plain body went through read_request")

    monkeypatch.setattr(export_module, "read_request", refuse)
    assert export_request(body, "openai-chat", provider) == expected


@pytest.mark.parametrize("body", [
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "blocks"}]}]},
    {"messages": [{"role": "user", "content": "hi", "name": "bob"}]},
    {"messages": [{"role": "user", "content": "hi", "cache_control": {"type": "ephemeral"}}]},
    {"messages": [{"role": "assistant", "tool_calls": [
        {"id": "c", "function": {"name": "f", "arguments": {"as": "object"}}}]}]},
    {"system": "top-level", "messages": [{"role": "user", "content": "hi"}]},
    {"messages": "not a list"},
])
def test_a_body_the_lane_cannot_take_is_read_whole(body):
    assert read_plain_request(body, "openai-chat", "request.json") is None


def test_a_file_read_with_lines_never_takes_the_lane():
    # Lines are what the page shows; only bodies given as dicts go without messages.
    assert read_plain_request({"messages": []}, "anthropic", "request.json") is None
