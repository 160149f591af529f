"""The installable package (`pip install .`, pipx): every inspector package and the top-level
templates/ and static/ ship. .ci/console-script installs it into a clean virtualenv and runs it."""

import tomllib
from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parent.parent


def test_every_inspector_package_is_listed_for_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set(find_packages(where=str(REPO), include=["inspector", "inspector.*"]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert {"inspector_templates", "inspector_static"} <= listed
    assert config["package-dir"] == {"inspector_templates": "templates", "inspector_static": "static"}


def test_every_template_and_static_file_matches_a_shipped_pattern():
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package, folder in (("inspector_templates", "templates"), ("inspector_static", "static")):
        patterns = data[package]
        for path in (REPO / folder).rglob("*"):
            if path.is_file():
                relative = path.relative_to(REPO / folder)
                assert any(relative.match(pattern.removeprefix("**/")) for pattern in patterns), (
                    f"{folder}/{relative} would not ship: add its suffix to package-data"
                )
