"""With QUEUE_OFFLINE_COPIES on, an offline copy not kept yet is made by the queue's worker while
its page polls; then the poll stops, and the file is answered from the render cache."""

import pytest
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from inspector.bundles.ingest import delete_bundle, store_bundle
from inspector.rendering import cache as render_cache
from tests.api.test_queued_uploads import run_worker

SUITE = b"tests:\n  - id: first\n    input: Kept for the train ride\n"


@pytest.fixture
def queued_copies():
    render_cache.clear()  # no copy kept by an earlier test
    with override_settings(QUEUE_OFFLINE_COPIES=True):
        yield


@pytest.mark.django_db(transaction=True)
def test_the_copy_is_made_by_the_worker_while_the_page_polls(client, queued_copies):
    bundle, _ = store_bundle({"evals/suite.yaml": SUITE}, title="trip")
    url = f"/b/{bundle.pk}/offline.html"
    waiting = client.get(url)
    assert waiting.status_code == 200 and "Content-Disposition" not in waiting
    assert 'hx-trigger="every 1s"' in waiting.content.decode()
    assert client.get(url, HTTP_HX_REQUEST="true").status_code == 200
    assert DBTaskResult.objects.count() == 1  # asked again while it waits: not queued twice
    run_worker()
    ready = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in ready and 'hx-trigger="load"' in ready and "every 1s" not in ready
    fetch = client.get(url + "?fetch=1", HTTP_HX_REQUEST="true")
    assert fetch["HX-Redirect"] == url
    copy = client.get(url)
    assert copy["Content-Disposition"] == 'attachment; filename="trip.html"'
    assert "Kept for the train ride" in copy.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_bundle_deleted_before_the_worker_comes_is_left_alone(client, queued_copies):
    bundle, _ = store_bundle({"evals/suite.yaml": SUITE}, title="gone")
    client.get(f"/b/{bundle.pk}/offline.html")
    delete_bundle(bundle)
    run_worker()
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"
    assert client.get(f"/b/{bundle.pk}/offline.html").status_code == 404
