"""A raw request of any format, its values replaced here and there by values of another JSON type,
is read and exported to every provider, or refused with an InputError naming the file: never a
crash (a 500 on the page, a dead export in the CLI)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.export import PROVIDERS, export_case, export_request
from inspector.core.formats import read_request
from inspector.core.model import InputError

from . import request_strategies
from .chat_bodies import chat_body, spoil

STRATEGIES = {
    "openai-chat": request_strategies.openai_chat,
    "openai-responses": request_strategies.openai_responses,
    "anthropic": request_strategies.anthropic,
    "gemini": request_strategies.gemini,
    "bedrock-converse": request_strategies.bedrock_converse,
}
REQUESTS = st.sampled_from(sorted(STRATEGIES)).flatmap(
    lambda name: st.tuples(st.just(name), STRATEGIES[name]())
)


def spoiled(body: dict, rng) -> dict:
    body = copy.deepcopy(body)
    for _ in range(rng.randint(1, 3)):
        spoil(rng, body)
    return body


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REQUESTS, st.randoms(use_true_random=False))
def test_a_request_with_values_of_the_wrong_type_exports_or_is_refused(request, rng):
    input_format, body = request
    body = spoiled(body, rng)
    for provider in PROVIDERS:
        try:
            export_case(read_request(copy.deepcopy(body), input_format, "request.json"), provider)
            export_request(copy.deepcopy(body), input_format, provider)
        except InputError as error:
            assert error.diagnostic.path == "request.json"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.booleans())
def test_an_untidy_or_hostile_chat_body_exports_or_is_refused(rng, hostile):
    # Odd roles, ids, names and arguments, orders no API accepts, and (hostile) junk values:
    # every provider's one way through its exporter takes them or refuses with an InputError.
    body = chat_body(rng, hostile)
    for provider in PROVIDERS:
        try:
            result = export_request(copy.deepcopy(body), "openai-chat", provider)
        except InputError as error:
            assert error.diagnostic.path == "request.json"
        else:
            assert result.provider == provider


def test_a_tool_field_of_the_wrong_type_is_warned_at_its_own_line():
    import json

    from inspector.core.sourcemap import json_spans

    text = json.dumps(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {"type": "function", "function": {"name": "f", "description": [1], "strict": "yes"}},
                {"name": "g", "description": 3, "input_schema": {}},
            ],
        },
        indent=1,
    )
    lines = text.splitlines()
    case = read_request(json.loads(text), "openai-chat", "request.json", json_spans(text))
    located = [(warning.message, lines[warning.line - 1].strip()[:14]) for warning in case.warnings]
    assert located == [
        ("a tool's description is not a string; shown as JSON", '"description":'),
        ("`strict` is not true or false; left out", '"strict": "yes'),
        ("a tool's description is not a string; shown as JSON", '"description":'),
    ]
