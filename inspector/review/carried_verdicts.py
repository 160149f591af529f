"""Verdicts carried into a revision: a case whose messages are what they were when an earlier
revision's reviewer judged them keeps that verdict until someone gives it one here. Progress, the
rows, the verdict filter and the case's panel all read verdicts through `effective_verdicts`."""

from __future__ import annotations

import hashlib
import json

from inspector.bundles import loading
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions
from inspector.rendering import stored_renders

from .lineage import lineage
from .models import Verdict


def case_digest(case: RenderedCase) -> str:
    """What a reviewer judged: the messages as sent (roles, contents, omissions) and the tools."""
    sent = [[message.role, message.content, message.omitted or ""] for message in case.messages]
    tools = [[tool.name, tool.description or "", tool.parameters] for tool in case.tools]
    return hashlib.sha256(json.dumps([sent, tools], sort_keys=True, default=str).encode()).hexdigest()


class _Digests:
    """Each case's digest per document of one rendering, rendered once per document asked."""

    def __init__(self, loaded: loading.LoadedBundle, options: RenderOptions):
        self.loaded, self.options = loaded, options
        self._documents: dict[str, dict[str, str]] = {}

    def of(self, document: str, case_id: str) -> str | None:
        if document not in self._documents:
            self._documents[document] = self._render(document)
        return self._documents[document].get(case_id)

    def _render(self, document: str) -> dict[str, str]:
        if document not in self.loaded.documents:
            return {}
        try:
            rendered = stored_renders.render(self.loaded, document, self.options)
        except InputError:
            return {}
        return {case.id: case_digest(case) for case in rendered.cases}


def _of(bundle_id: str, document: str | None):
    verdicts = Verdict.objects.filter(bundle_id=bundle_id)
    return verdicts.filter(document=document) if document is not None else verdicts


def effective_verdicts(
    loaded: loading.LoadedBundle, options: RenderOptions, document: str | None = None
) -> dict[tuple[str, str], Verdict]:
    """This bundle's verdicts, and for each case without one, the nearest earlier revision's verdict
    on the same case if the case renders the same there (marked `carried_from`: that bundle's id)."""
    found = {(verdict.document, verdict.case_id): verdict for verdict in _of(loaded.record.pk, document)}
    here = _Digests(loaded, options)
    for ancestor in lineage(loaded.record)[1:]:  # nearest first: the latest judgement wins
        earlier = [
            verdict
            for verdict in _of(ancestor.pk, document)
            if (verdict.document, verdict.case_id) not in found
        ]
        then_loaded = loading.load_bundle(ancestor.pk) if earlier else None
        if then_loaded is None:
            continue
        then = _Digests(then_loaded, options)
        for verdict in earlier:
            now = here.of(verdict.document, verdict.case_id)
            if now is not None and now == then.of(verdict.document, verdict.case_id):
                verdict.carried_from = ancestor.pk
                found[(verdict.document, verdict.case_id)] = verdict
    return found
