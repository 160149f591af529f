"""`manage.py ledger`: what one run of a suite costs, per source file and per case, and what the
provider's prompt cache would save; JSON on stdout (exit 2 naming the file when unusable)."""

from __future__ import annotations

from inspector.cli.ledger import LEDGER
from inspector.management.console import management_command

Command = management_command(LEDGER)
