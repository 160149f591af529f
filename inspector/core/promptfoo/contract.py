"""The `render` command's object for a promptfoo evaluation: promptfoo's own indices, provider,
prompt label and test description, the body promptfoo sends (the evaluation exported to its own
API) and each judge's request."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase


def evaluation_contract(case: RenderedCase) -> dict[str, Any]:
    from ..export import export_case

    own = case.metadata.get("promptfoo") or {}
    fmt = case.metadata.get("format")
    payload = export_case(case, fmt).payload if fmt and not case.skipped else None
    if "sent" in own:
        # The body promptfoo sends where no API reads it as it is (OpenAI refuses it): the case
        # holds what the API would take.
        payload = own["sent"]
    graders = []
    for grader, judge in zip(case.graders, own.get("graders") or [], strict=False):
        judge_case = RenderedCase(case.id, grader.messages, metadata=dict(judge["metadata"]))
        graders.append(
            {"name": grader.name, "payload": export_case(judge_case, judge["metadata"]["format"]).payload}
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
