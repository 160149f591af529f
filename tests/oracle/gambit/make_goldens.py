"""Goldens for gambit 1.0 decks, made by running gambit-core 1.0.0-rc.2's own runtime.

gambit-core is published on JSR, which CI cannot reach, so its source at the tag runs here under
Deno instead (the `deno` package from the npm registry gives the binary), and what its runtime
hands the model provider is kept as test data (tests/oracle/gambit/goldens.jsonl, checked by
test_gambit_goldens.py in every run). record.ts calls gambit-core's `runDeck` (what `gambit run`
calls) with a provider that records the request. The decks are those under decks/ (made for these
tests) and gambit's own examples at the tag; with each deck's files the goldens keep gambit-core's
snippets, as a user would upload them, so the inspector can inline them. To make them:

    git -C <gambit mirror> archive v1.0.0-rc.2 | tar -x -C /tmp/gambit
    # @std packages gambit-core imports, at the versions its deno.lock pins (path 1.1.4,
    # front-matter 1.0.9, toml 1.0.11, yaml 1.0.11, collections 1.1.5: std's release-2026.01.30)
    git -C <denoland/std mirror> archive release-2026.01.30 path front_matter toml yaml \
        collections internal | tar -x -C /tmp/std
    npm install --prefix /tmp/deno deno@2.5.6
    .venv/bin/python -m tests.oracle.gambit.make_goldens --gambit /tmp/gambit --std /tmp/std \
        --deno /tmp/deno/node_modules/.bin/deno

zod 3.25.76 and zod-to-json-schema 3.25.1 (deno.lock's pins) come from the npm registry.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "goldens.jsonl"
DECKS = HERE / "decks"
TAG = "v1.0.0-rc.2"
VARIANTS = (
    {},
    {"message": "Why is the sky blue?"},
    {
        "context": {"orderId": "A-1", "extra": [1, 2.5, {"k": None}], "text": "é \u2028 </x>"},
        "message": {"question": "JSON, shown pretty", "n": 3},
    },
    {"context": "plain text context", "message": "42"},
)
# A conversation for grader decks, and the input `gambit grade` (src/commands/grade.ts) builds from
# it: its session payload, with the fields a fresh session lacks left out as JSON.stringify does,
# and per assistant message a run with that message as messageToGrade.
CONVERSATION = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello! How can I help?", "name": "bot"},
    {"role": "user", "content": "Nothing, thanks."},
    {"role": "assistant", "content": "Bye.", "extra": "dropped by the schema"},
]
SESSION = {"runId": "run-1", "messages": CONVERSATION, "traces": []}
# For the *_tools grader schemas, which keep a message's tool_calls (id, type, function) and drop
# the rest, tool_call_id included.
CONVERSATION_TOOLS = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "type": "function",
                "id": "call_1",
                "extra": "dropped",
                "function": {"arguments": '{"city": "Paris"}', "name": "get_weather", "x": 1},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"},
    {"role": "assistant", "content": "Sunny in Paris.", "tool_calls": []},
]
SESSION_TOOLS = {"runId": "run-1", "messages": CONVERSATION_TOOLS, "traces": []}


# A scenario deck's two calls in `gambit scenario`: answering the first reply of the deck under
# test, then (its answer now the user's message) the second.
SCENARIO = [
    {"role": "assistant", "content": "Hello! What would you like to know?"},
    {"role": "user", "content": "Why is the sky blue?"},
    {"role": "assistant", "content": "Rayleigh scattering, like Homer's donut glaze."},
]


def scenario_variants(deck: str) -> list[dict]:
    if "test_bots/" not in deck and "decks/trim" not in deck:
        return []
    turns = [SCENARIO[0]["content"], SCENARIO[2]["content"]]
    plain = {"turns": turns, "replies": [SCENARIO[1]["content"]], "conversation": SCENARIO, "reply": 2}
    return [
        plain,
        {**plain, "context": {"initialQuestion": "Why?"}},
        {"turns": turns[:1], "conversation": SCENARIO[:1], "reply": 1},
    ]


def grader_variants(deck: str) -> list[dict]:
    tools = "_tools" in deck or "grader_tools" in deck
    conversation, session = (CONVERSATION_TOOLS, SESSION_TOOLS) if tools else (CONVERSATION, SESSION)
    if "grader_turn" in deck or "grader_tools" in deck:
        return [
            {
                "context": {"session": session, "messageToGrade": conversation[index]},
                "conversation": conversation,
                "turn": index,
            }
            for index in (1, 3)
        ]
    if "grader_conversation" in deck:
        return [{"context": {"session": session}, "conversation": conversation}]
    return []


def import_map(std: Path) -> dict:
    imports = {}
    for package in sorted(std.iterdir()):
        config = package / "deno.json"
        if not config.exists():
            continue
        data = json.loads(config.read_text())
        for key, target in data["exports"].items():
            imports[data["name"] + key[1:]] = (package / target).resolve().as_uri()
    imports.update(
        {
            "zod": "npm:zod@3.25.76",
            "npm:zod": "npm:zod@3.25.76",
            "zod-to-json-schema": "npm:zod-to-json-schema@3.25.1",
        }
    )
    return {"imports": imports}


def read_tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def cases(gambit: Path) -> list[tuple[str, dict[str, str], str]]:
    """(name, files, deck path) for every deck: ours, then gambit's examples."""
    found = []
    own = read_tree(DECKS)
    for path in sorted(own):
        if path.endswith(("PROMPT.md", ".deck.md")):
            found.append((f"decks/{path}", own, path))
    examples = gambit / "examples"
    for folder in sorted(p for p in examples.glob("*/*") if p.is_dir()) + [examples / "local-chat"]:
        files = read_tree(folder)
        for path in sorted(files):
            if path.endswith(("PROMPT.md", ".deck.md")):
                found.append((f"examples/{folder.relative_to(examples).as_posix()}/{path}", files, path))
    return found


def run(deno: str, gambit: Path, map_path: Path, root: Path, deck: str, variant: dict) -> dict:
    env = {
        **os.environ,
        "GAMBIT_CORE": str(gambit / "packages/gambit-core"),
        "DENO_TLS_CA_STORE": "system",
        "NO_COLOR": "1",
    }
    completed = subprocess.run(
        [
            deno,
            "run",
            "-A",
            "--no-config",
            "--no-lock",
            "--import-map",
            str(map_path),
            str(HERE / "record.ts"),
            deck,
            json.dumps(variant),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(completed.stderr)
    text = completed.stdout.replace(str(root.resolve()) + "/", "").replace(str(root) + "/", "")
    return json.loads(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gambit", type=Path, required=True)
    parser.add_argument("--std", type=Path, required=True)
    parser.add_argument("--deno", required=True)
    args = parser.parse_args()
    snippets_dir = args.gambit / "packages/gambit-core/snippets"
    snippets = {f"gambit-core/snippets/{p.name}": p.read_text() for p in sorted(snippets_dir.glob("*.md"))}
    goldens = []
    with tempfile.TemporaryDirectory() as temp:
        map_path = Path(temp) / "import_map.json"
        map_path.write_text(json.dumps(import_map(args.std)))
        for name, files, deck in cases(args.gambit):
            root = Path(temp) / "root"
            shutil.rmtree(root, ignore_errors=True)
            all_files = {**files, **snippets}
            for path, text in all_files.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            runs = []
            for variant in [*VARIANTS, *grader_variants(name), *scenario_variants(name)]:
                sent = {
                    key: variant[key] for key in ("context", "message", "turns", "replies") if key in variant
                }
                result = run(args.deno, args.gambit, map_path, root, deck, sent)
                runs.append({"variant": variant, "gambit": result})
                print(name, json.dumps(variant)[:40], (result["error"] or "ok")[:100])
            goldens.append({"name": name, "deck": deck, "files": all_files, "runs": runs})
    header = {"made_with": f"gambit-core {TAG} runDeck under Deno (record.ts)", "count": len(goldens)}
    GOLDENS.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in [header, *goldens]) + "\n")


if __name__ == "__main__":
    main()
