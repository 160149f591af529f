"""`manage.py diff OLD NEW`: what changed in the messages between two eval files (or one file under
two roots), as JSON for CI. Exit 0 when it compared, 2 with a located message when an input cannot
be used."""

from __future__ import annotations

from inspector.cli.diff import DIFF
from inspector.management.console import management_command

Command = management_command(DIFF)
