"""`manage.py diff OLD NEW`: what changed in the messages between two eval files (or one file under
two roots), as JSON for CI. Exit 0 when it compared, 2 with a located message when an input cannot
be used."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandParser

from inspector import services
from inspector.core.bundle import DirectoryBundle
from inspector.core.diff import FileChanges, diff_documents
from inspector.core.export import PROVIDERS
from inspector.core.model import InputError
from inspector.core.options import PROFILES
from inspector.core.render_settings import SettingsError, parse_render_options

from .render import UsageError, file_in_root


class Command(BaseCommand):
    help = "Compare the messages two eval files (or decks, or requests) render to."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("old")
        parser.add_argument("new")
        parser.add_argument("--root-old", help="the old file's bundle root (default: nearest .git or .agentv)")
        parser.add_argument("--root-new", help="the new file's bundle root (default: nearest .git or .agentv)")
        parser.add_argument("--profile", default="auto", choices=PROFILES)
        parser.add_argument("--provider", default="openai-chat", choices=PROVIDERS,
                            help="whose tokenizer counts the token delta")

    def handle(self, *args, **options) -> None:
        try:
            output = self._diff(options)
        except (InputError, UsageError, SettingsError) as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        self.stdout.write(output)

    def _diff(self, options: dict) -> str:
        old_files, old_path = file_in_root(options["old"], options["root_old"], "--root-old")
        new_files, new_path = file_in_root(options["new"], options["root_new"], "--root-new")
        render_options = parse_render_options({"profile": options["profile"]})
        old = services.render_untrusted(old_files, old_path, render_options, distinct_ids=True)
        new = services.render_untrusted(new_files, new_path, render_options, distinct_ids=True)

        def reader(files: DirectoryBundle):
            def text(path: str) -> str | None:
                decoded = files.text(path)
                return decoded.text if decoded is not None else None
            return text

        # Compared as one document, whatever each file is called.
        result = diff_documents({new_path: old}, {new_path: new},
                                FileChanges(reader(old_files), reader(new_files)), options["provider"])
        return json.dumps(result.as_contract(with_documents=False), indent=2, ensure_ascii=False)
