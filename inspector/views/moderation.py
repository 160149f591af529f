"""Moderation on the manage page: the manage-token holder locks or unlocks comments and deletes
any comment. The page's forms post the token, as its delete form does."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.safestring import mark_safe

from inspector.models import Bundle
from inspector.review import service
from inspector.review.models import Comment


def moderate(request: HttpRequest, bundle: Bundle, token: str) -> str | None:
    """Does the moderation the form asks for; what happened, for the page."""
    action = request.POST.get("action", "")
    if action in ("lock-comments", "unlock-comments"):
        service.set_locked(bundle, action == "lock-comments", token)
        return "Comments are locked." if bundle.comments_locked else "Comments are open again."
    if action == "delete-comment":
        value = request.POST.get("comment", "")
        comment = (
            Comment.objects.select_related("thread__bundle")
            .filter(thread__bundle=bundle, pk=int(value))
            .first()
            if value.isdigit() and len(value) < 12
            else None
        )
        if comment is None:
            return "That comment was deleted already."
        service.delete(comment, None, token)
        return "The comment was deleted."
    return None


def moderation_panel(bundle: Bundle, notice: str | None) -> dict:
    comments = (
        Comment.objects.filter(thread__bundle=bundle).select_related("thread").order_by("-created")[:200]
    )
    return {
        "locked": bundle.comments_locked,
        "notice": notice,
        # The HTML each comment was given when written: this list must load whatever the
        # bodies hold, or the owner could not reach the comments to delete them.
        "comments": [
            {
                "id": c.id,
                "author": c.author,
                "author_fingerprint": service.fingerprint(c.author_key_hash),
                "html": mark_safe(c.html),  # noqa: S308 - rendered safely when written
                "where": c.thread.case_id or f"{c.thread.path}:{c.thread.start_line}",
                "created": c.created,
            }
            for c in comments
        ],
        "total": Comment.objects.filter(thread__bundle=bundle).count(),
    }
