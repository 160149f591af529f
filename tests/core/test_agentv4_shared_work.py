"""The agentv-4 render does work once that every case (or every grader) would repeat: what it
shares must not change what is shown."""

from __future__ import annotations

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import MemoryBundle
from inspector.core.options import RenderOptions

SUITE = """tests:
  - id: first
    criteria: mentions the loop
    input:
      - role: system
        content: You review code.
      - role: user
        content:
          - type: text
            value: Review this.
          - type: file
            value: ../code/a.py
      - role: assistant
        content: Which part?
      - role: user
        content: The loop.
"""


def render(text: str, files: dict[str, bytes] | None = None):
    bundle = MemoryBundle({"evals/suite.yaml": text.encode(), **(files or {})})
    return render_eval_file(bundle, "evals/suite.yaml", RenderOptions(profile="agentv-4"))


def test_an_environment_variable_spelled_with_an_escape_is_still_substituted():
    # A text without `${{` skips the substitution walk; a double-quoted escape spells one out.
    document = render('tests:\n  - id: a\n    criteria: ok\n    input: "\\x24{{ GREETING }}hello"\n')
    case = document.cases[0]
    assert [message.content for message in case.messages if message.role == "user"] == ["hello"]
    assert any("GREETING" in warning.message for warning in document.warnings)


def test_the_graders_question_is_made_of_the_case_messages_own_segments():
    document = render(SUITE, {"code/a.py": b"def f(x):\n    return x\n"})
    case = document.cases[0]
    sent = {id(segment) for message in case.messages for segment in message.segments}
    judge = case.graders[0].messages[1]
    file_segments = [segment for segment in judge.segments if segment.origin.path == "code/a.py"]
    assert file_segments and all(id(segment) in sent for segment in file_segments)
    assert "[[ ## question ## ]]\n@[System]:\nYou review code." in judge.content
    assert judge.content.endswith("[[ ## answer ## ]]\n\u27e8the candidate's answer\u27e9")


def test_every_case_gets_the_same_judge_prompt_text_around_its_own_criteria():
    text = SUITE + SUITE.split("tests:\n", 1)[1].replace("id: first", "id: second").replace(
        "mentions the loop", "mentions the bug"
    )
    document = render(text, {"code/a.py": b"def f(x):\n    return x\n"})
    first, second = (case.graders[0].messages for case in document.cases)
    assert first[0].content == second[0].content
    assert first[1].content.replace("the loop", "the bug", 1) == second[1].content
