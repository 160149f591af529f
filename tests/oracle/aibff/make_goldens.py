"""Goldens for aibff's grader decks, made by running aibff's own code (bolt-foundry/bolt-foundry
at e8937c2a, August 2, 2025) under Deno: record.ts calls render.ts's extractSamplesFromMarkdown,
extractContextFromMarkdown and renderDeck (deck.ts render) for every sample, as calibrate does,
and the messages and tools it built for the grader are kept (tests/oracle/aibff/goldens.jsonl,
checked by test_aibff_goldens.py). The decks: every `*.deck.md` of the corpus snapshots
(gambit/ of the corpus folder PI_CORPUS names) and those under decks/. To make them:

    mkdir /tmp/bf && git -C <bolt-foundry mirror> archive e8937c2a packages/bolt-foundry \
        packages/get-configuration-var packages/tui packages/logger apps/aibff/commands \
        apps/boltFoundry/__generated__/configKeys.ts | tar -x -C /tmp/bf
    # @std at the versions aibff's deno.lock pinned at e8937c2a (toml 1.0.8, path 1.1.1,
    # front-matter 1.0.9, collections 1.1.2, yaml 1.0.8: std's release-2025.07.01), and
    # @std/flags 0.224.0, which aibff still imported, from std's tag 0.224.0
    git -C <denoland/std mirror> archive release-2025.07.01 path front_matter toml yaml \
        collections internal | tar -x -C /tmp/std
    git -C <denoland/std mirror> archive 0.224.0 flags assert fmt | tar -x -C /tmp/std-old
    PI_CORPUS=../shared/corpus .venv/bin/python -m tests.oracle.aibff.make_goldens --bolt-foundry /tmp/bf --std /tmp/std \
        --std-flags /tmp/std-old/flags/mod.ts --deno /tmp/deno/node_modules/.bin/deno

The July 2025 era (b9ebc31f, 2025-07-14: render.ts's own renderDeck, before 1f2cdcfe moved it to
deck.ts) goes to goldens-2025-07.jsonl the same way, with that commit's files and the same @std
(its deno.lock pins the same versions):

    mkdir /tmp/bf07 && git -C <bolt-foundry mirror> archive b9ebc31f packages/cli-ui \
        packages/get-configuration-var packages/logger apps/aibff/commands \
        apps/boltFoundry/__generated__/configKeys.ts | tar -x -C /tmp/bf07
    .venv/bin/python -m tests.oracle.aibff.make_goldens --era 2025-07 --bolt-foundry /tmp/bf07 \
        --std /tmp/std --std-flags /tmp/std-old/flags/mod.ts --deno /tmp/deno/node_modules/.bin/deno

and the June 2025 era (7f538110, 2025-06-27: calibrate's userMessage/assistantResponse context,
which record.ts builds for a sample of that era's shape) into goldens-2025-06.jsonl, from that
commit's apps/aibff/commands alone (its render.ts imports only @std/toml, 1.0.8 as above, and
@std/path, whose join and dirname are the same in the 1.1.1 above as in the 1.1.0 its lock pins):

    mkdir /tmp/bf06 && git -C <bolt-foundry mirror> archive 7f538110 apps/aibff/commands \
        | tar -x -C /tmp/bf06
    .venv/bin/python -m tests.oracle.aibff.make_goldens --era 2025-06 --bolt-foundry /tmp/bf06 ...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.conftest import CORPUS
from tests.oracle.gambit.make_goldens import import_map

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "goldens.jsonl"
COMMIT = "e8937c2a"
# aibff's code of each era the inspector renders: its commit and where its goldens go.
ERAS = {
    "2025-08": (COMMIT, GOLDENS),
    "2025-07": ("b9ebc31f", HERE / "goldens-2025-07.jsonl"),
    "2025-06": ("7f538110", HERE / "goldens-2025-06.jsonl"),
}


def run(args, map_path: Path, root: Path, deck: str) -> dict:
    env = {
        **os.environ,
        "BOLT_FOUNDRY": str(args.bolt_foundry.resolve()),
        "DENO_TLS_CA_STORE": "system",
        "NO_COLOR": "1",
    }
    completed = subprocess.run(
        [
            args.deno,
            "run",
            "-A",
            "--no-config",
            "--no-lock",
            "--import-map",
            str(map_path),
            str(HERE / "record.ts"),
            deck,
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
    return json.loads(completed.stdout.replace(str(root.resolve()) + "/", ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bolt-foundry", type=Path, required=True)
    parser.add_argument("--std", type=Path, required=True)
    parser.add_argument("--std-flags", type=Path, required=True)
    parser.add_argument("--deno", required=True)
    parser.add_argument("--era", choices=tuple(ERAS), default="2025-08")
    args = parser.parse_args()
    if CORPUS is None:
        parser.error("PI_CORPUS must name the corpus folder: the goldens cover its decks")
    commit, goldens_path = ERAS[args.era]
    mapping = import_map(args.std)
    bf = args.bolt_foundry.resolve()
    mapping["imports"].update(
        {
            "@std/flags": args.std_flags.resolve().as_uri(),
            "@bfmono/": bf.as_uri() + "/",
            "@bolt-foundry/get-configuration-var": (
                bf / "packages/get-configuration-var/get-configuration-var.ts"
            ).as_uri(),
            "@bolt-foundry/logger": (bf / "packages/logger/logger.ts").as_uri(),
        }
    )
    goldens = []
    with tempfile.TemporaryDirectory() as temp:
        map_path = Path(temp) / "map.json"
        map_path.write_text(json.dumps(mapping))
        for snapshot in sorted(p for p in (CORPUS / "gambit").iterdir() if p.is_dir()):
            for deck in sorted(snapshot.rglob("*.deck.md")):
                relative = deck.relative_to(snapshot).as_posix()
                result = run(args, map_path, snapshot, relative)
                goldens.append({"corpus": snapshot.name, "deck": relative, "aibff": result})
                print(snapshot.name, relative, result["error"] or len(result["cases"]))
        own = {
            p.relative_to(HERE / "decks").as_posix(): p.read_text()
            for p in sorted((HERE / "decks").rglob("*"))
            if p.is_file()
        }
        root = Path(temp) / "own"
        for path, text in own.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        for path in own:
            if path.endswith(".deck.md") and "/" in path and path.split("/")[-1].startswith("grader"):
                result = run(args, map_path, root, path)
                goldens.append({"files": own, "deck": path, "aibff": result})
                print(path, result["error"] or len(result["cases"]))
        shutil.rmtree(root)
    header = {"made_with": f"aibff at bolt-foundry {commit} under Deno (record.ts)", "count": len(goldens)}
    goldens_path.write_text(
        "\n".join(json.dumps(line, ensure_ascii=False) for line in [header, *goldens]) + "\n"
    )


if __name__ == "__main__":
    main()
