"""`check` (`manage.py check_evals`): every eval file, deck and request under the given paths rendered,
each problem a `file:line: severity: message` line, exit 1 when one reaches --fail-on."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from inspector.cli.console import (
    ConsoleCommand,
    Options,
    Output,
    UsageError,
    add_gambit_core_argument,
    default_root,
    gambit_core_folder,
)
from inspector.core.bundle import DirectoryBundle
from inspector.core.model import Diagnostic, InputError
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.rendering.untrusted import RenderPolicy, list_untrusted, render_untrusted

SEVERITY_RANK = {"warning": 1, "error": 2}


@dataclass(frozen=True)
class Target:
    """One document to check: the bundle it is read in (its root bounds what it may read)."""

    bundle: DirectoryBundle
    path: str


def targets(paths: list[Path], policy: RenderPolicy) -> Iterator[Target]:
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
                listed[root] = list_untrusted(bundle, policy)
            prefix = path.resolve().relative_to(root).as_posix()
            inside = "" if prefix == "." else prefix + "/"
            candidates = [doc for doc in listed[root] if doc.startswith(inside)]
        for candidate in candidates:
            if (root, candidate) not in seen:
                seen.add((root, candidate))
                yield Target(bundle, candidate)


def problems(target: Target, options: RenderOptions, policy: RenderPolicy) -> list[Diagnostic]:
    try:
        document = render_untrusted(target.bundle, target.path, options, policy)
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


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument(
        "--fail-on",
        default="error",
        choices=tuple(SEVERITY_RANK),
        help="the least severe problem that fails the check (default: error)",
    )
    add_gambit_core_argument(parser)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def run_check(options: Options, output: Output, policy: RenderPolicy) -> int:
    paths = [Path(raw) for raw in options["paths"]]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        output.err(f"error: no such file or folder: {', '.join(missing)}")
        return 2
    try:
        render_options = parse_render_options({"profile": options["profile"]})
        folder = gambit_core_folder(options["gambit_core"])
    except (SettingsError, UsageError) as error:
        output.err(f"error: {error}")
        return 2
    if folder is not None:
        render_options = replace(render_options, gambit_core=folder)
    threshold = SEVERITY_RANK[options["fail_on"]]
    checked = failing = 0
    counts = dict.fromkeys(SEVERITY_RANK, 0)
    for target in targets(paths, policy):
        checked += 1
        found = problems(target, render_options, policy)
        for diagnostic in found:
            counts[diagnostic.severity] = counts.get(diagnostic.severity, 0) + 1
            output.out(line_for(diagnostic, target))
        if any(SEVERITY_RANK.get(d.severity, 2) >= threshold for d in found):
            failing += 1
    if not checked:
        # A mistyped path in CI would otherwise pass with nothing checked.
        output.err(f"error: no eval files, decks or requests found under {', '.join(map(str, paths))}")
        return 2
    output.err(
        f"checked {_plural(checked, 'file')}: {_plural(counts['error'], 'error')}, "
        f"{_plural(counts['warning'], 'warning')}"
    )
    return 1 if failing else 0


CHECK = ConsoleCommand(
    "Render every eval file, deck and request under PATHs; print file:line: severity: "
    "message per problem; exit 1 when any reaches --fail-on.",
    add_check_arguments,
    run_check,
)
