"""Names that look like another name of the same upload are refused, with both names in the
message: the same letters in another Unicode form (NFC and NFD), in another letter case, or with an
invisible character (zero-width, or a bidi control that reorders what follows). Through the API,
as JSON and multipart (and a zip), and the upload page."""

import io
import unicodedata
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from inspector.bundles.ingest import UploadError, collect_files
from inspector.models import Bundle

TEXT = "tests:\n  - id: a\n    input: hi\n"
CAFE_NFC = unicodedata.normalize("NFC", "evals/café.yaml")
CAFE_NFD = unicodedata.normalize("NFD", "evals/café.yaml")

# The two paths uploaded, and the two names the refusal gives (a folder's twins are the folders).
TWINS = {
    "nfc-nfd": ((CAFE_NFC, CAFE_NFD), ("evals/caf\\xe9.yaml", "evals/cafe\\u0301.yaml")),
    "nfd-then-nfc": ((CAFE_NFD, CAFE_NFC), ("evals/cafe\\u0301.yaml", "evals/caf\\xe9.yaml")),
    "case": (("evals/X.yaml", "evals/x.yaml"), ("evals/X.yaml", "evals/x.yaml")),
    "folder-case": (("Evals/a.yaml", "evals/b.yaml"), ("Evals", "evals")),
}
HIDDEN = {
    "zero-width-space": "evals/a\u200b.yaml",
    "zero-width-joiner": "evals/\u200da.yaml",
    "word-joiner": "evals/a\u2060.yaml",
    "bom": "\ufeffevals/a.yaml",
    "right-to-left-override": "evals/gpj\u202e.yaml",
    "right-to-left-isolate": "evals/\u2067a.yaml",
    "right-to-left-mark": "evals/a\u200f.yaml",
}


@pytest.mark.parametrize("kind", sorted(TWINS))
def test_look_alike_twins_are_refused_naming_both(client, db, kind):
    (first, second), (first_shown, second_shown) = TWINS[kind]
    answer = client.post(
        "/api/bundles", {"files": {first: TEXT, second: TEXT}}, content_type="application/json"
    )
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"].startswith(f"{first_shown} and {second_shown} look alike ")
    assert not Bundle.objects.exists()


def test_twins_in_a_multipart_upload_and_inside_a_zip_are_refused(client, db):
    parts = [SimpleUploadedFile("a.yaml", TEXT.encode()), SimpleUploadedFile("a.yaml", TEXT.encode())]
    answer = client.post("/api/bundles", {"files": parts, "paths": ["evals/Readme.md", "evals/README.md"]})
    assert (
        answer.status_code == 400
        and "evals/Readme.md and evals/README.md look alike" in answer.json()["detail"]
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(CAFE_NFD, TEXT)
        archive.writestr(CAFE_NFC, TEXT)
    zipped = client.post("/api/bundles", {"files": SimpleUploadedFile("suite.zip", buffer.getvalue())})
    assert zipped.status_code == 400 and "look alike" in zipped.json()["detail"]
    assert not Bundle.objects.exists()


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_a_name_with_an_invisible_character_is_refused(client, db, kind):
    name = HIDDEN[kind]
    answer = client.post("/api/bundles", {"files": {name: TEXT}}, content_type="application/json")
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert "invisible character" in body["detail"]
    hidden = next(char for char in name if not char.isascii())
    assert f"U+{ord(hidden):04X}" in body["detail"]
    assert body["file"] == name.encode("ascii", "backslashreplace").decode()
    assert not Bundle.objects.exists()


def test_the_upload_page_refuses_look_alikes_too(client, db):
    files = [SimpleUploadedFile("X.yaml", TEXT.encode()), SimpleUploadedFile("x.yaml", TEXT.encode())]
    answer = client.post("/", {"files": files})
    assert answer.status_code == 400 and "X.yaml and x.yaml look alike" in answer.content.decode()
    assert not Bundle.objects.exists()


def test_an_nfd_name_is_stored_in_nfc_and_distinct_names_stay_as_they_are():
    files = collect_files(
        [(CAFE_NFD, b"a"), ("evals/cafe.yaml", b"b"), ("evals/X1.yaml", b"c"), ("evals/x2.yaml", b"d")]
    )
    assert list(files) == [CAFE_NFC, "evals/cafe.yaml", "evals/X1.yaml", "evals/x2.yaml"]
    assert list(collect_files([("straße.yaml", b"a"), ("strasse.yaml", b"b")])) == [
        "straße.yaml",
        "strasse.yaml",
    ]
    with pytest.raises(UploadError, match="appears twice"):
        collect_files([(CAFE_NFD, b"a"), (CAFE_NFD, b"b")])
