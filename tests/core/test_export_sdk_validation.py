"""Every exported payload passes the providers' own SDK request types (with the three adjustments
that make them strict), and those types do reject broken payloads."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import list_documents, render_document
from inspector.core.export import PROVIDERS, ExportSettings, batch_export, export_case
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions

from ..conftest import REPO, corpus_files, path_id
from .export_samples import sample_conversations
from .sdk_types import PayloadRejected, build_validators

# Our own examples and test bundles, and with PI_CORPUS every snapshot of the real projects.
OWN_FOLDERS = sorted(
    folder
    for folder in [*(REPO / "fixtures" / "examples").iterdir(), *(REPO / "tests" / "fixtures").iterdir()]
    if folder.is_dir()
)
CORPUS_SNAPSHOTS = [
    snapshot for snapshot in corpus_files("agentv/*") + corpus_files("gambit/*") if snapshot.is_dir()
]
SETTINGS = [
    ExportSettings(),
    ExportSettings(system_prompt="Request-level system prompt.", max_tokens=256, temperature=0.3),
]


@pytest.fixture(scope="session")
def validators():
    return build_validators()


@cache
def snapshot_cases(snapshot: Path) -> tuple[list[RenderedCase], list[str]]:
    """Every case of every file the inspector renders in a folder (each with the profile `auto`
    picks for it), and the files it refuses as unusable input (InputError), which have no request
    to export."""
    bundle = DirectoryBundle(snapshot)
    cases: list[RenderedCase] = []
    refused: list[str] = []
    for path in list_documents(bundle):
        try:
            cases.extend(render_document(bundle, path, RenderOptions(profile="auto")).cases)
        except InputError:
            refused.append(path)
    return cases, refused


def rejected(validate, cases, provider) -> list[str]:
    problems = []
    for case in cases:
        for settings in SETTINGS:
            try:
                validate(export_case(case, provider, settings).payload)
            except PayloadRejected as error:
                problems.append(f"{case.id}: {error}")
    return problems


@pytest.mark.corpus("the real projects' snapshots are in the corpus")
def test_the_corpus_has_snapshots_to_export():
    assert len(CORPUS_SNAPSHOTS) >= 10


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("snapshot", OWN_FOLDERS + CORPUS_SNAPSHOTS, ids=path_id)
def test_every_case_exports_a_payload_the_sdk_types_accept(snapshot, provider, validators):
    cases, refused = snapshot_cases(snapshot)
    assert cases, f"{snapshot}: nothing rendered (refused: {refused})"
    assert rejected(validators[provider], cases, provider) == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_hand_built_conversation_exports_a_payload_the_sdk_types_accept(provider, validators):
    assert rejected(validators[provider], sample_conversations(), provider) == []


@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic"])
def test_every_batch_body_is_a_valid_request(provider, validators):
    batch = batch_export(sample_conversations(), provider)
    for result in batch.results:
        validators[provider](result.payload)
    assert len(batch.jsonl.splitlines()) == len(sample_conversations())


@pytest.mark.parametrize(
    ("provider", "payload", "complaint"),
    [
        ("openai-chat", {"model": "m", "messages": [{"role": "wizard", "content": "x"}]}, "role"),
        ("openai-chat", {"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "tool_call_id"),
        (
            "openai-chat",
            {"model": "m", "messages": [{"role": "user", "content": "x", "colour": 1}]},
            "colour",
        ),
        (
            "openai-chat",
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "max_completion_tokens": "1024"},
            "max_completion_tokens",
        ),
        (
            "openai-responses",
            {"model": "m", "input": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
            "call_id",
        ),
        (
            "openai-responses",
            {
                "model": "m",
                "input": [],
                "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": "yes"}],
            },
            "strict",
        ),
        (
            "anthropic",
            {"model": "m", "max_tokens": "1024", "messages": [{"role": "user", "content": "x"}]},
            "max_tokens",
        ),
        (
            "anthropic",
            {
                "model": "m",
                "max_tokens": 10,
                "messages": [
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f"}]}
                ],
            },
            "input",
        ),
        (
            "anthropic",
            {"model": "m", "max_tokens": 10, "messages": [{"role": "tool", "content": "x"}]},
            "role",
        ),
        ("gemini", {"contents": [{"role": "user", "parts": [{"txt": "x"}]}]}, "txt"),
        ("gemini", {"contents": [], "model": "gemini"}, "model"),
        ("gemini", {"contents": [], "generationConfig": {"maxOutputTokens": "5"}}, "maxOutputTokens"),
        ("bedrock-converse", {"messages": [{"role": "wizard", "content": [{"text": "x"}]}]}, "role"),
        (
            "bedrock-converse",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"text": "x", "toolUse": {"toolUseId": "a", "name": "f", "input": {}}}],
                    }
                ]
            },
            "union",
        ),
        ("bedrock-converse", {"messages": [], "inferenceConfig": {"maxTokens": "5"}}, "maxTokens"),
        ("bedrock-converse", {"messages": [], "inferenceConfig": {"temperature": 1.5}}, "temperature"),
        (
            "bedrock-converse",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"toolUse": {"toolUseId": "call/1", "name": "f", "input": {}}}],
                    }
                ]
            },
            "toolUseId",
        ),
        ("bedrock-converse", {"messages": [], "system": [{"text": ""}]}, "system"),
        ("bedrock-converse", {"modelId": "m", "messages": []}, "modelId"),
        (
            "bedrock-converse",
            {
                "messages": [{"role": "user", "content": [{"text": "x"}]}],
                "toolConfig": {"tools": [{"toolSpec": {"name": "f"}}]},
            },
            "inputSchema",
        ),
    ],
)
def test_the_validator_rejects_broken_payloads(provider, payload, complaint, validators):
    with pytest.raises(PayloadRejected, match=complaint):
        validators[provider](payload)
