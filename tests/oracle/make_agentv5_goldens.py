"""Goldens for `agentv-5`, made by running agentv 5's own code on generated files.

agentv 5 is not on the npm registry, so CI cannot install it; its source at the release tag runs
here instead, and what it sends is kept as test data (tests/oracle/agentv5_goldens.jsonl, checked by
test_agentv5_goldens.py in every run). Nothing of agentv is committed: only the generated files and
the requests agentv made for them. To make them (docs/agentv-5.md gives the same steps):

    git -C <agentv mirror> archive v5.3.1-next.1 packages/core | tar -x -C /tmp/agentv5
    cd /tmp/agentv5/packages/core
    npm install --legacy-peer-deps --omit=optional --omit=peer --ignore-scripts
    npm install --no-save --legacy-peer-deps tsx p-limit@^6.1.0 async-mutex@^0.5.0
    cd -  # back to this repository
    .venv/bin/python -m tests.oracle.make_agentv5_goldens --source /tmp/agentv5/packages/core

`--compare N` runs N generated files through both without writing anything (the long run).
`--graders` does the same for files full of graders (generate_v5_graders.py) and keeps the
requests agentv's graders sent the judge as well (tests/oracle/agentv5_grader_goldens.jsonl,
made with `--graders --count 300`, checked by test_agentv5_grader_goldens.py). `--csv` runs
agentv's own CSV reader (loadCasesFromFile, through csv_cases.mjs) on generated CSV cases files and
keeps the case objects it made (tests/oracle/agentv5_csv_goldens.jsonl, made with
`--csv --count 400`, checked by test_agentv5_csv_goldens.py).
`--csv --compare N` with `--profile agentv-5-next-58f316c` reads them with that commit's loader (which
refuses `__provider_output`) against the inspector's reading for it.
`--profile agentv-5-next-58f316c` makes the goldens of agentv's main at 58f316ca2 the same way
(`--source` that commit's packages/core; generate_v5_next.py; the files name their judges, and
each judge request keeps the model that answered it); `--output` writes elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.oracle.agentv import Oracle  # noqa: E402
from tests.oracle.differential import compare  # noqa: E402
from tests.oracle.generate_v5 import csv_files, csv_text, files_of, suites  # noqa: E402
from tests.oracle.generate_v5_graders import grader_suites  # noqa: E402
from tests.oracle.generate_v5_next import (  # noqa: E402
    agent_grader_suites,
    newest_grader_suites,
    newest_suites,
)
from tests.oracle.test_agentv4_graders import judge_differences, recorded_differences  # noqa: E402
from tests.oracle.test_agentv5_csv_goldens import CSV_PATH, csv_differences  # noqa: E402

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "agentv5_goldens.jsonl"
GRADER_GOLDENS = HERE / "agentv5_grader_goldens.jsonl"
CSV_GOLDENS = HERE / "agentv5_csv_goldens.jsonl"
SEED_NOTE = "hypothesis, derandomized: the same files on every run"


@dataclass(frozen=True)
class Release:
    """An agentv source the goldens are made from: what it is, its files, where they go."""

    made_with: str
    suites: Any  # () -> strategy of a bundle's files
    grader_suites: Any
    goldens: Path
    grader_goldens: Path
    file_picks_judge: bool = False  # the files name their judges (agentv's main after the tag)
    # files for a run whose judge is agentv's own agent (`--grader-provider agentv`), and their goldens
    agent_suites: Any = None
    agent_goldens: Path | None = None


RELEASES = {
    "agentv-5": Release(
        "agentv v5.3.1-next.1 source (packages/core) under tsx, tests/oracle/capture.mjs",
        lambda: suites().map(files_of),
        grader_suites,
        GOLDENS,
        GRADER_GOLDENS,
    ),
    "agentv-5-next-58f316c": Release(
        "agentv main at 58f316ca24e3abcdd253efafbc240882f39dc5b0 (untagged, 45 commits after "
        "v5.3.1-next.1) source (packages/core) under tsx, tests/oracle/capture.mjs with "
        "AGENTV_JUDGE_SELECTION=file",
        newest_suites,
        newest_grader_suites,
        HERE / "agentv5_next_goldens.jsonl",
        HERE / "agentv5_next_grader_goldens.jsonl",
        file_picks_judge=True,
        agent_suites=agent_grader_suites,
        agent_goldens=HERE / "agentv5_next_agent_goldens.jsonl",
    ),
}


def generated(
    count: int, with_graders: bool = False, release: Release = RELEASES["agentv-5"], agent_judge: bool = False
) -> list[dict[str, bytes]]:
    """`count` files of the release's kind: plain, full of graders, or (agent_judge) full of
    graders for a run whose judge is agentv's own agent."""
    found: list[dict[str, bytes]] = []
    if agent_judge:
        strategy = release.agent_suites()
    else:
        strategy = release.grader_suites() if with_graders else release.suites()

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(files=strategy)
    def collect(files: dict[str, bytes]) -> None:
        found.append(files)

    collect()
    return found


def generated_csv(count: int) -> list[str]:
    found: list[str] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(spec=csv_files())
    def collect(spec: dict) -> None:
        found.append(csv_text(spec))

    collect()
    return found


def make_csv_goldens(source: Path, count: int, write: bool, release: Release) -> None:
    """Each generated CSV file read by agentv's loadCasesFromFile (csv_cases.mjs), compared with
    the inspector's reading for the release; with `write`, kept in agentv5_csv_goldens.jsonl."""
    newest_commit = release.file_picks_judge  # agentv's main after the tag refuses __provider_output
    texts = generated_csv(count)
    root = Path(tempfile.mkdtemp(prefix="agentv5-csv-"))
    try:
        paths = []
        for index, text in enumerate(texts):
            path = root / str(index) / CSV_PATH
            path.parent.mkdir(parents=True)
            path.write_bytes(text.encode())
            paths.append(str(path))
        environment = {**os.environ, "AGENTV_CORE_ENTRY": str(source / "src" / "index.ts")}
        output = subprocess.run(
            [str(source / "node_modules" / ".bin" / "tsx"), str(Path(__file__).with_name("csv_cases.mjs"))],
            input=json.dumps(paths),
            capture_output=True,
            text=True,
            check=True,
            env=environment,
        ).stdout
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lines, differing = [], 0
    for index, (text, result) in enumerate(zip(texts, json.loads(output), strict=True)):
        # agentv names files by absolute path; the goldens by the path inside the folder
        result = json.loads(json.dumps(result).replace(f"{root}/{index}/", ""))
        problems = csv_differences(text, result, newest_commit)
        if problems:
            differing += 1
            if differing <= 5:
                print(f"--- csv {index} differs: {text!r}\n" + "\n".join(problems), file=sys.stderr)
        lines.append(json.dumps({"csv": text, "agentv": result}, ensure_ascii=False))
    print(
        f"{count} generated CSV files through {release.made_with.split(' source')[0]}'s "
        f"loadCasesFromFile: {differing} differed"
    )
    if write:
        header = {
            "made_with": "agentv v5.3.1-next.1 source (packages/core) under tsx, tests/oracle/csv_cases.mjs",
            "inputs": SEED_NOTE,
            "count": count,
        }
        CSV_GOLDENS.write_text(json.dumps(header) + "\n" + "\n".join(lines) + "\n")
        print(f"wrote {CSV_GOLDENS.relative_to(REPO)}")


def slim_graders(result: dict, with_model: bool = False) -> dict:
    """As `slim`, keeping every request the graders sent the judge too (and with_model, the
    model that answered it: which judge was asked)."""
    kept = slim(result)
    for case, full in zip(kept["cases"], result.get("cases", []), strict=True):
        case["requests"] += [
            {
                "role": "judge",
                "body": {
                    "messages": request["body"].get("messages"),
                    **({"model": request["body"].get("model")} if with_model else {}),
                },
            }
            for request in full["requests"]
            if request["role"] == "judge"
        ]
    return kept


def slim(result: dict) -> dict:
    """What the comparison needs: refusal, and per case its id, error and candidate messages."""
    return {
        "error": result.get("error"),
        "cases": [
            {
                "id": case["id"],
                "status": case.get("status"),
                "error": case.get("error"),
                "requests": [
                    {"role": "candidate", "body": {"messages": request["body"].get("messages")}}
                    for request in case["requests"]
                    if request["role"] == "candidate"
                ][:1],
            }
            for case in result.get("cases", [])
        ],
    }


def _grader_problems(
    result: dict, root: Path, profile: str, release: Release, grader_provider: str | None
) -> list[str]:
    eval_file = root / "evals/suite.yaml"
    problems = recorded_differences(result, root, eval_file, profile, grader_provider)
    if release.file_picks_judge:
        problems += judge_differences(result, root, eval_file, profile, grader_provider)
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        type=Path,
        required=True,
        help="agentv's packages/core at the tag, with its dependencies and tsx",
    )
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--compare", type=int, help="compare this many files, write nothing")
    parser.add_argument(
        "--graders", action="store_true", help="files full of graders; keep the judge requests too"
    )
    parser.add_argument(
        "--csv", action="store_true", help="CSV cases files, read by agentv's loadCasesFromFile alone"
    )
    parser.add_argument(
        "--profile", choices=sorted(RELEASES), default="agentv-5", help="the release and profile"
    )
    parser.add_argument(
        "--output", type=Path, help="where to write the goldens (default: beside this script)"
    )
    parser.add_argument(
        "--grader-provider",
        choices=["agentv"],
        help="files full of graders run with agentv's own agent as the run's judge (agentv's "
        "--grader-provider); with --profile agentv-5-next-58f316c",
    )
    args = parser.parse_args()
    release = RELEASES[args.profile]
    if args.grader_provider and release.agent_suites is None:
        parser.error(f"--grader-provider is made for agentv-5-next-58f316c, not {args.profile}")
    args.graders = args.graders or bool(args.grader_provider)
    count = args.compare or args.count
    if args.csv:
        if args.compare is None and release.file_picks_judge:
            parser.error("the CSV goldens are agentv 5.3.1-next.1's: --csv with this profile takes --compare")
        make_csv_goldens(args.source.resolve(), count, args.compare is None, release)
        return
    started = time.monotonic()
    differing = 0
    lines = []
    with Oracle(
        source=args.source.resolve(),
        file_picks_judge=release.file_picks_judge,
        run_judge_is_agentv=bool(args.grader_provider),
    ) as oracle:
        for index, files in enumerate(generated(count, args.graders, release, bool(args.grader_provider))):
            root = Path(tempfile.mkdtemp(prefix="agentv5-golden-"))
            try:
                for path, data in files.items():
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).write_bytes(data)
                raw = oracle.run(root / "evals/suite.yaml", root, 300)
                result = slim_graders(raw, release.file_picks_judge) if args.graders else slim(raw)
                problems = compare(result, root, root / "evals/suite.yaml", profile=args.profile)
                if args.graders:
                    problems += _grader_problems(result, root, args.profile, release, args.grader_provider)
            finally:
                shutil.rmtree(root, ignore_errors=True)
            if problems:
                differing += 1
                if differing <= 5:
                    print(
                        f"--- file {index} differs:\n{files['evals/suite.yaml'].decode()}\n"
                        + "\n".join(problems),
                        file=sys.stderr,
                    )
            lines.append(
                json.dumps(
                    {"files": {p: d.decode() for p, d in files.items()}, "agentv": result}, ensure_ascii=False
                )
            )
    seconds = time.monotonic() - started
    print(
        f"{count} generated files through {release.made_with.split(' source')[0]} and the "
        f"{args.profile} profile in {seconds:.0f} s: {differing} differed"
    )
    if args.compare is None:
        header = json.dumps(
            {
                "made_with": (
                    release.made_with.replace("=file", "=agentv (the run's judge agentv's own agent)")
                    if args.grader_provider
                    else release.made_with
                ),
                "inputs": SEED_NOTE,
                "count": count,
            }
        )
        target = args.output or (release.grader_goldens if args.graders else release.goldens)
        if args.grader_provider and args.output is None:
            assert release.agent_goldens is not None
            target = release.agent_goldens
        target.write_text(header + "\n" + "\n".join(lines) + "\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
