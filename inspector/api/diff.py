"""Diffs: a revision against its parent, any two bundles, or one bundle under two settings
(`old_profile` against `new_profile`, `old_provider` against `new_provider`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from inspector.diffs import comparison

from .common import E400, E404, E422
from .schemas import GraderProvider, InputFormat, Profile, Provider, RenderSettingsQuery

router = Router(tags=["diff"])


class DiffQuery(RenderSettingsQuery):
    """Each render setting and `provider` apply to both sides; `old_` or `new_` before a name sets
    it for that side only."""

    old: str = Field(max_length=2000, description="The old bundle: its id or a link to it.")
    new: str = Field(
        max_length=2000,
        description="The new bundle: its id or a link to it (the same as `old` to compare settings).",
    )
    provider: Provider | None = Field(None, description="Token counts and payloads; both sides.")
    old_profile: Profile | None = None
    new_profile: Profile | None = None
    old_patterns: str | None = None
    new_patterns: str | None = None
    old_system_prompt: str | None = None
    new_system_prompt: str | None = None
    old_max_tokens: int | None = None
    new_max_tokens: int | None = None
    old_input_format: InputFormat | None = None
    new_input_format: InputFormat | None = None
    old_grader_provider: GraderProvider | None = None
    new_grader_provider: GraderProvider | None = None
    old_gambit_context: str | None = None
    new_gambit_context: str | None = None
    old_gambit_context_sample: str | None = None
    new_gambit_context_sample: str | None = None
    old_gambit_message: str | None = None
    new_gambit_message: str | None = None
    old_gambit_conversation: str | None = None
    new_gambit_conversation: str | None = None
    old_gambit_conversation_sample: str | None = None
    new_gambit_conversation_sample: str | None = None
    old_provider: Provider | None = None
    new_provider: Provider | None = None


class CaseDiffQuery(DiffQuery):
    document: str = Field(max_length=1024)
    case: str = Field(max_length=1024, description="The case id.")


class CauseOut(Schema):
    path: str
    lines: list[int] | None = Field(
        description="[first, last] on the new side (the old side when "
        "the lines were removed); null when the file is on one side only."
    )


class CountedCauseOut(CauseOut):
    cases: int


class CaseRefOut(Schema):
    document: str
    id: str


class MessageDiffOut(Schema):
    status: str = Field(description="changed, added or removed")
    old_index: int | None
    new_index: int | None
    old_role: str | None
    new_role: str | None
    words: list[list[str]] = Field(description='Runs of ["=", kept], ["-", removed], ["+", added] text.')


class GraderDiffOut(Schema):
    name: str
    status: str = Field(description="changed, added or removed (on one case's diff, also unchanged)")
    old_judge: str | None = Field(description="The judge the old side asks, when the file names one.")
    new_judge: str | None
    messages: list[MessageDiffOut] = Field(description="The judge's request, message by message.")


class ChangedCaseOut(Schema):
    id: str
    document: str
    messages: list[MessageDiffOut]
    graders: list[GraderDiffOut] = Field(description="The judge requests that changed.")
    because: list[CauseOut]
    tokens: dict[str, int]


class DiffOut(Schema):
    summary: dict[str, int] = Field(description="changed, added, removed, unchanged")
    changed: list[ChangedCaseOut]
    added: list[CaseRefOut]
    removed: list[CaseRefOut]
    tokens: dict[str, int] = Field(description="old, new and delta: tokens sent over every case")
    because: list[CountedCauseOut]
    errors: list[str]


class CaseDiffOut(Schema):
    id: str
    document: str
    status: str
    messages: list[MessageDiffOut] = Field(description="Every message, unchanged ones included.")
    graders: list[GraderDiffOut] = Field(description="Every judge request, unchanged ones included.")
    because: list[CauseOut]
    tokens: dict[str, int]
    payload: dict[str, Any] = Field(
        description="old and new: each side's request body for its "
        "provider; lines: the line diff of the two as [op, line]."
    )


def _params(query: Schema) -> dict[str, str]:
    return {key: str(value) for key, value in query.dict().items() if value is not None}


@router.get(
    "",
    response={200: DiffOut, **E400, **E404, **E422},
    url_name="diff_bundles",
    summary="Compare two bundles, or one bundle under two settings",
)
def diff_bundles(request: HttpRequest, query: Query[DiffQuery]):
    params = _params(query)
    result = comparison.compare_bundles(comparison.side(params, "old_"), comparison.side(params, "new_"))
    return result.as_contract()


@router.get(
    "/case",
    response={200: CaseDiffOut, **E400, **E404, **E422},
    summary="One case: each message's word-level diff, the cause, the payload diff",
)
def diff_one_case(request: HttpRequest, query: Query[CaseDiffQuery]):
    import json

    params = _params(query)
    found = comparison.compare_case(
        comparison.side(params, "old_"), comparison.side(params, "new_"), query.document, query.case
    )
    data = found.diff.as_dict()
    return {
        **data,
        "status": found.diff.status,
        "messages": [m.as_dict() for m in found.diff.messages],
        "graders": [
            {**grader.as_dict(), "messages": [m.as_dict() for m in grader.messages]}
            for grader in found.diff.graders
        ],
        "payload": {
            "old": json.loads(found.old_payload) if found.old_payload else None,
            "new": json.loads(found.new_payload) if found.new_payload else None,
            "lines": [list(item) for item in found.payload_lines],
        },
    }
