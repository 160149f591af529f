"""A real agentv 4.42.4 run, made by agentv's own command line (`agentv eval run -o DIR`) with its
OpenAI targets pointed at the recording server: the run folder agentv writes, and the request
bodies it sent, which are the reference for "what was sent"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.oracle.agentv import ORACLE_DIR, _environment
from tests.recording import CHAT, RecordingServer

CANDIDATE_MODEL = "candidate-model"
JUDGE_MODEL = "judge-model"
CANDIDATE_ANSWER = "The median of an even-length list averages the two middle values."
# A grade agentv 4's graders accept.
GRADE = json.dumps(
    {
        "score": 1,
        "assertions": [],
        "hits": ["ok"],
        "misses": [],
        "reasoning": "ok",
        "checks": [],
        "overall_reasoning": "ok",
    }
)


def _answer(body: Any) -> dict[str, Any]:
    text = GRADE if isinstance(body, dict) and body.get("model") == JUDGE_MODEL else CANDIDATE_ANSWER
    return {
        **CHAT,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }


def _targets(url: str) -> str:
    # agentv refuses literal keys and models in targets: they come from the environment.
    return "\n".join(
        [
            "targets:",
            "  - name: mock",
            "    provider: openai",
            f"    endpoint: {url}/v1",
            "    api_key: ${{ MOCK_KEY }}",
            "    model: ${{ MODEL_mock }}",
            "    max_retries: 0",
            "    grader_target: judge",
            "  - name: judge",
            "    provider: openai",
            f"    endpoint: {url}/v1",
            "    api_key: ${{ MOCK_KEY }}",
            "    model: ${{ MODEL_judge }}",
            "    max_retries: 0",
            "",
        ]
    )


def run_agentv_cli(project: Path, eval_file: str, output: Path, timeout: float = 300) -> list[dict[str, Any]]:
    """Runs `agentv eval run eval_file -o output` in `project` (which gets .agentv/targets.yaml);
    the request bodies agentv sent, in arrival order."""
    environment = _environment() | {
        "MOCK_KEY": "sk-test",
        "MODEL_mock": CANDIDATE_MODEL,
        "MODEL_judge": JUDGE_MODEL,
        "NO_COLOR": "1",
    }
    with RecordingServer(_answer) as server:
        (project / ".agentv").mkdir(exist_ok=True)
        (project / ".agentv" / "targets.yaml").write_text(_targets(server.url))
        finished = subprocess.run(
            [
                "node",
                str(ORACLE_DIR / "node_modules" / ".bin" / "agentv"),
                "eval",
                "run",
                eval_file,
                "--target",
                "mock",
                "--workers",
                "1",
                "-o",
                str(output),
            ],
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if not (output / "index.jsonl").exists():
            raise RuntimeError(
                f"agentv wrote no run (exit {finished.returncode}): "
                f"{finished.stdout[-2000:]}{finished.stderr[-2000:]}"
            )
        return [recorded.body for recorded in server.take()]
