"""The exported programs, run for real: Python with the SDKs in this virtualenv, TypeScript with the
SDKs pinned in tests/oracle/package-lock.json, and curl, all against a recording server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ORACLE = Path(__file__).resolve().parent
PRODUCTION_HOSTS = (
    "https://api.openai.com",
    "https://api.anthropic.com",
    "https://generativelanguage.googleapis.com",
)


def environment(url: str) -> dict[str, str]:
    """Each SDK's own base-URL variable pointed at the recording server, and stand-in keys."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
    }
    env.update(
        OPENAI_BASE_URL=f"{url}/v1",
        ANTHROPIC_BASE_URL=url,
        GOOGLE_GEMINI_BASE_URL=url,
        OPENAI_API_KEY="sk-test",
        ANTHROPIC_API_KEY="ak-test",
        GEMINI_API_KEY="gk-test",
        PYTHONWARNINGS="always",
    )
    return env


def run_python(
    code: str, url: str, timeout: float = 300, python: str = sys.executable
) -> subprocess.CompletedProcess:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as file:
        file.write(code)
    try:
        return subprocess.run(
            [python, file.name], env=environment(url), capture_output=True, text=True, timeout=timeout
        )
    finally:
        os.unlink(file.name)


def node_available() -> bool:
    return shutil.which("node") is not None and (ORACLE / "node_modules" / "openai").is_dir()


def run_typescript(
    code: str, url: str, timeout: float = 300, packages: Path = ORACLE
) -> subprocess.CompletedProcess:
    # Inside the packages' folder (tests/oracle), so the program's imports resolve to its
    # node_modules.
    with tempfile.NamedTemporaryFile(
        "w", suffix=".mjs", dir=packages, delete=False, encoding="utf-8"
    ) as file:
        file.write(code)
    try:
        return subprocess.run(
            ["node", file.name],
            env=environment(url),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=packages,
        )
    finally:
        os.unlink(file.name)


def run_curl(script: str, url: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """The curl commands with the providers' hosts swapped for the recording server's."""
    for host in PRODUCTION_HOSTS:
        script = script.replace(host, url)
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False, encoding="utf-8") as file:
        file.write(script)
    try:
        return subprocess.run(
            ["bash", "-e", file.name], env=environment(url), capture_output=True, text=True, timeout=timeout
        )
    finally:
        os.unlink(file.name)
