"""Review endpoints: threads anchored to a message, a stretch of rendered text or a file's lines;
replies, resolve and reopen, editing and deleting one's own comment, verdicts per case and the review
progress. The writer is the X-Author-Key header and nothing else (no cookie: a cross-site request
carries the victim's cookies along); the manage token (X-Manage-Token) moderates."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from ninja import Field, Header, Query, Router, Schema, Status

from inspector.review import service
from inspector.review.service import AnchorSpec

from .common import get_bundle, render_options, writes_from_this_site
from .schemas import ErrorOut, RenderQuery

router = Router(tags=["review"])
router.add_decorator(writes_from_this_site(), mode="view")

ERRORS = {code: ErrorOut for code in (400, 403, 404, 409, 413, 422, 429)}


class AnchorIn(Schema):
    kind: Literal["message", "text", "line"] = Field(
        description="message: a whole message of a case; text: a stretch of a message's rendered "
        "text (`quote`, optionally `start`); line: lines of any bundle file."
    )
    document: str = Field("", max_length=1024, description="message and text: the case's document.")
    case_id: str = Field("", max_length=1024, description="message and text: the case id.")
    message_index: int | None = Field(None, ge=0, le=100_000)
    start: int | None = Field(
        None, ge=0, le=100_000_000, description="text: where the quote starts in the message's content."
    )
    quote: str = Field("", max_length=service.MAX_QUOTE, description="text: the selected text.")
    path: str = Field("", max_length=1024, description="line: the file.")
    start_line: int | None = Field(None, ge=1, le=10_000_000)
    end_line: int | None = Field(None, ge=1, le=10_000_000)


class ThreadIn(Schema):
    anchor: AnchorIn
    body: str = Field(description="Markdown; raw HTML is shown as text.")
    author: str | None = Field(None, description="Default: Anonymous.")


class CommentIn(Schema):
    body: str
    author: str | None = None


class CommentEditIn(Schema):
    body: str


class ResolveIn(Schema):
    resolved: bool


class LockIn(Schema):
    locked: bool


class VerdictIn(Schema):
    document: str = Field(max_length=1024)
    case_id: str = Field(max_length=1024)
    verdict: Literal["ok", "changes"] | None = Field(
        description="ok: looks right; changes: needs changes; null clears the verdict."
    )
    note: str = ""
    author: str | None = None


class CommentOut(Schema):
    id: int
    author: str = Field(
        description="The name the writer gave: free text, so read it with author_fingerprint."
    )
    author_fingerprint: str = Field(
        description="The first hex digits of the hash of the writer's "
        "key: two writers can give the same name, not the same key."
    )
    body: str
    html: str = Field(description="The body rendered as safe HTML.")
    created: datetime
    edited: datetime | None
    mine: bool = Field(description="Written by the key this request sent.")


class ThreadOut(Schema):
    id: int
    bundle: str = Field(description="The bundle the thread was made on (an earlier revision when carried).")
    kind: str
    state: Literal["here", "carried", "outdated"] = Field(
        description="here: made on this bundle; carried: made on an earlier revision, its text "
        "unchanged here; outdated: its text is not in this rendering (see made_on)."
    )
    resolved: bool
    author_fingerprint: str = Field(
        description="The fingerprint of the key that started the thread "
        "(it, or the manage token, resolves and reopens it)."
    )
    document: str | None
    case_id: str | None
    message_index: int | None
    start: int | None
    end: int | None
    path: str | None
    start_line: int | None
    end_line: int | None
    quote: str
    cases: int | None = Field(description="line threads: how many cases carry the lines' text.")
    made_on: str
    created: datetime
    comments: list[CommentOut]
    author_key: str | None = Field(
        None,
        description="Only when this request sent no X-Author-Key: "
        "the key that edits and deletes this comment. Keep it.",
    )


class CreatedCommentOut(CommentOut):
    author_key: str | None = None


class LockOut(Schema):
    locked: bool


class VerdictOut(Schema):
    document: str
    case_id: str
    verdict: str | None
    note: str
    author: str
    author_fingerprint: str


class VerdictSetOut(VerdictOut):
    author_key: str | None = Field(
        None,
        description="Only when this request sent no X-Author-Key: "
        "the key that changes or clears this verdict. Keep it.",
    )


class NeedsChangesOut(Schema):
    document: str
    case_id: str
    note: str
    author: str
    author_fingerprint: str
    url: str


class ProgressOut(Schema):
    total: int
    reviewed: int
    ok: int
    needs_changes: list[NeedsChangesOut]
    verdicts: list[VerdictOut]
    locked: bool


class ThreadsQuery(RenderQuery):
    case_id: str | None = Field(
        None,
        description="With document: the threads one case page shows. "
        "Without: every thread of the bundle and its earlier revisions.",
    )


AuthorKey = Header(
    None,
    alias="X-Author-Key",
    description="The per-browser key answered when the first comment was written (`author_key`).",
)


@router.get(
    "/{bundle_id}/threads",
    response={200: list[ThreadOut], **ERRORS},
    summary="Comment threads, where they stand in this bundle",
)
def list_threads(request: HttpRequest, bundle_id: str, query: Query[ThreadsQuery]):
    loaded = get_bundle(bundle_id)
    options = render_options(query)
    key = service.request_key(request, api=True)
    if query.case_id is not None:
        case = service.rendered_case(loaded, query.document or "", query.case_id, options)
        placed = service.case_threads(loaded, query.document or "", case, options, key)
    else:
        placed = service.bundle_threads(loaded, options, key)
    return [service.placed_data(item) for item in placed]


def _write(request: HttpRequest, name: str | None) -> service.Reviewer:
    """The writer, from X-Author-Key; a request without one gets a new key in the answer
    (`author_key`), which the client sends from then on. No cookie is read or set."""
    service.check_rate(request)
    return service.reviewer(request, name, api=True)


@router.post(
    "/{bundle_id}/threads",
    response={201: ThreadOut, **ERRORS},
    summary="Start a thread on a message, a selection or a file's lines",
)
def create_thread(
    request: HttpRequest,
    bundle_id: str,
    body: ThreadIn,
    query: Query[RenderQuery],
    x_author_key: str | None = AuthorKey,
):
    """The anchor is checked against the case rendered with the query's settings (the view the
    reviewer saw): the selected text must be in that message, the lines in that file."""
    loaded = get_bundle(bundle_id)
    person = _write(request, body.author)
    anchor = body.anchor
    spec = AnchorSpec(
        anchor.kind,
        anchor.document,
        anchor.case_id,
        anchor.message_index,
        anchor.start,
        None,
        anchor.quote,
        anchor.path,
        anchor.start_line,
        anchor.end_line,
    )
    thread = service.start_thread(loaded, spec, render_options(query), body.body, person)
    placed = service.placed_where_made(thread, person.key)
    return Status(201, {**service.placed_data(placed), "author_key": person.key if person.new_key else None})


@router.post(
    "/{bundle_id}/threads/{thread_id}/comments",
    response={201: CreatedCommentOut, **ERRORS},
    summary="Reply in a thread",
)
def create_reply(
    request: HttpRequest,
    bundle_id: str,
    thread_id: int,
    body: CommentIn,
    x_author_key: str | None = AuthorKey,
):
    loaded = get_bundle(bundle_id)
    thread = service.thread_of(loaded.record, thread_id)
    person = _write(request, body.author)
    comment = service.reply(loaded.record, thread, body.body, person)
    data = _comment_data(comment, person.key)
    return Status(201, {**data, "author_key": person.key if person.new_key else None})


@router.post(
    "/{bundle_id}/threads/{thread_id}/resolve",
    response={200: ThreadOut, **ERRORS},
    summary="Resolve or reopen a thread",
)
def resolve(
    request: HttpRequest,
    bundle_id: str,
    thread_id: int,
    body: ResolveIn,
    x_author_key: str | None = AuthorKey,
    x_manage_token: str | None = Header(None, alias="X-Manage-Token"),
):
    """The thread's author (the key of its first comment) or the manage token of the bundle it
    was made on; anyone else gets 403."""
    loaded = get_bundle(bundle_id)
    service.check_rate(request)
    thread = service.set_resolved(
        loaded.record,
        service.thread_of(loaded.record, thread_id),
        body.resolved,
        x_author_key,
        x_manage_token,
    )
    return service.placed_data(service.placed_where_made(thread, x_author_key))


def _comment_data(comment, key: str | None) -> dict:
    return {
        "id": comment.id,
        "author": comment.author,
        "author_fingerprint": service.fingerprint(comment.author_key_hash),
        "body": comment.body,
        "html": comment.html,
        "created": comment.created,
        "edited": comment.edited,
        "mine": service.owns(key, comment.author_key_hash),
    }


@router.patch(
    "/{bundle_id}/comments/{comment_id}",
    response={200: CommentOut, **ERRORS},
    summary="Edit one's own comment",
)
def edit_comment(
    request: HttpRequest,
    bundle_id: str,
    comment_id: int,
    body: CommentEditIn,
    x_author_key: str | None = AuthorKey,
):
    loaded = get_bundle(bundle_id)
    service.check_rate(request)
    comment = service.edit(
        loaded.record, service.comment_of(loaded.record, comment_id), body.body, x_author_key
    )
    return _comment_data(comment, x_author_key)


@router.delete(
    "/{bundle_id}/comments/{comment_id}",
    response={204: None, **ERRORS},
    summary="Delete one's own comment, or any with the manage token",
)
def delete_comment(
    request: HttpRequest,
    bundle_id: str,
    comment_id: int,
    x_author_key: str | None = AuthorKey,
    x_manage_token: str | None = Header(None, alias="X-Manage-Token"),
):
    loaded = get_bundle(bundle_id)
    comment = service.comment_of(loaded.record, comment_id)
    service.delete(comment, x_author_key, x_manage_token)
    return Status(204, None)


@router.put(
    "/{bundle_id}/review-lock",
    response={200: LockOut, **ERRORS},
    summary="Lock or unlock comments and verdicts (manage token)",
)
def lock(
    request: HttpRequest,
    bundle_id: str,
    body: LockIn,
    x_manage_token: str | None = Header(None, alias="X-Manage-Token"),
):
    loaded = get_bundle(bundle_id)
    service.set_locked(loaded.record, body.locked, x_manage_token)
    return {"locked": body.locked}


@router.get(
    "/{bundle_id}/verdicts",
    response={200: ProgressOut, **ERRORS},
    summary="Review progress: verdicts per case",
)
def verdicts(request: HttpRequest, bundle_id: str, query: Query[RenderQuery]):
    loaded = get_bundle(bundle_id)
    found = service.progress(loaded, render_options(query))
    return {
        "total": found.total,
        "reviewed": found.reviewed,
        "ok": found.ok,
        "needs_changes": found.needs_changes,
        "locked": loaded.record.comments_locked,
        "verdicts": [_verdict_data(v) for v in found.by_case.values()],
    }


def _verdict_data(row) -> dict:
    return {
        "document": row.document,
        "case_id": row.case_id,
        "verdict": row.verdict,
        "note": row.note,
        "author": row.author,
        "author_fingerprint": service.fingerprint(row.author_key_hash),
    }


@router.put(
    "/{bundle_id}/verdicts",
    response={200: VerdictSetOut, **ERRORS},
    summary="Set a case's verdict: looks right, needs changes, or none",
)
def set_verdict(
    request: HttpRequest,
    bundle_id: str,
    body: VerdictIn,
    query: Query[RenderQuery],
    x_author_key: str | None = AuthorKey,
    x_manage_token: str | None = Header(None, alias="X-Manage-Token"),
):
    """A verdict belongs to the key that gave it: another key cannot change or clear it (403); the
    manage token can."""
    loaded = get_bundle(bundle_id)
    person = _write(request, body.author)
    row = service.set_verdict(
        loaded,
        body.document,
        body.case_id,
        body.verdict,
        body.note,
        render_options(query),
        person,
        x_manage_token,
    )
    made = person.key if person.new_key else None
    if row is None:
        return {
            "document": body.document,
            "case_id": body.case_id,
            "verdict": None,
            "note": "",
            "author": person.name,
            "author_fingerprint": service.fingerprint(person.key_hash),
            "author_key": made,
        }
    return {**_verdict_data(row), "author_key": made}
