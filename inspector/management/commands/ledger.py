"""`manage.py ledger`: what one run of a suite costs, per source file and per case, and what the
provider's prompt cache would save; JSON on stdout (exit 2 naming the file when unusable)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandParser

from inspector import services
from inspector.core.export import PROVIDERS, ExportSettings
from inspector.core.formats import INPUT_FORMATS
from inspector.core.ledger import build_ledger
from inspector.core.model import InputError
from inspector.core.options import PROFILES

from .render import UsageError, cli_render_options, file_in_root


class Command(BaseCommand):
    help = "Tokens per source file and per case, the cost of one run, and the prompt-cache map."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--root", help="bundle root (default: nearest folder with .git or .agentv)")
        parser.add_argument("--profile", default="auto", choices=PROFILES)
        parser.add_argument("--patterns", nargs="+", metavar="GLOB",
                            help="guideline patterns (default: from .agentv/config.yaml)")
        parser.add_argument("--system-prompt", help="configured default system prompt")
        parser.add_argument("--max-tokens", type=int, help="token budget: drop the oldest messages")
        parser.add_argument("--input-format", default="auto", choices=INPUT_FORMATS)
        parser.add_argument("--provider", default="openai-chat", choices=PROVIDERS)
        parser.add_argument("--model", help="the model priced (default: the provider's)")
        parser.add_argument("--max-output-tokens", type=int,
                            help="prices each case's output at this many tokens, an upper bound")

    def handle(self, *args, **options) -> None:
        try:
            output = self._ledger(options)
        except (InputError, UsageError) as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        except Exception as error:  # noqa: BLE001 - the contract promises no traceback, ever
            self.stderr.write(f"error: {options['path']}: internal error: {type(error).__name__}: {error}")
            sys.exit(1)
        self.stdout.write(output)

    def _ledger(self, options: dict) -> str:
        bundle, relative = file_in_root(options["path"], options["root"])
        max_output = options["max_output_tokens"]
        if max_output is not None and not 1 <= max_output <= 1_000_000:
            raise UsageError("--max-output-tokens must be between 1 and 1,000,000")
        render_options = cli_render_options(options)
        document = services.render_untrusted(bundle, relative, render_options)
        for warning in document.warnings:
            self.stderr.write(f"warning: {warning.located()}")
        export = ExportSettings(model=options["model"], max_tokens=max_output)
        return json.dumps(build_ledger(document, options["provider"], export).as_dict(), indent=2,
                          ensure_ascii=False)
