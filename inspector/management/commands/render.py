"""`manage.py render`: the inspector's command-line contract for scripts and CI.

Prints a JSON array, one object per case (or sample) in file order. Exit 0 when it rendered, even
with warnings; exit 2 with one line on stderr naming the file and line when the input is unusable.
"""

from __future__ import annotations

from inspector.cli.render import RENDER
from inspector.management.console import management_command

Command = management_command(RENDER)
