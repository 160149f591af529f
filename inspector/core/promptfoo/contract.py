"""The `render` command's object for a promptfoo evaluation: promptfoo's own indices, provider,
prompt label and test description, the body promptfoo sends (the evaluation exported to its own
API) and each judge's request."""

from __future__ import annotations

from typing import Any

from ..model import RenderedCase, ToolSpec
from .evaluations import SENT


def evaluation_contract(case: RenderedCase) -> dict[str, Any]:
    own = case.metadata.get("promptfoo") or {}
    fmt = case.metadata.get("format")
    payload = _payload(case) if fmt and not case.skipped else None
    graders = []
    for grader, judge in zip(case.graders, own.get("graders") or [], strict=False):
        tools = [ToolSpec(**tool) for tool in judge.get("tools") or []]
        judge_case = RenderedCase(case.id, grader.messages, metadata=dict(judge["metadata"]), tools=tools)
        graders.append({"name": grader.name, "payload": _payload(judge_case)})
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


def _payload(case: RenderedCase) -> Any:
    """The request exported to its own API; where that does not give back the body promptfoo
    sends (a Bedrock InvokeModel body, one shape per model family; a body OpenAI refuses; Claude
    on Vertex's, whose model is in the URL), that body, kept as it was built."""
    from ..export import export_case

    sent = case.metadata.get(SENT)
    return sent if sent is not None else export_case(case, case.metadata["format"]).payload
