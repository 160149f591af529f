"""gambit 1.0 decks: which files are gambit's, where each stretch of the system message came from,
gambit's snippets and refusals, and the command line's context, message and tools. What gambit
sends is checked against gambit-core itself in tests/oracle/test_gambit_goldens.py."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.decks.gambit_text import embeds
from inspector.core.documents import detect_format, render_document
from inspector.core.model import InputError, OriginKind
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message
from tests.conftest import REPO, corpus_files, path_id, run_render

DECK = """+++
label = "support"
[modelParams]
model = "openai/gpt-4o-mini"
+++

  You help.

![tone](./cards/tone.card.md)
![rules](./cards/rules.card.md)
"""
TONE = '+++\nlabel = "tone"\n+++\n\n  Be kind.  \n\n'
RULES = "Rule one.\nRule two.\n"


def _render(files: dict[str, str], path: str = "support/PROMPT.md", **options):
    bundle = MemoryBundle({name: text.encode() for name, text in files.items()})
    return render_document(bundle, path, RenderOptions(**options))


def _deck(**extra: str) -> dict[str, str]:
    return {
        "support/PROMPT.md": DECK,
        "support/cards/tone.card.md": TONE,
        "support/cards/rules.card.md": RULES,
        **extra,
    }


@pytest.mark.parametrize(
    "path",
    [
        *sorted(REPO.glob("fixtures/examples/*/graders/*.deck.md")),
        *sorted(REPO.glob("tests/oracle/aibff/decks/**/*.deck.md")),
        *corpus_files("gambit/**/*.deck.md"),
    ],
    ids=path_id,
)
def test_aibffs_2025_grader_decks_stay_aibff_decks(path: Path):
    assert detect_format(str(path), path.read_text()) == "deck"


@pytest.mark.parametrize(
    "path, text",
    [
        ("x/PROMPT.md", "plain text"),
        ("cards/a.card.md", "Card."),
        ("a.deck.md", '+++\nlabel = "a"\n+++\nBody.\n'),
        ("a.deck.md", "![c](gambit://snippets/x.md)"),
        ("a.deck.md", "---\nlabel: a\n---\nBody.\n"),
    ],
)
def test_gambit_decks_and_cards_are_recognised(path, text):
    assert detect_format(path, text) == "gambit"


def test_a_deck_md_embedding_toml_samples_is_aibffs():
    assert detect_format("g.deck.md", '+++\nlabel = "x"\n+++\n![s](./s.deck.toml)\n') == "deck"


def test_cards_are_trimmed_and_inlined_where_they_stand_with_their_lines():
    case = _render(_deck()).cases[0]
    system = case.messages[0]
    assert "".join(s.text for s in system.segments) == "You help.\n\nBe kind.\nRule one.\nRule two."
    origins = [(s.text, s.origin.path, s.origin.start_line) for s in system.segments]
    assert origins == [
        ("You help.\n\n", "support/PROMPT.md", 7),
        ("Be kind.", "support/cards/tone.card.md", 5),
        ("\n", "support/PROMPT.md", 9),
        ("Rule one.\nRule two.", "support/cards/rules.card.md", 1),
    ]
    assert [m.role for m in case.sent_messages] == ["system"]


def test_a_snippet_not_in_the_upload_is_a_marked_placeholder_with_a_warning():
    files = _deck()
    files["support/PROMPT.md"] += "\n![ctx](gambit://snippets/context.md)\n"
    document = _render(files)
    last = document.cases[0].messages[0].segments[-1]
    assert last.origin.kind == OriginKind.MARKER and "context.md" in last.text
    assert any("gambit://snippets/context.md" in w.message and w.line == 12 for w in document.warnings)


def test_a_snippet_uploaded_with_gambit_core_is_inlined_from_that_file():
    files = _deck(**{"vendor/gambit-core/snippets/context.md": '+++\nlabel = "c"\n+++\n\nRead it.\n'})
    files["support/PROMPT.md"] += "\n![ctx](gambit://snippets/context.md)\n"
    segment = _render(files).cases[0].messages[0].segments[-1]
    assert (segment.text, segment.origin.path) == ("Read it.", "vendor/gambit-core/snippets/context.md")


@pytest.mark.parametrize(
    "extra, path, line, words",
    [
        (
            {"support/cards/tone.card.md": "![back](../PROMPT.md)\n"},
            "support/cards/tone.card.md",
            1,
            "Card/embed cycle detected: support/PROMPT.md -> support/cards/tone.card.md -> support/PROMPT.md",
        ),
        (
            {"support/cards/rules.card.md": '+++\n[handlers.onError]\npath = "x.md"\n+++\n'},
            "support/cards/rules.card.md",
            2,
            "cannot declare handlers",
        ),
    ],
)
def test_what_gambit_refuses_is_an_error_at_its_file_and_line(extra, path, line, words):
    with pytest.raises(InputError) as raised:
        _render(_deck(**extra))
    found = raised.value.diagnostic
    assert (found.path, found.line) == (path, line) and words in found.message


def test_a_missing_card_is_an_error_at_the_embed():
    files = _deck()
    del files["support/cards/rules.card.md"]
    with pytest.raises(InputError) as raised:
        _render(files)
    assert (raised.value.diagnostic.path, raised.value.diagnostic.line) == ("support/PROMPT.md", 10)


def test_an_action_without_description_is_refused_at_the_actions_table():
    deck = '+++\nmodelParams = { model = "m" }\n\n[[actions]]\nname = "go"\npath = "./c.md"\n+++\nx\n'
    with pytest.raises(InputError) as raised:
        _render({"d/PROMPT.md": deck}, "d/PROMPT.md")
    assert raised.value.diagnostic.line == 4 and "description" in str(raised.value)


def test_context_and_message_make_gambits_first_turn():
    case = _render(_deck(), gambit_context='{"n": 1.0, "s": "é"}', gambit_message="[1,2]").cases[0]
    sent = [chat_message(m) for m in case.sent_messages]
    assert sent[1]["tool_calls"][0]["function"] == {"name": "gambit_context", "arguments": "{}"}
    assert sent[2] == {
        "role": "tool",
        "content": '{"n":1,"s":"é"}',
        "name": "gambit_context",
        "tool_call_id": "call-gambit-context",
    }
    assert sent[3] == {"role": "user", "content": "[\n  1,\n  2\n]"}


def test_a_deck_without_a_model_says_gambit_will_not_run_it():
    case = _render({"d/PROMPT.md": "Just text.\n"}, "d/PROMPT.md").cases[0]
    assert any(w.severity == "error" and "has no model" in w.message for w in case.warnings)


def test_embed_scanning_matches_gambits_pattern_across_lines_and_stays_linear():
    text = "a ![x\ny](p.md) ![](q) ![z](r"
    assert [(e.target, text[e.start : e.end]) for e in embeds(text, 0, len(text))] == [
        ("p.md", "![x\ny](p.md)"),
        ("q", "![](q)"),
    ]
    hostile = "![" * 200_000
    assert list(embeds(hostile, 0, len(hostile))) == []


def test_the_cli_prints_tools_and_takes_context_and_message(tmp_path):
    for name, text in _deck().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    code, cases, err = run_render(
        str(tmp_path / "support/PROMPT.md"),
        "--root",
        str(tmp_path),
        "--context",
        '{"a": 1}',
        "--message",
        "Hi",
    )
    assert code == 0, err
    assert [m["role"] for m in cases[0]["messages"]] == ["system", "assistant", "tool", "user"]
    assert [t["function"]["name"] for t in cases[0]["tools"]] == [
        "read_file",
        "list_dir",
        "grep_files",
        "apply_patch",
        "exec",
    ]


def test_an_upload_lists_gambit_prompt_md_but_not_agentv_5s_prompt_file():
    from inspector.core.documents import list_documents

    bundle = MemoryBundle(
        {
            "support/PROMPT.md": DECK.encode(),
            "support/cards/tone.card.md": TONE.encode(),
            "evals/PROMPT.md": b"Answer briefly.\n",
            "evals/suite.yaml": b"tests: []\n",
            "plain/PROMPT.md": b"No front matter, no eval file.\n",
        }
    )
    assert set(list_documents(bundle)) == {"support/PROMPT.md", "evals/suite.yaml", "plain/PROMPT.md"}


def test_cards_embedding_each_other_twice_over_are_refused_as_an_embed_bomb():
    from inspector.core.safe_parse import LimitExceeded

    files = {"d/PROMPT.md": "![a](./c0.card.md)\n"}
    for level in range(30):
        files[f"d/c{level}.card.md"] = f"![x](./c{level + 1}.card.md)![y](./c{level + 1}.card.md)"
    files["d/c30.card.md"] = "leaf"
    with pytest.raises(LimitExceeded) as raised:
        _render(files, "d/PROMPT.md")
    assert "embed bomb" in str(raised.value)


GRADER = (
    '+++\ncontextSchema = "./turn.zod.ts"\nresponseSchema = "./out.zod.ts"\n'
    '[modelParams]\nmodel = "m"\n+++\nGrade politeness.\n'
)
CONVERSATION = '[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]'


def test_a_grader_with_its_own_turn_schema_gets_one_case_per_assistant_message():
    files = {
        "g/PROMPT.md": GRADER,
        "g/turn.zod.ts": "export default z.object({ session: s, messageToGrade: m });",
        "g/out.zod.ts": "export default z.object({});",
    }
    document = _render(files, "g/PROMPT.md", gambit_conversation=CONVERSATION)
    assert [case.id for case in document.cases] == ["g@turn-1"]
    case = document.cases[0]
    assert [m.role for m in case.sent_messages] == ["system", "assistant", "tool"]
    assert '"messageToGrade":{"role":"assistant","content":"Yo"}' in "".join(
        s.text for s in case.messages[2].segments
    )
    assert any("./turn.zod.ts" in w.message for w in case.warnings)


def test_a_deck_that_is_no_grader_plays_the_user_for_each_assistant_message():
    conversation = json.dumps(
        [
            {"role": "assistant", "content": "Hi, what do you need?"},
            {"role": "user", "content": "  A refund.  "},
            {"role": "assistant", "content": {"step": 2}},
        ]
    )
    document = _render(_deck(), gambit_conversation=conversation, gambit_context='{"a": 1}')
    assert [case.id for case in document.cases] == ["support@reply-1", "support@reply-2"]
    second = [chat_message(m) for m in document.cases[1].sent_messages]
    assert [m["role"] for m in second] == ["system", "assistant", "tool", "user", "assistant", "user"]
    assert [m["content"] for m in second[3:]] == ["Hi, what do you need?", "A refund.", '{"step":2}']


def test_model_params_fill_the_export_settings_the_user_left_empty():
    from inspector.core.export import ExportSettings, export_case

    files = _deck()
    files["support/PROMPT.md"] = files["support/PROMPT.md"].replace(
        'model = "openai/gpt-4o-mini"', 'model = ["", "gpt-4o-mini"]\ntemperature = 0\nmax_tokens = 77'
    )
    case = _render(files).cases[0]
    payload = export_case(case, "openai-responses").payload
    assert (payload["model"], payload["temperature"], payload["max_output_tokens"]) == ("gpt-4o-mini", 0, 77)
    assert export_case(case, "openai-responses", ExportSettings(model="o3")).payload["model"] == "o3"


def test_cards_nested_past_the_depth_limit_are_refused_at_a_line():
    from inspector.core.safe_parse import LimitExceeded

    files = {"d/PROMPT.md": "![a](./c0.card.md)\n"}
    for level in range(200):
        files[f"d/c{level}.card.md"] = f"Level {level}.\n![x](./c{level + 1}.card.md)\n"
    files["d/c200.card.md"] = "leaf"
    with pytest.raises(LimitExceeded) as raised:
        _render(files, "d/PROMPT.md")
    assert raised.value.diagnostic.line == 2 and "deep" in str(raised.value)


def test_the_cli_reads_snippets_from_an_installed_gambit_core(tmp_path):
    core = tmp_path / "core"
    (core / "snippets").mkdir(parents=True)
    (core / "snippets" / "context.md").write_text('+++\nlabel = "c"\n+++\n\nRead the context.\n')
    deck = tmp_path / "deck" / "PROMPT.md"
    deck.parent.mkdir()
    deck.write_text('+++\nmodelParams = { model = "m" }\n+++\n![c](gambit://snippets/context.md)\nGo.\n')
    code, cases, err = run_render(str(deck), "--root", str(deck.parent), "--gambit-core", str(core))
    assert code == 0, err
    assert cases[0]["messages"][0]["content"] == "Read the context.\nGo."
    code, _, err = run_render(str(deck), "--root", str(deck.parent), "--gambit-core", str(tmp_path))
    assert code == 2 and "no snippets/ folder" in err


@pytest.mark.parametrize(
    "front, line",
    [
        ("---\nlabel: ok\nmodelParams: [unclosed\n---\nBody.\n", 3),
        ('+++\nlabel = "ok"\nmodelParams = {\n+++\nBody.\n', 3),
    ],
)
def test_bad_front_matter_is_an_error_at_its_line_of_the_file(front, line):
    with pytest.raises(InputError) as raised:
        _render({"d/PROMPT.md": front}, "d/PROMPT.md")
    found = raised.value.diagnostic
    assert found.path == "d/PROMPT.md" and "Failed to parse front matter" in found.message
    assert found.line in (line, line + 1)


def _installed(tmp_path: Path, **snippets: str) -> Path:
    core = tmp_path / "gambit-core"
    for name, text in snippets.items():
        (core / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (core / "snippets" / name).write_text(text)
    (core / "snippets").mkdir(parents=True, exist_ok=True)
    return core


def _embedding(name: str) -> dict[str, str]:
    files = _deck()
    files["support/PROMPT.md"] += f"\n![s](gambit://snippets/{name})\n"
    return files


def test_an_installed_gambit_cores_snippet_is_inlined_and_traced_to_its_file(tmp_path):
    core = _installed(tmp_path, **{"context.md": '+++\nlabel = "c"\n+++\n\nRead it.\n'})
    document = _render(_embedding("context.md"), gambit_core=str(core))
    segment = document.cases[0].messages[0].segments[-1]
    assert (segment.text, segment.origin.path, segment.origin.start_line) == (
        "Read it.",
        "gambit-core (installed)/snippets/context.md",
        5,
    )
    assert not any("gambit://snippets" in w.message for w in document.warnings)


def test_an_uploaded_copy_of_a_snippet_comes_before_the_installed_one(tmp_path):
    core = _installed(tmp_path, **{"context.md": "Installed.\n"})
    files = _embedding("context.md") | {"gambit-core/snippets/context.md": "Uploaded.\n"}
    segment = _render(files, gambit_core=str(core)).cases[0].messages[0].segments[-1]
    assert (segment.text, segment.origin.path) == ("Uploaded.", "gambit-core/snippets/context.md")


@pytest.mark.parametrize(
    "name",
    ["../secret.md", "link.md", "nested/../../secret.md", "missing.md", "nul\x00.md", "x" * 5000 + ".md"],
    ids=["dotdot", "link-out", "nested-dotdot", "missing", "nul", "too-long"],
)
def test_nothing_outside_the_installed_snippets_folder_is_read(tmp_path, name):
    core = _installed(tmp_path)
    (core / "secret.md").write_text("SECRET\n")
    (core / "snippets" / "link.md").symlink_to(core / "secret.md")
    document = _render(_embedding(name), gambit_core=str(core))
    system = document.cases[0].messages[0]
    assert "SECRET" not in system.content
    assert system.segments[-1].origin.kind == OriginKind.MARKER
    assert any(
        f"gambit://snippets/{name[:40]}" in w.message
        and "installed gambit-core has no snippets/" in w.message
        for w in document.warnings
    )


def test_a_link_inside_the_installed_snippets_folder_is_followed(tmp_path):
    core = _installed(tmp_path, **{"real.md": "Real text.\n"})
    (core / "snippets" / "alias.md").symlink_to(core / "snippets" / "real.md")
    system = _render(_embedding("alias.md"), gambit_core=str(core)).cases[0].messages[0]
    assert system.segments[-1].text == "Real text."


def test_an_oversized_installed_snippet_is_refused_naming_it(tmp_path):
    from inspector.core.decks.gambit_core_files import MAX_SNIPPET_BYTES
    from inspector.core.safe_parse import LimitExceeded

    core = _installed(tmp_path, **{"big.md": "x" * (MAX_SNIPPET_BYTES + 1)})
    with pytest.raises(LimitExceeded) as raised:
        _render(_embedding("big.md"), gambit_core=str(core))
    assert raised.value.diagnostic.path == "gambit-core (installed)/snippets/big.md"


def test_a_folder_without_snippets_keeps_the_placeholder_and_says_why(tmp_path):
    document = _render(_embedding("context.md"), gambit_core=str(tmp_path / "nowhere"))
    assert document.cases[0].messages[0].segments[-1].origin.kind == OriginKind.MARKER
    assert any("has no snippets/ folder" in w.message for w in document.warnings)


def test_check_and_serve_take_an_installed_gambit_core(tmp_path):
    from django.core.management import call_command

    core = _installed(tmp_path, **{"context.md": "Read the context.\n"})
    deck = tmp_path / "deck" / "PROMPT.md"
    deck.parent.mkdir()
    deck.write_text('+++\nmodelParams = { model = "m" }\n+++\n![c](gambit://snippets/context.md)\n')
    for extra, placeholder in (([], True), (["--gambit-core", str(core)], False)):
        out = io.StringIO()
        call_command("check_evals", str(deck), "--fail-on", "error", *extra, stdout=out, stderr=io.StringIO())
        assert ("gambit://snippets/context.md is gambit's own text" in out.getvalue()) == placeholder
    for command in ("check_evals", "serve_folder"):
        err = io.StringIO()
        with pytest.raises(SystemExit) as stopped:
            call_command(
                command,
                str(deck.parent),
                "--gambit-core",
                str(tmp_path / "deck"),
                stdout=io.StringIO(),
                stderr=err,
            )
        assert stopped.value.code == 2 and "no snippets/ folder" in err.getvalue()


def test_the_cli_takes_the_context_input_from_a_sample_and_lists_the_samples(tmp_path):
    deck = tmp_path / "deck" / "PROMPT.md"
    (deck.parent / "samples" / "nested").mkdir(parents=True)
    deck.write_text('+++\nmodelParams = { model = "m" }\n+++\nGo.\n')
    (deck.parent / "samples" / "vip.json").write_text('{\n  "tier": "gold"\n}\n')
    (deck.parent / "samples" / "nested" / "plain.txt").write_text("just text\n\n")
    (deck.parent / "samples" / "persona.deck.md").write_text("a deck kept here, not a sample\n")
    (tmp_path / "elsewhere.json").write_text("{}")
    code, cases, err = run_render(str(deck), "--root", str(deck.parent), "--context-sample", "vip")
    assert code == 0, err
    assert cases[0]["messages"][2]["content"] == '{"tier":"gold"}'
    assert cases[0]["samples"] == ["nested/plain", "vip"]
    code, cases, err = run_render(
        str(deck), "--root", str(deck.parent), "--context-sample", "nested/plain.txt"
    )
    assert code == 0 and cases[0]["messages"][2]["content"] == '"just text"'
    code, _, err = run_render(str(deck), "--root", str(deck.parent), "--context-sample", "gone")
    assert code == 2 and "no context sample 'gone' in samples/ (samples: nested/plain, vip)" in err
    code, _, err = run_render(
        str(deck), "--root", str(deck.parent), "--context-sample", "vip", "--context", "{}"
    )
    assert code == 2 and "not both" in err


def test_a_folders_paths_under_are_its_own_files_only(tmp_path):
    from inspector.core.bundle import DirectoryBundle

    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/x.txt", "a/b/y.txt", "ab.txt", "c.txt"):
        (tmp_path / name).write_text(name)
    bundle = DirectoryBundle(tmp_path)
    memory = MemoryBundle({name: b"" for name in bundle.paths()})
    assert bundle.paths_under("a") == memory.paths_under("a") == ["a/b/y.txt", "a/x.txt"]
    assert bundle.paths_under("../") == bundle.paths_under("missing") == []


TURN_GRADER = {
    "g/PROMPT.md": GRADER,
    "g/turn.zod.ts": "export default z.object({ session: s, messageToGrade: m });",
    "g/out.zod.ts": "export default z.object({});",
}


@pytest.mark.parametrize(
    "text, line, words",
    [
        (
            '[\n  {"role": "user", "content": "Hi"},\n  {"role": "assistant", "content": "Yo"\n]\n',
            4,
            "not JSON: Expecting ',' delimiter",
        ),
        (
            '{\n  "runId": "r",\n  "messages": [\n    {"role": "user"},\n    {"content": "no role"}\n'
            "  ]\n}\n",
            5,
            "each an object with a string role (message 2 is not)",
        ),
        ('{"runId": "r"}\n', 1, "must be a JSON array of messages"),
        ('[{"role": "user", "content": NaN}]', None, "NaN is not JSON"),
        ("[" * 100_000, None, "nested too deeply"),
    ],
)
def test_a_conversation_file_gambit_could_not_grade_is_refused_at_its_line(text, line, words):
    files = TURN_GRADER | {"g/samples/bad.json": text}
    with pytest.raises(InputError) as raised:
        _render(files, "g/PROMPT.md", gambit_conversation_sample="bad")
    diagnostic = raised.value.diagnostic
    assert (diagnostic.path, diagnostic.line) == ("g/samples/bad.json", line)
    assert words in diagnostic.message


def test_a_conversation_file_is_a_json_sample_by_name_or_a_bundle_file_by_path():
    files = TURN_GRADER | {
        "g/samples/good.json": CONVERSATION,
        "g/samples/note.txt": "x",
        "runs/state.json": json.dumps({"runId": "r", "messages": json.loads(CONVERSATION)}, indent=2),
    }
    by_name = _render(files, "g/PROMPT.md", gambit_conversation_sample="good")
    by_path = _render(files, "g/PROMPT.md", gambit_conversation_sample="runs/state.json")
    pasted = _render(files, "g/PROMPT.md", gambit_conversation=CONVERSATION)
    for document in (by_name, by_path):
        assert [m.content for m in document.cases[0].messages] == [
            m.content for m in pasted.cases[0].messages
        ]
    assert by_name.cases[0].metadata["gambit"]["conversation_samples"] == ["good"]
    tool = by_path.cases[0].messages[2]
    graded = [s for s in tool.segments if s.origin.path == "runs/state.json"]
    # the session's two messages, then the assistant's again as messageToGrade
    assert [(s.origin.start_line, s.origin.end_line) for s in graded] == [(4, 7), (8, 11), (8, 11)]
    for name in ("note", "gone", "../g/samples/good.json"):
        with pytest.raises(InputError) as raised:
            _render(files, "g/PROMPT.md", gambit_conversation_sample=name)
        assert "no conversation sample" in str(raised.value) and "(samples: good)" in str(raised.value)


def test_the_cli_reads_the_conversation_to_grade_from_a_file(tmp_path):
    for path, text in TURN_GRADER.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "g/samples").mkdir()
    (tmp_path / "g/samples/chat.json").write_text(CONVERSATION)
    deck = str(tmp_path / "g/PROMPT.md")
    code, cases, err = run_render(deck, "--root", str(tmp_path), "--conversation-sample", "chat")
    assert code == 0, err
    assert [case["id"] for case in cases] == ["g@turn-1"]
    assert '"messageToGrade":{"role":"assistant","content":"Yo"}' in cases[0]["messages"][2]["content"]
    code, _, err = run_render(
        deck, "--root", str(tmp_path), "--conversation-sample", "chat", "--conversation", CONVERSATION
    )
    assert code == 2 and "not both" in err
    (tmp_path / "g/samples/chat.json").write_text('[{"role": "user"},\n {"role": 1}]')
    code, _, err = run_render(deck, "--root", str(tmp_path), "--conversation-sample", "chat")
    assert code == 2 and "g/samples/chat.json:2" in err


def test_a_saved_sessions_notes_that_gambit_grade_also_passes_are_named():
    state = {"runId": "r", "messages": json.loads(CONVERSATION), "notes": {"text": "tone?"}}
    files = TURN_GRADER | {"g/samples/state.json": json.dumps(state)}
    [case] = _render(files, "g/PROMPT.md", gambit_conversation_sample="state").cases
    assert any(
        "passes the saved session's notes in `session`" in w.message and w.path == "g/samples/state.json"
        for w in case.warnings
    )
