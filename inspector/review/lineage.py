"""A bundle's revision chain: the bundle and its ancestors, nearest first, as far back as review
looks for comments and verdicts to carry into a revision."""

from __future__ import annotations

from inspector.models import Bundle

ANCESTORS = 20  # how far back in a bundle's revisions comments are looked for


def lineage(bundle: Bundle) -> list[Bundle]:
    """The bundle and its ancestors, nearest first (a revision's parent chain)."""
    chain, seen = [bundle], {bundle.pk}
    current = bundle
    while current.parent_id and len(chain) <= ANCESTORS:
        parent = Bundle.objects.filter(pk=current.parent_id).first()
        if parent is None or parent.pk in seen:
            break
        chain.append(parent)
        seen.add(parent.pk)
        current = parent
    return chain
