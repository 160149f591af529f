"""`serve_folder` (`prompt-inspector serve PATH`): local mode — the folder on disk, read-only, as
the bundle "local", on 127.0.0.1, with pages that re-render when a file changes."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from inspector.cli.console import UsageError, add_gambit_core_argument, default_root, gambit_core_folder
from inspector.local import served_folder

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


def named_in_folder(root: Path, name: str) -> str:
    """A --share-include PATH (from the current folder, or absolute) as a path in the served folder."""
    path = Path(os.path.abspath(name))  # not resolved: a link in the folder is listed by its own name
    if not path.is_file():
        raise UsageError(f"--share-include {name}: no such file")
    if not path.is_relative_to(root):
        raise UsageError(f"--share-include {name}: not in the served folder {root}")
    return path.relative_to(root).as_posix()


class Command(BaseCommand):
    help = "Serve a folder on disk, read-only, on 127.0.0.1; pages follow its files as they change."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path",
            nargs="?",
            default=".",
            help="the folder to serve (a file: the folder the CLI would read it in)",
        )
        parser.add_argument("--port", type=int, help=f"default {DEFAULT_PORT}, or a free port if taken")
        parser.add_argument(
            "--share-to", metavar="URL", help="a Prompt Inspector server that Share may upload the folder to"
        )
        parser.add_argument(
            "--share-include",
            metavar="PATH",
            action="append",
            default=[],
            help="a file Share sends although it looks like a secret (.env*, a "
            "private key) or git ignores it; repeat for more",
        )
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
        try:
            settings.LOCAL_SHARE_INCLUDE = tuple(
                named_in_folder(root, name) for name in options["share_include"]
            )
        except UsageError as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        settings.LOCAL_ROOT = str(root)
        settings.LOCAL_PORT = port
        if options["share_to"]:
            settings.LOCAL_SHARE_TO = options["share_to"].rstrip("/")
        served = served_folder.folder()
        assert served is not None
        call_command("migrate", interactive=False, verbosity=0)
        address = f"http://{HOST}:{port}/b/{served_folder.LOCAL_BUNDLE_ID}/"
        self.stdout.write(f"Prompt Inspector: {address}  (serving {root}, read-only; Ctrl-C stops)")
        self.stdout.flush()
        serve_quietly(port)


def real_events(record: logging.LogRecord) -> bool:
    """Requests worth a line: refusals and failures. The page polls the folder's version twice a
    second and loads its static files; a line for each buried what mattered."""
    return getattr(record, "status_code", 500) >= 400


def serve_quietly(port: int) -> None:
    """Django's development server without its banner (the address line above says where and how
    to stop) and without a log line per successful request."""
    from django.core.servers.basehttp import get_internal_wsgi_application, run

    logging.getLogger("django.server").addFilter(real_events)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it, as the address line says
        run(HOST, port, get_internal_wsgi_application(), threading=True)
