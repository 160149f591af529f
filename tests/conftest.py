import io
import json
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


@pytest.fixture(autouse=True)
def _fresh_caches():
    # Bundles and renderings are cached per process by id; each test starts with an empty database.
    from inspector import services

    services.clear_caches()
    yield


def run_render(*args: str) -> tuple[int, object, str]:
    """`manage.py render` in process: exit code, the parsed JSON it printed (None if nothing), stderr."""
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        call_command("render", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else None, err.getvalue()
