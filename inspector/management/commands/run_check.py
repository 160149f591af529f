"""`manage.py run_check RUN [--files DIR] [--profile P]`: `prompt-inspector run-check`, the same
code and answers (inspector/runs/command.py)."""

from __future__ import annotations

from inspector.cli.run_check import RUN_CHECK
from inspector.management.console import management_command

Command = management_command(RUN_CHECK)
