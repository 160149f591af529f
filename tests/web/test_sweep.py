"""`manage.py sweep`: objects in the blob storage that no bundle references (a killed upload's, a
failed delete's, a queued upload's staged files no worker finished) go once past the grace period,
in a folder and in an S3 bucket (moto's server), and nothing a bundle reads is ever removed."""

import hashlib
from datetime import timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from inspector.bundles import blobstore
from inspector.bundles.ingest import store_bundle
from inspector.bundles.sweep import sweep
from inspector.models import Blob, Bundle, TaskLease
from inspector.settings import storage_from_url

KEPT = b"tests:\n  - id: kept\n"
ORPHAN = b"tests:\n  - id: left by a killed upload\n"
STAGED = "staged/0123456789abcdef.json"
FOREIGN = "blobs/README.txt"  # not of blobstore's shape: not the sweep's to remove


def name_of(data: bytes) -> str:
    return blobstore.object_name(hashlib.sha256(data).hexdigest())


@pytest.fixture(params=["folder", "s3"])
def storage_kind(request, tmp_path, settings):
    if request.param == "s3":
        request.getfixturevalue("s3_blobs")
    else:
        settings.STORAGES = {**settings.STORAGES, "blobs": storage_from_url(tmp_path.as_uri())}
    return request.param


def leave(name: str, data: bytes) -> None:
    blobstore.storage().save(name, ContentFile(data))


def present(name: str) -> bool:
    return blobstore.storage().exists(name)


@pytest.mark.django_db
def test_only_what_no_bundle_references_goes_and_only_past_the_grace(storage_kind):
    bundle, _ = store_bundle({"evals/kept.yaml": KEPT})
    for name, data in ((name_of(ORPHAN), ORPHAN), (STAGED, b"{}"), (FOREIGN, b"mine")):
        leave(name, data)

    assert sweep(timedelta(hours=1)) == sweep(timedelta(hours=1), dry_run=True)
    assert sweep(timedelta(hours=1)).contents == [] and all(map(present, (name_of(ORPHAN), STAGED)))
    listed = sweep(timedelta(0), dry_run=True)
    assert (listed.contents, listed.staged) == ([name_of(ORPHAN)], [STAGED])
    assert present(name_of(ORPHAN)) and present(STAGED)

    swept = sweep(timedelta(0))
    assert (swept.contents, swept.staged) == ([name_of(ORPHAN)], [STAGED])
    assert not present(name_of(ORPHAN)) and not present(STAGED)
    assert present(name_of(KEPT)) and present(FOREIGN)
    assert Bundle.objects.get(pk=bundle.pk).file_map() == {"evals/kept.yaml": KEPT}
    assert Blob.objects.count() == 1  # the sweep's claims are gone with their objects


@pytest.mark.django_db
def test_a_row_standing_when_the_sweep_claims_its_content_keeps_the_object(storage_kind):
    # The listing saw no row (an upload had not committed yet); the claim finds the row and leaves
    # the object, which the bundle reads.
    bundle, _ = store_bundle({"evals/raced.yaml": ORPHAN})
    with mock.patch.object(Blob.objects, "filter", return_value=Blob.objects.none()):
        assert sweep(timedelta(0)).contents == []
    assert present(name_of(ORPHAN))
    assert Bundle.objects.get(pk=bundle.pk).file_map() == {"evals/raced.yaml": ORPHAN}


@pytest.mark.django_db
def test_the_command_says_what_it_removed(storage_kind):
    leave(name_of(ORPHAN), ORPHAN)
    out = StringIO()
    call_command("sweep", "--grace-hours", "0", "--dry-run", stdout=out)
    assert f"would remove {name_of(ORPHAN)}" in out.getvalue() and present(name_of(ORPHAN))
    out = StringIO()
    call_command("sweep", "--grace-hours", "0", stdout=out)
    assert "removed 1 unreferenced contents, 0 staged uploads and 0 leases" in out.getvalue()
    assert not present(name_of(ORPHAN))


@pytest.mark.django_db
def test_without_storage_there_is_nothing_to_sweep():
    assert blobstore.in_database()
    store_bundle({"evals/kept.yaml": KEPT})
    assert sweep(timedelta(0)) == sweep(timedelta(0), dry_run=True)
    assert sweep(timedelta(0)).contents == [] and sweep(timedelta(0)).staged == []


@pytest.mark.django_db
def test_a_killed_workers_lease_goes_once_past_the_grace():
    now = timezone.now()
    TaskLease.objects.create(task_id="killed", renewed_at=now - timedelta(hours=2))
    TaskLease.objects.create(task_id="running", renewed_at=now)
    assert sweep(timedelta(hours=1), dry_run=True).leases == 1 and TaskLease.objects.count() == 2
    assert sweep(timedelta(hours=1)).leases == 1
    assert list(TaskLease.objects.values_list("task_id", flat=True)) == ["running"]
