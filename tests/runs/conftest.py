"""The real agentv 4.42.4 run the run-check tests share: agentv's own command line, run once per
session against the recording server, in a project of three cases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.oracle import agentv
from tests.runs.agentv_cli import run_agentv_cli

SUITE = """\
description: Run-check proof suite
tests:
  - id: greet
    criteria: Greets the user by name.
    input:
      - role: system
        content: You are a friendly assistant.
      - role: user
        content: Say hello to Ada.
  - id: review-median
    criteria: Points out the bug in the median function.
    input:
      - role: user
        content:
          - type: text
            value: Please review this function.
          - type: file
            value: ../snippets/median.py
    assertions:
      - name: names_bug
        type: llm-grader
        prompt: Does the answer say the even-length case is wrong?
  - id: review-mean
    criteria: Says the mean function is correct.
    input:
      - role: user
        content:
          - type: text
            value: Is this function right?
          - type: file
            value: ../snippets/mean.py
"""
MEDIAN = "def median(values):\n    ordered = sorted(values)\n    middle = len(ordered) // 2\n    return ordered[middle]\n"
MEAN = "def mean(values):\n    return sum(values) / len(values)\n"


@pytest.fixture(scope="session")
def agentv_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    reason = agentv.available()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the agentv oracle must run in CI: {reason}")
        pytest.skip(reason)
    project = tmp_path_factory.mktemp("project")
    (project / ".git").mkdir()  # the project root a run folder inside it is checked against
    (project / "evals" / "suite").mkdir(parents=True)
    (project / "evals" / "snippets").mkdir()
    (project / "evals" / "suite" / "suite.yaml").write_text(SUITE)
    (project / "evals" / "snippets" / "median.py").write_text(MEDIAN)
    (project / "evals" / "snippets" / "mean.py").write_text(MEAN)
    run = project / ".agentv" / "results" / "run-1"
    sent = run_agentv_cli(project, "evals/suite/suite.yaml", run)
    return project, run, sent
