"""Images and files are content: every provider's spelling becomes media in the neutral model, goes
out in each provider's own form (checked by the SDK types), and costs each provider's image tokens."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.export import PROVIDERS, export_case
from inspector.core.export import image_tokens as costs
from inspector.core.formats import render_conversation_file
from inspector.core.model import Media
from inspector.core.options import RenderOptions
from inspector.core.tokens import case_tokens

from .sdk_types import build_validators


def png(width: int, height: int) -> bytes:
    head = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + head + struct.pack(">I", zlib.crc32(head))


PNG = base64.b64encode(png(1024, 768)).decode()
PDF = base64.b64encode(b"%PDF-1.4 tiny").decode()
DATA_URL = f"data:image/png;base64,{PNG}"
URL = "https://example.com/cat.png"


@pytest.fixture(scope="module")
def validators():
    return build_validators()


def read(body: dict, fmt: str = "auto"):
    bundle = MemoryBundle({"request.json": json.dumps(body).encode()})
    return render_conversation_file(bundle, "request.json", fmt).cases[0]


def media_of(case) -> list[Media]:
    return [s.media for m in case.messages for s in m.segments if s.media is not None]


SOURCES = {
    "openai-chat image_url (URL and data URL) and a file": {
        "model": "gpt-4o",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image_url", "image_url": {"url": URL, "detail": "low"}},
                    {"type": "image_url", "image_url": {"url": DATA_URL}},
                    {
                        "type": "file",
                        "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "a.pdf"},
                    },
                ],
            }
        ],
    },
    "openai-responses input_image and input_file": {
        "model": "gpt-4o",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look"},
                    {"type": "input_image", "image_url": URL, "detail": "low"},
                    {"type": "input_image", "image_url": DATA_URL, "detail": "auto"},
                    {
                        "type": "input_file",
                        "file_data": f"data:application/pdf;base64,{PDF}",
                        "filename": "a.pdf",
                    },
                ],
            }
        ],
    },
    "anthropic image and document sources": {
        "model": "claude-sonnet-4-6",
        "max_tokens": 10,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image", "source": {"type": "url", "url": URL}},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                    },
                ],
            }
        ],
    },
    "gemini inlineData and fileData": {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Look"},
                    {"fileData": {"mimeType": "image/png", "fileUri": URL}},
                    {"inlineData": {"mimeType": "image/png", "data": PNG}},
                    {"inlineData": {"mimeType": "application/pdf", "data": PDF}},
                ],
            }
        ]
    },
}


@pytest.mark.parametrize("name", SOURCES)
def test_images_and_files_become_media_not_markers(name):
    case = read(SOURCES[name])
    assert [(m.kind, m.url, m.data) for m in media_of(case)] == [
        ("image", URL, None),
        ("image", None, PNG),
        ("file", None, PDF),
    ]
    assert all("<" not in m.content for m in case.messages)  # no marker text sent to the model
    assert not case.warnings


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", SOURCES)
def test_media_go_out_in_each_providers_form(name, provider, validators):
    result = export_case(read(SOURCES[name]), provider)
    validators[provider](result.payload)
    text = json.dumps(result.payload)
    assert PNG in text and "<image" not in text
    assert URL in text
    assert PDF in text


def test_agentv_image_blocks_are_images_from_the_bundle_or_a_link():
    yaml = (
        b"evalcases:\n  - id: pic\n    outcome: describes it\n    input_messages:\n"
        b"      - role: user\n        content:\n          - type: text\n"
        b"            value: What is this?\n          - type: image\n"
        b"            value: cat.png\n          - type: image\n"
        b"            value: https://example.com/dog.jpg\n"
    )
    bundle = MemoryBundle({"evals/x.yaml": yaml, "evals/cat.png": png(1024, 768)})
    [case] = render_document(bundle, "evals/x.yaml", RenderOptions(profile="spec")).cases
    media = media_of(case)
    assert [(m.media_type, m.data is not None, m.url) for m in media] == [
        ("image/png", True, None),
        (None, False, "https://example.com/dog.jpg"),
    ]
    anthropic = export_case(case, "anthropic").payload["messages"][0]["content"]
    assert [block["type"] for block in anthropic] == ["text", "image", "image"]
    assert anthropic[0]["text"] == "What is this?"  # no join text left between the images


def test_each_provider_estimates_an_images_tokens_from_its_size():
    image = Media("image", "image/png", PNG)
    assert costs.dimensions(image) == (1024, 768)
    assert costs.openai(image) == 85 + 170 * 4  # 1024 x 768: 2 x 2 tiles of 512
    assert costs.openai(Media("image", url=URL, detail="low")) == 85
    assert costs.anthropic(image) == round(1024 * 768 / 750)
    assert costs.gemini(image) == 258 * 4  # tiles of 512 (768 / 1.5)
    assert costs.gemini(Media("image", "image/png", base64.b64encode(png(300, 200)).decode())) == 258
    case = read(SOURCES["anthropic image and document sources"])
    per_provider = {
        provider: case_tokens(case, provider=provider).messages[0]
        for provider in ("anthropic", "gemini", "openai-chat")
    }
    assert len(set(per_provider.values())) == 3
