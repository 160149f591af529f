"""A document's render in the form the render cache keeps it, made in the bounded worker (for an
upload's check, and for any render of a stored document after it).

The worker has to pickle its render to send it. Pickled here case by case, once, the same bytes
are the document's one cache entry and its case pages' index (document_views.CaseIndex: a case page
unpickles its case only), and the web process never pickles a render again (a 10 MB upload spent
half a second of its CPU doing that twice).

Imported by the bounded worker (a fresh interpreter, no Django): the core only.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, replace

from inspector.core.bundle import Bundle
from inspector.core.documents import give_cases_distinct_ids, render_document
from inspector.core.model import RenderedDocument
from inspector.core.options import RenderOptions


@dataclass(frozen=True)
class PickledRender:
    """A rendered document pickled in parts: everything but its cases, then each case on its own
    (in order, ids as the pages address them)."""

    rest: bytes
    ids: tuple[str, ...]
    cases: tuple[bytes, ...]

    @classmethod
    def of(cls, document: RenderedDocument) -> PickledRender:
        return cls(
            pickle.dumps(replace(document, cases=[]), pickle.HIGHEST_PROTOCOL),
            tuple(case.id for case in document.cases),
            tuple(pickle.dumps(case, pickle.HIGHEST_PROTOCOL) for case in document.cases),
        )

    def document(self) -> RenderedDocument:
        rest: RenderedDocument = pickle.loads(self.rest)  # noqa: S301 - our own worker's, or cache's
        return replace(rest, cases=[pickle.loads(case) for case in self.cases])  # noqa: S301


def render_pickled(bundle: Bundle, path: str, options: RenderOptions | None) -> PickledRender:
    """The bounded worker's task for an upload: the render with distinct case ids, as the pages
    address cases, pickled in parts."""
    return PickledRender.of(give_cases_distinct_ids(render_document(bundle, path, options)))
