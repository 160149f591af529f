"""Who may do what, tried through the pages: each browser is its key cookie; another browser cannot
change a verdict or a thread's state, its name shows with its key's fingerprint, a revision cannot
reply into a locked original's threads, the cap counts the family, pages keep Django's CSRF, and
the owner's manage page lists hostile comments at no rendering cost."""

import pytest
from django.test import Client, override_settings

from inspector.bundles.ingest import store_bundle
from inspector.review import service
from inspector.review.models import Comment, Thread, Verdict, WriteCount
from tests.api.test_review import FILES

DOC = "evals/suite.yaml"


@pytest.fixture(autouse=True)
def _no_rate_carry_over(db):
    WriteCount.objects.all().delete()


@pytest.fixture
def suite(db):
    return store_bundle(FILES, title="suite")


def post(client, bundle_id, **fields):
    return client.post(f"/b/{bundle_id}/review/", {"document": DOC, "case_id": "first", **fields})


def panel(client, bundle_id):
    return client.get(
        f"/b/{bundle_id}/review/panel/", {"document": DOC, "case_id": "first"}, HTTP_HX_REQUEST="true"
    ).content.decode()


def browser(key):
    client = Client()
    client.cookies[service.KEY_COOKIE] = key
    return client


ALICE, MALLORY = browser("a" * 32), browser("m" * 32)


def test_another_browser_cannot_overwrite_or_clear_a_verdict(suite):
    bundle, _ = suite
    assert post(ALICE, bundle.pk, action="verdict", verdict="ok", author="Alice").status_code == 302
    assert post(MALLORY, bundle.pk, action="verdict", verdict="changes", author="Alice").status_code == 403
    assert post(MALLORY, bundle.pk, action="verdict", verdict="").status_code == 403
    assert Verdict.objects.get().verdict == "ok"
    theirs = panel(MALLORY, bundle.pk)
    assert 'id="save-verdict" disabled' in theirs and "only they can change it" in theirs
    assert 'id="save-verdict" disabled' not in panel(ALICE, bundle.pk)
    assert post(ALICE, bundle.pk, action="verdict", verdict="").status_code == 302
    assert not Verdict.objects.exists()


def test_another_browser_cannot_resolve_or_reopen_a_thread_and_is_not_offered_to(suite):
    bundle, _ = suite
    post(ALICE, bundle.pk, action="thread", target="0", body="Question")
    thread = Thread.objects.get()
    assert post(MALLORY, bundle.pk, action="resolve", thread=str(thread.pk)).status_code == 403
    thread.refresh_from_db()
    assert not thread.resolved
    assert 'class="link-button resolve"' not in panel(MALLORY, bundle.pk)
    assert 'class="link-button resolve"' in panel(ALICE, bundle.pk)
    assert post(ALICE, bundle.pk, action="resolve", thread=str(thread.pk)).status_code == 302
    assert post(MALLORY, bundle.pk, action="reopen", thread=str(thread.pk)).status_code == 403
    thread.refresh_from_db()
    assert thread.resolved


def test_the_same_name_from_two_browsers_shows_two_fingerprints(suite):
    bundle, _ = suite
    post(ALICE, bundle.pk, action="thread", target="0", body="Real", author="Alice")
    post(MALLORY, bundle.pk, action="reply", thread=str(Thread.objects.get().pk), body="Fake", author="Alice")
    page = panel(Client(), bundle.pk)
    real, fake = (service.fingerprint(c.author_key_hash) for c in Comment.objects.order_by("id"))
    assert real != fake and f"#{real}" in page and f"#{fake}" in page


def test_a_revision_cannot_reply_into_a_locked_originals_threads_from_the_page(suite):
    bundle, token = suite
    post(ALICE, bundle.pk, action="thread", target="0", body="On the original")
    thread = Thread.objects.get()
    revision, _ = store_bundle(FILES, title="revision", parent=bundle)
    ALICE.post(f"/b/{bundle.pk}/manage/", {"token": token, "action": "lock-comments"})
    refused = post(MALLORY, revision.pk, action="reply", thread=str(thread.pk), body="Around the lock")
    assert refused.status_code == 403 and Comment.objects.count() == 1
    assert post(ALICE, revision.pk, action="reopen", thread=str(thread.pk)).status_code == 403


def test_the_cap_counts_the_family_from_the_page(suite):
    bundle, _ = suite
    revision, _ = store_bundle(FILES, title="revision", parent=bundle)
    with override_settings(COMMENTS_PER_BUNDLE=2):
        post(ALICE, bundle.pk, action="thread", target="0", body="One")
        post(ALICE, revision.pk, action="thread", target="0", body="Two")
        assert post(ALICE, revision.pk, action="thread", target="1", body="Three").status_code == 409
        assert (
            post(
                ALICE, bundle.pk, action="reply", thread=str(Thread.objects.first().pk), body="Three"
            ).status_code
            == 409
        )
    assert Comment.objects.count() == 2


def test_the_review_form_keeps_djangos_csrf_check(suite):
    bundle, _ = suite
    forger = Client(enforce_csrf_checks=True)
    forger.cookies[service.KEY_COOKIE] = "a" * 32
    answer = forger.post(
        f"/b/{bundle.pk}/review/",
        {"document": DOC, "case_id": "first", "action": "thread", "target": "0", "body": "forged"},
    )
    assert answer.status_code == 403 and not Comment.objects.exists()


def test_the_manage_page_lists_hostile_comments_without_rendering_them(suite, monkeypatch):
    bundle, token = suite
    hostile = ("[*" * 5_000)[:10_000]
    for _ in range(5):
        post(ALICE, bundle.pk, action="thread", target="0", body=hostile)
    monkeypatch.setattr(service, "render_markdown", lambda text: pytest.fail("a view rendered Markdown"))
    page = ALICE.post(f"/b/{bundle.pk}/manage/", {"token": token}).content.decode()
    assert all(f'id="moderate-{c.pk}"' in page for c in Comment.objects.all())
    assert panel(ALICE, bundle.pk).count('class="comment"') == 5
    first = Comment.objects.first()
    ALICE.post(f"/b/{bundle.pk}/manage/", {"token": token, "action": "delete-comment", "comment": first.pk})
    assert Comment.objects.count() == 4


def test_the_example_bundles_are_moderated_with_the_token_load_examples_prints(db, monkeypatch):
    import io

    from django.core.management import call_command

    from inspector.bundles.examples import example_manage_token, load_examples
    from inspector.models import Bundle

    printed = io.StringIO()
    call_command("load_examples", stdout=printed)
    examples = list(Bundle.objects.exclude(example=""))
    assert examples
    for bundle in examples:
        token = example_manage_token(bundle.pk)
        assert bundle.check_manage_token(token) and f"/b/{bundle.pk}/manage/#{token}" in printed.getvalue()
    first = examples[0]
    page = Client().post(
        f"/b/{first.pk}/manage/", {"token": example_manage_token(first.pk), "action": "lock-comments"}
    )
    assert page.status_code == 200 and Bundle.objects.get(pk=first.pk).comments_locked
    monkeypatch.setenv("EXAMPLES_MANAGE_TOKEN", "operator-chosen-token-0123")
    load_examples()
    unlocked = Client().put(
        f"/api/bundles/{first.pk}/review-lock",
        {"locked": False},
        content_type="application/json",
        HTTP_X_MANAGE_TOKEN="operator-chosen-token-0123",
    )
    assert unlocked.status_code == 200 and not Bundle.objects.get(pk=first.pk).comments_locked


def test_a_hostile_body_over_the_caps_is_refused_from_the_page_before_rendering(suite, monkeypatch):
    bundle, _ = suite
    monkeypatch.setattr(service, "render_markdown", lambda text: pytest.fail("rendered a refused body"))
    with override_settings(COMMENT_MAX_CHARS=40_000):
        assert post(ALICE, bundle.pk, action="thread", target="0", body="[*" * 20_000).status_code == 413
    assert post(ALICE, bundle.pk, action="thread", target="0", body="x" * 10_001).status_code == 413
    assert not Comment.objects.exists()
