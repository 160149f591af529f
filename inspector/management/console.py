"""`manage.py render|check_evals|ledger|diff`: the console commands of cli/commands.py as Django
management commands, with the settings' render policy (scripts that call them keep working)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandParser

from inspector.cli.console import ConsoleCommand, Output
from inspector.rendering import web_policy


def management_command(console: ConsoleCommand) -> type[BaseCommand]:
    class Command(BaseCommand):
        help = console.help

        def add_arguments(self, parser: CommandParser) -> None:
            console.add_arguments(parser)

        def handle(self, *_args, **options) -> None:
            code = console.run(options, Output(self.stdout, self.stderr), web_policy.render_policy())
            if code:
                sys.exit(code)

    return Command
