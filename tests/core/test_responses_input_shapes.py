"""A Responses request keeps its own spelling of `input` when it goes back to the Responses API:
a string stays a string, and a message written as {role, content} stays without "type"."""

import json

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.export import export_case
from inspector.core.formats import render_conversation_file

from .sdk_types import build_validators

BODIES = [
    {"model": "gpt-4o", "input": "Hello there", "temperature": 0.2},
    {"model": "gpt-4o", "instructions": "Be brief.", "input": "Hi"},
    {
        "model": "gpt-4o",
        "input": [
            {"role": "user", "content": "Hi"},
            {"type": "message", "role": "assistant", "content": "Yo"},
            {"role": "user", "content": [{"type": "input_text", "text": "more"}]},
        ],
    },
    {"model": "gpt-4o", "instructions": "X", "input": [{"role": "user", "content": "Hi"}]},
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_a_responses_request_goes_back_as_it_was_written(body):
    bundle = MemoryBundle({"request.json": json.dumps(body).encode()})
    case = render_conversation_file(bundle, "request.json", "auto").cases[0]
    result = export_case(case, "openai-responses")
    build_validators()["openai-responses"](result.payload)
    assert result.payload == body and not result.changes


def test_to_another_api_a_string_input_is_one_user_message():
    bundle = MemoryBundle({"request.json": json.dumps(BODIES[0]).encode()})
    case = render_conversation_file(bundle, "request.json", "auto").cases[0]
    chat = export_case(case, "openai-chat").payload
    assert chat["messages"] == [{"role": "user", "content": "Hello there"}]
