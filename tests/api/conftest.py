from pathlib import Path

import pytest

from inspector.bundles.ingest import store_bundle

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "examples" / "code-review"


def example_files() -> dict[str, bytes]:
    return {
        path.relative_to(EXAMPLE).as_posix(): path.read_bytes()
        for path in sorted(EXAMPLE.rglob("*"))
        if path.is_file()
    }


EVAL = """\
description: Two small cases
evalcases:
  - id: greet
    outcome: Says hello.
    input_messages:
      - role: system
        content: Be brief.
      - role: user
        content: Hello there
  - id: farewell
    outcome: Says goodbye.
    input_messages:
      - role: user
        content: Goodbye
"""


@pytest.fixture
def example_bundle(db):
    """The code-review example: an eval with a guideline file and an attached snippet."""
    bundle, token = store_bundle(example_files(), title="Code review")
    return bundle, token


@pytest.fixture
def two_documents(db):
    bundle, token = store_bundle(
        {"a/first.yaml": EVAL.encode(), "b/second.yaml": EVAL.replace("greet", "welcome").encode()}
    )
    return bundle, token
