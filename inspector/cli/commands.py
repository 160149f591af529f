"""The console commands that read files on disk through the core alone, by name: `render` (the CLI
contract), `check` (`check_evals`), `ledger`, `diff` and `run-check`, one module each. No Django:
`prompt-inspector` runs them without loading it (cli/__init__.py), and `manage.py
render|check_evals|ledger|diff|run_check` are thin wrappers (management/console.py) that add the
same arguments and call the same `run`.

Each command is a `ConsoleCommand` (console.py) whose `run` returns the exit code: 0 done, 1 failed
(check: a problem reached --fail-on; render, ledger: an internal error), 2 unusable input or misuse.
Renders run in the bounded worker under `policy` (untrusted.py). What one command alone needs
(prices, the diff, the contract's serializer) is imported by that command, so the others start
without it."""

from __future__ import annotations

import argparse
import sys

from inspector.cli.check import CHECK
from inspector.cli.console import Output
from inspector.cli.diff import DIFF
from inspector.cli.ledger import LEDGER
from inspector.cli.render import RENDER
from inspector.cli.run_check import RUN_CHECK
from inspector.rendering.untrusted import RenderPolicy

# `prompt-inspector NAME` -> command; `check` is `manage.py check_evals` (`check` is Django's).
COMMANDS = {"render": RENDER, "check": CHECK, "ledger": LEDGER, "diff": DIFF, "run-check": RUN_CHECK}


def main(name: str, argv: list[str], output: Output | None = None, policy: RenderPolicy | None = None) -> int:
    """`prompt-inspector NAME ARGS...`: the exit code."""
    command = COMMANDS[name]
    parser = argparse.ArgumentParser(prog=f"prompt-inspector {name}", description=command.help)
    command.add_arguments(parser)
    options = vars(parser.parse_args(argv))
    return command.run(
        options, output or Output(sys.stdout, sys.stderr), policy or RenderPolicy.from_environment()
    )
