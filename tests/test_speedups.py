"""The compiled copies of the hottest core modules: served only while current, and alike to the
plain-Python modules in every result."""

from __future__ import annotations

import importlib.machinery
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from inspector import speedups
from inspector.core.export import PROVIDERS, export_request
from tests.core.chat_bodies import chat_body
from tests.core.test_hostile_requests import REQUESTS, spoiled

SEEDS = range(400)
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def a_build(folder: Path) -> dict:
    """The manifest of a (fake) build of today's sources in `folder`."""
    files = {module: str(Path(*module.split("."))) + SUFFIX for module in speedups.MODULES}
    files[speedups.SHARED] = speedups.SHARED + SUFFIX
    for relative in files.values():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(b"")
    return {"tag": speedups.build_tag(), "sources": speedups.fingerprint(), "files": files}


def test_a_build_of_todays_sources_is_served(tmp_path):
    files = speedups.compiled_files(a_build(tmp_path), tmp_path)
    assert files is not None and set(files) == {*speedups.MODULES, speedups.SHARED}


def test_a_build_of_an_edited_source_is_not_served(tmp_path):
    manifest = a_build(tmp_path)
    manifest["sources"]["inspector.core.export.anthropic"] = "0" * 64
    assert speedups.compiled_files(manifest, tmp_path) is None


def test_a_build_for_another_interpreter_or_missing_a_file_is_not_served(tmp_path):
    manifest = a_build(tmp_path)
    assert speedups.compiled_files({**manifest, "tag": "cpython-312-linux-x86_64"}, tmp_path) is None
    (tmp_path / manifest["files"][speedups.SHARED]).unlink()
    assert speedups.compiled_files(manifest, tmp_path) is None


def test_speedups_can_be_turned_off():
    found = subprocess.run(
        [sys.executable, "-c", "import inspector.core.export.anthropic as module; print(module.__file__)"],
        env={**os.environ, "INSPECTOR_SPEEDUPS": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip().endswith("anthropic.py")


def bodies() -> list[list]:
    """[format, body]: OpenAI Chat bodies (every other one hostile), and requests of every
    format with a few values of the wrong type."""
    drawn: list[list] = [
        ["openai-chat", chat_body(random.Random(seed), hostile=seed % 2 == 1)] for seed in SEEDS
    ]

    @hypothesis.seed(0)
    @hypothesis.settings(
        max_examples=250, database=None, deadline=None, suppress_health_check=list(hypothesis.HealthCheck)
    )
    @hypothesis.given(REQUESTS, st.randoms(use_true_random=False))
    def draw(request, rng):
        input_format, body = request
        drawn.append([input_format, spoiled(body, rng) if rng.random() < 0.7 else body])

    draw()
    return json.loads(json.dumps(drawn))


def exports(drawn: list[list]) -> list:
    """Every provider's export of each body, as JSON-ready values (an error is a result too)."""
    results = []
    for input_format, body in drawn:
        for provider in PROVIDERS:
            try:
                result = export_request(body, input_format, provider)
            except Exception as error:  # noqa: BLE001 - an error is a result to compare too
                results.append([type(error).__name__, str(error)])
                continue
            results.append(
                [
                    result.payload,
                    [change.message for change in result.changes],
                    [[lint.message, lint.severity] for lint in result.lints],
                    [warning.message for warning in result.warnings],
                ]
            )
    return results


def test_the_compiled_modules_export_as_the_plain_python_ones():
    if not speedups.active():
        pytest.skip(
            "the compiled modules are not in use here (`.ci/setup --speedups` builds them, "
            "INSPECTOR_SPEEDUPS=0 turns them off)"
        )
    drawn = bodies()
    script = (
        "import json, sys; from tests.test_speedups import exports; "
        "json.dump(exports(json.load(sys.stdin)), sys.stdout)"
    )
    plain = subprocess.run(
        [sys.executable, "-c", script],
        cwd=speedups.ROOT,
        check=True,
        env={**os.environ, "INSPECTOR_SPEEDUPS": "0"},
        capture_output=True,
        text=True,
        input=json.dumps(drawn),
    )
    assert json.loads(plain.stdout) == json.loads(json.dumps(exports(drawn)))


@pytest.mark.skipif(
    os.environ.get("PI_SPEEDUPS_CHECK") != "1",
    reason="PI_SPEEDUPS_CHECK is not set: .ci/run sets it when it runs this file on "
    "the build of `.ci/setup --speedups`",
)
def test_the_compiled_check_runs_on_the_compiled_modules():
    import inspector.core.conversations.openai_chat
    import inspector.core.export.anthropic  # noqa: F401

    assert speedups.active()
    assert all(not (sys.modules[name].__file__ or "").endswith(".py") for name in speedups.MODULES)
