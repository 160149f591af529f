from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"the shared corpus is missing at {CORPUS}")
    return CORPUS
