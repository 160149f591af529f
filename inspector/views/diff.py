"""The diff pages: a bundle against another (or itself under other settings), then one case's
messages side by side with word-level changes, the cause traced through provenance, and the
provider payloads' diff."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from inspector.cases import addresses
from inspector.core.diff import CaseDiff
from inspector.diffs import comparison
from inspector.rendering import query_settings
from inspector.runs.page import message_sides

from .common import PROVIDER_LABELS, HtmxHttpRequest, Problem

SIDES = ("old", "new")
FORM_KEYS = (
    *SIDES,
    *comparison.SIDE_KEYS,
    *(f"{side}_{key}" for side in SIDES for key in comparison.SIDE_KEYS),
)
# The settings the form shows a select for on each side; the rest travel in hidden fields.
SELECTED = ("profile", "input_format", "provider", "grader_provider")


def _sides(request: HtmxHttpRequest) -> tuple[comparison.Side, comparison.Side]:
    try:
        return comparison.side(request.GET, "old_"), comparison.side(request.GET, "new_")
    except query_settings.SettingsError as problem:
        raise Problem(400, "Bad settings", str(problem)) from None


def _form(request: HtmxHttpRequest) -> dict:
    """Each side's selects show the setting that side renders with, a shared one included, so
    the form sends it back as that side's own; every other setting is kept as it came."""
    from inspector.core.formats import INPUT_FORMATS
    from inspector.core.options import PROFILES

    given = _given(request)
    sides = [
        {
            "name": side,
            "label": side.capitalize(),
            "bundle": given.get(side, ""),
            **{key: given.get(f"{side}_{key}") or given.get(key, "") for key in SELECTED},
        }
        for side in SIDES
    ]
    shown = {*SIDES, *SELECTED, *(f"{side}_{key}" for side in SIDES for key in SELECTED)}
    return {
        "sides": sides,
        "hidden": [(key, value) for key, value in given.items() if key not in shown],
        "profiles": PROFILES,
        "input_formats": INPUT_FORMATS,
        "providers": list(PROVIDER_LABELS.items()),
    }


def _given(request: HtmxHttpRequest) -> dict[str, str]:
    """The diff's parameters that were set; patterns given empty stay, as they mean none."""
    return {
        key: value
        for key in FORM_KEYS
        if (value := request.GET.get(key)) is not None and (value or key.endswith("patterns"))
    }


def _query(request: HtmxHttpRequest) -> str:
    return urlencode(_given(request))


def _tokens(case: CaseDiff) -> str:
    delta = case.new_tokens - case.old_tokens
    return f"{delta:+,}" if delta else "±0"


@require_GET
def diff_page(request: HtmxHttpRequest) -> HttpResponse:
    if not request.GET.get("old") or not request.GET.get("new"):
        return render(request, "review/diff.html", {"form": _form(request), "result": None})
    old, new = _sides(request)
    result = comparison.compare_bundles(old, new)
    query = _query(request)
    case_link = reverse("diff-case") + "?" + query + "&"

    def row(case: CaseDiff) -> dict:
        return {
            "id": case.id,
            "document": case.document,
            "tokens": _tokens(case),
            "because": [cause.label() for cause in case.because],
            "judges": sum(grader.status != "unchanged" for grader in case.graders),
            "url": case_link + urlencode({"document": case.document, "case": case.id}),
            "old_url": addresses.case_url(old.id, case.document, case.id),
            "new_url": addresses.case_url(new.id, case.document, case.id),
        }

    return render(
        request,
        "review/diff.html",
        {
            "form": _form(request),
            "result": result,
            "old": old,
            "new": new,
            "same_bundle": old.id == new.id,
            "summary": result.summary,
            "token_delta": result.new_tokens - result.old_tokens,
            "causes": [(cause.label(), count) for cause, count in result.causes()],
            "changed": [row(c) for c in result.of("changed")],
            "added": [row(c) for c in result.of("added")],
            "removed": [row(c) for c in result.of("removed")],
            "api_url": reverse("api:diff_bundles") + "?" + query,
        },
    )


def _with_counts(old: comparison.Side, new: comparison.Side, case: CaseDiff) -> list[tuple[str, int]]:
    """Each cause of this case's change with the number of the bundle's cases it changed."""
    if not case.because:
        return []
    counts = dict(comparison.compare_bundles(old, new).causes())
    return [(cause.label(), counts.get(cause, 1)) for cause in case.because]


@require_GET
def diff_case_page(request: HtmxHttpRequest) -> HttpResponse:
    old, new = _sides(request)
    document, case_id = request.GET.get("document", ""), request.GET.get("case", "")
    found = comparison.compare_case(old, new, document, case_id)
    messages = message_sides(found.diff.messages)
    graders = [
        {
            "anchor": f"judge-{position}",
            "name": grader.name,
            "status": grader.status,
            "old_judge": grader.old_judge,
            "new_judge": grader.new_judge,
            "messages": message_sides(grader.messages),
        }
        for position, grader in enumerate(found.diff.graders, 1)
        if grader.status != "unchanged"
    ]
    return render(
        request,
        "review/diff_case.html",
        {
            "old": old,
            "new": new,
            "document": document,
            "case_id": case_id,
            "diff": found.diff,
            "messages": messages,
            "graders": graders,
            "changed_count": sum(m["status"] != "unchanged" for m in messages),
            "because": _with_counts(old, new, found.diff),
            "payload_lines": found.payload_lines,
            "payload_changed": found.old_payload != found.new_payload,
            "old_provider": PROVIDER_LABELS[old.provider],
            "new_provider": PROVIDER_LABELS[new.provider],
            "tokens": _tokens(found.diff),
            "back_url": reverse("diff") + "?" + _query(request),
            "old_url": addresses.case_url(old.id, document, case_id) if found.old_case else None,
            "new_url": addresses.case_url(new.id, document, case_id) if found.new_case else None,
        },
    )
