"""What every console command is made of, with no Django: a `ConsoleCommand` is an
`add_arguments(parser)` for an argparse parser (Django's CommandParser is one) and a
`run(options, output, policy)` returning the exit code; the arguments and render settings the
commands share, read the same way by each."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from inspector.core.bundle import DirectoryBundle
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.render_settings import SETTING_NAMES, SettingsError, parse_render_options
from inspector.rendering.untrusted import RenderPolicy


class UsageError(Exception):
    pass


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


class Output:
    """Where a command writes: whole lines, each ended once (as Django's command output does)."""

    def __init__(self, stdout: Writable, stderr: Writable):
        self.stdout, self.stderr = stdout, stderr

    def out(self, text: str) -> None:
        self.stdout.write(text if text.endswith("\n") else text + "\n")

    def err(self, text: str) -> None:
        self.stderr.write(text if text.endswith("\n") else text + "\n")


Options = dict[str, Any]


@dataclass(frozen=True)
class ConsoleCommand:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[Options, Output, RenderPolicy], int]


def default_root(path: Path) -> Path:
    """Nearest folder holding .git or .agentv, from the path itself when it is a folder, else the
    path's own folder."""
    resolved = path.resolve()
    start = resolved if resolved.is_dir() else resolved.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / ".agentv").exists():
            return folder
    return start


def add_gambit_core_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gambit-core",
        metavar="DIR",
        help="gambit decks: an installed gambit-core folder (the one holding "
        "snippets/), whose snippets gambit://snippets/ embeds are read from "
        "(default: the GAMBIT_CORE_DIR environment variable)",
    )


def gambit_core_folder(raw: str | None) -> str | None:
    """--gambit-core's folder, refused when it is not gambit-core's (no snippets/ in it)."""
    if not raw:
        return None
    from inspector.core.decks.gambit_core_files import InstalledGambitCore

    if not InstalledGambitCore(raw).usable:
        raise UsageError(
            f"{raw} has no snippets/ folder: name gambit-core's own folder (the one "
            "holding snippets/ and src/) with --gambit-core"
        )
    return str(Path(raw).resolve())


def file_in_root(raw_path: str, raw_root: str | None, flag: str = "--root") -> tuple[DirectoryBundle, str]:
    """The bundle a command reads a file in (`flag`'s folder, or the nearest .git/.agentv folder)
    and the file's path inside it; UsageError when either is wrong."""
    path = Path(raw_path)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    root = Path(raw_root) if raw_root else default_root(path)
    if not root.is_dir():
        raise UsageError(f"{root}: {flag} is not a folder")
    bundle = DirectoryBundle(root)
    relative = bundle.relative(path)
    if relative is None:
        raise UsageError(f"{path}: the file is not inside {flag} {root}")
    return bundle, relative


# The parser's settings taken as they are; --patterns, a list, is passed only when given.
RENDER_SETTING_OPTIONS = tuple(name for name in SETTING_NAMES if name != "patterns")


def cli_render_options(options: Options) -> RenderOptions:
    """A command's render settings through the one parser (the page's and API's limits too);
    a command offers those of RENDER_SETTING_OPTIONS it declares."""
    settings = {name: options[name] for name in RENDER_SETTING_OPTIONS if options.get(name) is not None}
    if options.get("patterns"):
        settings["patterns"] = options["patterns"]
    try:
        parsed = parse_render_options(settings)
    except SettingsError as error:
        raise UsageError(str(error)) from None
    # Not a page or API setting: a folder of this machine, named only on its command line.
    folder = gambit_core_folder(options.get("gambit_core"))
    return parsed if folder is None else replace(parsed, gambit_core=folder)


def contract_run(
    action: Callable[[Options, Output, RenderPolicy], str], what: str
) -> Callable[[Options, Output, RenderPolicy], int]:
    """A command whose contract is JSON on stdout, one `error:` line and exit 2 for unusable
    input, and never a traceback (exit 1 naming the file for anything unforeseen)."""

    def run(options: Options, output: Output, policy: RenderPolicy) -> int:
        try:
            text = action(options, output, policy)
        except (InputError, UsageError) as error:
            output.err(f"error: {error}")
            return 2
        except Exception as error:  # noqa: BLE001 - the contract promises no traceback, ever
            output.err(f"error: {options['path']}: {what}: {type(error).__name__}: {error}")
            return 1
        output.out(text)
        return 0

    return run
