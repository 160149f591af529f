"""`run-check`: the command's arguments and run, loaded from runs/command.py only when it runs."""

from __future__ import annotations

import argparse

from inspector.cli.console import ConsoleCommand, Options, Output
from inspector.rendering.untrusted import RenderPolicy


def _run_check(options: Options, output: Output, policy: RenderPolicy) -> int:
    from inspector.runs.command import run_check  # the run readers load only for this command

    return run_check(options, output, policy)


def _add_run_check_arguments(parser: argparse.ArgumentParser) -> None:
    from inspector.runs.command import add_arguments

    add_arguments(parser)


RUN_CHECK = ConsoleCommand(
    "Compare what a run sent (agentv results, an Inspect AI log) with what the eval files render "
    "now; exit 1 when any case differs.",
    _add_run_check_arguments,
    _run_check,
)
