"""Uploads racing deletes of bundles that share their blobs: never an error, never a lost blob
(run on SQLite and, by .ci/run, on PostgreSQL)."""

import threading

import pytest
from django.db import connection

from inspector.bundles.ingest import delete_bundle, store_bundle
from inspector.models import Blob, Bundle, BundleFile

SHARED = b"shared text every bundle holds\n"


def in_thread(function, errors):
    def run():
        try:
            function()
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    return threading.Thread(target=run)


@pytest.mark.django_db(transaction=True)
def test_uploads_racing_deletes_of_bundles_sharing_a_blob_never_fail_or_lose_it():
    errors: list[Exception] = []
    stored: list[Bundle] = []
    for round_number in range(12):
        doomed, _ = store_bundle({"notes.txt": SHARED, "own.txt": f"{round_number}".encode()})
        fresh = f"new blob of round {round_number}\n".encode()
        threads = [
            in_thread(lambda doomed=doomed: delete_bundle(doomed), errors),
            *(
                in_thread(
                    lambda name=name, fresh=fresh: stored.append(
                        store_bundle({name: SHARED, "fresh.txt": fresh})[0]
                    ),
                    errors,
                )
                for name in ("notes.txt", "copy.txt")
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert [repr(error.__context__ or error) for error in errors] == []
    for bundle in stored:
        files = Bundle.objects.get(pk=bundle.pk).file_map()
        assert SHARED in files.values()
    # Every file still has its blob, and no blob is left without a file.
    used = set(BundleFile.objects.values_list("blob_id", flat=True))
    assert used == set(Blob.objects.values_list("sha256", flat=True))
