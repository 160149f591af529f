"""The judge's prompts on every surface: the case page beside the messages, the API's case detail
(segments with origins), and the CLI's `render --graders`."""

from __future__ import annotations

from pathlib import Path

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.core.model import CANDIDATE_PLACEHOLDER
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
    graders = page[page.index('id="graders"') :]
    assert "What the graders send" in graders
    assert "<strong>strict</strong>" in graders and "<strong>rubrics</strong>" in graders
    # `contains` asks no model: a sentence in its place, then the two graders' messages
    assert (
        "Checks that the answer contains <code>Paris</code>." in graders
        or "Checks that the answer contains `Paris`." in graders
    )
    assert 'id="g0-m1"' not in graders
    assert 'id="g1-m1"' in graders and 'id="g2-m1"' in graders
    assert "evals/graders/strict.md:1" in graders  # the template's text, traced to its file
    assert CANDIDATE_PLACEHOLDER.replace("'", "&#x27;") in graders


def test_the_api_returns_the_graders_with_segments_and_origins(client, db):
    bundle, _ = store_bundle(FILES, title="graders")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/judged").json()
    contains, strict, rubrics = detail["graders"]
    assert contains["name"] == "contains" and contains["messages"] == []
    assert contains["note"].startswith("Checks that the answer contains `Paris`.")
    assert strict["name"] == "strict" and rubrics["name"] == "rubrics"
    user = strict["messages"][1]
    assert user["content"] == (
        "Question:\nWhat is the capital of France?\n\nAnswer:\n" + CANDIDATE_PLACEHOLDER
    )
    origins = [
        (seg["text"], seg["origin"]["kind"], seg["origin"]["path"], seg["origin"]["start_line"])
        for seg in user["segments"]
    ]
    assert origins == [
        ("Question:\n", "file", "evals/graders/strict.md", 1),
        ("What is the capital of France?", "case", "evals/suite.yaml", 4),
        ("\n\nAnswer:\n", "file", "evals/graders/strict.md", 2),
        (CANDIDATE_PLACEHOLDER, "marker", None, None),
    ]
    checklist = rubrics["messages"][1]["content"]
    assert "[[ ## reference_answer ## ]]\nParis.\n" in checklist
    assert "- [rubric-1] (REQUIRED): Is one sentence" in checklist


def test_render_graders_adds_each_graders_name_and_messages(tmp_path: Path, db):
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    code, cases, _ = run_render(str(tmp_path / "evals/suite.yaml"), "--root", str(tmp_path), "--graders")
    assert code == 0
    [case] = cases
    assert [grader["name"] for grader in case["graders"]] == ["contains", "strict", "rubrics"]
    assert "no prompt to show" in case["graders"][0]["note"]
    assert [message["role"] for message in case["graders"][1]["messages"]] == ["system", "user"]
    code, plain, _ = run_render(str(tmp_path / "evals/suite.yaml"), "--root", str(tmp_path))
    assert "graders" not in plain[0]


def test_a_case_without_graders_gets_agentvs_default_grader(client, db):
    bundle, _ = store_bundle(
        {"evals/s.yaml": b"tests:\n  - id: t\n    criteria: Be kind\n    input: Hi\n"}, title="default"
    )
    [grader] = client.get(f"/api/bundles/{bundle.pk}/cases/t").json()["graders"]
    assert grader["name"] == "llm-grader"
    assert "[[ ## criteria ## ]]\nBe kind\n" in grader["messages"][1]["content"]


def test_a_grader_template_agentv_refuses_skips_the_case_with_the_reason(client, db):
    bundle, _ = store_bundle({**FILES, "evals/graders/strict.md": b"Just {{ input }}\n"}, title="refused")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/judged").json()
    assert "Missing required fields" in detail["skipped"]
    assert detail["graders"] == []


COMPOSITE_SUITE = b"""tests:
  - id: combo
    criteria: Names the capital
    input: What is the capital of France?
    assertions:
      - type: composite
        name: panel
        assertions:
          - name: polite
            type: llm-grader
            prompt: Is it polite?
          - name: script
            type: code-grader
            command: [python3, scripts/check.py]
        aggregator:
          type: llm-grader
          prompt: "Results: {{EVALUATOR_RESULTS_JSON}}"
"""


def test_composite_members_and_script_graders_on_the_page_and_the_api(client, db):
    bundle, _ = store_bundle(
        {"evals/suite.yaml": COMPOSITE_SUITE, "evals/scripts/check.py": b"print('{}')\n"}, title="composite"
    )
    page = client.get(case_url(bundle.pk, "evals/suite.yaml", "combo")).content.decode()
    graders = page[page.index('id="graders"') :]
    assert "<strong>panel › polite</strong>" in graders
    assert "<strong>panel › aggregator</strong>" in graders
    # The script grader is said in words, with its script and the line it is written on.
    note = graders[graders.index("<strong>panel › script</strong>") :]
    assert "evals/suite.yaml:12</a>" in note[:400]
    assert (
        "Runs `python3 scripts/check.py` on the answer after the run; the script is "
        "evals/scripts/check.py. A script grader sends nothing to a model"
    ) in note
    assert "notice warning" not in note[: note.index("</details>")]
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/combo").json()
    names = [(grader["name"], len(grader["messages"]), grader["script"]) for grader in detail["graders"]]
    assert names == [
        ("panel › polite", 2, None),
        ("panel › script", 0, "evals/scripts/check.py"),
        ("panel › aggregator", 2, None),
    ]
    aggregator = detail["graders"][2]["messages"][1]["segments"]
    assert [(seg["text"], seg["origin"]["kind"]) for seg in aggregator] == [
        ("Results: ", "case"),
        ("⟨the members' results as JSON, known only after the run⟩", "marker"),
    ]


CONVERSATION = b"""tests:
  - id: chat
    mode: conversation
    criteria: Stays helpful
    input: Start
    turns:
      - input: Hello
        assertions: [Greets back]
      - input: Bye
        assertions: [Says goodbye]
    assertions:
      - Was consistent
"""
V5_SUITE = b"""prompts:
  - "{{ question }}"
tests:
  - id: five
    vars: {question: What is 2+2?}
    assert:
      - Is correct
      - type: llm-rubric
        metric: tone
        value: Is polite
      - type: script
        command: [python3, check.py]
"""


def test_conversation_graders_per_turn_and_on_the_transcript(client, db):
    bundle, _ = store_bundle({"evals/chat.yaml": CONVERSATION}, title="conversation")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/chat").json()
    names = [grader["name"] for grader in detail["graders"]]
    assert names == ["turn 1 › turn-rubrics", "turn 2 › turn-rubrics", "conversation › rubrics"]
    second = detail["graders"][1]["messages"][1]["content"]
    # The conversation so far, each answer a placeholder naming its turn.
    assert (
        "user: Start\n\nuser: Hello\n\nassistant: ⟨the candidate's answer to turn 1⟩\n\n"
        "user: Bye\n\nassistant: ⟨the candidate's answer to turn 2⟩"
    ) in second
    assert "- [criterion-1]: Says goodbye" in second


def test_agentv_5_graders_on_the_page(client, db):
    bundle, _ = store_bundle({"evals/five.yaml": V5_SUITE, "evals/check.py": b"print(1)\n"}, title="agentv 5")
    page = client.get(case_url(bundle.pk, "evals/five.yaml", "five")).content.decode()
    graders = page[page.index('id="graders"') :]
    assert "<strong>llm-rubric</strong>" in graders and "<strong>tone</strong>" in graders
    assert "Be skeptical" in graders  # agentv 5's wording
    assert "Runs `python3 check.py` on the answer after the run; the script is evals/check.py" in graders


V5_CHECKS = b"""prompts:
  - "{{ question }}"
tests:
  - id: checks
    vars: {question: What is 2+2?}
    assert:
      - type: javascript
        value: output.includes('4')
      - type: python
        value: "'4' in output"
      - type: webhook
        value: https://grader.example/hook
      - type: similar
        value: Four.
        threshold: 0.8
      - type: regex
        value: "\\\\d"
      - type: my-check
      - type: llm-rubric
        value:
          - id: accuracy
            outcome: Gives the right number
            score_ranges: {0: Wrong, 7: Right}
            min_score: 0.7
"""


def test_agentv_5_checks_that_ask_no_judge_say_what_runs_instead(client, db, tmp_path: Path):
    files = {"evals/checks.yaml": V5_CHECKS}
    bundle, _ = store_bundle(files, title="checks")
    detail = client.get(f"/api/bundles/{bundle.pk}/cases/checks").json()
    notes = {grader["name"]: grader["note"] for grader in detail["graders"] if not grader["messages"]}
    assert notes["javascript"].startswith(
        "Runs the JavaScript `output.includes('4')` inside agentv's own process"
    )
    assert notes["python"].startswith("Runs the Python `'4' in output` with `python3 -c`")
    assert notes["webhook"].startswith(
        "Posts the answer and the test's context as JSON to `https://grader.example/hook`"
    )
    # similar calls a model, but an embedding model with two texts, not a judge with messages
    assert "embedding model" in notes["similar"] and "`Four.`" in notes["similar"]
    assert notes["regex"].startswith("Matches the answer against the regular expression `\\d`")
    assert "no custom assertion `.agentv/assertions/my-check.ts`" in notes["my-check"]
    assert all("model" in note for note in notes.values())
    # The score-range rubric is the prompt agentv 5 sends (oracle: agentv5_grader_goldens).
    [scored] = [grader for grader in detail["graders"] if grader["messages"]]
    user = scored["messages"][1]["content"]
    assert (
        "[[ ## scoring_criteria ## ]]\n\n### Criterion: accuracy [REQUIRED: min score 0.7]\n"
        "Description: Gives the right number\nScore ranges:\n  - Score 0-6: Wrong\n"
        "  - Score 7-10: Right\n" in user
    )
    assert not [w for w in detail.get("warnings", []) if "score ranges" in str(w)]
    page = client.get(case_url(bundle.pk, "evals/checks.yaml", "checks")).content.decode()
    graders = page[page.index('id="graders"') :]
    assert "Posts the answer and the test&#x27;s context as JSON to" in graders
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    code, cases, _ = run_render(str(tmp_path / "evals/checks.yaml"), "--root", str(tmp_path), "--graders")
    assert code == 0
    assert {
        grader["name"]: grader.get("note") for grader in cases[0]["graders"] if not grader["messages"]
    } == notes


def test_a_script_grader_with_target_access_says_it_may_call_the_model_itself(tmp_path: Path, db):
    suite = (
        b"tests:\n  - id: t\n    input: Hi\n    assertions:\n      - type: code-grader\n"
        b"        name: judge-script\n        command: [python3, check.py]\n"
        b"        target: {max_calls: 3}\n"
    )
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/s.yaml").write_bytes(suite)
    (tmp_path / "evals/check.py").write_bytes(b"print(1)\n")
    code, cases, _ = run_render(str(tmp_path / "evals/s.yaml"), "--root", str(tmp_path), "--graders")
    assert code == 0
    [grader] = cases[0]["graders"]
    assert grader["messages"] == [] and grader["script"] == "evals/check.py"
    assert "may call the model itself through agentv's proxy" in grader["note"]
