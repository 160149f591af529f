"""Uploaded files' contents in S3-compatible object storage (STORAGE_URL), against moto's server:
the database keeps only each blob's hash and size, and no row ever names a missing object."""

import hashlib
import threading
from unittest import mock

import pytest
from django.db import connection
from django.test import override_settings

from inspector.bundles import blobstore
from inspector.bundles.ingest import delete_bundle, store_bundle
from inspector.models import Blob, Bundle, BundleFile
from inspector.settings import storage_from_url
from tests import servers

SHARED = b"description: shared\n"


def key_of(data: bytes) -> str:
    return blobstore.object_name(hashlib.sha256(data).hexdigest())


def stored_keys(s3_blobs) -> list[str]:
    return servers.bucket_keys(*s3_blobs)


def test_storage_url_chooses_where_contents_go(tmp_path):
    assert storage_from_url("") is None and storage_from_url("database://") is None
    s3 = storage_from_url("s3://evals?endpoint_url=http://minio:9000&region_name=eu-west-1")
    assert s3 is not None and s3["BACKEND"] == "storages.backends.s3.S3Storage"
    assert s3["OPTIONS"]["bucket_name"] == "evals"
    assert s3["OPTIONS"]["endpoint_url"] == "http://minio:9000"
    assert s3["OPTIONS"]["region_name"] == "eu-west-1"
    folder = storage_from_url(tmp_path.as_uri())
    assert folder is not None and folder["OPTIONS"]["location"] == str(tmp_path)
    with pytest.raises(ValueError, match="STORAGE_URL"):
        storage_from_url("ftp://somewhere/")


@pytest.mark.django_db
def test_without_storage_url_contents_stay_in_the_database():
    bundle, _ = store_bundle({"a.txt": SHARED})
    assert blobstore.in_database()
    assert bytes(Blob.objects.get().data) == SHARED
    assert bundle.file_map() == {"a.txt": SHARED}


@pytest.mark.django_db
def test_contents_go_to_the_bucket_and_the_database_keeps_only_metadata(s3_blobs):
    files = {"a.txt": SHARED, "b.txt": SHARED, "c.txt": b"other\n"}
    bundle, _ = store_bundle(files)
    assert Blob.objects.filter(data__isnull=False).count() == 0
    assert sorted(Blob.objects.values_list("size", flat=True)) == [6, len(SHARED)]
    assert stored_keys(s3_blobs) == sorted({key_of(SHARED), key_of(b"other\n")})
    assert Bundle.objects.get(pk=bundle.pk).file_map() == files


@pytest.mark.django_db
def test_a_delete_removes_only_the_objects_no_other_bundle_uses(s3_blobs):
    first, _ = store_bundle({"a.txt": SHARED, "own.txt": b"first's own\n"})
    second, _ = store_bundle({"copy.txt": SHARED})
    delete_bundle(first)
    assert stored_keys(s3_blobs) == [key_of(SHARED)]
    assert Bundle.objects.get(pk=second.pk).file_map() == {"copy.txt": SHARED}
    delete_bundle(second)
    assert stored_keys(s3_blobs) == [] and Blob.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_an_upload_failing_after_its_objects_are_written_leaves_no_row(s3_blobs):
    failing = mock.patch.object(BundleFile.objects, "bulk_create", side_effect=RuntimeError("killed"))
    with failing, pytest.raises(RuntimeError):
        store_bundle({"a.txt": SHARED})
    assert (Bundle.objects.count(), Blob.objects.count(), BundleFile.objects.count()) == (0, 0, 0)
    # What is left is an object no row names: never read, and the next upload of it writes it again.
    bundle, _ = store_bundle({"a.txt": SHARED})
    assert Bundle.objects.get(pk=bundle.pk).file_map() == {"a.txt": SHARED}


@pytest.mark.django_db
def test_an_upload_writes_again_an_object_a_failed_delete_removed(s3_blobs):
    store_bundle({"a.txt": SHARED})
    blobstore.remove([hashlib.sha256(SHARED).hexdigest()])  # as a delete that then rolled back
    again, _ = store_bundle({"b.txt": SHARED})
    assert stored_keys(s3_blobs) == [key_of(SHARED)]
    assert Bundle.objects.get(pk=again.pk).file_map() == {"b.txt": SHARED}


def _in_thread(function, errors):
    def run():
        try:
            function()
        except Exception as error:  # noqa: BLE001 - asserted below
            errors.append(error)
        finally:
            connection.close()

    return threading.Thread(target=run)


@pytest.mark.django_db(transaction=True)
def test_uploads_racing_deletes_never_leave_a_row_without_its_object(s3_blobs):
    errors: list[Exception] = []
    stored: list[Bundle] = []
    for round_number in range(6):
        doomed, _ = store_bundle({"notes.txt": SHARED, "own.txt": f"{round_number}".encode()})
        threads = [
            _in_thread(lambda doomed=doomed: delete_bundle(doomed), errors),
            *(
                _in_thread(lambda name=name: stored.append(store_bundle({name: SHARED})[0]), errors)
                for name in ("notes.txt", "copy.txt")
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert [repr(error) for error in errors] == []
    for bundle in stored:
        assert Bundle.objects.get(pk=bundle.pk).file_map()
    rows = {blobstore.object_name(sha) for sha in Blob.objects.values_list("sha256", flat=True)}
    assert rows == set(stored_keys(s3_blobs))


@pytest.mark.django_db
def test_contents_kept_in_the_database_before_a_bucket_was_set_are_still_read(s3_blobs, settings):
    in_database = {name: value for name, value in settings.STORAGES.items() if name != "blobs"}
    with override_settings(STORAGES=in_database):
        before, _ = store_bundle({"a.txt": SHARED, "b.txt": b"old\n"})
    assert Blob.objects.filter(data__isnull=True).count() == 0
    assert Bundle.objects.get(pk=before.pk).file_map() == {"a.txt": SHARED, "b.txt": b"old\n"}
    after, _ = store_bundle({"c.txt": SHARED, "d.txt": b"new\n"})
    assert Bundle.objects.get(pk=after.pk).file_map() == {"c.txt": SHARED, "d.txt": b"new\n"}
    delete_bundle(before)
    assert Bundle.objects.get(pk=after.pk).file_map() == {"c.txt": SHARED, "d.txt": b"new\n"}


@pytest.mark.django_db
def test_a_folder_can_hold_the_contents_too(tmp_path, settings):
    settings.STORAGES = {**settings.STORAGES, "blobs": storage_from_url(tmp_path.as_uri())}
    bundle, _ = store_bundle({"a.txt": SHARED})
    assert (tmp_path / key_of(SHARED)).read_bytes() == SHARED
    assert Bundle.objects.get(pk=bundle.pk).file_map() == {"a.txt": SHARED}
    delete_bundle(bundle)
    assert not (tmp_path / key_of(SHARED)).exists()


@pytest.mark.django_db
def test_a_storage_failing_to_remove_an_object_leaves_it_unused_and_the_delete_done(s3_blobs):
    bundle, _ = store_bundle({"a.txt": SHARED})
    with mock.patch.object(blobstore.storage().__class__, "delete", side_effect=OSError("down")):
        delete_bundle(bundle)
    assert (Bundle.objects.count(), Blob.objects.count()) == (0, 0)
    assert stored_keys(s3_blobs) == [key_of(SHARED)]  # unused: no row names it
