"""The vendored editor (static/vendor/codemirror/codemirror.js) is what tools/codemirror builds from
its lockfile, byte for byte: nobody edits the bundle by hand, and a changed source or pin shows."""

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "codemirror"
VENDORED = ROOT / "static" / "vendor" / "codemirror" / "codemirror.js"


def build_command(outfile: Path) -> list[str]:
    """package.json's build script, writing elsewhere."""
    script = json.loads((TOOL / "package.json").read_text())["scripts"]["build"]
    args = shlex.split(script)
    assert args[0] == "esbuild", script
    outputs = [arg for arg in args if arg.startswith("--outfile=")]
    assert outputs == ["--outfile=../../static/vendor/codemirror/codemirror.js"], script
    return [
        str(TOOL / "node_modules" / ".bin" / "esbuild"),
        *[arg for arg in args[1:] if not arg.startswith("--outfile=")],
        f"--outfile={outfile}",
    ]


def test_the_vendored_editor_is_the_build_of_the_lockfile(tmp_path):
    if not (TOOL / "node_modules" / ".bin" / "esbuild").exists():
        message = (
            "the editor's build tools are not installed: .ci/setup --test runs npm ci in tools/codemirror"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    rebuilt = tmp_path / "codemirror.js"
    subprocess.run(build_command(rebuilt), cwd=TOOL, check=True, capture_output=True, timeout=120)
    assert rebuilt.read_bytes() == VENDORED.read_bytes(), (
        "static/vendor/codemirror/codemirror.js differs from a build of tools/codemirror: "
        "run `npm ci && npm run build` there and commit the result"
    )


def test_the_lockfile_pins_every_dependency_exactly():
    package = json.loads((TOOL / "package.json").read_text())
    lock = json.loads((TOOL / "package-lock.json").read_text())
    for name, version in package["devDependencies"].items():
        assert version[0].isdigit(), f"{name} is pinned to a range ({version})"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name
