"""The differential oracle: agentv 4.42.4's own code, run by Node, against our `agentv-4` profile.

`run_agentv` feeds eval files to `capture.mjs`, which runs agentv's evaluation with an OpenAI target
pointed at a recording server on 127.0.0.1 and returns the request bodies agentv sent. `ours` renders
the same files with the inspector. `compare` lines the two up case by case.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ORACLE_DIR = Path(__file__).resolve().parent
MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")


class OracleUnavailable(RuntimeError):
    pass


def available() -> str | None:
    """Why the oracle cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed (.ci/setup --test installs it)"
    if not (ORACLE_DIR / "node_modules" / "@agentv" / "core" / "package.json").exists():
        return "agentv is not installed in tests/oracle (.ci/setup --test installs it)"
    return None


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AGENTV")}
    # agentv keeps state under its home; keep it out of the user's.
    home = Path(tempfile.gettempdir()) / "prompt-inspector-oracle-home"
    home.mkdir(exist_ok=True)
    env["HOME"] = str(home)
    return env


def run_agentv(jobs: list[tuple[Path, Path]], timeout: float = 600) -> list[dict[str, Any]]:
    """agentv's results for each (eval file, repo root), in order."""
    with Oracle() as oracle:
        return [oracle.run(path, root, timeout) for path, root in jobs]


class Oracle:
    """One long-lived agentv process: each `run` sends a job line and reads its result line.

    By default the published agentv 4.42.4. With `source`, agentv's `packages/core` checked out at
    a tag with its npm dependencies and tsx installed (see docs/agentv-5.md): that release's own
    TypeScript, run the same way. `file_picks_judge`: no CLI grader override, so the file's
    `defaults.grader`, `options.provider` and assertion `provider` pick the judge
    (docs/agentv-next.md)."""

    def __init__(
        self,
        source: Path | None = None,
        file_picks_judge: bool = False,
        env_syntax: str = "nunjucks",
        run_judge_is_agentv: bool = False,
    ) -> None:
        """`env_syntax`: how the source's targets name environment variables (agentv 5's
        `{{ env.X }}`, "nunjucks"; agentv 3.8's `${{ X }}`, "dollar"). `run_judge_is_agentv`: as
        file_picks_judge, with the run's judge agentv's own agent (`--grader-provider`)."""
        environment = _environment()
        if source is None:
            reason = available()
            if reason:
                raise OracleUnavailable(reason)
            command = ["node"]
        else:
            command = [str(source / "node_modules" / ".bin" / "tsx")]
            environment["AGENTV_CORE_ENTRY"] = str(source / "src" / "index.ts")
            if env_syntax == "nunjucks":
                environment["AGENTV_ENV_SYNTAX"] = "nunjucks"
        if file_picks_judge:  # agentv's main after 5.3.1-next.1: the file names its judges
            environment["AGENTV_JUDGE_SELECTION"] = "file"
        if run_judge_is_agentv:
            environment["AGENTV_JUDGE_SELECTION"] = "agentv"
        self.process = subprocess.Popen(
            [*command, str(ORACLE_DIR / "capture.mjs"), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ORACLE_DIR,
            env=environment,
            bufsize=1,
        )

    def run(self, eval_file: Path, repo_root: Path, timeout: float = 120) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        job = {"evalFile": str(eval_file), "repoRoot": str(repo_root)}
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.close()
            raise OracleUnavailable(f"agentv gave no answer for {eval_file} within {timeout} s")
        line = self.process.stdout.readline()
        if not line:
            raise OracleUnavailable(f"agentv's process ended (exit {self.process.poll()})")
        return json.loads(line)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wire_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of a recorded chat-completions body, with only the keys that are compared."""
    return [
        {key: message[key] for key in MESSAGE_KEYS if key in message} for message in body.get("messages", [])
    ]


@dataclass
class Outcome:
    """agentv's verdict on one file: the messages per case it sent, or why it sent nothing."""

    cases: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    judges: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # cases that ran but errored before sending
    error: str | None = None  # the whole file was refused
    log: list[str] = field(default_factory=list)


def outcome(result: dict[str, Any]) -> Outcome:
    found = Outcome(error=result.get("error"), log=result.get("log", []))
    for case in result.get("cases", []):
        candidates = [r["body"] for r in case["requests"] if r["role"] == "candidate"]
        found.judges[case["id"]] = [
            wire_messages(r["body"]) for r in case["requests"] if r["role"] == "judge"
        ]
        if candidates:
            found.cases[case["id"]] = wire_messages(candidates[0])
        else:
            found.failed[case["id"]] = case.get("error") or "no request was sent"
    return found
