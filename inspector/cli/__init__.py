"""The `prompt-inspector` console script, runnable from any folder once the package is installed
(`pip install .`, `pipx install .`). `render`, `check`, `ledger` and `diff` run on the core alone
(cli/commands.py: Django is never imported); `serve` and `export-html` are management commands."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# Subcommands that need Django -> their management command.
DJANGO_COMMANDS = {"serve": "serve_folder", "export-html": "export-html"}
# Every subcommand in the order the usage lists them: the Django-free ones are commands.COMMANDS.
COMMANDS = ("serve", "check", "render", "diff", "ledger", "run-check", "export-html")

USAGE = """usage: prompt-inspector COMMAND [ARGS]

  serve [PATH] [--port N] [--share-to URL] [--share-include PATH] [--gambit-core DIR]
                                             show a folder's evals in the browser; pages follow edits
  check PATH... [--profile P] [--fail-on warning|error] [--gambit-core DIR]
                                             render everything; file:line: problems; exit 1 on failure
  render PATH [...]                          the messages of one file as JSON (or a provider request)
  diff OLD NEW [...]                         what changed in the messages between two files, as JSON
  ledger PATH [...]                          tokens and cost per source file and case, as JSON
  run-check RUN [--files DIR] [--profile P]  what a run sent against what the files render now;
                                             exit 1 when any case differs
  export-html PATH -o FILE                   the rendered cases beside their source, as one HTML file

`prompt-inspector COMMAND --help` explains a command."""


def _configure_environment(command: str) -> None:
    """Defaults that suit a command run from anywhere: nothing is written inside the installed
    package, and local mode keeps its throwaway database in a temporary folder."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inspector.settings")
    scratch = Path(tempfile.mkdtemp(prefix="prompt-inspector-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    os.environ.setdefault("STATIC_ROOT", str(scratch / "static"))
    if not (os.getenv("REDIS_URL") or os.getenv("CACHE_URL")):
        os.environ["CACHE_URL"] = "locmem://"
    if command == "serve" and not (os.getenv("DATABASE_URL") or os.getenv("SQLITE_PATH")):
        os.environ["SQLITE_PATH"] = str(scratch / "local.sqlite3")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "help"
    if command not in COMMANDS:
        asked = command in ("help", "-h", "--help")
        print(USAGE, file=sys.stdout if asked else sys.stderr)
        if asked:
            return 0
        print(f"\nprompt-inspector: unknown command {command!r}", file=sys.stderr)
        return 2
    try:
        if command in DJANGO_COMMANDS:
            return _django_command(command, args[1:])
        from inspector.cli import commands

        return commands.main(command, args[1:])
    except KeyboardInterrupt:
        return 130


def _django_command(command: str, args: list[str]) -> int:
    _configure_environment(command)
    import django

    django.setup()
    from django.core.management import get_commands, load_command_class

    name = DJANGO_COMMANDS[command]
    handler = load_command_class(get_commands()[name], name)
    # argv[0] and [1] name the parser: `--help` reads "usage: prompt-inspector serve ...".
    handler.run_from_argv(["prompt-inspector", command, *args])
    return 0
