"""`check_evals` (`prompt-inspector check`; `manage.py check` stays Django's system check): render
every eval file, deck and request under the given paths, the way CI and pre-commit want it.

Prints one `file:line[:column]: severity: message` line per problem (the form editors, GitHub's
problem matchers and pre-commit show as annotations), then a one-line summary on stderr. Exit 0 when
nothing reached `--fail-on`, 1 when something did, 2 when the command itself was misused.
"""

from __future__ import annotations

from inspector.cli.check import CHECK
from inspector.management.console import management_command

Command = management_command(CHECK)
