"""The promptfoo examples the app offers on its home page (fixtures/examples) send what promptfoo
0.123.1 sends: every evaluation's request and every judge's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .promptfoo_oracle import PromptfooOracle
from .test_promptfoo_differential import differences, promptfoo_installed  # noqa: F401 (a fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
CONFIGS = sorted(EXAMPLES.glob("*/promptfooconfig.yaml"))


@pytest.fixture(scope="module")
def oracle() -> Iterator[PromptfooOracle]:
    with PromptfooOracle() as running:
        yield running


def test_there_is_a_promptfoo_example() -> None:
    assert CONFIGS


@pytest.mark.parametrize("config", CONFIGS, ids=lambda path: path.parent.name)
def test_the_example_sends_what_promptfoo_sends(config: Path, oracle: PromptfooOracle) -> None:
    folder = config.parent
    files: dict[str, str | bytes] = {
        str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()
    }
    assert differences(files, oracle) == []
