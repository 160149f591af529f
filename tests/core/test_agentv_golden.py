"""Conformance: every case of every golden rendering must match what that agentv release sends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.agentv import render_eval_file
from inspector.core.bundle import DirectoryBundle
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message
from tests.conftest import CORPUS, corpus_files

pytestmark = pytest.mark.corpus("the goldens of agentv's releases and their eval files are in the corpus")
PROFILE_OF_RELEASE = {
    "v0.10.1": "agentv-0.10",
    "v1.0.0": "agentv-3.8",
    "v2.5.8": "agentv-3.8",
    "v3.8.0": "agentv-3.8",
    "v4.42.4": "agentv-4",
}


# These goldens were made from buildPromptInputs alone. In `mode: conversation` agentv's
# orchestrator sends the history and each turn instead (runConversationMode), which the golden
# cannot show; tests/oracle/test_agentv4_differential.py checks those cases against agentv itself.
NOT_WHAT_AGENTV_SENDS = {"v4.42.4/examples/features/multi-turn-conversation-live/evals/dataset.eval.yaml"}


def _golden_cases():
    params = []
    for golden_file in corpus_files("golden/agentv-*/**/*.json"):
        release = golden_file.relative_to(CORPUS / "golden").parts[0].removeprefix("agentv-")
        relative = golden_file.relative_to(CORPUS / "golden" / f"agentv-{release}").as_posix()
        eval_path = relative.removesuffix(".json")
        if f"{release}/{eval_path}" in NOT_WHAT_AGENTV_SENDS:
            continue
        for case in json.loads(golden_file.read_text(encoding="utf-8")):
            params.append(
                pytest.param(
                    release,
                    eval_path,
                    case["id"],
                    case["llm_messages"],
                    id=f"{release}/{eval_path}::{case['id']}",
                )
            )
    return params


_RENDERED: dict[tuple[str, str], dict] = {}


def _rendered(release: str, eval_path: str) -> dict:
    key = (release, eval_path)
    if key not in _RENDERED:
        bundle = DirectoryBundle(CORPUS / "agentv" / release)
        document = render_eval_file(bundle, eval_path, RenderOptions(profile=PROFILE_OF_RELEASE[release]))
        _RENDERED[key] = {case.id: case for case in document.cases}
    return _RENDERED[key]


def test_the_golden_corpus_is_present_and_covers_every_release():
    releases = {path.name.removeprefix("agentv-") for path in corpus_files("golden/agentv-*")}
    assert releases == set(PROFILE_OF_RELEASE)


@pytest.mark.parametrize(("release", "eval_path", "case_id", "expected"), _golden_cases())
def test_sent_messages_match_the_golden_llm_messages(release, eval_path, case_id, expected):
    case = _rendered(release, eval_path)[case_id]
    assert [chat_message(message) for message in case.sent_messages] == expected


@pytest.mark.parametrize(("release", "eval_path", "case_id", "expected"), _golden_cases())
def test_golden_cases_segments_join_to_content_and_point_inside_the_bundle(
    release, eval_path, case_id, expected
):
    case = _rendered(release, eval_path)[case_id]
    root = Path(CORPUS / "agentv" / release)
    for message in case.messages:
        assert "".join(segment.text for segment in message.segments) == message.content
        for segment in message.segments:
            origin = segment.origin
            if origin.path is not None:
                assert (root / origin.path).is_file()
                lines = (root / origin.path).read_text(encoding="utf-8").count("\n") + 1
                assert 1 <= origin.start_line <= origin.end_line <= lines
