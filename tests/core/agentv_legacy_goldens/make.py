"""Goldens for `agentv-0.10` and `agentv-3.8`: generated eval files and what agentv itself sent.

Neither release is on npm. Their source at the git tags (v0.10.1, v3.8.0) was transpiled and run on
each generated file (docs/agentv-releases.md, "How the goldens were made"); the messages the
provider would send are kept here as test data, checked by test_agentv_legacy_goldens.py. Nothing of
agentv and no part of that harness is committed: only the generated files and agentv's answers.

    .venv/bin/python -m tests.core.agentv_legacy_goldens.make --runner /tmp/avcheck/run.mjs

`--runner` is the harness script: `node RUNNER <tag> <eval file> <repo root>` prints the cases
agentv kept, each with its `llm_messages`. Without `--runner` nothing is run: `--show N` prints
generated file N.

The generator is deterministic (random.Random(seed)); it covers the edge cases the document lists:
empty and whitespace-only text, fenced code, file values with a leading `/` or `\\`, spaces, `..`,
missing, empty and blank files, several and later system messages, multi-block joins, tool
messages and content-less tool calls, malformed messages, and guideline patterns and configs.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
TAGS = {"v0.10.1": "0.10", "v3.8.0": "3.8"}
COMMITS = {
    "v0.10.1": "806f691c537c1d8cd36672c7d319dfc2c925136a",
    "v3.8.0": "9922135a0a25cc7028932a797109ff33f0bbcd70",
}
COUNT = 180

FILES = {
    "snippets/root.md": "ROOT FILE\n",
    "evals/snippets/code.md": "Code file\n```py\nprint(1)\n```\n",
    "kb/a.txt": "KB A\r\nline 2\n",
    "evals/blank.txt": "  \n",
    "evals/empty.txt": "",
    "prompts/style.instructions.md": "# Style\nBe terse.\n",
    "prompts/other.instructions.md": "\n\n  # Other\nBe kind.\n\n",
    "prompts/empty.instructions.md": "",
    "prompts/SKILL.md": "skill body\n",
    "prompts/notes.md": "  prompt notes\n",
    "docs/guide.md": "docs guide\n",
    ".github/dot.instructions.md": "# Dot\nhidden\n",
    "evals/local.instructions.md": "# Local\nnear\n",
}

REFERENCES = [
    "snippets/root.md",
    "/snippets/root.md",
    "\\snippets/root.md",
    " snippets/root.md",
    "snippets/code.md",
    "/snippets/code.md",
    "../kb/a.txt",
    "kb/a.txt",
    "/kb/a.txt",
    "blank.txt",
    "empty.txt",
    "nope.md",
    "/nope.md",
    "prompts/style.instructions.md",
    "/prompts/style.instructions.md",
    "prompts/other.instructions.md",
    "prompts/empty.instructions.md",
    "local.instructions.md",
    "prompts/SKILL.md",
    "prompts/notes.md",
    "docs/guide.md",
    ".github/dot.instructions.md",
    "",
    "../prompts/style.instructions.md",
    "prompts/nope.instructions.md",
    "./snippets/code.md",
]

TEXTS = [
    "",
    "   ",
    "hi",
    "  padded  \n",
    "Look:\n```py\nprint(1)\n```\nand\n```\nx\n```",
    "```a```",
    "open ``` fence",
    "line1\nline2\n",
    "Use ```inline``` and ```two```",
    "\n\nleading blank",
    "tab\tend\t",
    "Question?",
    "Answer.",
    "```\nsys\n```",
]

PATTERNS = [
    ["**/*.instructions.md"],
    ["*.instructions.md"],
    [".github/**/*.md", "**/*.instructions.md"],
    ["prompts/**"],
    ["style.instructions.md"],
    ["local.instructions.md"],
    ["**/SKILL.md", "prompts/*.md"],
    ["evals/*.instructions.md"],
    ["{prompts,docs}/**/*.md"],
    ["**/*.{md,txt}"],
    [],
]


def _text(rng: random.Random) -> str:
    return rng.choice(TEXTS)


def _block(rng: random.Random) -> object:
    roll = rng.random()
    if roll < 0.45:
        return {"type": "file", "value": rng.choice(REFERENCES)}
    if roll < 0.9:
        return {"type": "text", "value": _text(rng)}
    if roll < 0.94:
        return {"type": "image", "value": "img.png"}
    if roll < 0.97:
        return {"type": "text", "value": 5}
    return rng.choice(["bare string", {"note": "no type"}])


def _message(rng: random.Random, role: str, tag: str) -> dict:
    roll = rng.random()
    if roll < 0.04:
        return {"role": role}  # no content
    if roll < 0.06:
        return {"role": role, "content": None}
    if roll < 0.08 and tag == "v3.8.0":
        return {"role": role, "content": {"answer": 42, "note": "x", "ok": True, "none": None}}
    if roll < 0.09:
        return {"role": rng.choice(["developer", role]), "content": _text(rng)}
    if role == "assistant" and roll < 0.14:
        return {"role": role, "tool_calls": [{"tool": "search", "input": {"q": "x"}}]}
    if roll < 0.45:
        return {"role": role, "content": _text(rng)}
    return {"role": role, "content": [_block(rng) for _ in range(rng.randint(1, 4))]}


def _case(rng: random.Random, index: int, tag: str) -> dict:
    single_roles = rng.random() < 0.45  # only system/user: exercises single-turn and visibility
    roles = ["system", "user"] if single_roles else ["system", "user", "assistant", "tool"]
    weights = [2, 5] if single_roles else [2, 4, 2, 1.5]
    count = rng.randint(1, 5)
    messages = [_message(rng, rng.choices(roles, weights)[0], tag) for _ in range(count)]
    if rng.random() < 0.3:
        messages.insert(0, _message(rng, "system", tag))
    if tag == "v0.10.1":
        return {"id": f"c{index}", "outcome": "x", "input_messages": messages}
    return {"id": f"c{index}", "criteria": "x", "input": messages}


def generate(number: int, tag: str) -> dict[str, str]:
    """Generated file `number` for `tag`: every file of its bundle, by path."""
    rng = random.Random(f"{tag}:{number}")
    files = dict(FILES)
    eval_path = rng.choice(["evals/e.yaml", "evals/e.yaml", "evals/sub/e.yaml"])
    patterns = rng.choice(PATTERNS)
    config_kind = rng.choice(["schema", "schema", "schema", "no-schema", "upward", "none", "no-patterns"])
    config: dict | None = {"$schema": "agentv-config-v2", "guideline_patterns": patterns}
    if config_kind == "no-schema":
        config = {"guideline_patterns": patterns}
    elif config_kind == "none":
        config = None
    elif config_kind == "no-patterns":
        config = {"$schema": "agentv-config-v2"}
    elif config_kind == "upward":
        files["evals/.agentv/config.yaml"] = yaml.safe_dump(
            {"$schema": "agentv-config-v2", "guideline_patterns": rng.choice(["not a list", ["ok/*.md", 5]])}
        )
    if config is not None:
        files[".agentv/config.yaml"] = yaml.safe_dump(config, sort_keys=False)
    cases = [_case(rng, index + 1, tag) for index in range(rng.randint(1, 3))]
    if tag == "v0.10.1":
        document: dict = {"$schema": "agentv-eval-v2", "evalcases": cases}
    else:
        document = {"tests": cases}
        if rng.random() < 0.15:
            document = {
                "input": [
                    {
                        "role": rng.choice(["system", "user"]),
                        "content": [
                            {"type": "file", "value": rng.choice(REFERENCES[:12])},
                            {"type": "text", "value": _text(rng)},
                        ],
                    }
                ],
                **document,
            }
    files[eval_path] = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    return files


def _run(runner: str, tag: str, files: dict[str, str]) -> dict:
    eval_path = next(path for path in files if path.endswith("/e.yaml"))
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as cwd:
        for path, text in files.items():
            target = Path(root, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode())
        Path(root, ".git").write_text("")  # agentv's repo root
        done = subprocess.run(
            ["node", runner, tag, str(Path(root, eval_path)), root],
            capture_output=True,
            text=True,
            cwd=cwd,
            check=False,
        )
    if done.returncode:
        return {"eval": eval_path, "error": done.stderr.strip().splitlines()[-1:], "cases": []}
    cases = [{"id": case["id"], "messages": case["llm_messages"]} for case in json.loads(done.stdout)]
    return {"eval": eval_path, "error": None, "cases": cases}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runner")
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--show", type=int)
    parser.add_argument("--tag", default="v3.8.0")
    args = parser.parse_args()
    if args.show is not None:
        for path, text in generate(args.show, args.tag).items():
            if not path.startswith(tuple(FILES)):
                print(f"--- {path}\n{text}")
        return
    if not args.runner:
        sys.exit("--runner is needed to make goldens")
    import datetime

    for tag, name in TAGS.items():
        lines = [
            json.dumps(
                {
                    "made_with": f"agentv {tag} ({COMMITS[tag]}) packages/core/src, transpiled and run "
                    f"with node; loadEvalCases/loadTests, buildPromptInputs(case, 'lm') and "
                    f"the provider's buildChatPrompt",
                    "inputs": "tests/core/agentv_legacy_goldens/make.py, random.Random(f'{tag}:{n}')",
                    "date": datetime.date.today().isoformat(),
                    "count": args.count,
                    "fixed_files": FILES,
                }
            )
        ]
        for number in range(args.count):
            files = generate(number, tag)
            answer = _run(args.runner, tag, files)
            own = {path: text for path, text in files.items() if FILES.get(path) != text}
            lines.append(json.dumps({"n": number, "files": own, **answer}, ensure_ascii=False))
        (HERE / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(tag, args.count, "files")


if __name__ == "__main__":
    main()
