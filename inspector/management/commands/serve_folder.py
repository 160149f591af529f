"""`serve_folder` (`prompt-inspector serve PATH`): local mode — the folder on disk, read-only, as
the bundle "local", on 127.0.0.1, with pages that re-render when a file changes."""

from __future__ import annotations

import secrets
import socket
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from inspector import local
from inspector.cli_commands import UsageError, add_gambit_core_argument, default_root, gambit_core_folder

HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class Command(BaseCommand):
    help = "Serve a folder on disk, read-only, on 127.0.0.1; pages follow its files as they change."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=".",
                            help="the folder to serve (a file: the folder the CLI would read it in)")
        parser.add_argument("--port", type=int, help=f"default {DEFAULT_PORT}, or a free port if taken")
        parser.add_argument("--share-to", metavar="URL",
                            help="a Prompt Inspector server that Share may upload the folder to")
        add_gambit_core_argument(parser)

    def handle(self, *args, **options) -> None:
        path = Path(options["path"])
        if not path.exists():
            self.stderr.write(f"error: {path}: no such file or folder")
            sys.exit(2)
        root = path.resolve() if path.is_dir() else default_root(path)
        port = options["port"]
        if port is not None and not port_is_free(port):
            self.stderr.write(f"error: port {port} is taken on {HOST}; choose another with --port")
            sys.exit(2)
        if port is None:
            port = DEFAULT_PORT if port_is_free(DEFAULT_PORT) else free_port()
        try:
            folder = gambit_core_folder(options["gambit_core"])
        except UsageError as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        if folder is not None:
            settings.GAMBIT_CORE_DIR = folder
        if settings.SECRET_KEY == settings.DEVELOPMENT_SECRET_KEY:
            settings.SECRET_KEY = secrets.token_urlsafe(50)  # as `serve`: a fresh key per run
        settings.LOCAL_ROOT = str(root)
        if options["share_to"]:
            settings.LOCAL_SHARE_TO = options["share_to"].rstrip("/")
        served = local.folder()
        assert served is not None
        call_command("migrate", interactive=False, verbosity=0)
        address = f"http://{HOST}:{port}/b/{local.LOCAL_BUNDLE_ID}/"
        self.stdout.write(f"Prompt Inspector: {address}  (serving {root}, read-only; Ctrl-C stops)")
        self.stdout.flush()
        call_command("runserver", f"{HOST}:{port}", use_reloader=False, skip_checks=True)
