"""agentv-5's CSV cases files against the case objects agentv 5.3.1-next.1's own loader made.

The agentv 5 goldens (test_agentv5_goldens.py) prove the messages sent for CSV rows; these prove
the whole case each row becomes: ids, input with `__prefix`/`__suffix`, the assertions `__expected`
cells become (types, values, thresholds, metric names, `__config` thresholds), criteria,
`__threshold`, `__metadata:*` and nested `vars.*`, and every refusal in agentv's words.
make_agentv5_goldens.py --csv ran case-file-loader.ts loadCasesFromFile (tests/oracle/csv_cases.mjs)
on 400 generated CSV files (generate_v5.py csv_files: every column, quoting, CRLF, a byte-order
mark, blank lines, short rows, an unterminated quote) and kept what it returned.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.agentv.case_csv import read_csv_cases
from inspector.core.model import InputError

GOLDENS = Path(__file__).resolve().parent / "agentv5_csv_goldens.jsonl"
CSV_PATH = "evals/cases.csv"  # where each golden's file was, relative to the folder agentv read it in


def csv_differences(text: str, agentv: dict, newest_commit: bool = False) -> list[str]:
    """How the inspector's reading of `text` differs from agentv's (cases or error); newest_commit:
    agentv's main at 58f316ca2 read it."""
    try:
        mine = [case.plain() for case in read_csv_cases(text, CSV_PATH, newest_commit)]
    except InputError as error:
        if agentv.get("error") is None:
            return [f"the inspector refuses ({error.diagnostic.message}); agentv reads {agentv['cases']}"]
        if error.diagnostic.message != agentv["error"]:
            return [f"refused in other words: {error.diagnostic.message!r} != {agentv['error']!r}"]
        return []
    if agentv.get("error") is not None:
        return [f"agentv refuses ({agentv['error']}); the inspector reads {mine}"]
    if json.dumps(mine) != json.dumps(agentv["cases"]):
        return [f"cases differ:\n  inspector: {json.dumps(mine)}\n  agentv:    {json.dumps(agentv['cases'])}"]
    return []


def _goldens() -> tuple[dict, list[dict]]:
    lines = GOLDENS.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]


def test_the_csv_goldens_were_made_by_agentv_5():
    header, goldens = _goldens()
    assert "v5.3.1-next.1" in header["made_with"] and len(goldens) == header["count"] >= 400
    read = [golden for golden in goldens if golden["agentv"].get("error") is None]
    assert len(read) > 300 and len(goldens) - len(read) > 10  # both paths exercised
    assert sum(len(golden["agentv"]["cases"]) for golden in read) > 400


@pytest.mark.parametrize("index", range(0, 400, 100))
def test_agentv_5_reads_each_csv_file_as_the_inspector_does(index):
    problems = []
    for offset, golden in enumerate(_goldens()[1][index : index + 100]):
        found = csv_differences(golden["csv"], golden["agentv"])
        if found:
            problems.append(f"golden {index + offset}: {golden['csv']!r}\n" + "\n".join(found))
    assert not problems, "\n\n".join(problems[:3])
