"""Which documents another document reads as its cases (agentv's `tests: file://cases.yaml`).

The loader lists such a file as a document of its own, since it is a list of cases, but the tool
runs it only through its suite (`agentv eval` finds suite.yaml, not cases/accuracy.yaml): shown
alone its cases look like suites to run and a bundle's cost counts them twice. What a suite reads is
known from its rendered cases, each of which says the file it was written in (RenderedCase.span).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspector.core.model import RenderedDocument


def case_sources(document: RenderedDocument) -> tuple[str, ...]:
    """The other files the document's cases are written in, in the order its cases read them."""
    found = dict.fromkeys(case.span.path for case in document.cases if case.span is not None)
    found.pop(document.path, None)
    return tuple(found)


def read_by(sources: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Each document another one reads as its cases, with that reader: the first in `sources`'
    order when two read it. `sources` maps every document to its case_sources. A document that
    reads others is a suite itself, so it is never taken for one's cases (two files reading each
    other both stay)."""
    found: dict[str, str] = {}
    for reader, paths in sources.items():
        for path in paths:
            if path in sources and not sources[path] and path not in found:
                found[path] = reader
    return found


def reading_order(documents: Sequence[str], read: Mapping[str, str]) -> list[str]:
    """The documents in their order, with each one read by another moved right after its reader."""
    under: dict[str, list[str]] = {}
    for path in documents:
        if path in read:
            under.setdefault(read[path], []).append(path)
    order: list[str] = []
    for path in documents:
        if path not in read:
            order.append(path)
            order.extend(under.get(path, ()))
    return order
