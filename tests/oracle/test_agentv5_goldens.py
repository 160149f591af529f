"""`agentv-5` against what agentv 5.3.1-next.1 itself sent for 500 generated files.

agentv 5 is not on the npm registry; make_agentv5_goldens.py ran its source at the tag (with the
same recording server as the agentv 4 oracle) and kept, for each generated file, the files and the
candidate requests agentv made. Each must render to exactly those messages, refused and skipped
where agentv refused and skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .differential import compare

GOLDENS = Path(__file__).resolve().parent / "agentv5_goldens.jsonl"


def read_goldens(path: Path = GOLDENS) -> tuple[dict, list[dict]]:
    """A goldens file's header (how it was made) and its lines."""
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]


def write_golden(golden: dict, root: Path) -> Path:
    """A golden's files under root; the eval file's path."""
    for path, text in golden["files"].items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root / "evals/suite.yaml"


def _goldens() -> list[dict]:
    return read_goldens()[1]


def test_the_goldens_were_made_by_agentv_5():
    header = json.loads(GOLDENS.read_text().splitlines()[0])
    assert "v5.3.1-next.1" in header["made_with"] and header["count"] >= 500
    goldens = _goldens()
    assert len(goldens) == header["count"]
    sent = sum(1 for golden in goldens for case in golden["agentv"]["cases"] if case["requests"])
    refused = sum(1 for golden in goldens if golden["agentv"]["error"])
    assert sent > 400 and refused > 100  # the set exercises both paths


@pytest.mark.parametrize("index", range(0, 500, 50))
def test_agentv_5_sends_what_the_inspector_shows(tmp_path, index):
    problems = []
    for offset, golden in enumerate(_goldens()[index : index + 50]):
        root = tmp_path / str(offset)
        found = compare(golden["agentv"], root, write_golden(golden, root), profile="agentv-5")
        if found:
            problems.append(
                f"golden {index + offset}:\n{golden['files']['evals/suite.yaml']}\n" + "\n".join(found)
            )
    assert not problems, "\n\n".join(problems[:3])
