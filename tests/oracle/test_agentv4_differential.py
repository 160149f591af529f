"""The `agentv-4` profile against agentv 4.42.4 itself, on our examples and test bundles, on the
corpus (with PI_CORPUS) and on generated suites.

agentv runs for real (tests/oracle/capture.mjs): its loader, its orchestrator and its OpenAI
provider, which sends its request to a recording server on 127.0.0.1. A difference in any case's
messages (role, content, name, tool_calls, tool_call_id), in which cases are sent, or in whether the
file is refused at all, fails the test; hypothesis then shrinks the suite to a minimal reproducer.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.conftest import REPO, corpus_files

from . import agentv
from .differential import differences
from .generate import Suite, suites

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "500"))


def _skip_or_fail_without_oracle() -> None:
    reason = agentv.available()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the agentv oracle must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def oracle():
    _skip_or_fail_without_oracle()
    with agentv.Oracle() as running:
        yield running


def _eval_files(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".jsonl") or ".agentv" in path.parts:
            continue
        if path.suffix == ".yaml" and path.with_suffix(".jsonl").exists():
            continue  # a JSONL dataset's sidecar, read with its dataset
        if "targets" in path.name or path.name.startswith("config"):
            continue
        found.append(path)
    return found


def _jobs(roots: list[Path]) -> list[tuple[Path, Path]]:
    """Each eval file under each root, with the root it resolves its references in."""
    return [(path, root) for root in roots if root.is_dir() for path in _eval_files(root)]


def example_jobs() -> list[tuple[Path, Path]]:
    """The eval files of our examples and of the tests' own bundles."""
    return _jobs(
        sorted([*(REPO / "fixtures" / "examples").iterdir(), *(REPO / "tests" / "fixtures").iterdir()])
    )


def corpus_jobs() -> list[tuple[Path, Path]]:
    return _jobs(corpus_files("agentv/*"))


def _assert_rendered_as_agentv_sends_them(oracle, jobs: list[tuple[Path, Path]]) -> None:
    problems = {str(path): differences(oracle, root, path) for path, root in jobs}
    assert {path: found for path, found in problems.items() if found} == {}


def test_every_example_renders_as_agentv_sends_it(oracle):
    jobs = example_jobs()
    assert len(jobs) >= 5
    _assert_rendered_as_agentv_sends_them(oracle, jobs)


@pytest.mark.corpus("the real projects' eval files are in the corpus")
def test_every_corpus_file_renders_as_agentv_sends_it(oracle):
    jobs = corpus_jobs()
    assert len(jobs) > 20
    _assert_rendered_as_agentv_sends_them(oracle, jobs)


def _regression_suites() -> list[Path]:
    return sorted(REGRESSIONS.iterdir()) if REGRESSIONS.exists() else []


@pytest.mark.parametrize("folder", _regression_suites(), ids=lambda path: path.name)
def test_minimized_reproducers_stay_fixed(oracle, folder: Path):
    eval_file = next(path for path in sorted(folder.rglob("suite.*")) if path.suffix in (".yaml", ".jsonl"))
    assert differences(oracle, folder, eval_file) == []


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=False,
)
@given(suite=suites())
def test_generated_suites_render_as_agentv_sends_them(oracle, suite: Suite):
    folder = Path(tempfile.mkdtemp(prefix="agentv-suite-"))
    try:
        eval_file = suite.write(folder)
        found = differences(oracle, folder, eval_file)
        assert not found, "\n".join(found) + "\n\nreproducer:\n" + suite.show()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_graders_request_is_recorded_with_the_criteria_and_the_answer(oracle, tmp_path):
    (tmp_path / "evals").mkdir()
    eval_file = tmp_path / "evals" / "suite.yaml"
    eval_file.write_text(
        "tests:\n  - id: judged\n    criteria: Mentions the capital\n"
        "    input: What is the capital of France?\n"
    )
    found = agentv.outcome(oracle.run(eval_file, tmp_path))
    [judge] = found.judges["judged"]
    prompt = "\n".join(message["content"] for message in judge)
    assert "Mentions the capital" in prompt
    assert "What is the capital of France?" in prompt


class _Recorder(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint on 127.0.0.1 that keeps each body and answers as a stream."""

    bodies: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.bodies.append(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        chunk = {
            "id": "1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "delta": {"role": "assistant", "content": '{"score": 1, "assertions": []}'},
                }
            ],
        }
        self.wfile.write(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode())

    def log_message(self, *args: object) -> None:
        pass


CLI_FILES = [
    REGRESSIONS / "system-then-user-blocks-join-by-newline",
    REGRESSIONS / "yaml-1-2-scalars",
    REGRESSIONS / "conversation-object-content",
]


@pytest.mark.parametrize("folder", CLI_FILES, ids=lambda path: path.name)
def test_the_agentv_cli_sends_what_the_oracle_records(oracle, folder: Path, tmp_path):
    """capture.mjs drives @agentv/core's runEvaluation; `agentv eval run` must send the same."""
    root = tmp_path / "repo"
    shutil.copytree(folder, root)
    (root / ".git").mkdir()  # the CLI takes the nearest folder with .git as the repository root
    eval_file = root / "evals" / "suite.yaml"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.bodies = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        (root / "targets.yaml").write_text(
            f"targets:\n  - name: mock\n    provider: openai\n    endpoint: http://127.0.0.1:{port}/v1\n"
            "    api_key: ${{ MOCK_KEY }}\n    model: ${{ MOCK_MODEL }}\n"
        )
        env = {
            **os.environ,
            "MOCK_KEY": "sk-test",
            "MOCK_MODEL": "candidate-model",
            "HOME": str(tmp_path / "home"),
        }
        completed = subprocess.run(
            [
                str(agentv.ORACLE_DIR / "node_modules" / ".bin" / "agentv"),
                "eval",
                "run",
                "evals/suite.yaml",
                "--targets",
                "targets.yaml",
                "--target",
                "mock",
                "--output",
                str(tmp_path / "out"),
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
    finally:
        server.shutdown()
    from_cli = [agentv.wire_messages(body) for body in _Recorder.bodies]
    recorded = agentv.outcome(oracle.run(eval_file, root))
    assert recorded.cases
    for messages in recorded.cases.values():
        assert messages in from_cli
