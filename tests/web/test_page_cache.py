"""Pages of a stored bundle are built once and answered from the shared cache with strong ETags;
what differs per visitor (the CSRF token) or changes after storing (revisions, deletion) is never
served stale. The upload's own render serves the first view of every case."""

import re

import pytest
from django.test import Client

from inspector.bundles import loading
from inspector.bundles.ingest import delete_bundle, store_bundle
from inspector.cases.addresses import case_url
from inspector.core import bounded
from inspector.rendering import document_views, stored_renders, web_policy

SUITE = b"tests:\n  - id: a\n    input: first question\n  - id: b\n    input: second question\n"


@pytest.fixture
def bundle(db):
    stored, _ = store_bundle({"evals/suite.yaml": SUITE}, title="suite")
    return stored


def test_a_repeat_visit_is_a_304_that_builds_nothing(client, bundle, monkeypatch):
    url = case_url(bundle.pk, "evals/suite.yaml", "a")
    first = client.get(url)
    etag = first["ETag"]
    assert first.status_code == 200 and etag.startswith('"') and "no-cache" in first["Cache-Control"]
    other_settings = client.get(url + "?profile=agentv-4")
    assert other_settings["ETag"] != etag
    monkeypatch.setattr(document_views, "case_index", lambda *a, **k: pytest.fail("rendered again"))
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again["ETag"] == etag
    fresh_visitor = Client().get(url)
    assert fresh_visitor.status_code == 200 and fresh_visitor["ETag"] == etag  # from the page cache


def test_the_cached_page_carries_each_visitors_own_csrf_token(bundle):
    url = case_url(bundle.pk, "evals/suite.yaml", "a")
    tokens = []
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True)
        page = visitor.get(url).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        assert "placeholder" not in token and "csrf-placeholder" not in page  # not one left
        tokens.append(token)
        saved = visitor.post(
            url + "revise/", {"text": SUITE.decode().replace("first", "1st"), "csrfmiddlewaretoken": token}
        )
        assert saved.status_code == 303, saved.content[:300]  # saved: the token works, not a 403
    assert tokens[0] != tokens[1]


def test_a_new_revision_shows_on_the_parents_page_at_once(client, bundle):
    url = f"/b/{bundle.pk}/"
    before = client.get(url)
    assert "Revisions:" not in before.content.decode()
    store_bundle({"evals/suite.yaml": SUITE.replace(b"first", b"1st")}, title="r", parent=bundle)
    after = client.get(url, headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200 and "Revisions:" in after.content.decode()


def test_a_deleted_bundles_page_is_gone_even_for_a_cached_etag(client, bundle):
    url = case_url(bundle.pk, "evals/suite.yaml", "a")
    etag = client.get(url)["ETag"]
    delete_bundle(bundle)
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 404


def test_a_busy_answer_is_not_kept(client, bundle, monkeypatch):
    real = stored_renders.render
    monkeypatch.setattr(
        stored_renders,
        "render",
        lambda *a, **k: (_ for _ in ()).throw(
            bounded.Busy("every render worker is busy", "evals/suite.yaml")
        ),
    )
    loading.clear_caches()
    assert "busy" in client.get(f"/b/{bundle.pk}/").content.decode()
    monkeypatch.setattr(stored_renders, "render", real)
    assert "first question" in client.get(f"/b/{bundle.pk}/").content.decode()


def test_the_first_view_of_any_case_uses_the_uploads_own_render(client, db, monkeypatch):
    stored, _ = store_bundle({"evals/suite.yaml": SUITE}, title="suite")
    monkeypatch.setattr(web_policy, "render_files", lambda *a, **k: pytest.fail("rendered again"))
    for case in ("a", "b"):
        response = client.get(case_url(stored.pk, "evals/suite.yaml", case))
        assert response.status_code == 200


def test_a_page_this_process_answered_is_answered_again_with_one_query_and_no_shared_cache_read(
    client, bundle, monkeypatch, django_assert_num_queries
):
    from inspector.rendering import cache as render_cache

    url = case_url(bundle.pk, "evals/suite.yaml", "b")
    first = client.get(url)
    monkeypatch.setattr(render_cache, "get", lambda name: pytest.fail("read the shared cache"))
    with django_assert_num_queries(1):  # the bundle, its revisions counted in the same query
        again = client.get(url)
    assert again.status_code == 200 and again["ETag"] == first["ETag"]
    assert "second question" in again.content.decode()


def test_a_bundle_loaded_for_a_page_has_the_values_the_orm_reads(bundle):
    """load_bundle reads the row with its revisions counted in the same query: every field must
    come out as a plain get gives it."""
    from inspector.models import Bundle

    Bundle.objects.filter(pk=bundle.pk).update(comments_locked=True)
    store_bundle({"evals/suite.yaml": SUITE.replace(b"first", b"1st")}, title="rev", parent=bundle)
    loaded = loading.load_bundle(bundle.pk)
    expected = Bundle.objects.get(pk=bundle.pk)
    for field in Bundle._meta.concrete_fields:
        got, wanted = getattr(loaded.record, field.attname), getattr(expected, field.attname)
        assert (got, type(got)) == (wanted, type(wanted)), field.name
    assert loaded.record.revision_count == 1 and loaded.record.comments_locked is True
    assert loaded.record._state.adding is False  # a saved row, as the ORM marks one
    assert loading.load_bundle("no-such-bundle") is None


def test_clearing_the_render_cache_clears_the_pages_this_process_kept(client, bundle, monkeypatch):
    from inspector.rendering import cache as render_cache

    url = case_url(bundle.pk, "evals/suite.yaml", "a")
    client.get(url)
    render_cache.clear()
    built = []
    original = document_views.case_index
    monkeypatch.setattr(document_views, "case_index", lambda *a, **k: built.append(1) or original(*a, **k))
    assert client.get(url).status_code == 200 and built


def test_a_page_built_on_a_miss_loads_its_bundle_once(client, bundle, monkeypatch):
    """The page cache loads the bundle for the key; the view it runs on a miss gets that load."""
    from inspector.models import Bundle

    loads = []
    real = Bundle.objects.raw
    monkeypatch.setattr(Bundle.objects, "raw", lambda *a, **k: loads.append(1) or real(*a, **k))
    assert client.get(case_url(bundle.pk, "evals/suite.yaml", "a")).status_code == 200
    assert loads == [1]
