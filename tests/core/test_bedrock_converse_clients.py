"""The Bedrock Converse export, sent by the real clients: the Python code form run with boto3, the
TypeScript form with the AWS SDK for JavaScript v3 (from tests/oracle's lockfile), the shell form
with the AWS CLI, each against a recording server on 127.0.0.1 (the SDKs' own
AWS_ENDPOINT_URL_BEDROCK_RUNTIME override, dummy credentials). Each body the client sent must equal
the JSON export, parsed as JSON; a client that prints a deprecation warning fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.core.export import ExportResult, export_case, render_code, render_codes
from inspector.core.export.bedrock_converse import DEFAULTS
from tests.oracle.agentv import ORACLE_DIR

from ..recording import Http2RecordingServer, RecordingServer
from .export_samples import sample_conversations
from .test_export_sdk_validation import CORPUS_SNAPSHOTS, OWN_FOLDERS, SETTINGS, snapshot_cases

PROVIDER = "bedrock-converse"
ANSWER = {
    "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    "metrics": {"latencyMs": 1},
}
CONVERSE_PATH = "/model/amazon.nova-lite-v1%3A0/converse"
JS_SDK = ORACLE_DIR / "node_modules" / "@aws-sdk" / "client-bedrock-runtime"
VENV_BIN = Path(sys.executable).parent


def _results(cases) -> list[ExportResult]:
    return [export_case(case, PROVIDER, settings) for case in cases for settings in SETTINGS]


def folder_results() -> list[ExportResult]:
    """Every case of our examples and test bundles, and with PI_CORPUS of every corpus snapshot."""
    folders = OWN_FOLDERS + CORPUS_SNAPSHOTS
    results = _results([case for folder in folders for case in snapshot_cases(folder)[0]])
    assert len(results) >= len(SETTINGS) * len(folders)  # each folder gives at least one case
    return results


def _environment(home: Path, url: str) -> dict[str, str]:
    """Dummy credentials and the endpoint override; no file of the user's AWS set-up is read."""
    return {
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "dummy-secret",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(home / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": url,
        # Node's own version (Debian's Node 20), not the SDK or the code: the SDK says releases
        # after January 2027 need Node 22. Any other warning still fails the run.
        "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED": "true",
    }


def _run(command: list[str], home: Path, url: str, cwd: Path | None = None) -> None:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=_environment(home, url), cwd=cwd
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "warning" not in done.stderr.lower(), done.stderr[-3000:]


def _assert_sent(server: RecordingServer, results: list[ExportResult]) -> None:
    assert [request.path for request in server.requests] == [CONVERSE_PATH] * len(results)
    assert all(
        request.headers["authorization"].startswith("AWS4-HMAC-SHA256 ") for request in server.requests
    )
    for request, result in zip(server.requests, results, strict=True):
        assert request.json() == result.payload, result.case_id


def _run_python(results: list[ExportResult], folder: Path) -> None:
    program = folder / "converse.py"
    program.write_text(render_codes(results, "python"), encoding="utf-8")
    with RecordingServer(ANSWER) as server:
        _run([sys.executable, str(program)], folder, server.url)
    _assert_sent(server, results)


def test_the_default_model_is_the_one_the_clients_call():
    assert f"/model/{DEFAULTS.model.replace(':', '%3A')}/converse" == CONVERSE_PATH


def test_boto3_sends_the_json_export_of_every_case_of_the_bundles(tmp_path):
    _run_python(folder_results(), tmp_path)


def test_boto3_sends_the_json_export_of_awkward_conversations(tmp_path):
    _run_python(_results(sample_conversations()), tmp_path)


def test_the_aws_cli_sends_the_json_export(tmp_path):
    assert shutil.which("aws", path=str(VENV_BIN)), "awscli belongs to the test extras"
    results = _results(sample_conversations())
    with RecordingServer(ANSWER) as server:
        for result in results:
            _run(["bash", "-c", render_code(result, "curl")], tmp_path, server.url)
    _assert_sent(server, results)


def _node_sdk() -> None:
    reason = None
    if shutil.which("node") is None:
        reason = "node is not installed (.ci/setup --test installs it)"
    elif not (JS_SDK / "package.json").exists():
        reason = "@aws-sdk/client-bedrock-runtime is not installed in tests/oracle (.ci/setup --test)"
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the JavaScript SDK check must run in CI: {reason}")
    pytest.skip(reason)


@pytest.mark.parametrize("which", ["bundles", "awkward conversations"])
def test_the_javascript_sdk_sends_the_json_export(tmp_path, which):
    _node_sdk()
    results = folder_results() if which == "bundles" else _results(sample_conversations())
    # An ES module resolves packages from its own folder up: point that folder at the oracle's.
    (tmp_path / "node_modules").symlink_to(ORACLE_DIR / "node_modules")
    (tmp_path / "converse.mjs").write_text(render_codes(results, "typescript"), encoding="utf-8")
    with Http2RecordingServer(ANSWER) as server:
        _run(["node", "converse.mjs"], tmp_path, server.url, cwd=tmp_path)
    _assert_sent(server, results)


def media_results() -> list[ExportResult]:
    from .test_media import SOURCES, read

    return [export_case(read(body), PROVIDER) for body in SOURCES.values()]


def test_images_and_documents_reach_bedrock_as_the_json_export_says(tmp_path):
    """boto3 and the JavaScript SDK take bytes and base64-encode them; the code forms decode the
    export's base64 first, so the body sent is the JSON export again."""
    results = media_results()
    assert all('"bytes"' in render_code(result, "json") for result in results)
    _run_python(results, tmp_path)
    _node_sdk()
    (tmp_path / "node_modules").symlink_to(ORACLE_DIR / "node_modules")
    (tmp_path / "converse.mjs").write_text(render_codes(results, "typescript"), encoding="utf-8")
    with Http2RecordingServer(ANSWER) as server:
        _run(["node", "converse.mjs"], tmp_path, server.url, cwd=tmp_path)
    _assert_sent(server, results)


def test_the_aws_cli_form_with_images_needs_v2_and_v1_refuses_it_rather_than_corrupt_them(tmp_path):
    """AWS CLI v1 (the one on PyPI) would base64-encode the export's base64 again; the form asks
    for v2's --cli-binary-format, which v1 refuses: an error, never other bytes sent."""
    results = media_results()
    with RecordingServer(ANSWER) as server:
        for result in results:
            code = render_code(result, "curl")
            assert "--cli-binary-format base64" in code and "Needs AWS CLI v2" in code
            done = subprocess.run(
                ["bash", "-c", code],
                capture_output=True,
                text=True,
                timeout=300,
                env=_environment(tmp_path, server.url),
            )
            assert "Unknown options: --cli-binary-format" in done.stderr
    assert server.requests == []
