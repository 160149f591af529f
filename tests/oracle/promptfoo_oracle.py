"""promptfoo 0.123.1 run for real: the oracle for promptfoo configs.

`run_promptfoo` writes a config (and the files it reads) into a temporary folder, points every
provider promptfoo can reach by environment at a recording server on 127.0.0.1, runs
`promptfoo eval --no-cache` with one evaluation at a time, and returns what promptfoo sent: one
candidate request per evaluation, in promptfoo's order, and the judge requests of each
evaluation's model-graded assertions.

The recording server answers every call with the placeholder agentv's graders use for the
candidate's answer, so a judge request holds it verbatim where promptfoo writes the output.

promptfoo and the Node it needs (>= 22.22; Debian ships 20) are installed from
tests/oracle/promptfoo/package-lock.json by `.ci/setup --test` (npm's `node` package supplies the
Node binary). HOME and PROMPTFOO_CONFIG_DIR live in the temporary folder, telemetry and update
checks are off, and every request that is not to 127.0.0.1 goes to a proxy that does not exist.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.recording import RecordingServer

ORACLE = Path(__file__).with_name("promptfoo")
BIN = ORACLE / "node_modules" / ".bin"
PLACEHOLDER = "⟨the candidate's answer⟩"


def available() -> bool:
    return (BIN / "promptfoo").exists() and (BIN / "node").exists()


def answer_for(body: Any) -> dict[str, Any]:
    """One answer every API's client reads, its text the placeholder: OpenAI Chat reads
    `choices`, Responses `output`, Anthropic `content`, Gemini `candidates` (the recording server
    answers by the request's body, which does not always say which API it is for). Bedrock
    Converse reads `output` as an object, where Responses reads a list: its body is the one with
    `messages` and no `model` (the model is in its URL), as are Bedrock InvokeModel's Nova and chat
    families (`choices`, which Converse's client passes over). InvokeModel's text families (a
    `prompt`, `inputText` or Cohere's `message`) read their own fields; its Claude reads `content`.
    PaLM on Vertex reads `predictions`."""
    if isinstance(body, dict) and "model" not in body:
        if "messages" in body and "anthropic_version" not in body:
            return CONVERSE_ANSWER
        if any(key in body for key in ("prompt", "inputText", "message")):
            return INVOKE_TEXT_ANSWER
    return {
        "id": "answer-1",
        "object": "chat.completion",
        "created": 0,
        "created_at": 0,
        "model": "m",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": PLACEHOLDER}}
        ],
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": PLACEHOLDER, "annotations": []}],
            }
        ],
        "content": [{"type": "text", "text": PLACEHOLDER}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": PLACEHOLDER}]}, "finishReason": "STOP"}
        ],
        # PaLM on Vertex (`:predict`) reads its text from here.
        "predictions": [{"candidates": [{"content": PLACEHOLDER}]}],
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 1,
            "total_tokens": 2,
            "input_tokens": 1,
            "output_tokens": 1,
        },
        "parallel_tool_calls": True,
        # google-auth-library's token exchange reads these.
        "access_token": "test-token",
        "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "token_type": "Bearer",
        "expires_in": 3600,
        "tools": [],
        "tool_choice": "auto",
    }


CONVERSE_ANSWER = {
    "output": {"message": {"role": "assistant", "content": [{"text": PLACEHOLDER}]}},
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": PLACEHOLDER}}
    ],
    "stopReason": "end_turn",
    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    "metrics": {"latencyMs": 1},
}

# Bedrock InvokeModel's text families, each reading its own field: Llama `generation`, Mistral
# `outputs`, Cohere Command `generations`, Cohere Command R `text`, Titan `results`, DeepSeek R1
# `choices[].text`.
INVOKE_TEXT_ANSWER = {
    "generation": PLACEHOLDER,
    "outputs": [{"text": PLACEHOLDER, "stop_reason": "stop"}],
    "generations": [{"text": PLACEHOLDER}],
    "text": PLACEHOLDER,
    "results": [{"outputText": PLACEHOLDER, "tokenCount": 1}],
    "choices": [{"text": PLACEHOLDER, "stop_reason": "stop"}],
}


@dataclass
class Evaluation:
    test_idx: int
    prompt_idx: int
    provider: str  # the provider's label when it has one, else its id
    request: Any = None  # the candidate request's body
    path: str | None = None
    error: str | None = None


@dataclass
class OracleRun:
    evaluations: list[Evaluation]
    # The judge requests' bodies in arrival order. promptfoo grades model-graded assertions after
    # every candidate, grouped (by provider, then by assertion across tests), so which evaluation
    # a judge request belongs to is not its place in the order: compare them as a collection.
    judges: list[Any]
    # Embedding requests (answer-relevance's): not model requests, and the recording server's
    # answer carries no embedding, so promptfoo stops after the first.
    embeddings: list[Any]
    stderr: str = field(compare=False)  # what promptfoo printed, for failure messages


def certificate(folder: Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key, made here by openssl: promptfoo's
    Vertex provider only speaks HTTPS, so the recording server listens for it with this one,
    which Node is told to trust (NODE_EXTRA_CA_CERTS)."""
    cert, key = folder / "recording.crt", folder / "recording.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


def _google_credentials(home: Path, server: RecordingServer) -> str:
    """Google sign-in credentials whose token exchange goes to the recording server (an
    external account's `token_url`), for the Vertex models promptfoo calls through
    google-auth-library (Claude, Llama)."""
    (home / "subject-token").write_text("test", encoding="utf-8")
    path = home / "google-credentials.json"
    path.write_text(
        json.dumps(
            {
                "type": "external_account",
                "audience": "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
                "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
                "token_url": f"https://{server.tls_host}/sts-token",
                "credential_source": {"file": str(home / "subject-token")},
            }
        ),
        encoding="utf-8",
    )
    return str(path)


def _environment(home: Path, server: RecordingServer, cert: str) -> dict[str, str]:
    url = server.url
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "TZ") if name in os.environ}
    return keep | {
        "PATH": f"{BIN}:{keep.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
        "PROMPTFOO_SELF_HOSTED": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_LOG_LEVEL": "error",
        # No log files: each run would add its own file to the logger, and write every request.
        "PROMPTFOO_DISABLE_DEBUG_LOG": "1",
        "PROMPTFOO_DISABLE_ERROR_LOG": "1",
        "OPENAI_API_KEY": "sk-test",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "GOOGLE_API_KEY": "test",
        "GEMINI_API_KEY": "test",
        "OPENAI_BASE_URL": f"{url}/v1",
        "ANTHROPIC_BASE_URL": url,
        "GOOGLE_API_BASE_URL": url,
        # The AWS SDK reads its endpoint from the environment; promptfoo gives it an HTTP/1.1
        # handler (NodeHttpHandler), so the plain recording server takes its requests.
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": url,
        "AWS_ACCESS_KEY_ID": "AKIATEST",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        # Vertex: the API key puts promptfoo's Gemini-on-Vertex calls in express mode (a key
        # header, no Google sign-in); the host is the recording server's HTTPS listener.
        "VERTEX_API_HOST": server.tls_host,
        "NODE_EXTRA_CA_CERTS": cert,
        "GOOGLE_CLOUD_PROJECT": "test-project",
        "GOOGLE_APPLICATION_CREDENTIALS": _google_credentials(home, server),
        # Anything not on loopback goes to a proxy that is not there.
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
    }


EVAL_ARGS = ["--no-cache", "-j", "1", "--no-write", "--no-table", "--no-progress-bar"]


def _write_project(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def _results(output: Path, log: str) -> list[dict[str, Any]]:
    if not output.exists():
        raise RuntimeError(f"promptfoo wrote no results:\n{log}")
    return json.loads(output.read_text(encoding="utf-8"))["results"]["results"]


def run_promptfoo(
    files: dict[str, str | bytes], config: str = "promptfooconfig.yaml", timeout: float = 300
) -> OracleRun:
    """Run `promptfoo eval` (one process) on `files` (paths relative to the config's folder) and
    return its requests per evaluation. `PromptfooOracle` runs the same CLI without starting Node
    each time; this is the reference it is checked against."""
    with tempfile.TemporaryDirectory(prefix="pi-promptfoo-") as temp:
        root = Path(temp) / "project"
        home = Path(temp) / "home"
        home.mkdir()
        _write_project(root, files)
        output = Path(temp) / "out.json"
        tls = certificate(Path(temp))
        with RecordingServer(answer_for, tls) as server:
            process = subprocess.run(
                [str(BIN / "promptfoo"), "eval", "-c", config, *EVAL_ARGS, "-o", str(output)],
                cwd=root,
                env=_environment(home, server, tls[0]),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            recorded = server.take()
        log = f"exit {process.returncode}\n{process.stdout}\n{process.stderr}"
        results = _results(output, log)
    return _match(results, [(item.path, item.body) for item in recorded], process.stderr)


class PromptfooOracle:
    """promptfoo's CLI kept loaded: one Node process (promptfoo/eval_many.mjs) runs
    `promptfoo eval` on config after config, against one recording server, so each config costs
    its evaluation and not Node loading promptfoo (2.5 s of the 3 s a `promptfoo eval` process
    takes). A fresh process every `runs_per_process` configs keeps what promptfoo holds in
    memory between runs from growing without bound."""

    def __init__(self, runs_per_process: int = 500) -> None:
        self.runs_per_process = runs_per_process
        self._temp = tempfile.TemporaryDirectory(prefix="pi-promptfoo-")
        self._tls = certificate(Path(self._temp.name))
        self._server = RecordingServer(answer_for, self._tls).__enter__()
        self._process: subprocess.Popen[str] | None = None
        self._runs = 0  # configs run by the current process
        self._processes = 0  # processes started, each with its own HOME

    def __enter__(self) -> PromptfooOracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop()
        self._server.__exit__(None, None, None)
        self._temp.cleanup()

    def _stop(self) -> None:
        if self._process is not None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None

    def _harness(self) -> subprocess.Popen[str]:
        if self._process is not None and self._runs >= self.runs_per_process:
            self._stop()
        if self._process is None:
            self._processes += 1
            home = Path(self._temp.name) / f"home-{self._processes}"
            home.mkdir()
            self._process = subprocess.Popen(
                [str(BIN / "node"), str(ORACLE / "eval_many.mjs")],
                cwd=home,
                env=_environment(home, self._server, self._tls[0]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                encoding="utf-8",
                errors="replace",
            )
            self._runs = 0
        return self._process

    def _eval(self, root: Path, args: list[str]) -> tuple[int, str]:
        process = self._harness()
        assert process.stdin is not None and process.stdout is not None
        self._runs += 1
        marker = f"\0pi-done {self._runs} "
        process.stdin.write(json.dumps({"id": self._runs, "cwd": str(root), "args": args}) + "\n")
        process.stdin.flush()
        log: list[str] = []
        for line in process.stdout:
            if line.startswith(marker):
                return int(line[len(marker) :]), "".join(log)
            log.append(line)
        self._process = None
        raise RuntimeError(f"the promptfoo harness stopped (exit {process.wait()}):\n{''.join(log)}")

    def run(self, files: dict[str, str | bytes], config: str = "promptfooconfig.yaml") -> OracleRun:
        """What `run_promptfoo` returns for the same files."""
        with tempfile.TemporaryDirectory(prefix="run-", dir=self._temp.name) as temp:
            root = Path(temp) / "project"
            _write_project(root, files)
            output = Path(temp) / "out.json"
            self._server.take()
            code, log = self._eval(root, ["eval", "-c", config, *EVAL_ARGS, "-o", str(output)])
            recorded = self._server.take()
            results = _results(output, f"exit {code}\n{log}")
        return _match(results, [(item.path, item.body) for item in recorded], log)


def _match(results: list[dict[str, Any]], recorded: list[tuple[str, Any]], stderr: str) -> OracleRun:
    """Candidates arrive first, one per evaluation in promptfoo's order (one at a time); every
    request after them is a judge's."""
    evaluations: list[Evaluation] = []
    ordered = sorted(results, key=lambda item: (item["testIdx"], item["promptIdx"]))
    # An embedding request (`similar`, answer-relevance) is made as its evaluation is graded,
    # which can be before the next evaluation's candidate: it is never a candidate.
    embeddings = [body for path, body in recorded if path.endswith("/embeddings")]
    # Google sign-in's token exchanges are not model requests.
    queue = [(path, body) for path, body in recorded if not path.endswith(("/embeddings", "/sts-token"))]
    for result in ordered:
        provider = result.get("provider") or {}
        evaluation = Evaluation(
            result["testIdx"], result["promptIdx"], provider.get("label") or provider.get("id") or ""
        )
        if result.get("error") and not result.get("response"):
            evaluation.error = str(result["error"])
        # A transform runs on the answer: when it fails, the request had been sent.
        sent = not evaluation.error or evaluation.error.startswith("Error: Transform failed")
        if not sent:
            pass
        elif provider.get("id") == "echo":
            pass  # the echo provider sends nothing: its answer is the prompt
        elif queue:
            evaluation.path, evaluation.request = queue.pop(0)
        evaluations.append(evaluation)
    judges = [body for _path, body in queue]
    return OracleRun(evaluations, judges, embeddings, stderr)
