"""Seed 000 (message conversion) under the `spec` profile, contradictions resolved as inputs.md says."""

from __future__ import annotations

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import MemoryBundle
from inspector.core.model import OriginKind
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message

PATTERNS = ("**/*.instructions.md",)


def render(messages_yaml: str, files: dict[str, str] | None = None, **options):
    eval_text = "evalcases:\n  - id: case\n    outcome: anything\n    input_messages:\n" + messages_yaml
    bundle = MemoryBundle(
        {
            "evals/case.yaml": eval_text.encode(),
            **{path: text.encode() for path, text in (files or {}).items()},
        }
    )
    options.setdefault("guideline_patterns", PATTERNS)
    document = render_eval_file(bundle, "evals/case.yaml", RenderOptions(**options))
    return document.cases[0]


def sent(case):
    return [chat_message(message) for message in case.sent_messages]


def test_single_system_and_user_message_pass_through():
    case = render(
        "      - role: system\n        content: You are a helpful assistant.\n"
        "      - role: user\n        content: Hello, world!\n"
    )
    assert sent(case) == [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello, world!"},
    ]


def test_multi_turn_conversation_keeps_every_turn_and_adds_no_system_message():
    case = render(
        "      - role: user\n        content: Debug this code\n"
        "      - role: assistant\n        content: I can help with that\n"
        "      - role: user\n        content: Thanks, here's the code\n"
    )
    assert sent(case) == [
        {"role": "user", "content": "Debug this code"},
        {"role": "assistant", "content": "I can help with that"},
        {"role": "user", "content": "Thanks, here's the code"},
    ]


def test_guideline_goes_after_the_configured_prompt_and_leaves_an_attached_marker():
    case = render(
        "      - role: user\n        content:\n          - type: text\n"
        "            value: Review this code\n          - type: file\n"
        "            value: ./guidelines.instructions.md\n",
        {"evals/guidelines.instructions.md": "Always be concise\n"},
        system_prompt="You are a careful assistant.",
    )
    assert sent(case) == [
        {
            "role": "system",
            "content": "You are a careful assistant.\n\n[[ ## Guidelines ## ]]\n\nAlways be concise",
        },
        {"role": "user", "content": "Review this code\n<Attached: ./guidelines.instructions.md>"},
    ]


def test_non_guideline_file_is_embedded_with_its_path_as_written():
    case = render(
        "      - role: user\n        content:\n          - type: text\n"
        "            value: 'Review this:'\n          - type: file\n"
        "            value: ./code.js\n",
        {"evals/code.js": "console.log('test')\n"},
    )
    assert sent(case) == [{"role": "user", "content": "Review this:\n=== ./code.js ===\nconsole.log('test')"}]


def test_guideline_before_text_is_extracted_to_a_system_message():
    case = render(
        "      - role: user\n        content:\n          - type: file\n"
        "            value: python.instructions.md\n          - type: text\n"
        "            value: Write a function\n",
        {"python.instructions.md": "Use type hints.\r\n\r\n"},
    )
    assert sent(case) == [
        {"role": "system", "content": "[[ ## Guidelines ## ]]\n\nUse type hints."},
        {"role": "user", "content": "<Attached: python.instructions.md>\nWrite a function"},
    ]


def test_multiple_guidelines_get_headers_and_a_message_of_only_guidelines_is_omitted():
    case = render(
        "      - role: user\n        content:\n          - type: file\n"
        "            value: python.instructions.md\n          - type: file\n"
        "            value: security.instructions.md\n",
        {"evals/python.instructions.md": "content1\n", "evals/security.instructions.md": "content2"},
    )
    assert sent(case) == [
        {
            "role": "system",
            "content": "[[ ## Guidelines ## ]]\n\n=== python.instructions.md ===\ncontent1\n\n"
            "=== security.instructions.md ===\ncontent2",
        }
    ]
    [omitted] = case.omitted_messages
    assert omitted.content == ("<Attached: python.instructions.md>\n<Attached: security.instructions.md>")
    assert "guideline" in omitted.omitted


def test_message_with_only_guideline_files_is_filtered_and_system_context_comes_first():
    case = render(
        "      - role: system\n        content: System context\n"
        "      - role: user\n        content:\n          - type: file\n"
        "            value: guidelines.instructions.md\n",
        {"evals/guidelines.instructions.md": "Be kind"},
    )
    assert sent(case) == [
        {"role": "system", "content": "System context\n\n[[ ## Guidelines ## ]]\n\nBe kind"}
    ]
    assert [message.role for message in case.omitted_messages] == ["user"]


def test_explicit_system_message_replaces_the_configured_default_prompt():
    case = render(
        "      - role: system\n        content:\n          - type: text\n"
        "            value: Custom system context\n          - type: file\n"
        "            value: style.instructions.md\n"
        "      - role: user\n        content: Hello\n",
        {"evals/style.instructions.md": "Be concise\n"},
        system_prompt="Default prompt",
    )
    assert sent(case) == [
        {"role": "system", "content": "Custom system context\n\n[[ ## Guidelines ## ]]\n\nBe concise"},
        {"role": "user", "content": "Hello"},
    ]


def test_leading_system_messages_merge_and_a_later_one_stays_in_place():
    case = render(
        "      - role: system\n        content: One\n"
        "      - role: system\n        content: Two\n"
        "      - role: user\n        content: Hi\n"
        "      - role: system\n        content: Late\n"
    )
    assert sent(case) == [
        {"role": "system", "content": "One\n\nTwo"},
        {"role": "user", "content": "Hi"},
        {"role": "system", "content": "Late"},
    ]


def test_configured_prompt_is_the_system_message_when_the_case_has_none():
    case = render("      - role: user\n        content: Hi\n", system_prompt="Be brief.")
    assert sent(case)[0] == {"role": "system", "content": "Be brief."}
    assert case.messages[0].segments[0].origin.kind is OriginKind.DEFAULT_PROMPT


def test_segments_join_to_content_and_origins_point_at_the_right_lines():
    case = render(
        "      - role: system\n        content: System context\n"
        "      - role: user\n        content:\n          - type: text\n"
        "            value: |-\n              first line\n              second line\n"
        "          - type: file\n            value: notes.instructions.md\n"
        "          - type: file\n            value: code.py\n",
        {"evals/notes.instructions.md": "line one\nline two\n\n", "evals/code.py": "print(1)\nprint(2)\n"},
    )
    for message in case.messages:
        assert "".join(segment.text for segment in message.segments) == message.content
    system, user = case.messages
    by_kind = {segment.origin.kind: segment.origin for segment in system.segments}
    assert by_kind[OriginKind.CASE_TEXT].start_line == 6  # "content: System context"
    guideline = by_kind[OriginKind.GUIDELINE]
    assert (guideline.path, guideline.start_line, guideline.end_line) == ("evals/notes.instructions.md", 1, 2)
    origins = [(s.origin.kind, s.origin.path, s.origin.start_line, s.origin.end_line) for s in user.segments]
    assert origins == [
        (OriginKind.CASE_TEXT, "evals/case.yaml", 11, 12),
        (OriginKind.SEPARATOR, None, None, None),
        (OriginKind.MARKER, "evals/case.yaml", 14, 14),
        (OriginKind.SEPARATOR, None, None, None),
        (OriginKind.SEPARATOR, None, None, None),
        (OriginKind.FILE, "evals/code.py", 1, 2),
    ]
    assert (system.span.start_line, user.span.start_line, user.span.end_line) == (5, 7, 16)
    assert (case.span.start_line, case.span.end_line) == (2, 16)


def test_missing_guideline_file_lists_every_candidate_and_the_case_still_renders():
    case = render(
        "      - role: user\n        content:\n          - type: text\n"
        "            value: Hi\n          - type: file\n"
        "            value: gone.instructions.md\n"
    )
    assert sent(case) == [{"role": "user", "content": "Hi"}]
    [warning] = case.warnings
    assert "evals/gone.instructions.md" in warning.message
    assert "Tried: evals/gone.instructions.md; gone.instructions.md" in warning.message
    assert (warning.path, warning.line) == ("evals/case.yaml", 10)


def test_file_found_in_a_parent_folder_and_leading_slash_means_the_roots():
    case = render(
        "      - role: user\n        content:\n          - type: file\n"
        "            value: /shared/a.md\n          - type: file\n"
        "            value: shared/a.md\n",
        {"shared/a.md": "A"},
    )
    assert sent(case) == [{"role": "user", "content": "=== /shared/a.md ===\nA\n=== shared/a.md ===\nA"}]


def test_guideline_patterns_come_from_the_nearest_agentv_config():
    eval_text = (
        "tests:\n  - id: c\n    criteria: x\n    input:\n      - role: user\n"
        "        content:\n          - type: file\n            value: rules.md\n"
        "          - type: text\n            value: go\n"
    )
    bundle = MemoryBundle(
        {
            ".agentv/config.yaml": b"guideline_patterns: ['**/*.instructions.md']\n",
            "suite/.agentv/config.yaml": b"guideline_patterns:\n  - '**/rules.md'\n",
            "suite/evals/e.yaml": eval_text.encode(),
            "suite/evals/rules.md": b"Rule one",
        }
    )
    case = render_eval_file(bundle, "suite/evals/e.yaml", RenderOptions(profile="spec")).cases[0]
    assert sent(case)[0] == {"role": "system", "content": "[[ ## Guidelines ## ]]\n\nRule one"}
    overridden = render_eval_file(
        bundle, "suite/evals/e.yaml", RenderOptions(profile="spec", guideline_patterns=("*.txt",))
    ).cases[0]
    assert sent(overridden) == [{"role": "user", "content": "=== rules.md ===\nRule one\ngo"}]


def test_dot_folders_never_match_guideline_patterns():
    case = render(
        "      - role: user\n        content:\n          - type: file\n"
        "            value: ../.github/a.instructions.md\n",
        {".github/a.instructions.md": "x"},
    )
    assert sent(case) == [{"role": "user", "content": "=== ../.github/a.instructions.md ===\nx"}]


def test_unusable_guideline_pattern_is_a_warning_not_a_failure():
    from inspector.core.bundle import MemoryBundle
    from inspector.core.documents import render_document
    from inspector.core.options import RenderOptions

    bundle = MemoryBundle({"e.yaml": b"tests:\n  - id: a\n    input: hi\n"})
    document = render_document(bundle, "e.yaml", RenderOptions(guideline_patterns=("\\",)))
    assert document.cases[0].messages[-1].content == "hi"
    assert any("not a valid glob" in warning.message for warning in document.warnings)


def test_text_from_a_referenced_file_names_the_reference_that_pulled_it_in():
    case = render(
        "      - role: user\n        content:\n"
        "          - type: text\n            value: Review this\n"
        "          - type: file\n            value: ./guide.instructions.md\n"
        "          - type: file\n            value: ./code.js\n",
        {"evals/guide.instructions.md": "Be concise", "evals/code.js": "x()"},
    )
    by_kind = {
        segment.origin.kind: segment.origin for message in case.messages for segment in message.segments
    }
    guideline, embedded = by_kind[OriginKind.GUIDELINE], by_kind[OriginKind.FILE]
    # Lines 9-10 and 11-12 hold the two `type: file` blocks; each value line names its file.
    assert guideline.via.path == "evals/case.yaml"
    assert guideline.via.start_line <= 10 <= guideline.via.end_line < 11
    assert embedded.via.start_line <= 12 <= embedded.via.end_line
    assert by_kind[OriginKind.CASE_TEXT].via is None
