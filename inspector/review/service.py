"""Every review rule in one place, for the pages and the API alike: limits and rate, who may edit
or delete, how an anchor is checked against the rendering it was made on, and where a thread's
anchor lives in another rendering (this bundle under other settings, or a revision)."""

from __future__ import annotations

import hmac
import random
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.db import OperationalError, connection, transaction
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone
from django.utils.safestring import mark_safe

from inspector.bundles import loading
from inspector.cases import addresses, finding
from inspector.core import anchors
from inspector.core.model import InputError, RenderedCase
from inspector.core.options import RenderOptions
from inspector.models import Bundle, hash_token
from inspector.rendering import cache as render_cache
from inspector.rendering import stored_renders

from .lineage import lineage
from .markdown import render_markdown
from .models import Comment, Thread, Verdict, WriteCount

AUTHOR_COOKIE = "pi_author"
KEY_COOKIE = "pi_review_key"
KEY_HEADER = "HTTP_X_AUTHOR_KEY"
MAX_AUTHOR = 80
MAX_QUOTE = 2_000  # characters of selected text, or of a file's lines
MAX_LINES = 200
MAX_NOTE = 2_000
FAMILY_DEPTH = 10_000  # how far back a bundle's first ancestor is looked for (a chain has no cycle)
FINGERPRINT = 6  # hex digits of the key's hash shown beside a name
# markdown-it's cost grows with the brackets and emphasis delimiters it must pair: about 30 µs a
# character for `[*[*…` on a loaded 2-core machine (0.3 s at 10,000, 1.1-1.3 s at 40,000), linear.
# So however high COMMENT_MAX_CHARS is set, a body holds at most this many of them.
MARKUP_CHARACTERS = "[]()*_`<>!\\~"
MAX_MARKUP = 10_000
COOKIE_AGE = 365 * 24 * 3600


class ReviewError(Exception):
    """A review request that cannot be done, with the status and message the user sees."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------------------
# Who is writing


@dataclass
class Reviewer:
    name: str
    key: str
    new_key: bool  # the browser had no key yet: the answer must set it

    @property
    def key_hash(self) -> str:
        return hash_token(self.key)


def reviewer(request: HttpRequest, name: str | None = None, *, api: bool = False) -> Reviewer:
    """The writer: a name (given, or remembered in a cookie) and the key that is their identity: it
    edits and deletes their comments, changes their verdicts and their threads' state. Pages take it
    from the browser's cookie (Django's CSRF check guards those forms); the API only from the
    X-Author-Key header, never from a cookie a cross-site request would carry along."""
    key = request_key(request, api=api) or ""
    new = not (16 <= len(key) <= 128)
    if new:
        key = secrets.token_urlsafe(24)
    remembered = "" if api else request.COOKIES.get(AUTHOR_COOKIE, "")
    chosen = clean_author(name if name is not None else remembered)
    return Reviewer(chosen, key, new)


def clean_author(name: str) -> str:
    name = " ".join(_printable(name).split())
    if len(name) > MAX_AUTHOR:
        raise ReviewError(400, f"the name is longer than {MAX_AUTHOR} characters")
    return name or "Anonymous"


def remember(response, person: Reviewer) -> None:
    """Keeps the name and the key in this browser for a year."""
    secure = settings.SESSION_COOKIE_SECURE
    response.set_cookie(
        KEY_COOKIE, person.key, max_age=COOKIE_AGE, httponly=True, samesite="Lax", secure=secure
    )
    if person.name != "Anonymous":
        response.set_cookie(
            AUTHOR_COOKIE, person.name, max_age=COOKIE_AGE, httponly=True, samesite="Lax", secure=secure
        )


def owns(key: str | None, key_hash: str) -> bool:
    return bool(key) and bool(key_hash) and hmac.compare_digest(hash_token(key or ""), key_hash)


def request_key(request: HttpRequest, *, api: bool = False) -> str | None:
    if api:
        return request.META.get(KEY_HEADER) or None
    return request.COOKIES.get(KEY_COOKIE) or None


def fingerprint(key_hash: str) -> str:
    """Shown beside every name: a name is free text, so two writers can pick the same one, but not
    the same key. The hash of the key, not the key: it proves nothing to whoever reads it."""
    return key_hash[:FINGERPRINT]


def _printable(text: str) -> str:
    # NUL cannot be stored by PostgreSQL; lone surrogates by no database.
    text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ReviewError(400, "the text is not valid Unicode (it holds a lone surrogate)") from None
    return text


# ---------------------------------------------------------------------------------------------
# Limits


def client_address(request: HttpRequest) -> str:
    """The address a client's writes are counted against (see TRUSTED_PROXY_COUNT)."""
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        chain = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        chain = [part for part in chain if part]
        if chain:
            return chain[-min(proxies, len(chain))][:100]
    return request.META.get("REMOTE_ADDR", "")


def check_rate(request: HttpRequest) -> None:
    """At most REVIEW_WRITES_PER_MINUTE writes per client address and minute, counted where every
    web worker sees the same number, atomically: Redis's INCR when the shared render cache is
    Redis, else one UPDATE ... SET count = count + 1 in the database (the file cache reads, adds
    and writes back, so racing workers lost counts: 13-15 writes passed a limit of 10)."""
    limit = settings.REVIEW_WRITES_PER_MINUTE
    minute = int(time.time() // 60)
    address = client_address(request)
    store = rate_store()
    count = (
        _cache_count(store, address, minute)
        if isinstance(store, RedisCache)
        else _database_count(address, minute)
    )
    if count > limit:
        raise ReviewError(
            429,
            f"too many comments and verdicts from this address: at most {limit} "
            "a minute; wait a minute and send it again",
        )


def rate_store() -> BaseCache:
    return caches["renders"]


def _cache_count(store: BaseCache, address: str, minute: int) -> int:
    key = render_cache.key("review-rate", address, minute)
    store.add(key, 0, 120)
    try:
        return store.incr(key)
    except ValueError:  # evicted between add and incr: this write starts the count again
        store.add(key, 0, 120)
        return store.incr(key)


def _database_count(address: str, minute: int) -> int:
    """The row is made if missing (a racing maker's insert is ignored), then counted up by one
    UPDATE, which takes the row's lock (SQLite's write lock): no two writes read the same count."""

    def count_up() -> int:
        WriteCount.objects.bulk_create([WriteCount(address=address, minute=minute)], ignore_conflicts=True)
        WriteCount.objects.filter(address=address, minute=minute).update(count=F("count") + 1)
        count = WriteCount.objects.filter(address=address, minute=minute).values_list("count", flat=True)[0]
        if count == 1:  # the first write of a minute clears the minutes no limit looks at any more
            # In the same transaction, so SQLite's refusal of a racing writer here is retried too.
            WriteCount.objects.filter(minute__lt=minute - 1).delete()
        return count

    return serialized(count_up)


def is_stored(bundle: Bundle) -> bool:
    """False for a bundle that is not a database row (a folder served read-only): it has no
    comments and takes none."""
    return not bundle._state.adding


def check_open(bundle: Bundle, thread: Thread | None = None) -> None:
    """Writes need the bundle open, and for a thread made on an earlier revision, that revision
    open too: a revision of a locked bundle cannot reply into or reopen its threads."""
    if not is_stored(bundle):
        raise ReviewError(
            403,
            "this bundle is not stored (a folder served read-only): comments and "
            "verdicts need an uploaded bundle",
        )
    if bundle.comments_locked:
        raise ReviewError(403, "comments on this bundle are locked by its owner")
    if (
        thread is not None
        and thread.bundle_id != bundle.pk
        and Bundle.objects.filter(pk=thread.bundle_id, comments_locked=True).exists()
    ):
        raise ReviewError(403, "comments on the bundle this thread was made on are locked by its owner")


def clean_body(body: str) -> str:
    """The body, checked against the cap before anything renders it (the cap bounds the one
    rendering a comment ever gets: markdown-it's worst case at 10,000 characters is about 0.1 s)."""
    if len(body) > settings.COMMENT_MAX_CHARS * 2:  # not even worth cleaning
        raise ReviewError(
            413,
            f"the comment is {len(body):,} characters long; at most "
            f"{settings.COMMENT_MAX_CHARS:,} are allowed",
        )
    body = _printable(body).strip()
    if not body:
        raise ReviewError(400, "the comment is empty")
    if len(body) > settings.COMMENT_MAX_CHARS:
        raise ReviewError(
            413,
            f"the comment is {len(body):,} characters long; at most "
            f"{settings.COMMENT_MAX_CHARS:,} are allowed",
        )
    markup = sum(body.count(character) for character in MARKUP_CHARACTERS)
    if markup > MAX_MARKUP:
        raise ReviewError(
            413,
            f"the comment holds {markup:,} of the characters "
            f"{' '.join(MARKUP_CHARACTERS)}; at most {MAX_MARKUP:,} are allowed",
        )
    return body


def family_of(bundle: Bundle) -> str:
    """The first bundle of this one's revision chain (itself when it has no parent), in one query."""
    if not bundle.parent_id:
        return bundle.pk
    table = connection.ops.quote_name(Bundle._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE chain(id, parent_id, depth) AS ("  # noqa: S608 - the table's own name
            f"SELECT id, parent_id, 0 FROM {table} WHERE id = %s UNION ALL "
            f"SELECT b.id, b.parent_id, c.depth + 1 FROM {table} b JOIN chain c ON b.id = c.parent_id "
            f"WHERE c.depth < %s) SELECT id FROM chain ORDER BY depth DESC LIMIT 1",
            [bundle.pk, FAMILY_DEPTH],
        )
        row = cursor.fetchone()
    return row[0] if row else bundle.pk


RETRIES = 20


def serialized(action):
    """Runs action in one transaction; SQLite refuses a second writer at once in some modes
    (OperationalError, 'database is locked'), and the transaction is rolled back whole, so it is
    tried again after a short, growing, jittered wait (PostgreSQL waits for the row lock itself)."""
    for attempt in range(RETRIES):
        try:
            with transaction.atomic():
                return action()
        except OperationalError:
            if attempt == RETRIES - 1:
                raise ReviewError(503, "the database is busy; send it again") from None
            time.sleep(min(0.2, 0.002 * 2**attempt) * (1 + random.random()))  # noqa: S311 - jitter
    raise AssertionError("unreachable")  # pragma: no cover


def _locked_family(family: str, bundle: Bundle, thread: Thread | None) -> None:
    """Inside the writing transaction: takes the family's first bundle's row (a no-op UPDATE is a
    row lock on PostgreSQL and SQLite's write lock), then checks the lock and the cap afresh, so
    racing writers are counted one after another."""
    Bundle.objects.filter(pk=family).update(comments_locked=F("comments_locked"))
    fresh = Bundle.objects.filter(pk=bundle.pk).values_list("comments_locked", flat=True).first()
    if fresh is None:
        raise ReviewError(404, "this bundle was deleted")
    bundle.comments_locked = fresh
    check_open(bundle, thread)
    limit = settings.COMMENTS_PER_BUNDLE
    if Comment.objects.filter(thread__family=family).count() >= limit:
        raise ReviewError(
            409, f"this bundle and its revisions have reached their limit of {limit:,} comments"
        )


# ---------------------------------------------------------------------------------------------
# Anchors


@dataclass
class AnchorSpec:
    kind: str  # message, text, line
    document: str = ""
    case_id: str = ""
    message_index: int | None = None
    start: int | None = None
    end: int | None = None
    quote: str = ""
    path: str = ""
    start_line: int | None = None
    end_line: int | None = None


def rendered_case(
    loaded: loading.LoadedBundle, document: str, case_id: str, options: RenderOptions
) -> RenderedCase:
    if document not in loaded.documents:
        raise ReviewError(404, f"this bundle has no document {document[:200]!r}")
    try:
        rendered = stored_renders.render(loaded, document, options)
    except InputError as problem:
        raise ReviewError(422, f"{problem}") from None
    case = finding.find_case(rendered, case_id)
    if case is None:
        raise ReviewError(404, f"{document} has no case {case_id[:200]!r} under these settings")
    return case


def _checked_anchor(loaded: loading.LoadedBundle, spec: AnchorSpec, options: RenderOptions) -> dict:
    """The thread's anchor fields, checked against the rendering the reviewer saw."""
    if spec.kind == "line":
        return _line_anchor(loaded, spec)
    if spec.kind not in ("message", "text"):
        raise ReviewError(400, "the anchor kind must be message, text or line")
    case = rendered_case(loaded, spec.document, spec.case_id, options)
    index = spec.message_index
    if index is None or not 0 <= index < len(case.messages):
        raise ReviewError(400, f"message_index must be between 0 and {len(case.messages) - 1}")
    content = case.messages[index].content
    fields = {"document": spec.document, "case_id": spec.case_id, "message_index": index}
    if spec.kind == "message":
        return {**fields, "quote": content[:300], "quote_hash": anchors.text_hash(content)}
    quote = _printable(spec.quote)
    if not quote.strip():
        raise ReviewError(400, "select some text to comment on")
    if len(quote) > MAX_QUOTE:
        raise ReviewError(400, f"the selection is {len(quote):,} characters; select at most {MAX_QUOTE:,}")
    start = spec.start if spec.start is not None else content.find(quote)
    if start is None or start < 0 or content[start : start + len(quote)] != quote:
        place = anchors.find_text(case, quote, index, spec.start)
        if place is None or place.message_index != index:
            raise ReviewError(400, f"the selected text is not in message #{index} of this case")
        start = place.start
    origin = _merged_origin(anchors.origins(case.messages[index], start, start + len(quote)))
    return {**fields, "text_start": start, "quote": quote, "quote_hash": anchors.text_hash(quote), **origin}


def _merged_origin(spans: list[anchors.SourceSpan]) -> dict:
    """The file most of a selection came from, with the lines it spans there."""
    if not spans:
        return {}
    path = spans[0].path
    lines = [n for span in spans if span.path == path for n in (span.start_line, span.end_line) if n]
    return {
        "path": path,
        "start_line": min(lines) if lines else None,
        "end_line": max(lines) if lines else None,
    }


def _line_anchor(loaded: loading.LoadedBundle, spec: AnchorSpec) -> dict:
    decoded = loaded.files.text(spec.path) if spec.path else None
    if decoded is None:
        raise ReviewError(404, f"this bundle has no file {spec.path[:200]!r}")
    start, end = spec.start_line, spec.end_line or spec.start_line
    if start is None or end is None or end < start or end - start >= MAX_LINES:
        raise ReviewError(400, f"give start_line and end_line (at most {MAX_LINES} lines)")
    quote = anchors.line_text(decoded.text, start, end)
    if quote is None:
        raise ReviewError(400, f"{spec.path} has no lines {start}–{end}")
    return {
        "path": spec.path,
        "start_line": start,
        "end_line": end,
        "quote": quote[: MAX_QUOTE * 10],
        "quote_hash": anchors.text_hash(quote),
    }


def start_thread(
    loaded: loading.LoadedBundle, spec: AnchorSpec, options: RenderOptions, body: str, person: Reviewer
) -> Thread:
    bundle = loaded.record
    check_open(bundle)
    body = clean_body(body)
    html = str(render_markdown(body))
    anchor = _checked_anchor(loaded, spec, options)
    family = family_of(bundle)

    def write() -> Thread:
        _locked_family(family, bundle, None)
        thread = Thread.objects.create(
            bundle=bundle, kind=spec.kind, family=family, author_key_hash=person.key_hash, **anchor
        )
        Comment.objects.create(
            thread=thread, author=person.name, body=body, html=html, author_key_hash=person.key_hash
        )
        return thread

    return serialized(write)


def reply(bundle: Bundle, thread: Thread, body: str, person: Reviewer) -> Comment:
    check_open(bundle)  # the thread's own bundle is checked in the writing transaction
    body = clean_body(body)
    html = str(render_markdown(body))
    family = thread.family or family_of(thread.bundle)

    def write() -> Comment:
        _locked_family(family, bundle, thread)
        return Comment.objects.create(
            thread=thread, author=person.name, body=body, html=html, author_key_hash=person.key_hash
        )

    return serialized(write)


def thread_of(bundle: Bundle, thread_id: int) -> Thread:
    """A thread of this bundle or of an earlier revision (carried threads take replies here)."""
    thread = (
        Thread.objects.filter(bundle__in=lineage(bundle), pk=thread_id).first()
        if 0 < thread_id < 2**62
        else None
    )
    if thread is None:
        raise ReviewError(404, "this bundle has no such thread")
    return thread


def comment_of(bundle: Bundle, comment_id: int) -> Comment:
    comment = (
        Comment.objects.select_related("thread__bundle")
        .filter(thread__bundle__in=lineage(bundle), pk=comment_id)
        .first()
        if 0 < comment_id < 2**62
        else None
    )
    if comment is None:
        raise ReviewError(404, "this bundle has no such comment")
    return comment


def set_resolved(
    bundle: Bundle, thread: Thread, resolved: bool, key: str | None, manage_token: str | None = None
) -> Thread:
    """The thread's author (its first comment's key) or the owner of the bundle it was made on
    resolves or reopens it; a revision's owner does not own its parent's threads."""
    check_open(bundle, thread)
    if not (owns(key, thread.author_key_hash) or thread.bundle.check_manage_token(manage_token or "")):
        raise ReviewError(
            403,
            "only the browser that started a thread, or the manage token of the "
            "bundle it was made on, can resolve or reopen it",
        )
    thread.resolved = resolved
    thread.save(update_fields=["resolved"])
    return thread


def edit(bundle: Bundle, comment: Comment, body: str, key: str | None) -> Comment:
    check_open(bundle, comment.thread)
    if not owns(key, comment.author_key_hash):
        raise ReviewError(403, "only the browser that wrote a comment can edit it")
    comment.body = clean_body(body)
    comment.html = str(render_markdown(comment.body))
    comment.edited = timezone.now()
    comment.save(update_fields=["body", "html", "edited"])
    return comment


def delete(comment: Comment, key: str | None, manage_token: str | None) -> None:
    """The writer's browser, or the manage-token holder (moderation), deletes a comment; a thread
    left without comments goes too."""
    # The manage token of the bundle the comment was made on: an earlier revision has its own.
    if not (
        owns(key, comment.author_key_hash) or comment.thread.bundle.check_manage_token(manage_token or "")
    ):
        raise ReviewError(
            403, "only the browser that wrote a comment, or the bundle's manage token, can delete it"
        )
    with transaction.atomic():
        thread = comment.thread
        comment.delete()
        if not thread.comments.exists():
            thread.delete()


def set_locked(bundle: Bundle, locked: bool, manage_token: str | None) -> None:
    if not bundle.check_manage_token(manage_token or ""):
        raise ReviewError(403, "wrong manage token")
    bundle.comments_locked = locked
    bundle.save(update_fields=["comments_locked"])


# ---------------------------------------------------------------------------------------------
# Verdicts


def set_verdict(
    loaded: loading.LoadedBundle,
    document: str,
    case_id: str,
    verdict: str | None,
    note: str,
    options: RenderOptions,
    person: Reviewer,
    manage_token: str | None = None,
) -> Verdict | None:
    """A case's verdict belongs to the key that gave it: only that key changes or clears it (the
    owner, with the manage token, clears any)."""
    bundle = loaded.record
    check_open(bundle)
    rendered_case(loaded, document, case_id, options)
    clearing = verdict is None or verdict == ""
    if not clearing and verdict not in ("ok", "changes"):
        raise ReviewError(400, "the verdict must be ok (looks right) or changes (needs changes)")
    note = _printable(note).strip()
    if len(note) > MAX_NOTE:
        raise ReviewError(413, f"the note is longer than {MAX_NOTE:,} characters")

    def write() -> Verdict | None:
        # The bundle's row first: racing verdicts on one case are decided one after another.
        Bundle.objects.filter(pk=bundle.pk).update(comments_locked=F("comments_locked"))
        current = Verdict.objects.filter(bundle=bundle, document=document, case_id=case_id).first()
        if current is not None and not (
            current.author_key_hash == person.key_hash or bundle.check_manage_token(manage_token or "")
        ):
            raise ReviewError(
                403,
                f"this case's verdict was given by {current.author} "
                f"({fingerprint(current.author_key_hash)}); only the browser that gave "
                "it, or the bundle's manage token, can change or clear it",
            )
        if clearing:
            if current is not None:
                current.delete()
            return None
        row, _ = Verdict.objects.update_or_create(
            bundle=bundle,
            document=document,
            case_id=case_id,
            defaults={
                "verdict": verdict,
                "note": note,
                "author": person.name,
                "author_key_hash": person.key_hash,
            },
        )
        return row

    return serialized(write)


# The bundle page's "Show" choices: cases by their verdict ("none": no verdict yet).
VERDICT_FILTERS = {"none": "not reviewed", "ok": "marked looks right", "changes": "marked needs changes"}


def verdicts_of(
    loaded: loading.LoadedBundle, document: str, options: RenderOptions | None = None
) -> dict[str, str]:
    """Each case of one document that has a verdict (here, or carried from an earlier revision
    where the case renders the same): its id and verdict."""
    from .carried_verdicts import effective_verdicts

    if not is_stored(loaded.record):
        return {}
    found = effective_verdicts(loaded, options or RenderOptions(), document)
    return {case_id: verdict.verdict for (_, case_id), verdict in found.items()}


@dataclass
class Progress:
    total: int
    reviewed: int
    ok: int
    needs_changes: list[dict]  # document, case id, note, author, url
    by_case: dict[tuple[str, str], Verdict]


def progress(loaded: loading.LoadedBundle, options: RenderOptions) -> Progress:
    """Reviewed N of M over the cases this view shows; verdicts on cases the view does not show are
    left out of both counts."""
    keys: list[tuple[str, str]] = []
    for document in loaded.documents:
        try:
            rendered = stored_renders.render(loaded, document, options)
        except InputError:
            continue
        keys.extend((document, case.id) for case in rendered.cases)
    from .carried_verdicts import effective_verdicts  # carried into a revision for unchanged cases

    verdicts = effective_verdicts(loaded, options)
    shown = [verdicts[key] for key in keys if key in verdicts]
    changes = [
        {
            "document": v.document,
            "case_id": v.case_id,
            "note": v.note,
            "author": v.author,
            "author_fingerprint": fingerprint(v.author_key_hash),
            "url": addresses.case_url(loaded.record.pk, v.document, v.case_id),
        }
        for v in shown
        if v.verdict == "changes"
    ]
    return Progress(len(keys), len(shown), sum(v.verdict == "ok" for v in shown), changes, verdicts)


# ---------------------------------------------------------------------------------------------
# Where threads show


@dataclass
class Placed:
    """A thread as one rendering shows it."""

    thread: Thread
    state: str  # here (made on this bundle and found), carried (from an earlier revision), outdated
    message_index: int | None = None
    start: int | None = None
    end: int | None = None
    path: str = ""
    start_line: int | None = None
    end_line: int | None = None
    cases: int | None = None  # line threads: how many cases of the bundle carry the lines
    made_on: str = ""  # the link to where the thread was made
    comments: list[dict] = field(default_factory=list)
    own_thread: bool = False  # the viewer's key started it: they may resolve or reopen it

    @property
    def anchor_label(self) -> str:
        t = self.thread
        if t.kind == "line":
            lines = (
                f"line {self.start_line}"
                if self.start_line == self.end_line
                else f"lines {self.start_line}–{self.end_line}"
            )
            return f"{self.path or t.path} {lines}"
        if t.kind == "message":
            return f"message #{self.message_index if self.message_index is not None else t.message_index}"
        where = f"message #{self.message_index if self.message_index is not None else t.message_index}"
        return f"selection in {where}"


def line_thread_shown_on_case(item: Placed, document: str, case: RenderedCase) -> bool:
    """Whether the case page shows a line thread: its lines carry text of the case's messages or lie
    within the case's own source; an outdated one on every case of the file it was on. The bundle
    page's rows count by it too (case_counts.py)."""
    if item.state == "outdated" or item.start_line is None or item.end_line is None:
        return item.state == "outdated" and item.thread.path == document
    if anchors.case_carries_lines(case, item.path, item.start_line, item.end_line):
        return True
    span = case.span  # a YAML key or id line makes no text but belongs to the case
    return (
        span is not None
        and span.path == item.path
        and span.start_line <= item.end_line
        and item.start_line <= span.end_line
    )


def placed_where_made(thread: Thread, key: str | None) -> Placed:
    """A thread as the bundle it was made on shows it, with its comments as `key` sees them: the
    API's answer to a write on it."""
    start = thread.text_start
    placed = Placed(
        thread,
        "here",
        thread.message_index,
        start,
        None if start is None else start + len(thread.quote),
        thread.path,
        thread.start_line,
        thread.end_line,
        made_on=_made_on(thread),
    )
    placed.comments = comment_views(thread, key)
    return placed


def _made_on(thread: Thread) -> str:
    if thread.kind == "line":
        return addresses.source_url(thread.bundle_id, thread.path, thread.start_line, thread.end_line)
    return addresses.case_url(thread.bundle_id, thread.document, thread.case_id)


def _place_on_case(thread: Thread, case: RenderedCase, own: bool) -> Placed:
    state = "here" if own else "carried"
    if thread.kind == "message":
        index = anchors.find_message(case, thread.quote_hash, thread.message_index)
        if index is None:
            return Placed(thread, "outdated", made_on=_made_on(thread))
        return Placed(thread, state, message_index=index, made_on=_made_on(thread))
    place = anchors.find_text(case, thread.quote, thread.message_index, thread.text_start)
    if place is None:
        return Placed(thread, "outdated", made_on=_made_on(thread))
    origin = _merged_origin(anchors.origins(case.messages[place.message_index], place.start, place.end))
    return Placed(
        thread,
        state,
        place.message_index,
        place.start,
        place.end,
        origin.get("path", ""),
        origin.get("start_line"),
        origin.get("end_line"),
        made_on=_made_on(thread),
    )


def _place_lines(thread: Thread, loaded: loading.LoadedBundle, own: bool) -> Placed:
    if own:
        return Placed(
            thread,
            "here",
            path=thread.path,
            start_line=thread.start_line,
            end_line=thread.end_line,
            made_on=_made_on(thread),
        )
    decoded = loaded.files.text(thread.path)
    found = anchors.find_lines(decoded.text, thread.quote, thread.start_line or 1) if decoded else None
    if found is None:
        return Placed(
            thread,
            "outdated",
            path=thread.path,
            start_line=thread.start_line,
            end_line=thread.end_line,
            made_on=_made_on(thread),
        )
    return Placed(
        thread, "carried", path=thread.path, start_line=found[0], end_line=found[1], made_on=_made_on(thread)
    )


def _threads(bundles: Iterable[Bundle], **filters) -> list[Thread]:
    return list(
        Thread.objects.filter(bundle__in=list(bundles), **filters)
        .prefetch_related("comments")
        .order_by("created", "id")
    )


def case_threads(
    loaded: loading.LoadedBundle, document: str, case: RenderedCase, options: RenderOptions, key: str | None
) -> list[Placed]:
    """Threads a case page shows: those made on this case (here, or carried from an earlier
    revision when their text is unchanged, else outdated), and line threads on lines whose text
    this case's messages carry, with the number of cases that carry them."""
    chain = lineage(loaded.record)
    placed = []
    for thread in _threads(chain, document=document, case_id=case.id):
        placed.append(_place_on_case(thread, case, thread.bundle_id == loaded.record.pk))
    counts: dict[tuple[str, int, int], int] = {}
    for thread in _threads(chain, kind="line"):
        item = _place_lines(thread, loaded, thread.bundle_id == loaded.record.pk)
        if not line_thread_shown_on_case(item, document, case):
            continue
        if item.state == "outdated" or item.start_line is None or item.end_line is None:
            placed.append(item)  # its lines were in this file: say they are gone
            continue
        span = (item.path, item.start_line, item.end_line)
        if span not in counts:
            counts[span] = carrying_cases(loaded, options, *span)
        item.cases = counts[span]
        placed.append(item)
    for item in placed:
        item.comments = comment_views(item.thread, key)
        item.own_thread = owns(key, item.thread.author_key_hash)
    return placed


def file_threads(
    loaded: loading.LoadedBundle, path: str, options: RenderOptions, key: str | None
) -> list[Placed]:
    """Line threads on a file (this bundle's, and earlier revisions' found again or outdated), each
    with the number of cases whose messages carry its lines."""
    placed = []
    for thread in _threads(lineage(loaded.record), kind="line", path=path):
        item = _place_lines(thread, loaded, thread.bundle_id == loaded.record.pk)
        if item.state != "outdated" and item.start_line and item.end_line:
            item.cases = carrying_cases(loaded, options, path, item.start_line, item.end_line)
        item.comments = comment_views(thread, key)
        item.own_thread = owns(key, thread.author_key_hash)
        placed.append(item)
    return placed


def carrying_cases(
    loaded: loading.LoadedBundle, options: RenderOptions, path: str, start: int, end: int
) -> int:
    count = 0
    for document in loaded.documents:
        try:
            rendered = stored_renders.render(loaded, document, options)
        except InputError:
            continue
        count += sum(anchors.case_carries_lines(case, path, start, end) for case in rendered.cases)
    return count


def bundle_threads(loaded: loading.LoadedBundle, options: RenderOptions, key: str | None) -> list[Placed]:
    """Every thread of the bundle and of its earlier revisions, placed on this bundle."""
    chain = lineage(loaded.record)
    cases: dict[tuple[str, str], RenderedCase | None] = {}
    placed = []
    for thread in _threads(chain):
        own = thread.bundle_id == loaded.record.pk
        if thread.kind == "line":
            item = _place_lines(thread, loaded, own)
        else:
            where = (thread.document, thread.case_id)
            if where not in cases:
                try:
                    cases[where] = rendered_case(loaded, *where, options)
                except ReviewError:
                    cases[where] = None
            case = cases[where]
            item = (
                _place_on_case(thread, case, own)
                if case is not None
                else Placed(thread, "outdated", made_on=_made_on(thread))
            )
        item.comments = comment_views(thread, key)
        item.own_thread = owns(key, thread.author_key_hash)
        placed.append(item)
    return placed


def comment_views(thread: Thread, key: str | None) -> list[dict]:
    """Each comment with the HTML it was given when written: no view renders Markdown."""
    return [
        {
            "id": c.id,
            "author": c.author,
            "author_fingerprint": fingerprint(c.author_key_hash),
            "body": c.body,
            "html": mark_safe(c.html),  # noqa: S308 - rendered safely when written
            "created": c.created,
            "edited": c.edited,
            "mine": owns(key, c.author_key_hash),
        }
        for c in thread.comments.all()
    ]


def placed_data(item: Placed) -> dict:
    """A placed thread as plain data: the API's answer, and the page script's markers."""
    t = item.thread
    return {
        "id": t.id,
        "bundle": t.bundle_id,
        "kind": t.kind,
        "state": item.state,
        "resolved": t.resolved,
        "author_fingerprint": fingerprint(t.author_key_hash),
        "document": t.document or None,
        "case_id": t.case_id or None,
        "message_index": item.message_index,
        "start": item.start,
        "end": item.end,
        "path": item.path or None,
        "start_line": item.start_line,
        "end_line": item.end_line,
        "quote": t.quote,
        "cases": item.cases,
        "made_on": item.made_on,
        "created": t.created,
        "comments": [
            {k: v for k, v in c.items() if k != "html"} | {"html": str(c["html"])} for c in item.comments
        ],
    }
