"""docs/architecture.md's two recipes, followed to the letter by a toy provider and a toy request
format: registered through the hooks the built-ins go through (`registry.register`,
`formats.register`), they are enough for every input format to export to the toy provider, for
the toy format's requests to export to every provider, and for the CLI, the API's enum and the
page's menus to offer both. Everything registered here is taken out again after each test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.core import formats
from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.conversations.builder import Builder
from inspector.core.conversations.spec import RequestFormat, take
from inspector.core.documents import detect_format, render_document
from inspector.core.export import (
    FORMATS,
    ExportResult,
    ExportSettings,
    batch_export,
    export_case,
    export_request,
    provider_spec,
    registry,
    render_code,
    request,
)
from inspector.core.export.common import Notes, ResolvedDefaults
from inspector.core.export.request import put_field
from inspector.core.export.spec import Batch, Http, Provider
from inspector.core.export.templates import sdk_python, sdk_typescript
from inspector.core.model import Message, RenderedCase
from inspector.core.options import RenderOptions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "fixtures" / "examples"

# -- the toy provider: docs/architecture.md, "How to add a provider" -----------------------------

TOY = "toy"
DEFAULTS = ResolvedDefaults("toy-1", max_tokens=256)


def export(case: RenderedCase, settings: ExportSettings) -> ExportResult:
    """Every sent message as a speaker and its text; what the source request set, mapped."""
    notes = Notes()
    resolved = request.resolve(case, settings, TOY_PROVIDER, notes)
    turns = [
        {"speaker": message.role, "text": message.content}
        for message in case.messages
        if message.omitted is None
    ]
    payload: dict[str, Any] = {"model": resolved.model, "limit": resolved.max_tokens, "turns": turns}
    request.apply(case, TOY_PROVIDER, payload, notes)
    return ExportResult(
        TOY, resolved.model, payload, notes.changes, notes.lints, list(case.warnings), case.id
    )


def _write_fields(common: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    missing = []
    for name, value in common.items():
        if name == "stop":
            put_field(payload, "until", value)
        elif name not in ("max_tokens", "temperature"):
            missing.append(name)
    return missing


TOY_PROVIDER = Provider(
    id=TOY,
    label="Toy",
    defaults=DEFAULTS,
    export=export,
    encoding="o200k_base",
    exact_tokens=False,
    batch=Batch(
        "id",
        lambda case_id, fallback: case_id or fallback,
        lambda custom_id, payload: {"id": custom_id, "body": payload},
    ),
    http=Http(lambda model: f"https://toy.example/v1/{model}", ("x-toy-key: $TOY_KEY",)),
    python=lambda _result, literal, head: sdk_python(
        head, "import toy\n\nclient = toy.Client()\n", literal, "client.send(**payload)"
    ),
    typescript=lambda _result, literal, head: sdk_typescript(
        head, 'import Toy from "toy";\n\nconst client = new Toy();\n', literal, "client.send(payload)"
    ),
    sdks=("toy>=1.0 (PyPI)", "toy>=1.0 (npm)"),
    own_keys=("limit",),
    write_fields=_write_fields,
)

# -- the toy request format: a raw request body's API, "How to add an input format" -------------


def read_toy(b: Builder, case_id: str, data: dict, _options: RenderOptions) -> RenderedCase:
    messages = [
        Message(
            str(line.get("speaker", "user")),
            b.parts(line.get("says", ""), ("lines", index, "says"), ("text",)),
            span=b.span(("lines", index)),
        )
        for index, line in enumerate(data["lines"])
    ]
    return b.case(case_id, messages, data, frozenset({"lines"}))


def read_toy_fields(body: dict[str, Any], common: dict[str, Any], consumed: set[str]) -> None:
    take(body, "limit", "max_tokens", common, consumed)
    take(body, "until", "stop", common, consumed)


# The toy API's requests: the format has its provider's id, so they export back to it as they were.
TOY_FORMAT = RequestFormat(
    TOY,
    "Toy",
    matches=lambda data: (
        isinstance(data.get("lines"), list)
        and all(isinstance(line, dict) and "says" in line for line in data["lines"])
    ),
    read=read_toy,
    read_fields=read_toy_fields,
)

TOY_BODY = {
    "model": "toy-2",
    "limit": 64,
    "until": ["END"],
    "mood": "calm",
    "lines": [{"speaker": "system", "says": "Be brief."}, {"speaker": "user", "says": "Hello, toy."}],
}


def register_toys() -> None:
    registry.register(TOY_PROVIDER)
    formats.register(formats.request_input_format(TOY_FORMAT))


def unregister_toys() -> None:
    registry.unregister(TOY)
    formats.unregister(TOY_FORMAT.name)


@pytest.fixture
def toys():
    register_toys()
    try:
        yield
    finally:
        unregister_toys()


# -- one file of every input format --------------------------------------------------------------

GAMBIT_DECK = '+++\nlabel = "support"\n+++\n\nYou help customers.\n'
REQUESTS = {
    "openai-chat": {
        "model": "gpt-4o",
        "max_tokens": 40,
        "stop": "END",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    },
    "openai-responses": {
        "model": "gpt-4o",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "Hi"}],
    },
    "anthropic": {
        "model": "claude-sonnet-4-6",
        "max_tokens": 40,
        "system": "Be brief.",
        "stop_sequences": ["END"],
        "messages": [{"role": "user", "content": "Hi"}],
    },
    "gemini": {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"maxOutputTokens": 40, "stopSequences": ["END"]},
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
    },
    "bedrock-converse": {
        "modelId": "amazon.nova-lite-v1:0",
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 40, "stopSequences": ["END"]},
        "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
    },
    TOY: TOY_BODY,
}


def sample_file(name: str) -> tuple[Any, str]:
    """(bundle, path) of a file `auto` reads with the input format `name`."""
    if name == "agentv":
        return DirectoryBundle(EXAMPLES / "support-conversation"), "evals/support.yaml"
    if name == "deck":
        return DirectoryBundle(EXAMPLES / "tone-grader-deck"), "graders/tone-samples.toml"
    if name == "gambit":
        return MemoryBundle({"support/PROMPT.md": GAMBIT_DECK.encode()}), "support/PROMPT.md"
    if name == "promptfoo":
        config = "prompts: ['Hi {{ who }}']\nproviders: [openai:gpt-4.1]\ntests:\n  - vars: {who: Ann}\n"
        return MemoryBundle({"promptfooconfig.yaml": config.encode()}), "promptfooconfig.yaml"
    body = REQUESTS[name]  # a format with no sample here fails: add one for it
    return MemoryBundle({"request.json": json.dumps(body).encode()}), "request.json"


def test_every_input_format_exports_to_a_registered_provider(toys):
    assert TOY in registry.PROVIDERS and TOY_FORMAT.name in formats.INPUT_FORMATS
    for name in formats.REGISTRY:
        bundle, path = sample_file(name)
        text = bundle.text(path).text
        assert detect_format(path, text) == name
        document = render_document(bundle, path, RenderOptions(input_format=name))
        assert document.cases, name
        for case in document.cases:
            result = export_case(case, TOY)
            sent = [message for message in case.messages if message.omitted is None]
            assert [turn["text"] for turn in result.payload["turns"]] == [
                message.content for message in sent
            ], name
            for form in FORMATS:
                assert render_code(result, form)
        assert batch_export(document.cases, TOY).jsonl.count("\n") == len(document.cases)


def test_a_request_from_another_api_says_what_the_toy_does_not_take(toys):
    result = export_request(REQUESTS["anthropic"], "anthropic", TOY)
    assert result.payload["model"] == "toy-1"  # Anthropic's model is not a toy's
    assert result.payload["limit"] == 40 and result.payload["until"] == ["END"]
    changes = [change.message for change in result.changes]
    assert "model 'claude-sonnet-4-6' belongs to Anthropic; sent as 'toy-1', the default" in (changes)
    bedrock = export_request(REQUESTS["bedrock-converse"], "bedrock-converse", TOY)
    assert "request field 'modelId' left out: it is Bedrock Converse's own" in [
        change.message for change in bedrock.changes
    ]


def test_the_toy_format_exports_to_every_provider(toys):
    for provider in registry.PROVIDERS:
        result = export_request(TOY_BODY, TOY_FORMAT.name, provider)
        changes = [change.message for change in result.changes]
        if provider == TOY:  # its own API: every field back as it was, the model too
            assert result.payload["model"] == "toy-2" and result.payload["mood"] == "calm"
            assert result.payload["limit"] == 64 and not changes
            continue
        assert "request field 'mood' left out: it is Toy's own" in changes, provider
        assert (
            f"model 'toy-2' belongs to Toy; sent as "
            f"{provider_spec(provider).defaults.model!r}, the default" in changes
        ), provider


def test_a_file_of_the_toy_format_is_detected_and_read_with_lines(toys):
    text = json.dumps(TOY_BODY, indent=1)
    document = render_document(MemoryBundle({"talk.json": text.encode()}), "talk.json")
    user = document.cases[0].messages[1]
    assert user.content == "Hello, toy."
    assert user.segments[0].origin.start_line == text.splitlines().index('   "says": "Hello, toy."') + 1


def test_taking_the_toys_out_leaves_the_registries_as_they_were():
    providers, input_formats = registry.PROVIDERS, formats.INPUT_FORMATS
    register_toys()
    unregister_toys()
    assert (providers, input_formats) == (registry.PROVIDERS, formats.INPUT_FORMATS)
    with pytest.raises(ValueError, match="unknown provider 'toy'"):
        export_case(RenderedCase("c", []), TOY)


SURFACES = """
import django, json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
from tests.core.test_extension_recipes import register_toys
register_toys()  # before the shell is imported, as a provider module listed in registry.py is
django.setup()
from inspector.api import api
from inspector.management.commands.render import Command
from inspector.views.common import PROVIDER_LABELS, settings_view

parser = Command().create_parser("manage.py", "render")
choices = {option: list(action.choices) for action in parser._actions
           for option in action.option_strings if option in ("--to", "--input-format")}
enums = []
def walk(node):
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            enums.append(node["enum"])
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(api.get_openapi_schema())
print(json.dumps({"choices": choices, "enums": enums, "menu": list(PROVIDER_LABELS.items()),
                  "input_menu": list(settings_view.__globals__["INPUT_FORMATS"])}))
"""


def test_the_cli_the_api_enum_and_the_menus_offer_the_toys():
    # The CLI's choices and the API's schema are built at import: a fresh process registers the
    # toys first, as the registry's own modules are.
    answer = subprocess.run(
        [sys.executable, "-c", SURFACES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "INSPECTOR_SPEEDUPS": "0"},
    )
    found = json.loads(answer.stdout.splitlines()[-1])
    assert found["choices"]["--to"][-1] == TOY
    assert found["choices"]["--input-format"][-1] == TOY_FORMAT.name
    assert any(enum[-1] == TOY and "anthropic" in enum for enum in found["enums"])
    assert any(enum[-1] == TOY_FORMAT.name and "auto" in enum for enum in found["enums"])
    assert found["menu"][-1] == [TOY, "Toy"]
    assert found["input_menu"][-1] == TOY_FORMAT.name
