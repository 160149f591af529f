"""The write limit and the comment cap are exact when writers race: threads released at once
against SQLite here, PostgreSQL when DATABASE_URL names it (.ci/run), and the write limit against
a Redis render cache (the tests' own redis-server: tests/servers.py)."""

import threading

import pytest
from django.db import connection
from django.test import RequestFactory, override_settings

from inspector.bundles.ingest import store_bundle
from inspector.review import service
from inspector.review.models import Comment, Thread
from tests.api.test_review import FILES

WRITERS = 16


def race(action, writers=WRITERS) -> list[object]:
    """Runs action in `writers` threads released together; each one's result or exception."""
    results: list[object] = []
    start = threading.Barrier(writers)

    def run():
        try:
            start.wait(10)
            results.append(action())
        except Exception as error:  # noqa: BLE001 - collected and asserted by the caller
            results.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def refusals(results, status):
    return sum(isinstance(item, service.ReviewError) and item.status == status for item in results)


def unexpected(results):
    return [
        repr(item)
        for item in results
        if isinstance(item, Exception) and not isinstance(item, service.ReviewError)
    ]


def address_request(address):
    return RequestFactory().post("/", REMOTE_ADDR=address)


@pytest.mark.django_db(transaction=True)
def test_racing_writes_pass_the_limit_exactly_on_the_database_counter():
    request = address_request("198.51.100.7")
    with override_settings(REVIEW_WRITES_PER_MINUTE=5):
        results = race(lambda: service.check_rate(request))
    assert unexpected(results) == []
    assert results.count(None) == 5 and refusals(results, 429) == WRITERS - 5


@pytest.mark.django_db(transaction=True)
def test_racing_replies_fill_the_comment_cap_exactly():
    bundle, _ = store_bundle(FILES, title="suite")
    family = service.family_of(bundle)
    thread = Thread.objects.create(
        bundle=bundle,
        kind="line",
        path="evals/suite.yaml",
        start_line=1,
        end_line=1,
        quote="q",
        quote_hash="h",
        family=family,
    )
    person = service.Reviewer("Racer", "r" * 32, False)
    with override_settings(COMMENTS_PER_BUNDLE=5):
        results = race(lambda: service.reply(bundle, thread, "me too", person))
    assert unexpected(results) == []
    assert refusals(results, 409) == WRITERS - 5 and Comment.objects.count() == 5


@pytest.mark.django_db(transaction=True)
def test_racing_replies_through_revisions_fill_the_family_cap_exactly():
    original, _ = store_bundle(FILES, title="original")
    revisions = [store_bundle(FILES, title=f"revision {n}", parent=original)[0] for n in range(4)]
    thread = Thread.objects.create(
        bundle=original,
        kind="line",
        path="evals/suite.yaml",
        start_line=1,
        end_line=1,
        quote="q",
        quote_hash="h",
        family=original.pk,
    )
    person = service.Reviewer("Racer", "r" * 32, False)
    turn = iter(range(10_000))
    lock = threading.Lock()

    def through_a_revision():
        with lock:
            bundle = revisions[next(turn) % len(revisions)]
        return service.reply(bundle, thread, "around the cap", person)

    with override_settings(COMMENTS_PER_BUNDLE=6):
        results = race(through_a_revision)
    assert unexpected(results) == []
    assert Comment.objects.count() == 6


@pytest.fixture
def redis_cache(redis_url):
    """The tests' own redis-server (tests/servers.py), as the shared render cache."""
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "renders": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url},
    }
    with override_settings(CACHES=caches):
        yield


@pytest.mark.django_db(transaction=True)
def test_racing_writes_pass_the_limit_exactly_on_redis(redis_cache):
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    assert isinstance(service.rate_store(), RedisCache)
    request = address_request("198.51.100.8")
    with override_settings(REVIEW_WRITES_PER_MINUTE=5):
        results = race(lambda: service.check_rate(request))
    assert unexpected(results) == []
    assert results.count(None) == 5 and refusals(results, 429) == WRITERS - 5
    caches["renders"].clear()
