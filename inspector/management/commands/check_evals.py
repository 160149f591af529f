"""`check_evals` (`prompt-inspector check`; `manage.py check` stays Django's system check): render
every eval file, deck and request under the given paths, the way CI and pre-commit want it.

Prints one `file:line[:column]: severity: message` line per problem (the form editors, GitHub's
problem matchers and pre-commit show as annotations), then a one-line summary on stderr. Exit 0 when
nothing reached `--fail-on`, 1 when something did, 2 when the command itself was misused.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from inspector import services
from inspector.core.bundle import DirectoryBundle
from inspector.core.model import Diagnostic, InputError
from inspector.core.options import PROFILES
from inspector.core.render_settings import SettingsError, parse_render_options

from .render import UsageError, add_gambit_core_argument, default_root, gambit_core_folder

SEVERITY_RANK = {"warning": 1, "error": 2}


@dataclass(frozen=True)
class Target:
    """One document to check: the bundle it is read in (its root bounds what it may read)."""

    bundle: DirectoryBundle
    path: str


def targets(paths: list[Path]) -> Iterator[Target]:
    bundles: dict[Path, DirectoryBundle] = {}
    listed: dict[Path, list[str]] = {}
    seen: set[tuple[Path, str]] = set()
    for path in paths:
        root = default_root(path)
        bundle = bundles.setdefault(root, DirectoryBundle(root))
        if path.is_file():
            relative = bundle.relative(path)
            candidates = [relative] if relative is not None else []
        else:
            if root not in listed:
                listed[root] = services.list_untrusted(bundle)
            prefix = path.resolve().relative_to(root).as_posix()
            inside = "" if prefix == "." else prefix + "/"
            candidates = [doc for doc in listed[root] if doc.startswith(inside)]
        for candidate in candidates:
            if (root, candidate) not in seen:
                seen.add((root, candidate))
                yield Target(bundle, candidate)


def problems(target: Target, options) -> list[Diagnostic]:
    try:
        document = services.render_untrusted(target.bundle, target.path, options)
    except InputError as error:
        return [error.diagnostic]
    found = list(document.warnings)
    for case in document.cases:
        found.extend(case.warnings)
    return found


def display_path(bundle: DirectoryBundle, path: str | None, fallback: str) -> str:
    """Paths as the user typed them would find them: relative to the current folder."""
    absolute = bundle.root / (path or fallback)
    try:
        return os.path.relpath(absolute)
    except ValueError:  # another drive on Windows
        return str(absolute)


def line_for(diagnostic: Diagnostic, target: Target) -> str:
    where = display_path(target.bundle, diagnostic.path, target.path)
    if diagnostic.line is not None:
        where += f":{diagnostic.line}"
        if diagnostic.column is not None:
            where += f":{diagnostic.column}"
    return f"{where}: {diagnostic.severity}: {diagnostic.message}"


class Command(BaseCommand):
    help = ("Render every eval file, deck and request under PATHs; print file:line: severity: "
            "message per problem; exit 1 when any reaches --fail-on.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
        parser.add_argument("--profile", default="auto", choices=PROFILES)
        parser.add_argument("--fail-on", default="error", choices=tuple(SEVERITY_RANK),
                            help="the least severe problem that fails the check (default: error)")
        add_gambit_core_argument(parser)

    def handle(self, *args, **options) -> None:
        paths = [Path(raw) for raw in options["paths"]]
        missing = [str(path) for path in paths if not path.exists()]
        if missing:
            self.stderr.write(f"error: no such file or folder: {', '.join(missing)}")
            sys.exit(2)
        try:
            render_options = parse_render_options({"profile": options["profile"]})
            folder = gambit_core_folder(options["gambit_core"])
        except (SettingsError, UsageError) as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        if folder is not None:
            render_options = replace(render_options, gambit_core=folder)
        threshold = SEVERITY_RANK[options["fail_on"]]
        checked = failing = 0
        counts = dict.fromkeys(SEVERITY_RANK, 0)
        for target in targets(paths):
            checked += 1
            found = problems(target, render_options)
            for diagnostic in found:
                counts[diagnostic.severity] = counts.get(diagnostic.severity, 0) + 1
                self.stdout.write(line_for(diagnostic, target))
            if any(SEVERITY_RANK.get(d.severity, 2) >= threshold for d in found):
                failing += 1
        self.stderr.write(f"checked {checked} file{'s' if checked != 1 else ''}: "
                          f"{counts['error']} error{'s' if counts['error'] != 1 else ''}, "
                          f"{counts['warning']} warning{'s' if counts['warning'] != 1 else ''}")
        if failing:
            sys.exit(1)
