"""Which case a link lands on: a case of a document by id, the first case a stored bundle shows."""

from __future__ import annotations

from inspector.bundles.loading import load_bundle
from inspector.core.model import InputError, RenderedCase, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.rendering import document_views


def find_case(document: RenderedDocument, case_id: str) -> RenderedCase | None:
    for case in document.cases:
        if case.id == case_id:
            return case
    return None


def first_case(
    bundle_id: str,
    documents: tuple[str, ...] | None = None,
    options: RenderOptions | None = None,
    case_id: str | None = None,
) -> tuple[str, str] | None:
    """(document, case id) of the first case the stored bundle shows — among `documents` when
    given, the one named `case_id` when given — or None. Unreadable files are passed over."""
    loaded = load_bundle(bundle_id)
    if loaded is None:
        return None
    for document in documents if documents is not None else loaded.documents:
        if document not in loaded.documents:
            continue
        try:
            ids = document_views.case_index(loaded, document, options or RenderOptions()).ids
        except InputError:
            continue
        if case_id is None and ids:
            return document, ids[0]
        if case_id is not None and case_id in ids:
            return document, case_id
    return None
