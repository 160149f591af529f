"""Uploads past UPLOAD_QUEUE_BYTES are answered 202 and stored by the queue's worker (run here
for the tasks waiting, on each backend: the database's and django-rq's on a real redis-server), in
the object storage or not."""

import pytest
from django.test import override_settings

from inspector.models import Blob, Bundle
from tests import servers
from tests.conftest import run_database_worker as run_worker  # noqa: F401 - other tests' worker

SUITE = "tests:\n  - id: first\n    input: Queued?\n"


def upload(client, files, title="queued"):
    return client.post("/api/bundles", {"files": files, "title": title}, content_type="application/json")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["database", "bucket"])
def test_a_large_upload_is_queued_then_stored_and_its_token_deletes_it(client, where, request, queue_worker):
    if where == "bucket":
        endpoint, bucket = request.getfixturevalue("s3_blobs")
    with override_settings(UPLOAD_QUEUE_BYTES=20):
        answer = upload(client, {"evals/suite.yaml": SUITE})
    assert answer.status_code == 202, answer.content
    queued = answer.json()
    assert queued["status"] == "queued" and not Bundle.objects.exists()
    status_path = queued["status_url"].removeprefix("http://testserver")
    assert client.get(status_path).json() == {"status": "queued", "detail": "", "id": None, "url": None}
    if where == "bucket":
        assert any(key.startswith("staged/") for key in servers.bucket_keys(endpoint, bucket))
    queue_worker()
    done = client.get(status_path).json()
    assert done["status"] == "stored" and done["url"].endswith(f"/b/{done['id']}/")
    assert client.get(f"/b/{done['id']}/evals/suite.yaml/case/first/").status_code == 200
    if where == "bucket":  # the staged files are gone, the bundle's are in place
        assert not any(key.startswith("staged/") for key in servers.bucket_keys(endpoint, bucket))
        assert Blob.objects.filter(data__isnull=False).count() == 0
    deleted = client.delete(f"/api/bundles/{done['id']}", HTTP_X_MANAGE_TOKEN=queued["manage_token"])
    assert deleted.status_code == 204


@pytest.mark.django_db(transaction=True)
def test_a_queued_upload_that_crashes_the_parser_is_refused_with_the_reason(client, queue_worker):
    bomb = (
        "a: &a ["
        + ",".join(["x"] * 10)
        + "]\n"
        + "".join(
            f"{chr(98 + level)}: &{chr(98 + level)} [" + ",".join([f"*{chr(97 + level)}"] * 10) + "]\n"
            for level in range(9)
        )
    )
    with override_settings(UPLOAD_QUEUE_BYTES=20):
        queued = upload(client, {"evals/bomb.yaml": bomb}).json()
    queue_worker()
    refused = client.get(queued["status_url"].removeprefix("http://testserver")).json()
    assert refused["status"] == "refused" and refused["detail"] and refused["id"] is None
    assert not Bundle.objects.exists()


@pytest.mark.django_db
def test_small_uploads_and_unknown_ids_are_as_before(client, queue_worker):  # noqa: ARG001 - on each backend
    with override_settings(UPLOAD_QUEUE_BYTES=10_000):
        assert upload(client, {"evals/suite.yaml": SUITE}).status_code == 201
    assert upload(client, {"evals/suite.yaml": SUITE}).status_code == 201  # 0: never queued
    assert client.get("/api/uploads/not-an-id").status_code == 404
    assert client.get("/api/uploads/7d1f6c1e-5a8e-4c8e-9d53-0f1e2d3c4b5a").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_upload_page_sends_a_large_upload_to_its_progress_page_which_polls_until_stored(
    client, queue_worker
):
    with override_settings(UPLOAD_QUEUE_BYTES=20):
        sent = client.post("/", {"text": SUITE, "filename": "suite.yaml", "title": "queued"})
    assert sent.status_code == 303
    page_path, token = sent["Location"].split("#")
    assert page_path.startswith("/uploads/") and len(token) >= 32
    waiting = client.get(page_path)
    assert waiting.status_code == 200 and waiting["Cache-Control"] == "no-store"
    assert 'hx-trigger="every 1s"' in waiting.content.decode()
    queue_worker()
    polled = client.get(page_path, HTTP_HX_REQUEST="true").content.decode()
    bundle = Bundle.objects.get()
    assert "<html" not in polled and 'id="manage-unlock"' in polled
    assert f'action="/b/{bundle.pk}/manage/"' in polled and "hx-trigger" not in polled
    opened = client.post(f"/b/{bundle.pk}/manage/", {"token": token, "saved": "upload", "case": ""})
    assert opened.status_code == 200 and bundle.pk in opened.content.decode()
    assert client.get("/uploads/unknown/").status_code == 404
