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
DECK_ROOTS = [REPO / "fixtures" / "examples" / "tone-grader-deck", REPO / "tests" / "oracle" / "aibff" / "decks",
              *(snapshot for snapshot in corpus_files("gambit/*") if snapshot.is_dir())]
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
    return "\n".join(lines[start - 1:end])


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
    assert all(w.message.startswith("aibff's calibrate (August 2025) stops on this deck")
               for w in default.warnings if w.severity == "error")


@pytest.mark.parametrize(("snapshot", "path"), [(s, p) for s, p in DECK_FILES if p.endswith(".toml")],
                         ids=[i for i in DECK_IDS if i.endswith(".toml")])
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


@pytest.mark.corpus("a real project's deck as the example")
def test_spans_of_a_multi_line_content_string_cover_all_its_lines():
    snapshot = CORPUS / "gambit" / "bolt-foundry-2025-06-27-7f538110"
    path = "infra/bft/tasks/__graders__/commit-grader.deck.toml"
    document = render_deck_file(DirectoryBundle(snapshot), path)
    first = document.cases[0]
    assert first.id == "excellent-commit"
    assert (first.span.start_line, first.span.end_line) == (3, 63)
    user, assistant = first.messages
    assert (user.span.start_line, user.span.end_line) == (6, 19)
    assert (user.segments[0].origin.start_line, user.segments[0].origin.end_line) == (8, 19)
    assert (assistant.segments[0].origin.start_line, assistant.segments[0].origin.end_line) == (23, 63)
    assert first.metadata == {"score": 3}


@pytest.mark.corpus("a real project's deck as the example")
def test_samples_written_before_their_table_header_still_get_one_span():
    snapshot = CORPUS / "gambit" / "bolt-foundry-2025-08-02-e8937c2a"
    path = "apps/aibff/__tests__/fixtures/test-grader-samples.toml"
    case = render_deck_file(DirectoryBundle(snapshot), path).cases[0]
    assert case.id == "good-response"
    assert (case.span.start_line, case.span.end_line) == (1, 11)
    assert case.metadata == {"score": 3, "description": "Direct and accurate response"}


def test_seed_004_list_format_renders_each_sample_with_expected_and_tags():
    document = render({"d.toml": '''
[[samples]]
messages = [
  { role = "user", content = "What is 2+2?" },
  { role = "assistant", content = "The answer is 4" }
]
expected = { score = 1, reason = "Correct answer" }
tags = ["math"]

[[samples]]
messages = [{ role = "narrator", content = "roles are not restricted" }]
'''}, "d.toml")
    first, second = document.cases
    assert [m.role for m in first.messages] == ["user", "assistant"]
    assert first.metadata == {"expected": {"score": 1, "reason": "Correct answer"}, "tags": ["math"]}
    assert first.messages[1].span.start_line == 5
    assert (first.span.start_line, first.span.end_line) == (2, 8)
    assert second.messages[0].role == "narrator"
    assert second.id == "sample-2"


@pytest.mark.parametrize(("sample", "field", "message", "line"), [
    ('expected = 1', "messages", "Sample must have messages array", 1),  # absent: the header
    ("messages = []", "messages", "Messages array cannot be empty", 3),
    ('messages = [{ content = "x" }]', "messages[0].role", "Each message must have a role string", 3),
    ('messages = [\n  { role = "user", content = "ok" },\n  { role = "user", content = 7 },\n]',
     "messages[1].content", "Each message must have a content string", 5),
    ('messages = [{ role = "user", content = "" }]', "messages[0].content",
     "Each message must have a content string", 3),
])
def test_a_sample_failing_seed_004_validation_is_skipped_with_sample_field_and_line(
        sample, field, message, line):
    document = render({"d.toml": f'[[samples]]\nid = "bad"\n{sample}\n\n[[samples]]\n'
                                 f'id = "good"\nmessages = [{{ role = "user", content = "hi" }}]\n'},
                      "d.toml")
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


@pytest.mark.corpus("a real project's deck as the example")
def test_legacy_samples_are_reported_converted_and_offered_as_toml():
    snapshot = CORPUS / "gambit" / "bolt-foundry-2025-06-10-a0163f25"
    path = "decks/example-tone-grader.deck.toml"
    document = render_deck_file(DirectoryBundle(snapshot), path)
    assert any("userMessage/assistantResponse" in w.message and "replaced" in w.message
               for w in document.warnings)
    [(name, converted)] = document.conversions.items()
    assert name == "example-tone-grader.deck.converted.toml"
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
    document = render({"d.toml": '[samples.a]\nuserMessage = """line one\nit\'s \'\'quoted\'\'\n"""\n'
                                 'assistantResponse = "ends with a quote \'"\n'}, "d.toml")
    converted = tomllib.loads(document.conversions["d.converted.toml"])
    assert converted["samples"]["a"]["messages"][0]["content"] == "line one\nit's ''quoted''\n"
    assert converted["samples"]["a"]["messages"][1]["content"] == "ends with a quote '"


@pytest.mark.corpus("a real project's deck as the example")
def test_spec_reads_a_grader_deck_as_its_system_message_before_each_embedded_sample():
    snapshot = CORPUS / "gambit" / "bolt-foundry-2025-07-14-b9ebc31f"
    path = "customers/example-customer.com/decks/line-item-json-grader.deck.md"
    document = render_deck_file(DirectoryBundle(snapshot), path, RenderOptions(profile="spec"))
    assert [c.id for c in document.cases] == [
        "valid_json_extraction", "no_json_present", "json_with_extra_text"]
    system, user, assistant = document.cases[0].messages
    assert system.role == "system" and (user.role, assistant.role) == ("user", "assistant")
    # Front matter is metadata, not prompt; the embedded base deck is inlined; TOML embeds vanish.
    assert system.content.startswith("# Line Item JSON Grader\n\n# Grader Base Deck")
    assert "+++" not in system.content and "![" not in system.content
    assert "\n\n\n" not in system.content
    paths = {segment.origin.path for segment in system.segments}
    assert paths == {path, "customers/example-customer.com/decks/grader-base/grader-base.deck.md"}
    for segment in system.segments:
        assert segment.origin.kind == OriginKind.DECK
        source = source_lines(snapshot, segment.origin.path, segment.origin.start_line,
                              segment.origin.end_line)
        for line in segment.text.split("\n"):
            assert line in source
    assert document.cases[0].span.path.endswith("line-item-json-grader.deck.toml")
    assert document.cases[0].metadata["contexts"]["fullConversation"] == "What was the full conversation?"


@pytest.mark.corpus("a real project's deck as the example")
def test_embed_fragments_pick_a_markdown_section_and_named_samples():
    snapshot = CORPUS / "gambit" / "bolt-foundry-2025-06-17-90d70716"
    document = render_deck_file(DirectoryBundle(snapshot),
                                "decks/graders/team-summary-analysis-grader.deck.md")
    # The deck embeds four of the file's five samples by #samples.<id>.
    assert [c.id for c in document.cases] == [
        "excellent-summary", "good-summary", "poor-summary", "terrible-summary"]
    older = CORPUS / "gambit" / "bolt-foundry-2025-06-10-a0163f25"
    system = render_deck_file(DirectoryBundle(older), "decks/example-tone-grader.deck.md").cases[0].messages[0]
    assert "> ## Grader Evaluation" in system.content
    assert "Context Variables" not in system.content  # outside the embedded section


def test_embed_loops_and_escapes_are_reported_with_file_and_line():
    document = render({
        "a.deck.md": "# A\n\n![b](b.md)\n",
        "b.md": "B text\n![back to a](a.deck.md)\n![out](../../secret.md)\n",
    }, "a.deck.md")
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
    files = {"g.deck.md": "# Grader\n\n![](p0.md)\n", "p30.md": "x\n",
             **{f"p{i}.md": f"![](p{i + 1}.md) ![](p{i + 1}.md)\n" for i in range(30)}}
    with pytest.raises(LimitExceeded, match=f"more than {MAX_EMBEDS} embeds.*embed bomb") as raised:
        worker.call(_system_text, files, "g.deck.md")
    assert (raised.value.diagnostic.path, raised.value.diagnostic.line) == ("g.deck.md", 3)


def test_embeds_that_bring_in_too_much_text_are_refused(worker):
    files = {"g.deck.md": "intro\n" + "![](big.md)\n" * 200, "big.md": "x" * 100_000}
    with pytest.raises(LimitExceeded, match="more than 10 MB of text") as raised:
        worker.call(_system_text, files, "g.deck.md")
    assert raised.value.diagnostic.line == 2 + 10_485_760 // 100_000


def test_a_deck_may_embed_the_same_files_a_few_times():
    files = {"g.deck.md": "![](a.md)\n![](a.md#part)\n![](d.toml)\n![](d.toml#samples.s)\n",
             "a.md": "intro\n\n# Part\n\npart text\n",
             "d.toml": '[samples.s]\nmessages = [{role = "user", content = "hi"}]\n'}
    assert _system_text(files, "g.deck.md").count("part text") == 2


def test_lines_of_unclosed_embeds_and_runs_of_heading_marks_render(worker):
    # aibff's embed pattern backtracks cubically on `![](` with no `)`, and the heading pattern
    # quadratically on a run of ` #`: each took minutes.
    unclosed = "![](" * 50_000 + "\n"
    assert worker.call(_system_text, {"g.deck.md": unclosed}, "g.deck.md") == unclosed
    heading = "# " + " #" * 200_000 + "x\n"
    assert worker.call(_system_text, {"g.deck.md": "![](h.md#nothing)\n", "h.md": heading},
                       "g.deck.md") == heading + "\n"


def _render_in_worker(files: dict[str, str], path: str):
    return render(files, path)


def test_a_ten_thousand_sample_deck_renders_in_bounded_time(worker):
    # Bounded by the worker's 5 s of CPU time, not the wall clock: a busy machine cannot fail it.
    blocks = [f'[samples.s{i}]\nscore = 1\n\n[[samples.s{i}.messages]]\nrole = "user"\n'
              f'content = """\nquestion {i}\n"""\n' for i in range(10_000)]
    document = worker.call(_render_in_worker, {"big.toml": "\n".join(blocks)}, "big.toml")
    assert len(document.cases) == 10_000
    assert document.cases[-1].messages[0].content == "question 9999\n"
    assert document.cases[-1].span.start_line == 9999 * 9 + 1  # 8 lines and a blank per sample
