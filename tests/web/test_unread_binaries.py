"""An uploaded folder's binary files: an image a case sends stays (and is never offered in the
editor); a binary file no text file names is neither stored nor shared, and the upload's answer
(page and API) says which were left out and why."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from inspector.bundles.ingest import LEFT_OUT_REASON
from inspector.cases import addresses
from inspector.core.bundle import unread_binaries
from inspector.models import Bundle, BundleFile
from tests.core.test_media import png

from .test_upload import upload

EVAL = (
    b"evalcases:\n  - id: pic\n    outcome: describes it\n    input_messages:\n"
    b"      - role: user\n        content:\n          - type: text\n"
    b"            value: What is this?\n          - type: image\n"
    b"            value: ./cat.png\n"
)
DS_STORE = b"\x00\x00\x00\x01Bud1\x00\x00\x10\x00" + bytes(64)
FOLDER = [
    ("suite/evals/pic.yaml", EVAL),
    ("suite/evals/cat.png", png(64, 48)),
    ("suite/.DS_Store", DS_STORE),
    ("suite/build/cache.bin", b"\x7fELF\x02\x01\x01\x00" + bytes(32)),
    ("suite/README.md", b"Notes nobody reads.\n"),
]


def test_a_binary_file_counts_as_read_when_a_text_file_names_it():
    files = dict(FOLDER)
    assert unread_binaries(files) == ["suite/.DS_Store", "suite/build/cache.bin"]
    # Named as promptfoo names a file var, or in a markdown link, it is read.
    files["suite/promptfooconfig.yaml"] = b"tests:\n  - vars:\n      shot: file://build/cache.bin\n"
    files["suite/notes.md"] = b"See ![store](../.DS_Store)\n"
    assert unread_binaries(files) == []
    # A glob reads every file it matches (promptfoo makes a test of each).
    shots = {"shots/a.png": png(2, 2), "shots/b.png": png(2, 2), "shots/c.gif": b"GIF89a\x00\x00"}
    config = {"promptfooconfig.yaml": b"tests:\n  - vars:\n      image: file://shots/*.png\n"}
    assert unread_binaries({**config, **shots}) == ["shots/c.gif"]
    # A text file gone wrong (UTF-16 without a BOM) is not dropped: its page says why it fails.
    assert unread_binaries({"e.yaml": "id: x".encode("utf-16-le")}) == []


def _open_manage_page(client, manage_url: str):
    """What manage_unlock.html's script posts: the query's fields (lists whole) and the token."""
    parts = urlsplit(manage_url)
    return client.post(parts.path, {**parse_qs(parts.query), "token": parts.fragment})


def test_the_upload_page_stores_the_image_a_case_sends_and_names_what_it_left_out(client, db):
    response = upload(client, folder=FOLDER)
    assert response.status_code == 200
    unlock = response.content.decode()
    assert 'name="left_out" value="suite/.DS_Store"' in unlock
    page = _open_manage_page(client, response.redirect_chain[0][0]).content.decode()
    assert 'id="left-out"' in page
    assert "Left out 2 files (" + LEFT_OUT_REASON in page
    assert "<code>suite/.DS_Store</code>" in page and "<code>suite/build/cache.bin</code>" in page
    bundle = Bundle.objects.get()
    assert sorted(BundleFile.objects.values_list("path", flat=True)) == [
        "suite/README.md",
        "suite/evals/cat.png",
        "suite/evals/pic.yaml",
    ]
    # Nothing left out is shared: its source page does not exist.
    assert client.get(addresses.source_url(bundle.pk, "suite/.DS_Store")).status_code == 404
    # The image still goes out with the case, and is no file the editor opens.
    case = addresses.case_url(bundle.pk, "suite/evals/pic.yaml", "pic")
    assert 'src="data:image/png;base64,' in client.get(case).content.decode()
    assert client.get(case + "editor/?file=suite/evals/cat.png").status_code == 404


def test_an_upload_with_nothing_left_out_says_nothing_of_it(client, db):
    response = upload(client, folder=FOLDER[:2])
    page = _open_manage_page(client, response.redirect_chain[0][0]).content.decode()
    assert "Upload saved" in page and 'id="left-out"' not in page


def test_an_upload_of_only_unread_binary_files_is_refused_and_says_why(client, db):
    response = upload(client, folder=FOLDER[2:4])
    assert response.status_code == 400
    assert "only binary files, which nothing reads" in response.content.decode()
    assert Bundle.objects.count() == 0


def test_the_api_answer_names_what_it_left_out(client, db):
    paths = [path for path, _ in FOLDER]
    parts = [SimpleUploadedFile(path.rsplit("/", 1)[-1], data) for path, data in FOLDER]
    response = client.post("/api/bundles", {"files": parts, "paths": paths})
    assert response.status_code == 201
    answer = response.json()
    assert answer["left_out"] == {
        "paths": ["suite/.DS_Store", "suite/build/cache.bin"],
        "reason": LEFT_OUT_REASON,
    }
    stored = set(BundleFile.objects.values_list("path", flat=True))
    assert "suite/evals/cat.png" in stored and "suite/.DS_Store" not in stored
    plain = client.post(
        "/api/bundles", {"files": {"e.yaml": EVAL.decode()}}, content_type="application/json"
    ).json()
    assert plain["left_out"] is None


@pytest.mark.django_db(transaction=True)
def test_a_queued_upload_carries_what_it_left_out_to_the_manage_page(client):
    from tests.api.test_queued_uploads import run_worker

    with override_settings(UPLOAD_QUEUE_BYTES=20):
        response = client.post(
            "/",
            {
                "folder": [SimpleUploadedFile(path.rsplit("/", 1)[-1], data) for path, data in FOLDER],
                "relative_paths": "\n".join(path for path, _ in FOLDER),
            },
        )
    assert response.status_code == 303
    progress = response["Location"]
    assert "left_out=suite%2F.DS_Store" in progress
    run_worker()
    path, token = progress.split("#")
    stored = client.get(path).content.decode()
    assert 'name="left_out" value="suite/build/cache.bin"' in stored
    bundle = Bundle.objects.get()
    fields = {
        "saved": "upload",
        "left_out": ["suite/.DS_Store", "suite/build/cache.bin"],
        "left_out_count": "2",
        "token": token,
    }
    page = client.post(f"/b/{bundle.pk}/manage/", fields).content.decode()
    assert "Left out 2 files" in page
    assert "suite/.DS_Store" not in BundleFile.objects.values_list("path", flat=True)
