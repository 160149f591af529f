"""Goldens for agentv 3.8's judge prompts, made by running agentv 3.8.0's own source.

agentv 3.8 is not on the npm registry, so, as for agentv 5 (docs/agentv-5.md), its
`packages/core` at the tag runs under tsx through tests/oracle/capture.mjs with the recording
server (agentv 3.8's AI SDK provider asks OpenAI's Responses API; capture.mjs answers it). The files
are generate_v38_graders.py's; what agentv sent the candidate and the judge is kept in
tests/oracle/agentv38_grader_goldens.jsonl, each request as chat messages (role, text), and
test_agentv38_grader_goldens.py checks every one. Nothing of agentv is committed. To make them:

    git -C <agentv mirror> archive v3.8.0 packages/core | tar -x -C /work/oracle/agentv38
    cd /work/oracle/agentv38/packages/core
    # @agentv/eval is a workspace package packages/core does not import at runtime: drop it
    node -e 'const p=require("./package.json"); delete p.dependencies["@agentv/eval"];
             delete p.devDependencies; require("fs").writeFileSync("package.json", JSON.stringify(p, null, 2))'
    npm install --legacy-peer-deps --omit=optional --omit=peer --ignore-scripts
    npm install --no-save --legacy-peer-deps tsx p-limit@^6.1.0 async-mutex@^0.5.0
    cd -  # this repository
    .venv/bin/python -m tests.oracle.make_agentv38_goldens --source /work/oracle/agentv38/packages/core

`--compare N` runs N files through both without writing anything.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.oracle.agentv import Oracle  # noqa: E402
from tests.oracle.differential import compare  # noqa: E402
from tests.oracle.generate_v38_graders import generate  # noqa: E402
from tests.oracle.test_agentv4_graders import recorded_differences  # noqa: E402

GOLDENS = Path(__file__).resolve().parent / "agentv38_grader_goldens.jsonl"
COUNT = 300


def chat_messages(body: dict[str, Any]) -> list[dict[str, str]]:
    """A Responses API body's `input` as chat messages: each item's role and its text."""
    messages = []
    for item in body.get("input") or []:
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        messages.append({"role": item.get("role"), "content": content})
    return messages


def slim(result: dict[str, Any]) -> dict[str, Any]:
    """What the comparison needs: the refusal, and per test its id, error, the candidate's first
    request and every judge request, as chat messages."""
    return {
        "error": result.get("error"),
        "cases": [
            {
                "id": case["id"],
                "status": case.get("status"),
                "error": case.get("error"),
                "requests": [
                    {"role": "candidate", "body": {"messages": chat_messages(request["body"])}}
                    for request in case["requests"]
                    if request["role"] == "candidate"
                ][:1]
                + [
                    {"role": "judge", "body": {"messages": chat_messages(request["body"])}}
                    for request in case["requests"]
                    if request["role"] == "judge"
                ],
            }
            for case in result.get("cases", [])
        ],
    }


def write_files(files: dict[str, str], root: Path) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / ".git").write_text("")  # agentv's repo root
    return root / "evals/suite.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="agentv's packages/core at v3.8.0")
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--compare", type=int, help="compare this many files, write nothing")
    args = parser.parse_args()
    count = args.compare or args.count
    started = time.monotonic()
    differing = 0
    lines = []
    with Oracle(source=args.source.resolve(), env_syntax="dollar") as oracle:
        for number in range(count):
            files = {path: data.decode() for path, data in generate(number).items()}
            root = Path(tempfile.mkdtemp(prefix="agentv38-golden-"))
            try:
                eval_file = write_files(files, root)
                result = slim(oracle.run(eval_file, root, 300))
                problems = compare(result, root, eval_file, profile="agentv-3.8")
                problems += recorded_differences(result, root, eval_file, "agentv-3.8")
            finally:
                shutil.rmtree(root, ignore_errors=True)
            if problems:
                differing += 1
                if differing <= 5:
                    print(f"--- file {number} differs:\n{files['evals/suite.yaml']}\n" + "\n".join(problems))
            lines.append(json.dumps({"files": files, "agentv": result}, ensure_ascii=False))
    print(f"{count} generated agentv 3.8 files in {time.monotonic() - started:.0f} s: {differing} differed")
    if args.compare is None:
        header = {
            "made_with": "agentv v3.8.0 (9922135a) source (packages/core) under tsx, tests/oracle/capture.mjs",
            "inputs": "tests/oracle/generate_v38_graders.py, random.Random(f'v3.8-graders:{n}')",
            "count": count,
        }
        GOLDENS.write_text(json.dumps(header) + "\n" + "\n".join(lines) + "\n")
        print(f"wrote {GOLDENS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
