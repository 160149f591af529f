import tomllib

import pytest

from inspector.core import bounded
from inspector.core.bundle import DirectoryBundle, MemoryBundle
from inspector.core.decks import MAX_EMBEDS, render_deck_file
from inspector.core.documents import render_document
from inspector.core.model import InputError, OriginKind
from inspector.core.options import RenderOptions
from inspector.core.safe_parse import LimitExceeded
from tests.conftest import CORPUS, REPO, corpus_files

# Our own decks (the example and the aibff oracle's), and with PI_CORPUS every corpus snapshot's.
DECK_ROOTS = [
    REPO / "fixtures" / "examples" / "tone-grader-deck",
    REPO / "tests" / "oracle" / "aibff" / "decks",
    *(snapshot for snapshot in corpus_files("gambit/*") if snapshot.is_dir()),
]
DECK_FILES = sorted(
    (root, path.relative_to(root).as_posix())
    for root in DECK_ROOTS
    for path in root.rglob("*")
    if path.name.endswith((".toml", ".deck.md"))
)
DECK_IDS = [f"{root.name}/{path}" for root, path in DECK_FILES]


def render(files: dict[str, str], path: str):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_deck_file(bundle, path)


def source_lines(snapshot, path, start, end) -> str:
    lines = (snapshot / path).read_text(encoding="utf-8").split("\n")
    return "\n".join(lines[start - 1 : end])


def plain_lines(text: str) -> list[str]:
    """Lines of a content string that appear verbatim in TOML source (no escapes involved)."""
    return [line for line in text.split("\n") if line.strip() and "\\" not in line and '"' not in line]


@pytest.mark.corpus("the decks of the real projects' snapshots are in the corpus")
def test_the_corpus_has_decks_to_check():
    assert len([root for root, _ in DECK_FILES if root.parent == CORPUS / "gambit"]) >= 30


@pytest.mark.parametrize(("snapshot", "path"), DECK_FILES, ids=DECK_IDS)
def test_every_deck_loads_without_errors_in_spec(snapshot, path):
    document = render_document(DirectoryBundle(snapshot), path, RenderOptions(profile="spec"))
    assert document.kind == "deck"
    assert document.cases or any("no samples" in w.message for w in document.warnings)
    assert not [w for w in document.warnings if w.severity == "error"]
    # By default the only errors are what aibff's calibrate itself stopped on.
    default = render_document(DirectoryBundle(snapshot), path)
    assert all(
        w.message.startswith("aibff's calibrate (August 2025) stops on this deck")
        for w in default.warnings
        if w.severity == "error"
    )


@pytest.mark.parametrize(
    ("snapshot", "path"),
    [(s, p) for s, p in DECK_FILES if p.endswith(".toml")],
    ids=[i for i in DECK_IDS if i.endswith(".toml")],
)
def test_sample_spans_hold_that_samples_text(snapshot, path):
    document = render_deck_file(DirectoryBundle(snapshot), path)
    for case in document.cases:
        assert case.span is not None and case.span.path == path
        sample_source = source_lines(snapshot, path, case.span.start_line, case.span.end_line)
        assert case.id in sample_source
        for message in case.messages:
            assert message.span is not None
            assert case.span.start_line <= message.span.start_line <= message.span.end_line
            assert message.span.end_line <= case.span.end_line
            origin = message.segments[0].origin
            assert origin.kind == OriginKind.CASE_TEXT and origin.path == path
            content_source = source_lines(snapshot, path, origin.start_line, origin.end_line)
            for line in plain_lines(message.content):
                assert line in content_source, (case.id, line)


RELEASE_NOTES = '''# Samples for a grader of release notes

[samples.clear-notes]
score = 3

[[samples.clear-notes.messages]]
role = "user"
content = """
Write release notes for these changes:

- fixed the median of an even-length list
- added a --quiet flag
"""

[[samples.clear-notes.messages]]
role = "assistant"
content = """
## Fixes

- `median` now averages the two middle values.

## New

- `--quiet` silences progress output.
"""

[samples.vague-notes]
score = -2

[[samples.vague-notes.messages]]
role = "user"
content = "Write release notes."

[[samples.vague-notes.messages]]
role = "assistant"
content = "Various improvements."
'''


def test_spans_of_a_multi_line_content_string_cover_all_its_lines():
    first = render({"notes.toml": RELEASE_NOTES}, "notes.toml").cases[0]
    assert first.id == "clear-notes"
    # From the sample's table header to the closing quotes of its last message.
    assert (first.span.start_line, first.span.end_line) == (3, 25)
    user, assistant = first.messages
    assert (user.span.start_line, user.span.end_line) == (6, 13)
    assert (user.segments[0].origin.start_line, user.segments[0].origin.end_line) == (8, 13)
    assert (assistant.segments[0].origin.start_line, assistant.segments[0].origin.end_line) == (17, 25)
    assert first.metadata == {"score": 3}


def test_samples_written_before_their_table_header_still_get_one_span():
    text = (
        '[[samples.short-answer.messages]]\nrole = "user"\ncontent = "What is the capital of France?"\n\n'
        '[[samples.short-answer.messages]]\nrole = "assistant"\ncontent = "Paris."\n\n'
        '[samples.short-answer]\nscore = 3\ndescription = "Answers with the city alone"\n\n'
        '[[samples.long-answer.messages]]\nrole = "user"\ncontent = "And of Spain?"\n'
    )
    case = render({"answers.toml": text}, "answers.toml").cases[0]
    assert case.id == "short-answer"
    assert (case.span.start_line, case.span.end_line) == (1, 11)
    assert case.metadata == {"score": 3, "description": "Answers with the city alone"}


def test_seed_004_list_format_renders_each_sample_with_expected_and_tags():
    document = render(
        {
            "d.toml": """
[[samples]]
messages = [
  { role = "user", content = "What is 2+2?" },
  { role = "assistant", content = "The answer is 4" }
]
expected = { score = 1, reason = "Correct answer" }
tags = ["math"]

[[samples]]
messages = [{ role = "narrator", content = "roles are not restricted" }]
"""
        },
        "d.toml",
    )
    first, second = document.cases
    assert [m.role for m in first.messages] == ["user", "assistant"]
    assert first.metadata == {"expected": {"score": 1, "reason": "Correct answer"}, "tags": ["math"]}
    assert first.messages[1].span.start_line == 5
    assert (first.span.start_line, first.span.end_line) == (2, 8)
    assert second.messages[0].role == "narrator"
    assert second.id == "sample-2"


@pytest.mark.parametrize(
    ("sample", "field", "message", "line"),
    [
        ("expected = 1", "messages", "Sample must have messages array", 1),  # absent: the header
        ("messages = []", "messages", "Messages array cannot be empty", 3),
        ('messages = [{ content = "x" }]', "messages[0].role", "Each message must have a role string", 3),
        (
            'messages = [\n  { role = "user", content = "ok" },\n  { role = "user", content = 7 },\n]',
            "messages[1].content",
            "Each message must have a content string",
            5,
        ),
        (
            'messages = [{ role = "user", content = "" }]',
            "messages[0].content",
            "Each message must have a content string",
            3,
        ),
    ],
)
def test_a_sample_failing_seed_004_validation_is_skipped_with_sample_field_and_line(
    sample, field, message, line
):
    document = render(
        {
            "d.toml": f'[[samples]]\nid = "bad"\n{sample}\n\n[[samples]]\n'
            f'id = "good"\nmessages = [{{ role = "user", content = "hi" }}]\n'
        },
        "d.toml",
    )
    assert [case.id for case in document.cases] == ["good"]
    [warning] = document.warnings
    assert warning.message == f"sample 'bad' skipped: {field}: {message}"
    assert warning.line == line and warning.path == "d.toml"


def test_invalid_toml_is_an_input_error_with_line_and_column():
    with pytest.raises(InputError) as caught:
        render({"d.toml": '[samples.a]\nscore = 3\nmessages = [ { role = "user" ]\n'}, "d.toml")
    diagnostic = caught.value.diagnostic
    assert diagnostic.path == "d.toml" and diagnostic.line == 3 and diagnostic.column is not None
    assert "invalid TOML" in diagnostic.message


def test_legacy_samples_are_reported_converted_and_offered_as_toml():
    legacy = (
        "# A tone grader: samples in the userMessage/assistantResponse form\n\n"
        '[contexts.requestType]\ntype = "string"\nquestion = "What type of request is this?"\n\n'
        '[samples.brief-and-kind]\nuserMessage = "How do I undo my last change?"\n'
        'assistantResponse = "Press Ctrl+Z (Cmd+Z on a Mac)."\nscore = 3\n'
        'description = "Answers at once"\n\n'
        '[samples.lecture]\nuserMessage = "What is 3+4?"\n'
        'assistantResponse = "Addition is one of the four operations of arithmetic: 7."\nscore = -2\n'
    )
    document = render({"decks/tone.deck.toml": legacy}, "decks/tone.deck.toml")
    assert [case.id for case in document.cases] == ["brief-and-kind", "lecture"]
    assert any(
        "userMessage/assistantResponse" in w.message and "replaced" in w.message for w in document.warnings
    )
    [(name, converted)] = document.conversions.items()
    assert name == "tone.deck.converted.toml"
    data = tomllib.loads(converted)
    assert data["contexts"]["requestType"]["question"] == "What type of request is this?"
    for case in document.cases:
        sample = data["samples"][case.id]
        assert "userMessage" not in sample
        assert sample["messages"] == [{"role": m.role, "content": m.content} for m in case.messages]
        assert sample["score"] == case.metadata["score"]
    again = render({"c.toml": converted}, "c.toml")
    assert not again.conversions
    assert [c.id for c in again.cases] == [c.id for c in document.cases]


def test_converted_multi_line_content_survives_the_round_trip():
    document = render(
        {
            "d.toml": '[samples.a]\nuserMessage = """line one\nit\'s \'\'quoted\'\'\n"""\n'
            'assistantResponse = "ends with a quote \'"\n'
        },
        "d.toml",
    )
    converted = tomllib.loads(document.conversions["d.converted.toml"])
    assert converted["samples"]["a"]["messages"][0]["content"] == "line one\nit's ''quoted''\n"
    assert converted["samples"]["a"]["messages"][1]["content"] == "ends with a quote '"


def test_spec_reads_a_grader_deck_as_its_system_message_before_each_embedded_sample():
    root = REPO / "fixtures" / "examples" / "tone-grader-deck"
    path = "graders/tone.deck.md"
    document = render_deck_file(DirectoryBundle(root), path, RenderOptions(profile="spec"))
    assert [c.id for c in document.cases] == ["concise-and-warm", "rambling", "curt-follow-up"]
    system, user, assistant = document.cases[0].messages
    assert system.role == "system" and (user.role, assistant.role) == ("user", "assistant")
    # Front matter is metadata, not prompt; the embedded instructions are inlined; TOML embeds vanish.
    assert system.content.startswith("# Tone Grader\n\n## How to grade\n")
    assert "+++" not in system.content and "![" not in system.content
    assert "\n\n\n" not in system.content
    paths = {segment.origin.path for segment in system.segments}
    assert paths == {path, "graders/base.md"}
    for segment in system.segments:
        assert segment.origin.kind == OriginKind.DECK
        source = source_lines(root, segment.origin.path, segment.origin.start_line, segment.origin.end_line)
        for line in segment.text.split("\n"):
            assert line in source
    assert document.cases[0].span.path.endswith("tone-samples.toml")
    assert document.cases[0].metadata["contexts"]["fullConversation"] == "What was the full conversation?"


def test_embed_fragments_pick_a_markdown_section_and_named_samples():
    guide = "# Grader guide\n\n## How to grade\n\nScore from -3 to 3.\n\n## History\n\nWritten in 2025.\n"
    deck = (
        "# Notes grader\n\n> ![how to grade](./guide.md#how-to-grade)\n\n"
        "[^clear]: ![sample](./notes.toml#samples.clear)\n"
        "[^vague]: ![sample](./notes.toml#samples.vague)\n"
    )
    samples = "".join(
        f'[samples.{name}]\nscore = {score}\nmessages = [{{ role = "user", content = "Notes?" }}]\n\n'
        for name, score in (("clear", 3), ("unused", 0), ("vague", -2))
    )
    document = render({"notes.deck.md": deck, "guide.md": guide, "notes.toml": samples}, "notes.deck.md")
    # The deck embeds two of the file's three samples by #samples.<id>.
    assert [c.id for c in document.cases] == ["clear", "vague"]
    system = document.cases[0].messages[0]
    assert "> ## How to grade\n\nScore from -3 to 3." in system.content
    assert "History" not in system.content  # outside the embedded section


def test_embed_loops_and_escapes_are_reported_with_file_and_line():
    document = render(
        {
            "a.deck.md": "# A\n\n![b](b.md)\n",
            "b.md": "B text\n![back to a](a.deck.md)\n![out](../../secret.md)\n",
        },
        "a.deck.md",
    )
    errors = {(w.path, w.line): w.message for w in document.warnings}
    assert "embed loop: a.deck.md -> b.md -> a.deck.md" in errors[("b.md", 2)]
    assert "outside the bundle" in errors[("b.md", 3)]
    [case] = document.cases
    assert case.messages[0].content == "# A\n\nB text\n\n"


def test_a_missing_embed_is_an_error_naming_the_line():
    document = render({"a.deck.md": "one\n\n![](missing.toml)\n"}, "a.deck.md")
    [warning] = document.warnings
    assert warning.severity == "error" and warning.line == 3 and "missing.toml" in warning.message


@pytest.fixture(scope="module")
def worker():
    """Hostile decks render in a worker with a small CPU budget, so a regression fails the test
    instead of hanging the suite or eating the machine's memory."""
    pool = bounded.Pool(bounded.Limits(cpu_seconds=5, workers=1))
    yield pool
    pool.close()


def _system_text(files: dict[str, str], path: str) -> str:
    return render(files, path).cases[0].messages[0].content


def test_an_embed_bomb_is_refused_at_the_line_of_the_decks_embed(worker):
    # Each file embeds the next twice, thirty files deep: a billion copies if followed.
    files = {
        "g.deck.md": "# Grader\n\n![](p0.md)\n",
        "p30.md": "x\n",
        **{f"p{i}.md": f"![](p{i + 1}.md) ![](p{i + 1}.md)\n" for i in range(30)},
    }
    with pytest.raises(LimitExceeded, match=f"more than {MAX_EMBEDS} embeds.*embed bomb") as raised:
        worker.call(_system_text, files, "g.deck.md")
    assert (raised.value.diagnostic.path, raised.value.diagnostic.line) == ("g.deck.md", 3)


def test_embeds_that_bring_in_too_much_text_are_refused(worker):
    files = {"g.deck.md": "intro\n" + "![](big.md)\n" * 200, "big.md": "x" * 100_000}
    with pytest.raises(LimitExceeded, match="more than 10 MB of text") as raised:
        worker.call(_system_text, files, "g.deck.md")
    assert raised.value.diagnostic.line == 2 + 10_485_760 // 100_000


def test_a_deck_may_embed_the_same_files_a_few_times():
    files = {
        "g.deck.md": "![](a.md)\n![](a.md#part)\n![](d.toml)\n![](d.toml#samples.s)\n",
        "a.md": "intro\n\n# Part\n\npart text\n",
        "d.toml": '[samples.s]\nmessages = [{role = "user", content = "hi"}]\n',
    }
    assert _system_text(files, "g.deck.md").count("part text") == 2


def test_lines_of_unclosed_embeds_and_runs_of_heading_marks_render(worker):
    # aibff's embed pattern backtracks cubically on `![](` with no `)`, and the heading pattern
    # quadratically on a run of ` #`: each took minutes.
    unclosed = "![](" * 50_000 + "\n"
    assert worker.call(_system_text, {"g.deck.md": unclosed}, "g.deck.md") == unclosed
    heading = "# " + " #" * 200_000 + "x\n"
    assert (
        worker.call(_system_text, {"g.deck.md": "![](h.md#nothing)\n", "h.md": heading}, "g.deck.md")
        == heading + "\n"
    )


def _render_in_worker(files: dict[str, str], path: str):
    return render(files, path)


def test_a_ten_thousand_sample_deck_renders_in_bounded_time(worker):
    # Bounded by the worker's 5 s of CPU time, not the wall clock: a busy machine cannot fail it.
    blocks = [
        f'[samples.s{i}]\nscore = 1\n\n[[samples.s{i}.messages]]\nrole = "user"\n'
        f'content = """\nquestion {i}\n"""\n'
        for i in range(10_000)
    ]
    document = worker.call(_render_in_worker, {"big.toml": "\n".join(blocks)}, "big.toml")
    assert len(document.cases) == 10_000
    assert document.cases[-1].messages[0].content == "question 9999\n"
    assert document.cases[-1].span.start_line == 9999 * 9 + 1  # 8 lines and a blank per sample
