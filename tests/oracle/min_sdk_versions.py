"""Which SDK versions run the exported code: installs the given versions of a provider's SDK in
scratch environments and runs the real-client check with each (every case of the examples, and
of the corpus when PI_CORPUS names it; bodies equal to
the JSON export, the same API version as curl, no deprecation warning). The oldest version that
passes is the minimum the provider's spec names (`Provider.sdks`).

    .venv/bin/python -m tests.oracle.min_sdk_versions python anthropic 2.0.0 2.6.0 2.12.0
    .venv/bin/python -m tests.oracle.min_sdk_versions npm @anthropic-ai/sdk 0.90.0 1.12.0
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from inspector.core.export import export_case, render_codes

from ..recording import RecordingServer
from . import clients
from .test_real_clients import SETTINGS, as_rest, cases

PROVIDERS = {
    "openai": ("openai-chat", "openai-responses"),
    "anthropic": ("anthropic",),
    "google-genai": ("gemini",),
    "@anthropic-ai/sdk": ("anthropic",),
    "@google/genai": ("gemini",),
}
PROVIDERS["npm:openai"] = PROVIDERS["openai"]


def check(provider: str, form: str, run) -> str | None:
    """None when every case goes through as exported, else what went wrong."""
    results = [export_case(case, provider, SETTINGS) for case in cases()]
    if provider == "gemini":
        results = [result for result in results if result.payload["contents"]]
    curl_version = None
    with RecordingServer() as server:
        clients.run_curl(render_codes(results[:1], "curl"), server.url)
        curl_version = [(r.path, r.headers.get("anthropic-version")) for r in server.take()]
        outcome = run(render_codes(results, form), server.url)
        sent = server.take()
    if outcome.returncode != 0:
        return outcome.stderr.strip().splitlines()[-1][:300]
    if "deprecat" in (outcome.stderr + outcome.stdout).lower():
        return "deprecation warning: " + outcome.stderr[-300:]
    if [(r.path, r.headers.get("anthropic-version")) for r in sent[:1]] != curl_version:
        return (
            f"API version {sent[0].path} {sent[0].headers.get('anthropic-version')} "
            f"differs from curl's {curl_version}"
        )
    for result, request in zip(results, sent, strict=True):
        body = as_rest(request.body) if provider == "gemini" else request.body
        if body != result.payload:
            return f"case {result.case_id!r}: body differs: {json.dumps(body)[:200]}"
    return None


def python_version(package: str, version: str) -> dict[str, str | None]:
    home = Path(tempfile.mkdtemp(prefix=f"sdk-{package}-{version}-"))
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    install = subprocess.run(
        [str(home / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", f"{package}=={version}"],
        capture_output=True,
        text=True,
    )
    if install.returncode != 0:
        return {"install": install.stderr.strip()[-300:]}
    python = str(home / "bin" / "python")
    return {
        provider: check(
            provider, "python", lambda code, url, p=python: clients.run_python(code, url, python=p)
        )
        for provider in PROVIDERS[package]
    }


def npm_version(package: str, version: str) -> dict[str, str | None]:
    home = Path(tempfile.mkdtemp(prefix="sdk-npm-"))
    (home / "package.json").write_text('{"type": "module", "private": true}')
    install = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"],
        cwd=home,
        capture_output=True,
        text=True,
    )
    if install.returncode != 0:
        return {"install": install.stderr.strip()[-300:]}
    providers = PROVIDERS["npm:openai" if package == "openai" else package]
    return {
        provider: check(
            provider, "typescript", lambda code, url, h=home: clients.run_typescript(code, url, packages=h)
        )
        for provider in providers
    }


def main() -> None:
    kind, package, *versions = sys.argv[1:]
    for version in versions:
        outcome = (python_version if kind == "python" else npm_version)(package, version)
        verdict = "ok" if all(problem is None for problem in outcome.values()) else "FAILS"
        print(f"{package} {version}: {verdict}")
        for provider, problem in outcome.items():
            if problem:
                print(f"    {provider}: {problem}")


if __name__ == "__main__":
    main()
