"""`manage.py export-html PATH -o out.html`: an eval file, deck or request (or every document in a
folder) as the one-file offline copy, for CI artifacts."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from inspector.bundles import offline
from inspector.cli.console import UsageError, default_root
from inspector.core.bundle import DirectoryBundle
from inspector.core.model import InputError
from inspector.core.options import PROFILES
from inspector.core.render_settings import parse_render_options
from inspector.rendering import web_policy


class Command(BaseCommand):
    help = "Write a self-contained HTML file showing the rendered cases beside their source."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="an eval file, deck or request, or a folder of them")
        parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
        parser.add_argument(
            "--root",
            help="bundle root (default: the folder, or the file's nearest folder with .git or .agentv)",
        )
        parser.add_argument("--profile", default="auto", choices=PROFILES)

    def handle(self, *args, **options) -> None:
        try:
            html = self._export(options)
        except (InputError, UsageError) as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        Path(options["output"]).write_text(html, encoding="utf-8")

    def _export(self, options: dict) -> str:
        path = Path(options["path"])
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
        root = Path(options["root"]) if options["root"] else (path if path.is_dir() else default_root(path))
        files = DirectoryBundle(root)
        if path.is_dir():
            documents = [
                p
                for p in web_policy.list_untrusted(files)
                if (root / p).resolve().is_relative_to(path.resolve())
            ]
        else:
            relative = files.relative(path)
            if relative is None:
                raise UsageError(f"{path}: the file is not inside --root {root}")
            documents = [relative]
        render_options = parse_render_options({"profile": options["profile"]})
        if path.is_file():  # one file asked for: its error is the answer
            rendered = [web_policy.render_untrusted(files, documents[0], render_options, distinct_ids=True)]
        else:
            rendered = offline.render_all(
                lambda p: web_policy.render_untrusted(files, p, render_options, distinct_ids=True), documents
            )
        used = {p for doc in rendered for p in _paths(doc)} | set(documents)
        texts = {p: t for p, t in offline.text_files(_Only(files, used)).items()}
        return offline.offline_html(offline.offline_data(path.name, texts, rendered))


def _paths(document) -> set[str]:
    """The files a document's text came from: a folder's other files stay out of the copy."""
    found = set()
    for case in document.cases:
        for message in case.messages:
            for segment in message.segments:
                if segment.origin.path:
                    found.add(segment.origin.path)
        if case.span:
            found.add(case.span.path)
    return found


class _Only:
    """The named files of a directory bundle."""

    def __init__(self, files: DirectoryBundle, paths: set[str]):
        self.files, self.wanted = files, sorted(paths)

    def paths(self) -> list[str]:
        return [p for p in self.wanted if self.files.exists(p)]

    def text(self, path: str):
        return self.files.text(path)
