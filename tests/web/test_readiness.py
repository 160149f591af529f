"""/readyz: ready only while the database, the shared cache and the file storage all answer."""

from django.test import override_settings

from tests import servers


def test_ready_when_everything_answers(client, db):
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.content == b"ready\n"
    assert "no-cache" in answer["Cache-Control"]


def test_ready_with_files_in_object_storage(client, db, s3_blobs):
    assert client.get("/readyz").status_code == 200


def test_not_ready_while_the_shared_cache_is_down(client, db):
    nobody = f"redis://127.0.0.1:{servers.free_port()}/0"
    caches = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "renders": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": nobody},
    }
    with override_settings(CACHES=caches):
        answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.content == b"not ready: shared cache\n"


def test_not_ready_while_the_file_storage_is_down(client, db, settings, s3_endpoint, caplog):
    from inspector.settings import storage_from_url

    nowhere = f"http://127.0.0.1:{servers.free_port()}"
    settings.STORAGES = {
        **settings.STORAGES,
        "blobs": storage_from_url(servers.s3_storage_url(nowhere, "missing")),
    }
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.content == b"not ready: file storage\n"
    assert "Could not connect to the endpoint URL" in caplog.text
