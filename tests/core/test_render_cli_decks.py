"""`manage.py render` on sample decks and raw conversations."""

from __future__ import annotations

import json

from tests.conftest import REPO, run_render

TONE_GRADER = REPO / "fixtures" / "examples" / "tone-grader-deck"


run = run_render


def test_a_grader_deck_in_spec_prints_one_object_per_sample():
    deck = TONE_GRADER / "graders/tone.deck.md"
    code, cases, err = run(str(deck), "--root", str(TONE_GRADER), "--profile", "spec")
    assert code == 0, err
    assert [case["id"] for case in cases] == ["concise-and-warm", "rambling", "curt-follow-up"]
    first = cases[0]
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    # The deck's own text and the grading instructions it embeds (graders/base.md).
    assert first["messages"][0]["content"].startswith("# Tone Grader\n\n## How to grade\n")
    assert first["messages"][2]["content"].startswith('Click "Forgot password" on the sign-in page')
    assert first["omitted"] == [] and first["warnings"] == []


def test_a_legacy_deck_warns_on_stderr_and_still_renders(tmp_path):
    deck = tmp_path / "old.toml"
    deck.write_text('[samples.a]\nuserMessage = "hi"\nassistantResponse = "hello"\nscore = 1\n')
    code, cases, err = run(str(deck), "--root", str(tmp_path))
    assert code == 0
    assert "userMessage/assistantResponse" in err and "old.toml:1" in err
    assert cases[0]["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]


def test_max_tokens_moves_the_oldest_messages_to_omitted(tmp_path):
    request = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "old question " + "word " * 200},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "result " + "word " * 200},
            {"role": "user", "content": "latest question"},
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request, indent=2))
    code, [case], err = run(str(path), "--root", str(tmp_path), "--max-tokens", "100")
    assert code == 0, err
    assert [m["role"] for m in case["messages"]] == ["system", "user"]
    assert case["messages"][1]["content"] == "latest question"
    assert [m["role"] for m in case["omitted"]] == ["user", "assistant", "tool"]
    assert all(m["reason"] == "dropped to fit the 100-token budget" for m in case["omitted"])
    assert "100-token budget" in case["warnings"][0]["message"]


def test_the_input_format_can_be_forced(tmp_path):
    path = tmp_path / "body.json"
    path.write_text('{"system": "S", "messages": [{"role": "user", "content": "hi"}]}')
    _, [auto], _ = run(str(path), "--root", str(tmp_path))
    _, [forced], _ = run(str(path), "--root", str(tmp_path), "--input-format", "openai-chat")
    assert [m["role"] for m in auto["messages"]] == ["system", "user"]
    assert not auto["warnings"]
    assert any("not an OpenAI Chat field" in w["message"] for w in forced["warnings"])


def test_invalid_toml_exits_2_naming_file_line_and_column(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[samples.a]\nscore = \n")
    code, out, err = run(str(path), "--root", str(tmp_path))
    assert code == 2 and out is None
    assert err.startswith("error: bad.toml:2:") and "invalid TOML" in err
