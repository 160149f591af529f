"""Production settings come from the environment: the server refuses the built-in key, the
README's production environment passes `check --deploy`, and a fresh clone still serves."""

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

README_PRODUCTION = {
    "ALLOWED_HOSTS": "inspector.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://inspector.example.com",
    "SECURE_COOKIES": "true",
    "TRUST_X_FORWARDED_PROTO": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
}


def environment(tmp_path, **extra):
    base = {
        name: value
        for name, value in os.environ.items()
        if name not in ("SECRET_KEY", "DEBUG", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    return {
        **base,
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "CACHE_URL": (tmp_path / "cache").as_uri(),
        **extra,
    }


def run(tmp_path, code, **extra):
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environment(tmp_path, **extra),
        timeout=120,
    )


def test_the_wsgi_server_refuses_to_start_without_a_secret_key(tmp_path):
    refused = run(tmp_path, "import inspector.wsgi")
    assert refused.returncode != 0 and "SECRET_KEY is not set" in refused.stderr
    assert run(tmp_path, "import inspector.wsgi", SECRET_KEY="k" * 50).returncode == 0
    assert run(tmp_path, "import inspector.wsgi", DEBUG="true").returncode == 0


def test_the_readme_production_environment_passes_check_deploy(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(tmp_path, SECRET_KEY=secrets.token_urlsafe(50), **README_PRODUCTION),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_behind_a_tls_proxy_share_links_are_https(tmp_path):
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'inspector.settings';"
        "django.setup(); from django.test import RequestFactory; from inspector.cases import addresses;"
        "request = RequestFactory().get('/', HTTP_HOST='inspector.example.com',"
        " HTTP_X_FORWARDED_PROTO='https'); print(addresses.absolute_url(request, '/b/x/'))"
    )
    result = run(tmp_path, code, SECRET_KEY="k" * 50, **README_PRODUCTION)
    assert result.stdout.strip() == "https://inspector.example.com/b/x/", result.stderr


def test_the_readme_serve_command_works_on_a_fresh_clone_without_a_secret_key(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=environment(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # A guard against a server that never answers, not a speed check: set up and migrations
        # on a loaded two-core machine get ten minutes.
        deadline = time.monotonic() + 600
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                    assert answer.read() == b"ok"
                    break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "the server never answered /healthz"
                time.sleep(0.2)
    finally:
        server.kill()
        server.wait(10)
