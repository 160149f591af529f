"""The `render` command's object for a promptfoo evaluation: promptfoo's own indices, provider,
prompt label and test description, the body promptfoo sends (the evaluation exported to its own
API) and each judge's request."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase
from .evaluations import SENT


def evaluation_contract(case: RenderedCase) -> dict[str, Any]:
    from ..export import export_case

    own = case.metadata.get("promptfoo") or {}
    fmt = case.metadata.get("format")
    payload = export_case(case, fmt).payload if fmt and not case.skipped else None
    if SENT in case.metadata:
        # The body promptfoo sends where exporting the case does not give it back as it is (a
        # body OpenAI refuses, Claude on Vertex's model in the URL).
        payload = case.metadata[SENT]
    graders = []
    for grader, judge in zip(case.graders, own.get("graders") or [], strict=False):
        judge_case = RenderedCase(case.id, grader.messages, metadata=dict(judge["metadata"]))
        sent = judge["metadata"].get(SENT)
        graders.append(
            {
                "name": grader.name,
                "payload": sent
                if sent is not None
                else export_case(judge_case, judge["metadata"]["format"]).payload,
            }
        )
    return {
        "promptfoo": {
            "test_idx": own.get("test_idx"),
            "prompt_idx": own.get("prompt_idx"),
            "provider": own.get("provider"),
            # The prompt × provider matrix's headings: the prompt's label and the test's description.
            "prompt_label": own.get("prompt"),
            "description": own.get("description"),
        },
        "payload": payload,
        "graders": graders,
    }
