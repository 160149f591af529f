"""Diffs for the pages and the API: two sides, each a stored bundle with its own render settings and
provider (a revision against its parent, any two bundles, one bundle under two settings), rendered
through the cached, bounded renderer and compared by inspector.core.diff."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import Http404
from django.urls import reverse

from inspector.bundles import loading
from inspector.cases import finding
from inspector.core.diff import BundleDiff, CaseDiff, FileChanges, diff_case, diff_documents, text_diff_lines
from inspector.core.export import export_case
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.render_settings import SETTING_NAMES
from inspector.rendering import query_settings, stored_renders

# Every render setting the case page has, its switch between the config's and edited patterns,
# and the provider that counts tokens and builds the payload.
SIDE_KEYS = (*SETTING_NAMES, "patterns_mode", "provider")
_BUNDLE_IN_LINK = re.compile(r"/b/([A-Za-z0-9_-]{1,64})(?:/|$)")


@dataclass
class Side:
    loaded: loading.LoadedBundle
    options: RenderOptions
    provider: str
    params: dict[str, str]  # this side's settings as given, for links

    @property
    def id(self) -> str:
        return self.loaded.record.pk

    def text(self, path: str) -> str | None:
        decoded = self.loaded.files.text(path)
        return decoded.text if decoded is not None else None


def bundle_id_of(value: str) -> str:
    """A bundle id, or the id inside a pasted share or case link."""
    value = value.strip()
    match = _BUNDLE_IN_LINK.search(value)
    return match.group(1) if match else value


def diff_url(view: str, page_params: Mapping[str, str], **fields: str) -> str:
    """A link from a page into a diff (`diff` or `diff-case`) whose sides both render with the
    settings the page has."""
    shared = {key: value for key, value in page_params.items() if key in SIDE_KEYS}
    return reverse(view) + "?" + urlencode({**fields, **shared})


def side_params(params: Mapping[str, str], prefix: str) -> dict[str, str]:
    """A side's settings: the shared ones (`profile`) overridden by the side's own (`old_profile`)."""
    chosen = {key: params[key] for key in SIDE_KEYS if params.get(key) not in (None, "")}
    for key in SIDE_KEYS:
        value = params.get(prefix + key)
        if value:
            chosen[key] = value
    if "patterns" in params or prefix + "patterns" in params:
        chosen.setdefault("patterns", params.get(prefix + "patterns", params.get("patterns", "")) or "")
    return chosen


def side(params: Mapping[str, str], prefix: str) -> Side:
    """Raises Http404 for an unknown bundle, query_settings.SettingsError for a bad setting."""
    raw = params.get(prefix.rstrip("_"), "")
    loaded = loading.load_bundle(bundle_id_of(raw or ""))
    if loaded is None:
        raise Http404(f"no bundle {raw[:100]!r} for the {prefix.rstrip('_')} side")
    chosen = side_params(params, prefix)
    render_params = {k: v for k, v in chosen.items() if k != "provider"}
    if "patterns" in render_params:
        render_params.setdefault("patterns_mode", "custom")
    options = query_settings.parse_render_options(render_params)
    return Side(loaded, options, query_settings.parse_provider(chosen.get("provider")), chosen)


def _render_all(one: Side) -> tuple[dict[str, RenderedDocument], list[str]]:
    documents, errors = {}, []
    for path in one.loaded.documents:
        try:
            documents[path] = stored_renders.render(one.loaded, path, one.options)
        except InputError as problem:
            errors.append(str(problem))
    return documents, errors


def compare_bundles(old: Side, new: Side) -> BundleDiff:
    old_docs, old_errors = _render_all(old)
    new_docs, new_errors = _render_all(new)
    # A document only one side could render is left out of the comparison, with its error.
    for path in set(old_docs) ^ set(new_docs):
        if path in old.loaded.documents and path in new.loaded.documents:
            old_docs.pop(path, None)
            new_docs.pop(path, None)
    errors = [f"old: {e}" for e in old_errors] + [f"new: {e}" for e in new_errors]
    return diff_documents(
        old_docs, new_docs, FileChanges(old.text, new.text), old.provider, errors, new.provider
    )


@dataclass
class CaseComparison:
    diff: CaseDiff
    old_case: RenderedCase | None
    new_case: RenderedCase | None
    payload_lines: list[tuple[str, str]]
    old_payload: str
    new_payload: str


def compare_case(old: Side, new: Side, document: str, case_id: str) -> CaseComparison:
    cases = []
    for one in (old, new):
        case = None
        if document in one.loaded.documents:
            try:
                case = finding.find_case(stored_renders.render(one.loaded, document, one.options), case_id)
            except InputError as problem:
                raise query_settings.SettingsError(
                    f"{'old' if one is old else 'new'} side: {problem}"
                ) from None
        cases.append(case)
    old_case, new_case = cases
    if old_case is None and new_case is None:
        raise Http404(f"neither side has a case {case_id[:200]!r} in {document[:200]}")
    diff = diff_case(
        document, old_case, new_case, FileChanges(old.text, new.text), old.provider, new.provider
    )
    old_payload = _payload(old_case, old.provider)
    new_payload = _payload(new_case, new.provider)
    return CaseComparison(
        diff, old_case, new_case, text_diff_lines(old_payload, new_payload), old_payload, new_payload
    )


def _payload(case: RenderedCase | None, provider: str) -> str:
    if case is None:
        return ""
    result = export_case(case, provider)
    return json.dumps(result.payload, indent=2, ensure_ascii=False, sort_keys=False)
