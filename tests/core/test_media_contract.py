"""Images and files reach the CLI's JSON and the API as OpenAI chat content parts, not as text;
a text-only message keeps its content as a string."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_render

from .sdk_types import build_validators

PNG = "iVBORw0KGgo="
REQUEST = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "Describe."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                {
                    "type": "file",
                    "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
                },
                {"type": "text", "text": "Be brief."},
            ],
        },
    ],
}


def render(tmp_path: Path, body: dict) -> list:
    (tmp_path / ".git").mkdir()
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    code, cases, err = run_render(str(path))
    assert code == 0, err
    return cases


def test_a_message_with_media_gets_openai_chat_content_parts(tmp_path):
    [case] = render(tmp_path, REQUEST)
    system, user = case["messages"]
    assert system == {"role": "system", "content": "Describe."}
    assert user["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
        {"type": "text", "text": "Be brief."},
    ]


def test_the_contract_messages_are_valid_openai_chat_messages(tmp_path):
    [case] = render(tmp_path, REQUEST)
    # The OpenAI SDK's own request type; raises on any part it does not know.
    build_validators()["openai-chat"]({"model": "gpt-4o", "messages": case["messages"]})


def test_gemini_and_bedrock_media_reach_the_contract_in_the_same_shape(tmp_path):
    gemini = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Look."},
                    {"inlineData": {"mimeType": "image/png", "data": PNG}},
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/a.pdf"}},
                ],
            }
        ]
    }
    [case] = render(tmp_path, gemini)
    assert case["messages"][0]["content"] == [
        {"type": "text", "text": "Look."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        {"type": "file", "file": {"file_url": "gs://bucket/a.pdf"}},
    ]
