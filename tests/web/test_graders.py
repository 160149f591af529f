"""The judge's prompts on every surface: the case page beside the messages, the API's case detail
(segments with origins), and the CLI's `render --graders`."""

from __future__ import annotations

from pathlib import Path

from inspector.core.model import CANDIDATE_PLACEHOLDER
from inspector.ingest import store_bundle
from inspector.presenters import case_url
from tests.conftest import run_render

SUITE = b"""tests:
  - id: judged
    criteria: Names the capital
    input: What is the capital of France?
    expected_output: Paris.
    assertions:
      - type: contains
        value: Paris
      - type: llm-grader
        name: strict
        prompt: file://graders/strict.md
      - Is one sentence
"""
GRADER = b"Question:\n{{ input }}\n\nAnswer:\n{{ output }}\n"
FILES = {"evals/suite.yaml": SUITE, "evals/graders/strict.md": GRADER}


def test_the_case_page_shows_each_graders_messages_with_their_origins(client, db):
    bundle, _ = store_bundle(FILES, title="graders")
    page = client.get(case_url(bundle.pk, "evals/suite.yaml", "judged")).content.decode()
    graders = page[page.index('id="graders"'):]
    assert "What the graders send" in graders
    assert "<strong>strict</strong>" in graders and "<strong>rubrics</strong>" in graders
    assert 'id="g0-m1"' in graders and 'id="g1-m1"' in graders
    assert "evals/graders/strict.md:1" in graders  # the template's text, traced to its file
    assert CANDIDATE_PLACEHOLDER.replace("'", "&#x27;") in graders


def test_the_api_returns_the_graders_with_segments_and_origins(client, db):
    bundle, _ = store_bundle(FILES, title="graders")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/judged").json()
    strict, rubrics = detail["graders"]
    assert strict["name"] == "strict" and rubrics["name"] == "rubrics"
    user = strict["messages"][1]
    assert user["content"] == ("Question:\nWhat is the capital of France?\n\nAnswer:\n"
                               + CANDIDATE_PLACEHOLDER)
    origins = [(seg["text"], seg["origin"]["kind"], seg["origin"]["path"],
                seg["origin"]["start_line"]) for seg in user["segments"]]
    assert origins == [
        ("Question:\n", "file", "evals/graders/strict.md", 1),
        ("What is the capital of France?", "case", "evals/suite.yaml", 4),
        ("\n\nAnswer:\n", "file", "evals/graders/strict.md", 2),
        (CANDIDATE_PLACEHOLDER, "marker", None, None)]
    checklist = rubrics["messages"][1]["content"]
    assert "[[ ## reference_answer ## ]]\nParis.\n" in checklist
    assert "- [rubric-1] (REQUIRED): Is one sentence" in checklist


def test_render_graders_adds_each_graders_name_and_messages(tmp_path: Path, db):
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    code, cases, _ = run_render(str(tmp_path / "evals/suite.yaml"), "--root", str(tmp_path),
                                "--graders")
    assert code == 0
    [case] = cases
    assert [grader["name"] for grader in case["graders"]] == ["strict", "rubrics"]
    assert [message["role"] for message in case["graders"][0]["messages"]] == ["system", "user"]
    code, plain, _ = run_render(str(tmp_path / "evals/suite.yaml"), "--root", str(tmp_path))
    assert "graders" not in plain[0]


def test_a_case_without_graders_gets_agentvs_default_grader(client, db):
    bundle, _ = store_bundle({"evals/s.yaml": b"tests:\n  - id: t\n    criteria: Be kind\n"
                                              b"    input: Hi\n"}, title="default")
    [grader] = client.get(f"/api/bundles/{bundle.pk}/cases/t").json()["graders"]
    assert grader["name"] == "llm-grader"
    assert "[[ ## criteria ## ]]\nBe kind\n" in grader["messages"][1]["content"]


def test_a_grader_template_agentv_refuses_skips_the_case_with_the_reason(client, db):
    bundle, _ = store_bundle({**FILES, "evals/graders/strict.md": b"Just {{ input }}\n"},
                             title="refused")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/judged").json()
    assert "Missing required fields" in detail["skipped"]
    assert detail["graders"] == []
