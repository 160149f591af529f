"""docs/fidelity.md names every profile the product renders with, and every file it cites exists.

The page is the user's answer to "how far can I trust this profile": a profile missing from its
table, a placeholder left for a later writer, or a module the page cites that was renamed would
each send a reader to something that is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

from inspector.core.agentv.profiles import RENDERERS

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "fidelity.md").read_text(encoding="utf-8")


def _table_rows() -> list[str]:
    start = PAGE.index("## The profiles at a glance")
    end = PAGE.index("\n## ", start + 1)
    return [line for line in PAGE[start:end].splitlines() if line.startswith("| `")]


def test_no_placeholder_is_left_for_a_later_writer():
    assert "<!-- LEAD" not in PAGE
    assert "to be filled" not in PAGE


def test_every_agentv_profile_has_a_row_in_the_table():
    named = {re.match(r"\| `([^`]+)`", row).group(1) for row in _table_rows()}  # type: ignore[union-attr]
    assert set(RENDERERS) <= named


def test_every_file_the_page_cites_exists():
    cited = set(re.findall(r"`((?:inspector|tests)/[\w/.-]+\.(?:py|mjs|jsonl|json))`", PAGE))
    assert cited, "the page cites the code that proves it"
    missing = sorted(path for path in cited if not (ROOT / path).exists())
    assert missing == []
