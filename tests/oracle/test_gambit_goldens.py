"""gambit 1.0 decks against what gambit-core 1.0.0-rc.2's runtime itself handed the model.

gambit-core is not on a registry CI reaches; gambit/make_goldens.py ran its source at the tag
under Deno (gambit/record.ts) on the decks in gambit/decks/ and on gambit's examples, each with no
input, a message, and a context input with a message, and kept the files and what the runtime
sent. The inspector must send the same messages and tools, and refuse what gambit refuses.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from inspector.core.bundle import MemoryBundle
from inspector.core.documents import detect_format, render_document
from inspector.core.model import InputError, OriginKind
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message

GOLDENS = Path(__file__).resolve().parent / "gambit" / "goldens.jsonl"
SCHEMA_NOTE = "validates the context input"


def _goldens() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDENS.read_text().split("\n")[1:] if line.strip()]


def _message(message: dict[str, Any]) -> dict[str, Any]:
    calls = [
        {"name": call["function"]["name"], "arguments": call["function"]["arguments"]}
        for call in message.get("tool_calls") or []
    ]
    return {
        "role": message["role"],
        "content": message.get("content") or "",
        "name": message.get("name"),
        "tool_call_id": "CALL_ID" if message.get("tool_call_id") else None,
        "tool_calls": calls,
    }


def _options(variant: dict[str, Any]) -> RenderOptions:
    if "conversation" in variant:
        context = json.dumps(variant["context"]) if "turns" in variant and "context" in variant else None
        return RenderOptions(gambit_conversation=json.dumps(variant["conversation"]), gambit_context=context)
    return RenderOptions(
        gambit_context=json.dumps(variant["context"]) if "context" in variant else None,
        gambit_message=json.dumps(variant["message"]) if "message" in variant else None,
    )


def _placeholders_fill(message, sent: str) -> bool:
    """Whether gambit's text is ours with each placeholder (gambit's own built-in text, which the
    inspector does not copy) standing for some text."""
    if not any(segment.origin.kind == OriginKind.MARKER for segment in message.segments):
        return False
    pattern = "".join(
        ".+?" if segment.origin.kind == OriginKind.MARKER else re.escape(segment.text)
        for segment in message.segments
    )
    return re.fullmatch(pattern, sent, re.DOTALL) is not None


def _problems(
    golden: dict[str, Any],
    run: dict[str, Any],
    files: dict[str, str] | None = None,
    options: RenderOptions | None = None,
) -> list[str]:
    bundle = MemoryBundle({path: text.encode() for path, text in (files or golden["files"]).items()})
    sent = run["gambit"]
    try:
        document = render_document(bundle, golden["deck"], options or _options(run["variant"]))
    except InputError as error:
        if sent["error"] is None:
            return [f"refused what gambit sent: {error}"]
        if sent["error"].startswith("Failed to parse front matter in "):
            # @std/toml and tomllib word their complaints differently; the file must match.
            expected = sent["error"].split(": ", 1)[0]
            return [] if expected in str(error) else [f"{error} is not {sent['error']}"]
        if sent["error"].startswith("No such file"):
            return [] if "not found" in str(error) else [f"{error} is not {sent['error']}"]
        return [] if sent["error"] in str(error) else [f"{error} is not {sent['error']}"]
    case = document.cases[0]
    if "conversation" in run["variant"]:  # the grader's run for one turn, or the conversation
        variant = run["variant"]
        suffix = (
            f"@reply-{variant['reply']}"
            if "reply" in variant
            else f"@turn-{variant['turn']}"
            if "turn" in variant
            else "@conversation"
        )
        case = next(c for c in document.cases if c.id.endswith(suffix))
    notes = [w.message for w in case.warnings + document.warnings]
    if sent["error"] is not None:
        if "Schema validation failed" in sent["error"]:
            return [] if any(SCHEMA_NOTE in note for note in notes) else ["no schema warning"]
        errors = [w.message for w in case.warnings if w.severity == "error"]
        return (
            []
            if any(sent["error"] in e for e in errors)
            else [f"gambit refused ({sent['error']}) and the inspector said {errors}"]
        )
    problems = []
    ours = [_message(chat_message(m)) for m in case.sent_messages]
    theirs = [_message(m) for m in sent["messages"]]
    schema_noted = any(SCHEMA_NOTE in note for note in notes)
    for index, (mine, gambits) in enumerate(zip(ours, theirs, strict=False)):
        if index == 0 and _placeholders_fill(case.messages[0], gambits["content"]):
            mine["content"] = gambits["content"]
        if mine != gambits and not (schema_noted and mine["role"] == "tool"):
            problems.append(f"message {index}: {mine!r} != {gambits!r}")
    if len(ours) != len(theirs):
        problems.append(f"{len(ours)} messages, gambit sent {len(theirs)}")
    tools = [(t.name, t.description, t.parameters) for t in case.tools]
    sent_tools = [
        (t["function"]["name"], t["function"].get("description"), t["function"]["parameters"])
        for t in sent["tools"]
    ]
    if [t[:2] for t in tools] != [t[:2] for t in sent_tools]:
        problems.append(f"tools {[t[:2] for t in tools]} != {[t[:2] for t in sent_tools]}")
    for (name, _, parameters), (_, _, sent_parameters) in zip(tools, sent_tools, strict=False):
        named_only = str((parameters or {}).get("description", "")).startswith("schema from")
        if parameters != sent_parameters and not named_only:
            problems.append(f"tool {name}: {parameters} != {sent_parameters}")
    return problems


def test_the_goldens_were_made_by_gambit_core():
    header = json.loads(GOLDENS.read_text().split("\n")[0])
    assert "gambit-core v1.0.0-rc.2" in header["made_with"]
    goldens = _goldens()
    assert len(goldens) == header["count"] >= 20
    runs = [run for golden in goldens for run in golden["runs"]]
    assert sum(run["gambit"]["error"] is None for run in runs) > 40
    assert sum(run["gambit"]["error"] is not None for run in runs) > 20
    assert (
        sum(bool(run["gambit"]["messages"] and len(run["gambit"]["messages"]) > 2) for run in runs) > 10
    )  # context calls were made


@pytest.mark.parametrize("golden", _goldens(), ids=lambda golden: golden["name"])
def test_gambit_sends_what_the_inspector_shows(golden):
    problems = [
        f"{json.dumps(run['variant'])[:60]}: {problem}"
        for run in golden["runs"]
        for problem in _problems(golden, run)
    ]
    assert not problems, "\n".join(problems[:6])


@pytest.mark.parametrize("golden", _goldens(), ids=lambda golden: golden["name"])
def test_auto_reads_gambit_decks_as_gambit(golden):
    deck = golden["deck"]
    assert detect_format(deck, golden["files"][deck]) == "gambit"


def _responses_input(case) -> list[dict[str, Any]]:
    from inspector.core.export import export_case

    text = json.dumps(export_case(case, "openai-responses").payload["input"])
    return json.loads(text.replace('"call-gambit-context"', '"CALL_ID"'))


def test_the_responses_export_holds_the_input_gambit_sends():
    """gambit's runtime hands its provider a Responses request; the inspector's OpenAI Responses
    export of the same case must carry the same `input` items."""
    compared = 0
    for golden in _goldens():
        bundle = MemoryBundle({path: text.encode() for path, text in golden["files"].items()})
        for run in golden["runs"]:
            sent = run["gambit"]
            if sent["error"] is not None or "conversation" in run["variant"]:
                continue
            document = render_document(bundle, golden["deck"], _options(run["variant"]))
            case = document.cases[0]
            notes = [w.message for w in case.warnings + document.warnings]
            if any(SCHEMA_NOTE in note for note in notes) or any(
                s.origin.kind == OriginKind.MARKER for s in case.messages[0].segments
            ):
                continue  # what the inspector cannot know: Zod's output, gambit's own text
            assert _responses_input(case) == sent["request"]["input"], (
                golden["name"],
                json.dumps(run["variant"]),
            )
            compared += 1
    assert compared >= 30


def test_snippets_from_an_installed_gambit_core_are_the_text_gambit_sent(tmp_path):
    """The goldens' runs with gambit-core's real snippets (kept with the goldens), this time not
    uploaded but read from a folder laid out as gambit-core's is at the tag: the system message
    is gambit's, and each snippet's text is traced to its installed file and lines."""
    from dataclasses import replace

    from inspector.core.decks.gambit_core_files import INSTALLED

    compared = 0
    for number, golden in enumerate(_goldens()):
        core = tmp_path / str(number) / "gambit-core"
        for path, text in golden["files"].items():
            if path.startswith("gambit-core/"):
                (core.parent / path).parent.mkdir(parents=True, exist_ok=True)
                (core.parent / path).write_text(text)
        uploaded = MemoryBundle({path: text.encode() for path, text in golden["files"].items()})
        bundle = MemoryBundle(
            {
                path: text.encode()
                for path, text in golden["files"].items()
                if not path.startswith("gambit-core/")
            }
        )
        for run in golden["runs"]:
            sent = run["gambit"]
            if sent["error"] is not None or "conversation" in run["variant"]:
                continue
            with_upload = render_document(uploaded, golden["deck"], _options(run["variant"]))
            if not any(
                (s.origin.path or "").startswith("gambit-core/")
                for s in with_upload.cases[0].messages[0].segments
            ):
                continue
            options = replace(_options(run["variant"]), gambit_core=str(core))
            system = render_document(bundle, golden["deck"], options).cases[0].messages[0]
            assert system.content == with_upload.cases[0].messages[0].content
            installed = [
                s for s in system.segments if (s.origin.path or "").startswith(INSTALLED + "/snippets/")
            ]
            assert installed, golden["name"]
            for segment in installed:
                lines = (core / segment.origin.path[len(INSTALLED) + 1 :]).read_text().split("\n")
                source = "\n".join(lines[segment.origin.start_line - 1 : segment.origin.end_line])
                assert segment.text in source
            if not any(s.origin.kind == OriginKind.MARKER for s in system.segments):
                assert system.content == sent["messages"][0]["content"], golden["name"]
                compared += 1
    assert compared >= 3


def test_a_context_input_chosen_from_the_decks_samples_is_what_gambit_sent():
    """Every run gambit made with a context input (a root deck's --context, a scenario deck's
    input in gambit scenario), the input this time kept in the deck's samples/ folder, as a user
    would write it (JSON laid out over lines, or text), and chosen there by name."""
    from dataclasses import replace

    checked = 0
    for golden in _goldens():
        folder = golden["deck"].rsplit("/", 1)[0] if "/" in golden["deck"] else ""
        for run in golden["runs"]:
            variant = run["variant"]
            if "context" not in variant or ("conversation" in variant and "turns" not in variant):
                continue  # a grader's context is the session gambit grade builds, not an input
            value = variant["context"]
            sample = (
                f"{folder}/samples/chosen.txt" if isinstance(value, str) else f"{folder}/samples/chosen.json"
            ).lstrip("/")
            text = value if isinstance(value, str) else json.dumps(value, indent=2)
            files = golden["files"] | {
                sample: text + "\n",
                f"{folder}/samples/other.json".lstrip("/"): "{}\n",
            }
            options = replace(_options(variant), gambit_context=None, gambit_context_sample="chosen")
            problems = _problems(golden, run, files, options)
            assert not problems, (golden["name"], variant, problems[:3])
            if run["gambit"]["error"] is None:
                bundle = MemoryBundle({path: text.encode() for path, text in files.items()})
                case = render_document(bundle, golden["deck"], options).cases[-1]
                tool = next(m for m in case.messages if m.role == "tool")
                assert tool.segments[0].origin.path == sample
                assert case.metadata["gambit"]["samples"] == ["chosen", "other"]
            checked += 1
    assert checked >= 30


def _conversation_files(golden: dict[str, Any], variant: dict[str, Any]) -> dict[str, str]:
    """The run's conversation kept as gambit keeps sessions: a SavedState `state.json` as
    saveState writes it (two-space JSON, the session under `messages`) in the bundle, and a
    bare array among the deck's samples."""
    folder = golden["deck"].rsplit("/", 1)[0] + "/" if "/" in golden["deck"] else ""
    state = {"runId": "run-1", "messages": variant["conversation"], "traces": []}
    return {
        f"{folder}samples/session.json": json.dumps(variant["conversation"], indent=2) + "\n",
        f"{folder}samples/notes.txt": "not a conversation\n",
        ".gambit/sessions/run-1/state.json": json.dumps(state, indent=2),
    }


def _sent(document) -> list[list[dict[str, Any]]]:
    return [[_message(chat_message(m)) for m in case.sent_messages] for case in document.cases]


def test_a_conversation_read_from_a_file_is_graded_as_when_pasted():
    """Every run gambit made of a grader deck (gambit grade's session, per turn where the grader
    asks for messageToGrade) or of a scenario deck answering a conversation, the conversation
    this time read from a file: a sample of the deck by name, or a saved session by its path.
    gambit's messages, the same cases as the paste's, and each message traced to its lines."""
    from dataclasses import replace

    checked = 0
    for golden in _goldens():
        for run in golden["runs"]:
            variant = run["variant"]
            if "conversation" not in variant:
                continue
            files = golden["files"] | _conversation_files(golden, variant)
            bundle = MemoryBundle({path: text.encode() for path, text in files.items()})
            pasted = render_document(bundle, golden["deck"], _options(variant))
            for chosen in ("session", ".gambit/sessions/run-1/state.json"):
                options = replace(
                    _options(variant), gambit_conversation=None, gambit_conversation_sample=chosen
                )
                assert not _problems(golden, run, files, options), (golden["name"], variant)
                document = render_document(bundle, golden["deck"], options)
                assert _sent(document) == _sent(pasted)
                assert [c.id for c in document.cases] == [c.id for c in pasted.cases]
                _assert_traced(document, files)
            assert pasted.cases[0].metadata["gambit"]["conversation_samples"] == ["session"]
            checked += 1
    assert checked >= 10


def _kept_from(shown, written) -> bool:
    """Whether `shown` is `written` with keys left out (at any depth), as a Zod schema keeps it."""
    if isinstance(shown, dict):
        return isinstance(written, dict) and all(
            key in written and _kept_from(value, written[key]) for key, value in shown.items()
        )
    if isinstance(shown, list):
        return (
            isinstance(written, list)
            and len(shown) == len(written)
            and all(_kept_from(a, b) for a, b in zip(shown, written, strict=True))
        )
    return shown == written


def _assert_traced(document, files: dict[str, str]) -> None:
    """Each stretch of the conversation shown is on the lines it is traced to."""
    traced = 0
    for case in document.cases:
        for message in case.messages[1:]:
            for segment in message.segments:
                path = segment.origin.path
                if path not in files:
                    continue
                source = files[path].split("\n")[segment.origin.start_line - 1 : segment.origin.end_line]
                written = "\n".join(source).strip().rstrip(",")
                if message.role == "tool":  # a message of the graded session
                    assert _kept_from(json.loads(segment.text), json.loads(written))
                else:  # a scenario deck's turn: that message's content
                    content = json.loads("{" + written + "}")["content"]
                    assert segment.text.strip() == content.strip()
                traced += 1
    assert traced


def test_a_wrong_conversation_file_does_not_pass_for_gambits_run():
    """The comparison above can fail: the right deck given another conversation's file."""
    from dataclasses import replace

    checked = 0
    for golden in _goldens():
        for run in golden["runs"]:
            variant = run["variant"]
            if "conversation" not in variant or run["gambit"]["error"] is not None:
                continue
            wrong = [dict(m) for m in variant["conversation"]]
            wrong[-1]["content"] += " (edited)"
            files = golden["files"] | _conversation_files(golden, variant | {"conversation": wrong})
            options = replace(
                _options(variant), gambit_conversation=None, gambit_conversation_sample="session"
            )
            assert _problems(golden, run, files, options), (golden["name"], variant)
            checked += 1
    assert checked >= 10


# Where the legacy markers' text is written: gambit-core's own src/ folder at v1.0.0-rc.2 when
# PI_GAMBIT_CORE_SRC names it (`git -C <gambit mirror> archive v1.0.0-rc.2 packages/gambit-core/src`;
# gambit's code is not committed here), else a stand-in of ours in the same shape holding the texts
# gambit sent, which checks the reading and the tracing but not that gambit writes them so.
CORE_SOURCE = (
    Path(os.environ["PI_GAMBIT_CORE_SRC"])
    if os.environ.get("PI_GAMBIT_CORE_SRC")
    else Path(__file__).resolve().parent / "gambit" / "core-shape" / "src"
)
CORE_FILES = [CORE_SOURCE / "markdown.ts", CORE_SOURCE / "constants.ts"]


def _golden(name: str) -> dict[str, Any]:
    return next(golden for golden in _goldens() if golden["name"] == name)


def _core_folder(root: Path, golden: dict[str, Any]) -> Path:
    core = root / "gambit-core"
    for path, text in golden["files"].items():
        if path.startswith("gambit-core/"):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
    (core / "src").mkdir(parents=True, exist_ok=True)
    for source in CORE_FILES:
        (core / "src" / source.name).write_text(source.read_text())
    return core


def test_the_legacy_init_marker_takes_its_text_from_the_named_gambit_cores_source(tmp_path):
    """`gambit://init` is no snippet: gambit-core's markdown.ts writes its text (INIT_TEXT). Read
    from an installed gambit-core's source, the system message is what gambit sent, and the text
    is traced to the line of markdown.ts that writes it."""
    from dataclasses import replace

    from inspector.core.decks.gambit_core_files import INSTALLED

    golden = _golden("decks/legacy/legacy.deck.md")
    core = _core_folder(tmp_path, golden)
    bundle = MemoryBundle(
        {path: text.encode() for path, text in golden["files"].items() if not path.startswith("gambit-core/")}
    )
    compared = 0
    for run in golden["runs"]:
        sent = run["gambit"]
        if sent["error"] is not None:
            continue
        options = replace(_options(run["variant"]), gambit_core=str(core))
        document = render_document(bundle, golden["deck"], options)
        system = document.cases[0].messages[0]
        assert system.content == sent["messages"][0]["content"]
        assert not any(s.origin.kind == OriginKind.MARKER for s in system.segments)
        [marker] = [s for s in system.segments if s.origin.path == f"{INSTALLED}/src/markdown.ts"]
        line = (CORE_SOURCE / "markdown.ts").read_text().split("\n")[marker.origin.start_line - 1]
        assert "You will automatically receive a \\`${GAMBIT_TOOL_CONTEXT}\\` tool result" in line
        assert [w.message for w in document.warnings] == [
            '"gambit://init" is deprecated; use gambit://snippets/context.md instead.'
        ]
        assert not _problems(golden, run, options=options)
        compared += 1
    assert compared >= 2


def test_an_uploaded_gambit_core_source_gives_the_legacy_markers_text_too():
    golden = _golden("decks/legacy/legacy.deck.md")
    files = golden["files"] | {
        f"vendor/gambit-core/src/{source.name}": source.read_text() for source in CORE_FILES
    }
    for run in golden["runs"]:
        if run["gambit"]["error"] is None:
            assert not _problems(golden, run, files)
            bundle = MemoryBundle({path: text.encode() for path, text in files.items()})
            system = render_document(bundle, golden["deck"], _options(run["variant"])).cases[0].messages[0]
            assert system.content == run["gambit"]["messages"][0]["content"]
            assert system.segments[0].origin.path == "vendor/gambit-core/src/markdown.ts"


def test_without_gambit_cores_source_the_legacy_markers_stay_placeholders_that_say_how(tmp_path):
    golden = _golden("decks/legacy/legacy.deck.md")
    core = _core_folder(tmp_path, golden)
    (core / "src" / "constants.ts").unlink()  # markdown.ts alone cannot name gambit's tools
    bundle = MemoryBundle({golden["deck"]: golden["files"][golden["deck"]].encode()})
    for options in (RenderOptions(), RenderOptions(gambit_core=str(core))):
        document = render_document(bundle, golden["deck"], options)
        system = document.cases[0].messages[0]
        assert any(s.origin.kind == OriginKind.MARKER for s in system.segments)
        assert any("src/markdown.ts" in w.message for w in document.warnings)


def test_every_legacy_marker_is_read_from_gambit_cores_source():
    from inspector.core.decks.gambit_text import LEGACY_MARKER_CONSTANTS, legacy_marker_text

    markdown = (CORE_SOURCE / "markdown.ts").read_text()
    constants = (CORE_SOURCE / "constants.ts").read_text()
    found = {marker: legacy_marker_text(markdown, constants, marker) for marker in LEGACY_MARKER_CONSTANTS}
    assert found["gambit://init"] == (
        "You will automatically receive a `gambit_context` tool result at the start that provides "
        "run/context info.",
        markdown.split("\n").index("const INIT_TEXT = `") + 2,
    )
    assert found["gambit://respond"][0].startswith("When you are done, call the `gambit_respond` tool")
    assert found["gambit://end"][0].endswith("fields to explicitly end the session.")
    # a template naming a constant constants.ts lacks is not guessed at
    assert legacy_marker_text(markdown, "", "gambit://init") is None


def test_a_card_opened_alone_lists_the_actions_gambits_loader_gives_it_as_tools():
    """loadMarkdownCard gives a card its `[[actions]]` (and those of the cards it embeds): opened
    alone, the card lists them as the tools a deck embedding it gets, each as gambit's runtime
    offered it when the golden's deck embedded this card."""
    golden = _golden("decks/actions/PROMPT.md")
    bundle = MemoryBundle({path: text.encode() for path, text in golden["files"].items()})
    document = render_document(bundle, "actions/cards/extra.card.md")
    [case] = document.cases
    assert [(tool.name, tool.description) for tool in case.tools] == [
        ("refund", "Refund an order."),
        ("escalate", "card's escalate, replaced by the deck's"),
    ]
    sent = next(run for run in golden["runs"] if run["gambit"]["error"] is None)["gambit"]["tools"]
    refund = next(tool["function"] for tool in sent if tool["function"]["name"] == "refund")
    assert (case.tools[0].name, case.tools[0].description) == (refund["name"], refund["description"])
    # Its parameters are the deck's (Zod schemas are named, not run: see the deck's own test).
    deck_tools = render_document(bundle, golden["deck"]).cases[0].tools
    assert case.tools[0] == next(tool for tool in deck_tools if tool.name == "refund")


def test_a_card_embedding_another_lists_both_cards_actions():
    files = {
        "deck/outer.card.md": '+++\n[[actions]]\nname = "first"\npath = "./child.deck.md"\n'
        'description = "Outer."\n+++\nOuter.\n![inner](./inner.card.md)\n',
        "deck/inner.card.md": '+++\n[[actions]]\nname = "second"\npath = "./child.deck.md"\n'
        'description = "Inner."\n\n[[actions]]\nname = "first"\npath = "./child.deck.md"\n'
        'description = "Inner first."\n+++\nInner.\n',
        "deck/child.deck.md": "+++\nlabel = 'child'\ncontextSchema = './in.zod.ts'\n"
        "responseSchema = './in.zod.ts'\n+++\nChild.\n",
        "deck/in.zod.ts": 'import { z } from "npm:zod";\nexport default z.object({});\n',
    }
    bundle = MemoryBundle({path: text.encode() for path, text in files.items()})
    [case] = render_document(bundle, "deck/outer.card.md").cases
    assert [(tool.name, tool.description) for tool in case.tools] == [
        ("first", "Inner first."),
        ("second", "Inner."),
    ]
    assert [tool.name for tool in render_document(bundle, "deck/inner.card.md").cases[0].tools] == [
        "second",
        "first",
    ]
