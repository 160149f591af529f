"""Proof on logs inspect_ai itself wrote (mockllm, `.eval` and `.json`): each sample's messages,
answer and judge prompt as inspect_ai's own log reader gives them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from inspector.cli.commands import main
from inspector.cli.console import Output
from inspector.core.runs import read_run
from inspector.rendering.untrusted import RenderPolicy
from tests.runs.inspect_task import CANDIDATE_ANSWER

TASK = Path(__file__).with_name("inspect_task.py")


@pytest.fixture(scope="module", params=["eval", "json"])
def log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(f"inspect-{request.param}")
    subprocess.run(
        [sys.executable, str(TASK), str(folder), request.param],
        check=True,
        capture_output=True,
        timeout=300,
        cwd=folder,
    )
    [written] = folder.glob(f"*.{request.param}")
    return written


def _text(message) -> str:  # noqa: ANN001 (an inspect_ai ChatMessage)
    return message.text if not isinstance(message.content, str) else message.content


def test_samples_read_as_inspect_ai_reads_them(log: Path) -> None:
    reference = read_eval_log(str(log), resolve_attachments=True)
    run = read_run(log)
    assert run.runner == "inspect_ai" and run.runner_version == reference.eval.packages["inspect_ai"]
    assert [case.id for case in run.cases] == [str(sample.id) for sample in reference.samples or []]
    for case, sample in zip(run.cases, reference.samples or [], strict=True):
        models = [event for event in sample.events if event.event == "model"]
        candidate, judge = models[0], models[1]
        assert [m.as_dict() for m in case.messages or []] == [
            {"role": m.role, "content": _text(m)} for m in candidate.input
        ]
        assert case.answer == sample.output.completion == CANDIDATE_ANSWER
        assert candidate.call is not None
        assert case.requests == [candidate.call.request]
        [kept] = case.judges
        assert kept.name == "model_graded_qa"
        assert [m.content for m in kept.messages] == [_text(m) for m in judge.input]
        # The judge saw the real answer: the attachment it was logged as is resolved.
        assert f"[Submission]: {CANDIDATE_ANSWER}" in kept.messages[-1].content


def test_run_check_shows_what_was_sent_when_no_files_render_it(log: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main("run-check", [str(log)], Output(stdout, stderr), RenderPolicy(in_process=True))
    result = json.loads(stdout.getvalue())
    assert code == 0
    assert result["runner"] == "inspect_ai"
    ada = result["cases"][0]
    assert ada["status"] == "not_in_files"
    assert ada["sent"] == [
        {"role": "system", "content": "You are friendly."},
        {"role": "user", "content": "Say hello to Ada."},
    ]
    assert ada["answer"] == CANDIDATE_ANSWER
    assert ada["judges"][0]["name"] == "model_graded_qa"


@pytest.mark.django_db
def test_the_run_page_shows_an_inspect_log(log: Path) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client

    upload = SimpleUploadedFile(log.name, log.read_bytes(), "application/octet-stream")
    client = Client()
    stored = client.post("/runs/", {"run": upload})
    assert stored.status_code == 303, stored.content[:2000]
    run_page = client.get(stored["Location"].split("?")[0].replace("/manage/", "/run/"))
    assert run_page.status_code == 200
    assert "inspect_ai" in run_page.content.decode() and "not in the files" in run_page.content.decode()
    page = client.get(run_page.request["PATH_INFO"] + "1/")
    html = page.content.decode()
    assert "Judge model_graded_qa: what it was sent" in html
    assert f"[Submission]: {CANDIDATE_ANSWER}" in html
