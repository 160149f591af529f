"""aibff's grader decks against what aibff's own code (bolt-foundry e8937c2a, August 2025) built
for its grader: aibff/make_goldens.py ran render.ts's sample and context extraction and
renderDeck (deck.ts render) under Deno on every corpus grader deck and on aibff/decks/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message, function_tool
from tests.conftest import CORPUS

GOLDENS = Path(__file__).resolve().parent / "aibff" / "goldens.jsonl"


def _goldens() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDENS.read_text().split("\n")[1:] if line.strip()]


def _name(golden: dict[str, Any]) -> str:
    return f"{golden.get('corpus', 'own')}/{golden['deck']}"


def _params(goldens: list[dict[str, Any]], *leading: str) -> list[Any]:
    """One test parameter per golden; those of a corpus deck need its files, so PI_CORPUS."""
    return [
        pytest.param(
            *leading,
            golden,
            id="-".join([*leading, _name(golden)]),
            marks=[pytest.mark.corpus("the deck aibff rendered is in the corpus")]
            if "corpus" in golden
            else [],
        )
        for golden in goldens
    ]


def test_the_goldens_were_made_by_aibff():
    header = json.loads(GOLDENS.read_text().split("\n")[0])
    assert "e8937c2a" in header["made_with"] and header["count"] == len(_goldens()) >= 15
    sent = [case for golden in _goldens() for case in golden["aibff"]["cases"]]
    assert any(m["content"].startswith("[object Object]") for case in sent for m in case["messages"])
    assert sum(golden["aibff"]["error"] is not None for golden in _goldens()) >= 3


def _compare(golden: dict[str, Any], options: RenderOptions) -> RenderedDocument | None:
    """The inspector's rendering against what aibff built: the same refusals, cases, messages
    byte for byte and tools; the document when aibff rendered cases."""
    if "corpus" in golden:
        bundle = DirectoryBundle(CORPUS / "gambit" / golden["corpus"])
    else:
        bundle = MemoryBundle({p: t.encode() for p, t in golden["files"].items()})
    sent = golden["aibff"]
    try:
        document = render_document(bundle, golden["deck"], options)
    except InputError as error:
        # aibff refused the same file (a TOML file both parsers reject).
        assert sent["error"] is not None and "Invalid TOML" in sent["error"], str(error)
        assert sent["error"].split("Invalid TOML in file ")[1].split(":")[0] in str(error)
        return None
    if sent["error"] is not None:
        refusals = [w.message for w in document.warnings if w.severity == "error"]
        if sent["error"].startswith("File not found: "):
            wanted = sent["error"].rsplit("/", 1)[-1]
        elif sent["error"].startswith("Invalid TOML in file "):
            wanted = sent["error"].split(": ")[0]  # @std/toml words its complaint its own way
        else:
            wanted = sent["error"]
        assert any("aibff's calibrate" in r and wanted in r for r in refusals), refusals
        return None
    ours = [case for case in document.cases if not case.skipped]
    if not sent["cases"]:
        assert all(
            "embeds no samples" in w.message
            for case in ours
            for w in case.warnings
            if w.severity == "warning" and "samples" in w.message
        )
        return None
    assert [case.id for case in ours] == [case["id"] for case in sent["cases"]]
    for case, theirs in zip(ours, sent["cases"], strict=True):
        assert [chat_message(m) for m in case.sent_messages] == theirs["messages"], case.id
        assert [function_tool(t) for t in case.tools] == theirs["tools"], case.id
    return document


@pytest.mark.parametrize("golden", _params(_goldens()))
def test_aibff_sent_its_grader_what_the_inspector_shows(golden):
    document = _compare(golden, RenderOptions())
    assert document is None or document.profile == "aibff-2025-08"


# aibff's code before deck.ts: the profile that follows it, its commit, what its grader got.
EARLY = {
    "aibff-2025-06": ("goldens-2025-06.jsonl", "7f538110", "aibff as of June 2025"),
    "aibff-2025-07": ("goldens-2025-07.jsonl", "b9ebc31f", "aibff as of July 2025"),
}


def _early_goldens(profile: str) -> list[dict[str, Any]]:
    text = (GOLDENS.parent / EARLY[profile][0]).read_text()
    return [json.loads(line) for line in text.split("\n")[1:] if line.strip()]


@pytest.mark.parametrize("profile", EARLY)
def test_the_earlier_goldens_were_made_by_aibff_of_their_era(profile):
    header = json.loads((GOLDENS.parent / EARLY[profile][0]).read_text().split("\n")[0])
    goldens = _early_goldens(profile)
    assert EARLY[profile][1] in header["made_with"] and header["count"] == len(goldens) >= 15
    sent = [m["content"] for golden in goldens for case in golden["aibff"]["cases"] for m in case["messages"]]
    assert sum(golden["aibff"]["error"] is None and bool(golden["aibff"]["cases"]) for golden in goldens) >= 8
    if profile == "aibff-2025-07":
        assert any(text.startswith('[{"role":') for text in sent)  # the conversation, as JSON
        assert not any(text.startswith("[object Object]") for text in sent)


@pytest.mark.parametrize(
    ("profile", "golden"), [param for profile in EARLY for param in _params(_early_goldens(profile), profile)]
)
def test_aibff_of_an_earlier_era_sent_its_grader_what_its_profile_shows(profile, golden):
    document = _compare(golden, RenderOptions(profile=profile))
    if document is not None:
        assert document.profile == profile
        assert all(case.metadata["aibff"]["era"].startswith(EARLY[profile][2]) for case in document.cases)
