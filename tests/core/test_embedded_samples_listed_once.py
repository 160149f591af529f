"""A `.deck.md` and the TOML sample deck it embeds are one document: the samples are listed once
and the ledger counts each once (issue 30, defect 8)."""

from pathlib import Path

from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.documents import list_documents, render_document
from inspector.core.ledger import build_ledger
from inspector.core.options import RenderOptions

DECK = Path(__file__).resolve().parents[2] / "fixtures" / "examples" / "tone-grader-deck"
SAMPLES = b'[samples.one]\nscore = 1\n[[samples.one.messages]]\nrole = "user"\ncontent = "Hi"\n'


def test_the_example_deck_is_one_document_with_each_sample_once():
    bundle = DirectoryBundle(DECK)
    assert list_documents(bundle) == ["graders/tone.deck.md"]
    samples = render_document(bundle, "graders/tone-samples.toml", RenderOptions()).cases
    cases = [
        case
        for path in list_documents(bundle)
        for case in render_document(bundle, path, RenderOptions()).cases
    ]
    assert sorted(case.id for case in cases) == sorted(case.id for case in samples)
    assert len(build_ledger(cases, "openai-chat").cases) == len(samples) == 3


def test_a_sample_file_embedded_through_another_markdown_file_is_the_decks_too():
    bundle = MemoryBundle(
        {
            "g/grader.deck.md": b"# G\n\n![shared](./parts/shared.md)\n",
            "g/parts/shared.md": b"Be fair.\n\n![s](../samples.toml#one)\n",
            "g/samples.toml": SAMPLES,
        }
    )
    assert list_documents(bundle) == ["g/grader.deck.md"]


def test_a_sample_file_no_deck_embeds_stays_a_document():
    bundle = MemoryBundle({"g/grader.deck.md": b"# G\n\nNo embeds here.\n", "g/samples.toml": SAMPLES})
    assert sorted(list_documents(bundle)) == ["g/grader.deck.md", "g/samples.toml"]
