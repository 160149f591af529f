"""The `prompt-inspector` console script: the management commands under short names, runnable from
any folder once the package is installed (`pip install .`, `pipx install .`)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# Subcommand -> management command. `check` is `check_evals` because `manage.py check` is Django's.
COMMANDS = {
    "serve": "serve_folder",
    "render": "render",
    "check": "check_evals",
    "diff": "diff",
    "ledger": "ledger",
    "export-html": "export-html",
}

USAGE = """usage: prompt-inspector COMMAND [ARGS]

  serve [PATH] [--port N] [--share-to URL] [--share-include PATH] [--gambit-core DIR]
                                             show a folder's evals in the browser; pages follow edits
  check PATH... [--profile P] [--fail-on warning|error] [--gambit-core DIR]
                                             render everything; file:line: problems; exit 1 on failure
  render PATH [...]                          the messages of one file as JSON (or a provider request)
{extra}
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


def available() -> dict[str, str]:
    from django.core.management import get_commands

    known = get_commands()
    return {name: command for name, command in COMMANDS.items() if command in known}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "help"
    _configure_environment(command)
    import django

    django.setup()
    from django.core.management import get_commands, load_command_class

    commands = available()
    if command not in commands:
        extra = "".join(f"  {name} ...\n" for name in commands if name not in ("serve", "check", "render"))
        asked = command in ("help", "-h", "--help")
        print(USAGE.format(extra=extra), file=sys.stdout if asked else sys.stderr)
        if asked:
            return 0
        print(f"\nprompt-inspector: unknown command {command!r}", file=sys.stderr)
        return 2
    name = commands[command]
    handler = load_command_class(get_commands()[name], name)
    try:
        # argv[0] and [1] name the parser: `--help` reads "usage: prompt-inspector serve ...".
        handler.run_from_argv(["prompt-inspector", command, *args[1:]])
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
