"""Who may do what, tried as an attacker would through the API: a share link comments and gives
verdicts as its holder's key and no one else's; the owner (manage token) moderates; a revision's
author owns the revision, not its parent's threads; writes from another site are refused; and a
comment's Markdown is rendered once, when it is written."""

import pytest
from django.test import override_settings

from inspector.bundles.ingest import store_bundle
from inspector.review import markdown, service
from inspector.review.models import Comment, Thread, WriteCount

from .test_review import FILES

ALICE, MALLORY = "a" * 32, "m" * 32
DOC = "evals/suite.yaml"
ANCHOR = {"kind": "message", "document": DOC, "case_id": "first", "message_index": 0}


@pytest.fixture(autouse=True)
def _no_rate_carry_over(db):
    WriteCount.objects.all().delete()


@pytest.fixture
def suite(db):
    return store_bundle(FILES, title="suite")


def start(client, bundle_id, key=ALICE, body="Looks odd", author="Alice", **headers):
    return client.post(
        f"/api/bundles/{bundle_id}/threads",
        {"anchor": ANCHOR, "body": body, "author": author},
        content_type="application/json",
        HTTP_X_AUTHOR_KEY=key,
        **headers,
    )


def reply(client, bundle_id, thread_id, key=ALICE, body="More", **headers):
    return client.post(
        f"/api/bundles/{bundle_id}/threads/{thread_id}/comments",
        {"body": body},
        content_type="application/json",
        HTTP_X_AUTHOR_KEY=key,
        **headers,
    )


def resolve(client, bundle_id, thread_id, resolved=True, **headers):
    return client.post(
        f"/api/bundles/{bundle_id}/threads/{thread_id}/resolve",
        {"resolved": resolved},
        content_type="application/json",
        **headers,
    )


def verdict(client, bundle_id, value, key, **headers):
    return client.put(
        f"/api/bundles/{bundle_id}/verdicts",
        {"document": DOC, "case_id": "first", "verdict": value, "author": "Alice"},
        content_type="application/json",
        HTTP_X_AUTHOR_KEY=key,
        **headers,
    )


def revision_of(bundle):
    return store_bundle(FILES, title="revision", parent=bundle)


# ---------------------------------------------------------------------------------------------
# Verdicts and thread state belong to their author key


def test_another_key_cannot_overwrite_or_clear_a_verdict_but_its_author_and_the_owner_can(client, suite):
    bundle, token = suite
    assert verdict(client, bundle.pk, "ok", ALICE).status_code == 200
    overwrite = verdict(client, bundle.pk, "changes", MALLORY)
    assert overwrite.status_code == 403 and "only the browser that gave it" in overwrite.json()["detail"]
    assert verdict(client, bundle.pk, None, MALLORY).status_code == 403
    assert verdict(client, bundle.pk, "ok", "").status_code == 403  # no key: a new one, not Alice's
    other = client.put(
        f"/api/bundles/{bundle.pk}/verdicts",
        {"document": DOC, "case_id": "second", "verdict": "ok"},
        content_type="application/json",
    ).json()
    assert other["author_key"] and verdict(client, bundle.pk, None, other["author_key"]).status_code == 403
    assert (
        client.put(
            f"/api/bundles/{bundle.pk}/verdicts",
            {"document": DOC, "case_id": "second", "verdict": None},
            content_type="application/json",
            HTTP_X_AUTHOR_KEY=other["author_key"],
        ).json()["verdict"]
        is None
    )
    progress = client.get(f"/api/bundles/{bundle.pk}/verdicts").json()
    assert [(v["verdict"], v["author_fingerprint"]) for v in progress["verdicts"]] == [
        ("ok", service.fingerprint(service.hash_token(ALICE)))
    ]
    assert verdict(client, bundle.pk, "changes", ALICE).json()["verdict"] == "changes"
    assert verdict(client, bundle.pk, None, MALLORY, HTTP_X_MANAGE_TOKEN=token).status_code == 200
    assert client.get(f"/api/bundles/{bundle.pk}/verdicts").json()["verdicts"] == []


def test_only_the_threads_author_or_the_owner_resolves_or_reopens_it(client, suite):
    bundle, token = suite
    thread = start(client, bundle.pk).json()
    assert reply(client, bundle.pk, thread["id"], key=MALLORY).status_code == 201  # anyone replies
    refused = resolve(client, bundle.pk, thread["id"], HTTP_X_AUTHOR_KEY=MALLORY)
    assert refused.status_code == 403 and "started a thread" in refused.json()["detail"]
    assert resolve(client, bundle.pk, thread["id"]).status_code == 403  # no key at all
    assert resolve(client, bundle.pk, thread["id"], HTTP_X_MANAGE_TOKEN="wrong").status_code == 403
    assert not Thread.objects.get(pk=thread["id"]).resolved
    assert resolve(client, bundle.pk, thread["id"], HTTP_X_AUTHOR_KEY=ALICE).json()["resolved"] is True
    assert (
        resolve(client, bundle.pk, thread["id"], False, HTTP_X_MANAGE_TOKEN=token).json()["resolved"] is False
    )


def test_a_name_cannot_impersonate_its_fingerprint_tells_the_keys_apart(client, suite):
    bundle, _ = suite
    thread = start(client, bundle.pk).json()
    fake = client.post(
        f"/api/bundles/{bundle.pk}/threads/{thread['id']}/comments",
        {"body": "Approve it", "author": "Alice"},
        content_type="application/json",
        HTTP_X_AUTHOR_KEY=MALLORY,
    ).json()
    real = thread["comments"][0]
    assert real["author"] == fake["author"] == "Alice"
    assert real["author_fingerprint"] != fake["author_fingerprint"]
    assert (
        real["author_fingerprint"]
        == thread["author_fingerprint"]
        == service.fingerprint(service.hash_token(ALICE))
    )
    assert ALICE not in str(thread)  # the fingerprint is of the key's hash, not the key


# ---------------------------------------------------------------------------------------------
# A revision's author owns the revision, not its parent's threads; lock and cap span the family


def test_the_originals_lock_holds_for_its_threads_through_a_revision(client, suite):
    bundle, token = suite
    thread = start(client, bundle.pk).json()
    revision, revision_token = revision_of(bundle)
    client.put(
        f"/api/bundles/{bundle.pk}/review-lock",
        {"locked": True},
        content_type="application/json",
        HTTP_X_MANAGE_TOKEN=token,
    )
    through = reply(client, revision.pk, thread["id"])
    assert through.status_code == 403 and "locked" in through.json()["detail"]
    reopen = resolve(client, revision.pk, thread["id"], HTTP_X_AUTHOR_KEY=ALICE)
    assert reopen.status_code == 403
    assert Comment.objects.filter(thread_id=thread["id"]).count() == 1


def test_a_revisions_manage_token_does_not_moderate_its_parents_threads(client, suite):
    bundle, _ = suite
    thread = start(client, bundle.pk).json()
    revision, revision_token = revision_of(bundle)
    assert resolve(client, revision.pk, thread["id"], HTTP_X_MANAGE_TOKEN=revision_token).status_code == 403
    comment_id = thread["comments"][0]["id"]
    deleted = client.delete(
        f"/api/bundles/{revision.pk}/comments/{comment_id}", HTTP_X_MANAGE_TOKEN=revision_token
    )
    assert deleted.status_code == 403 and Comment.objects.filter(pk=comment_id).exists()
    locked = client.put(
        f"/api/bundles/{bundle.pk}/review-lock",
        {"locked": True},
        content_type="application/json",
        HTTP_X_MANAGE_TOKEN=revision_token,
    )
    assert locked.status_code == 403


def test_the_comment_cap_counts_the_whole_family_of_revisions(client, suite):
    bundle, _ = suite
    with override_settings(COMMENTS_PER_BUNDLE=3):
        thread = start(client, bundle.pk).json()
        revision, _ = revision_of(bundle)
        second, _ = revision_of(revision)
        assert reply(client, revision.pk, thread["id"]).status_code == 201
        assert start(client, second.pk).status_code == 201
        for target, attempt in ((bundle.pk, reply), (revision.pk, reply), (second.pk, reply)):
            full = attempt(client, target, thread["id"])
            assert full.status_code == 409 and "revisions" in full.json()["detail"]
        assert start(client, revision.pk).status_code == 409
    assert Comment.objects.count() == 3


# ---------------------------------------------------------------------------------------------
# Writes from another site


def _writes(bundle_id, thread_id, comment_id):
    """Every write the API has, as (method, path, JSON body)."""
    return [
        ("post", "/api/bundles", {"files": {"a.yaml": "tests: []\n"}}),
        ("delete", f"/api/bundles/{bundle_id}", None),
        ("post", f"/api/bundles/{bundle_id}/threads", {"anchor": ANCHOR, "body": "x"}),
        ("post", f"/api/bundles/{bundle_id}/threads/{thread_id}/comments", {"body": "x"}),
        ("post", f"/api/bundles/{bundle_id}/threads/{thread_id}/resolve", {"resolved": True}),
        ("patch", f"/api/bundles/{bundle_id}/comments/{comment_id}", {"body": "x"}),
        ("delete", f"/api/bundles/{bundle_id}/comments/{comment_id}", None),
        ("put", f"/api/bundles/{bundle_id}/review-lock", {"locked": True}),
        ("put", f"/api/bundles/{bundle_id}/verdicts", {"document": DOC, "case_id": "first", "verdict": "ok"}),
        ("post", "/api/runs", {"run": "a run stored as a bundle"}),
    ]


def test_every_write_endpoint_that_stores_is_tried_here():
    from inspector.api import api

    schema = api.get_openapi_schema()
    writes = {
        (method, path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("post", "put", "patch", "delete")
    }
    # POST /api/render and /api/runs/check compute and store nothing; every other write is tried by
    # the tests below.
    tried = {
        (
            method,
            path.replace("B", "{bundle_id}")
            .replace("/1/", "/{thread_id}/")
            .replace("comments/1", "comments/{comment_id}"),
        )
        for method, path, _ in _writes("B", 1, 1)
    }
    assert writes - {("post", "/api/render"), ("post", "/api/runs/check")} == tried


@pytest.mark.parametrize("origin", ["http://testserver:8081", "https://evil.example", "null"])
def test_every_write_from_another_origin_is_refused_before_it_acts(client, suite, origin):
    bundle, token = suite
    thread = start(client, bundle.pk).json()
    for method, path, body in _writes(bundle.pk, thread["id"], thread["comments"][0]["id"]):
        extra = {"content_type": "application/json"} if body is not None else {}
        answer = getattr(client, method)(
            path, body, HTTP_ORIGIN=origin, HTTP_X_AUTHOR_KEY=ALICE, HTTP_X_MANAGE_TOKEN=token, **extra
        )
        assert answer.status_code == 403, (method, path)
        assert "another site" in answer.json()["detail"]
    assert Comment.objects.count() == 1 and not Thread.objects.get().resolved
    assert type(bundle).objects.filter(pk=bundle.pk, comments_locked=False).exists()


def test_a_cross_site_fetch_without_origin_is_refused_by_its_fetch_metadata(client, suite):
    bundle, _ = suite
    answer = start(client, bundle.pk, HTTP_SEC_FETCH_SITE="cross-site")
    assert answer.status_code == 403 and not Thread.objects.exists()


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_review_write_whose_body_is_not_json_is_refused(client, suite, content_type):
    bundle, _ = suite
    thread = start(client, bundle.pk).json()
    body = '{"body": "as the victim"}'
    answer = client.post(
        f"/api/bundles/{bundle.pk}/threads/{thread['id']}/comments",
        body,
        content_type=content_type,
        HTTP_X_AUTHOR_KEY=ALICE,
    )
    assert answer.status_code == 415 and "application/json" in answer.json()["detail"]
    multipart = client.post(
        f"/api/bundles/{bundle.pk}/threads/{thread['id']}/comments",
        {"body": "as the victim"},
        HTTP_X_AUTHOR_KEY=ALICE,
    )  # multipart
    assert multipart.status_code == 415
    chunked = client.post(
        f"/api/bundles/{bundle.pk}/threads/{thread['id']}/comments",
        "",
        content_type=content_type,
        HTTP_TRANSFER_ENCODING="chunked",
        HTTP_X_AUTHOR_KEY=ALICE,
    )
    assert chunked.status_code == 415
    assert Comment.objects.count() == 1


def test_a_multipart_upload_from_another_site_is_refused_and_from_a_script_stored(client, db):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from inspector.models import Bundle

    upload = {"files": SimpleUploadedFile("x.yaml", b"tests:\n  - id: a\n    input: hi\n")}
    assert client.post("/api/bundles", upload, HTTP_ORIGIN="https://evil.example").status_code == 403
    assert not Bundle.objects.exists()
    upload["files"].seek(0)
    assert client.post("/api/bundles", upload).status_code == 201  # curl -F sends no Origin


def test_this_sites_pages_and_trusted_origins_may_write(client, suite):
    bundle, _ = suite
    assert start(client, bundle.pk, HTTP_ORIGIN="http://testserver").status_code == 201
    with override_settings(CSRF_TRUSTED_ORIGINS=["https://*.example.com", "https://tools.test"]):
        assert start(client, bundle.pk, HTTP_ORIGIN="https://review.example.com").status_code == 201
        assert start(client, bundle.pk, HTTP_ORIGIN="https://tools.test").status_code == 201
        assert start(client, bundle.pk, HTTP_ORIGIN="http://review.example.com").status_code == 403
        assert start(client, bundle.pk, HTTP_ORIGIN="https://example.com.evil.test").status_code == 403


# ---------------------------------------------------------------------------------------------
# Markdown rendered once


HOSTILE = ("[*" * 5_000)[:10_000]


def test_a_comment_is_rendered_once_when_written_and_never_on_a_view(client, suite, monkeypatch):
    bundle, token = suite
    thread = start(client, bundle.pk, body=HOSTILE).json()
    stored = Comment.objects.get()
    assert stored.html and thread["comments"][0]["html"] == stored.html

    def refuse(text):
        raise AssertionError("a view rendered Markdown")

    monkeypatch.setattr(markdown, "render_markdown", refuse)
    monkeypatch.setattr(service, "render_markdown", refuse)
    listed = client.get(f"/api/bundles/{bundle.pk}/threads").json()
    assert listed[0]["comments"][0]["html"] == stored.html
    assert (
        client.get(f"/api/bundles/{bundle.pk}/threads", {"document": DOC, "case_id": "first"}).status_code
        == 200
    )
    page = client.get(f"/b/{bundle.pk}/review/panel/", {"document": DOC, "case_id": "first"})
    assert page.status_code == 200
    manage = client.post(f"/b/{bundle.pk}/manage/", {"token": token})
    assert manage.status_code == 200 and f"moderate-{stored.pk}" in manage.content.decode()
    assert client.get(f"/b/{bundle.pk}/offline.html").status_code == 200


def test_the_cap_is_checked_before_anything_renders(client, suite, monkeypatch):
    bundle, _ = suite
    rendered = []
    real = service.render_markdown
    monkeypatch.setattr(service, "render_markdown", lambda text: rendered.append(text) or real(text))
    with override_settings(COMMENT_MAX_CHARS=100):
        assert start(client, bundle.pk, body="[*" * 51).status_code == 413
        assert start(client, bundle.pk, body="x" * 10_000_000).status_code == 413
    assert rendered == [] and not Comment.objects.exists()


def test_an_edit_renders_the_new_body_once(client, suite):
    bundle, _ = suite
    thread = start(client, bundle.pk, body="plain").json()
    comment_id = thread["comments"][0]["id"]
    edited = client.patch(
        f"/api/bundles/{bundle.pk}/comments/{comment_id}",
        {"body": "**now bold**"},
        content_type="application/json",
        HTTP_X_AUTHOR_KEY=ALICE,
    )
    assert "<strong>now bold</strong>" in edited.json()["html"]
    assert "<strong>now bold</strong>" in Comment.objects.get().html


def test_the_migration_backfills_the_html_author_and_family_of_existing_rows(suite):
    from importlib import import_module

    from django.apps import apps

    bundle, _ = suite
    revision, _ = revision_of(bundle)
    thread = Thread.objects.create(
        bundle=revision,
        kind="line",
        path="evals/suite.yaml",
        start_line=1,
        end_line=1,
        quote="x",
        quote_hash="h",
    )
    Comment.objects.create(thread=thread, author="Old", body="**old**", author_key_hash="k" * 64)
    import_module("inspector.migrations.0004_review_authority").backfill(apps, None)
    thread.refresh_from_db()
    assert thread.author_key_hash == "k" * 64 and thread.family == bundle.pk
    assert Comment.objects.get().html == "<p><strong>old</strong></p>\n"


def test_a_raised_length_cap_still_bounds_the_markup_markdown_it_must_pair(client, suite, monkeypatch):
    bundle, _ = suite
    rendered = []
    real = service.render_markdown
    monkeypatch.setattr(service, "render_markdown", lambda text: rendered.append(text) or real(text))
    with override_settings(COMMENT_MAX_CHARS=40_000):
        refused = start(client, bundle.pk, body="[*" * 20_000)
        assert refused.status_code == 413 and "at most 10,000 are allowed" in refused.json()["detail"]
        assert rendered == []
        assert start(client, bundle.pk, body="plain words " * 3_000).status_code == 201
