"""`agentv-0.10` and `agentv-3.8` against what agentv v0.10.1 and v3.8.0 themselves sent.

agentv_legacy_goldens/make.py generated the eval files and ran each tag's own loader, prompt builder
and provider rule on them (docs/agentv-releases.md, "How the goldens were made"). Every case agentv
kept must render to exactly its messages, and the cases agentv skipped must be skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import MemoryBundle
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message

HERE = Path(__file__).resolve().parent / "agentv_legacy_goldens"
PROFILES = {"0.10": "agentv-0.10", "3.8": "agentv-3.8"}


def _load(name: str) -> tuple[dict, list[dict]]:
    lines = (HERE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]


def _render(header: dict, golden: dict, profile: str) -> dict:
    files = {**header["fixed_files"], **golden["files"]}
    bundle = MemoryBundle({path: text.encode() for path, text in files.items()})
    document = render_eval_file(bundle, golden["eval"], RenderOptions(profile=profile))
    return {case.id: case for case in document.cases}


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_goldens_were_made_by_the_tag(name):
    header, goldens = _load(name)
    tag = {"0.10": "v0.10.1", "3.8": "v3.8.0"}[name]
    assert f"agentv {tag}" in header["made_with"]
    assert len(goldens) == header["count"] >= 150
    assert all(golden["error"] is None for golden in goldens)
    cases = [case for golden in goldens for case in golden["cases"]]
    assert len(cases) > 300
    # the set reaches both ways of sending a case
    assert any(len(case["messages"]) == 2 and case["messages"][1]["role"] == "user" for case in cases)
    assert any(len(case["messages"]) > 2 for case in cases)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_golden_renders_to_what_agentv_sent(name):
    header, goldens = _load(name)
    problems = []
    for golden in goldens:
        rendered = _render(header, golden, PROFILES[name])
        kept = {case_id for case_id, case in rendered.items() if not case.skipped}
        expected = {case["id"] for case in golden["cases"]}
        if kept != expected:
            problems.append(f"golden {golden['n']}: agentv kept {sorted(expected)}, we kept {sorted(kept)}")
            continue
        for case in golden["cases"]:
            ours = [chat_message(message) for message in rendered[case["id"]].sent_messages]
            if ours != case["messages"]:
                problems.append(
                    f"golden {golden['n']} case {case['id']}:\n"
                    f"  agentv: {json.dumps(case['messages'])}\n"
                    f"  ours:   {json.dumps(ours)}"
                )
    total = sum(len(golden["cases"]) for golden in goldens)
    assert not problems, f"{len(problems)} of {total} cases differ:\n" + "\n".join(problems[:5])
