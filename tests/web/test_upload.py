"""The upload page: every way in, every refusal, and the links shown once."""

import re
import stat
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from inspector.models import Blob, Bundle, BundleFile
from tests.web.conftest import EVAL, SIMPLE, folder_files, open_manage_page, zip_bytes


def upload(client, files=(), folder=(), **data):
    payload = {"files": [SimpleUploadedFile(name, content) for name, content in files], **data}
    if folder:
        payload["folder"] = [SimpleUploadedFile(name.rsplit("/", 1)[-1], content) for name, content in folder]
        payload.setdefault("relative_paths", "\n".join(name for name, _ in folder))
    return client.post("/", payload, follow=True)


def assert_refused(response, text):
    assert response.status_code == 400
    body = response.content.decode()
    assert "Upload refused" in body
    assert text in body
    assert Bundle.objects.count() == 0
    assert BundleFile.objects.count() == 0
    assert Blob.objects.count() == 0


def test_home_page_offers_upload_paste_and_examples(client, db):
    from inspector.bundles.examples import load_examples

    load_examples()
    response = client.get("/")
    body = response.content.decode()
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in body
    assert "webkitdirectory" in body
    assert 'name="text"' in body and 'value="eval.yaml"' in body
    assert "csrfmiddlewaretoken" in body
    assert "Code review eval" in body
    # The example is one click away: its link opens the bundle at its entry document.
    bundle = Bundle.objects.get(example="code-review")
    # One click opens the example's first case.
    assert f'href="/b/{bundle.pk}/evals/code-review.yaml/case/review-second-largest/"' in body


def test_uploading_one_file_stores_a_bundle_and_shows_links_once(client, db):
    response = upload(client, files=[("tiny.yaml", EVAL)])
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    response = open_manage_page(client, response.redirect_chain[0][0])
    bundle = Bundle.objects.get()
    body = response.content.decode()
    assert f"/b/{bundle.pk}/" in body
    token = re.search(rf"/b/{bundle.pk}/manage/#([^/\"]+)\"", body).group(1)
    assert bundle.check_manage_token(token)
    assert token not in bundle.manage_token_hash
    assert len(bundle.pk) >= 22  # 128 random bits, URL-safe base64
    # The first case is offered straight away.
    assert f"/b/{bundle.pk}/tiny.yaml/case/first/" in body
    # Opening the bundle later does not show the manage token again.
    assert token not in client.get(f"/b/{bundle.pk}/").content.decode()


def test_pasted_text_becomes_a_file_with_the_given_name(client, db):
    response = upload(client, text=EVAL.decode(), filename="suite/pasted.yaml")
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    assert list(Bundle.objects.get().file_map()) == ["suite/pasted.yaml"]


def test_pasted_text_defaults_to_eval_yaml(client, db):
    upload(client, text=EVAL.decode(), filename="")
    assert list(Bundle.objects.get().file_map()) == ["eval.yaml"]


def test_several_files_are_one_bundle(client, db):
    response = upload(client, files=[("a.yaml", EVAL), ("b.yaml", EVAL)])
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    assert sorted(Bundle.objects.get().file_map()) == ["a.yaml", "b.yaml"]
    assert Blob.objects.count() == 1  # same content stored once


def test_a_folder_keeps_its_structure(client, db):
    files = folder_files(SIMPLE)
    response = upload(client, folder=[(f"simple/{path}", data) for path, data in files.items()])
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    stored = Bundle.objects.get().file_map()
    assert "simple/evals/coding/example-eval.yaml" in stored
    assert "simple/.agentv/config.yaml" in stored


def test_a_zip_is_unpacked(client, db):
    archive = zip_bytes(folder_files(SIMPLE))
    response = upload(client, files=[("simple.zip", archive)])
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    assert "evals/coding/example-eval.yaml" in Bundle.objects.get().file_map()


def test_an_empty_upload_is_refused(client, db):
    assert_refused(upload(client), "choose a file")


@override_settings(MAX_BUNDLE_BYTES=1000)
def test_too_big_is_refused(client, db):
    assert_refused(upload(client, files=[("big.yaml", b"x" * 1001)]), "larger than")


@override_settings(MAX_BUNDLE_FILES=3)
def test_too_many_files_is_refused(client, db):
    files = [(f"f{i}.yaml", EVAL + str(i).encode()) for i in range(4)]
    assert_refused(upload(client, files=files), "too many files")


@override_settings(DATA_UPLOAD_MAX_NUMBER_FILES=2)
def test_too_many_files_for_the_request_parser_is_refused_cleanly(client, db):
    files = [(f"f{i}.yaml", EVAL) for i in range(3)]
    assert_refused(upload(client, files=files), "too many files")


def test_path_too_long_is_refused(client, db):
    assert_refused(upload(client, text="x: 1", filename="a/" * 200 + "x.yaml"), "longer than")


def test_zip_with_parent_path_is_refused(client, db):
    archive = zip_bytes({"../evil.yaml": EVAL})
    assert_refused(upload(client, files=[("bad.zip", archive)]), "escapes the bundle root")


def test_zip_with_absolute_path_is_refused(client, db):
    archive = zip_bytes({"/etc/evil.yaml": EVAL})
    assert_refused(upload(client, files=[("bad.zip", archive)]), "absolute paths are not allowed")


def test_zip_with_symlink_entry_is_refused(client, db):
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("link.yaml")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    assert_refused(upload(client, files=[("bad.zip", buffer.getvalue())]), "symbolic link")


def test_zip_bomb_by_ratio_is_refused(client, db):
    archive = zip_bytes({"bomb.yaml": b"\0" * 5_000_000})
    assert_refused(upload(client, files=[("bomb.zip", archive)]), "zip bomb")


@override_settings(MAX_BUNDLE_BYTES=100_000, MAX_ZIP_RATIO=10_000)
def test_zip_bomb_by_total_size_is_refused(client, db):
    archive = zip_bytes({f"part{i}.yaml": b"a" * 60_000 for i in range(3)})
    assert_refused(upload(client, files=[("bomb.zip", archive)]), "unpacks to more than")


def test_duplicate_paths_are_refused(client, db):
    archive = zip_bytes({"evals/a.yaml": EVAL})
    response = upload(client, files=[("x.zip", archive)], text="x: 1", filename="evals/a.yaml")
    assert_refused(response, "appears twice")


def test_not_a_zip_is_refused(client, db):
    assert_refused(upload(client, files=[("broken.zip", b"this is not a zip")]), "not a readable zip")


def test_folder_without_paths_falls_back_to_base_names(client, db):
    response = upload(client, folder=[("a/one.yaml", EVAL)], relative_paths="")
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    assert list(Bundle.objects.get().file_map()) == ["one.yaml"]


def test_upload_without_csrf_token_is_refused(db):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    response = client.post("/", {"text": "x: 1"})
    assert response.status_code == 403
    assert "Form expired" in response.content.decode()
    assert Bundle.objects.count() == 0


def test_zip_entry_with_a_line_break_in_its_name_is_refused(client, db):
    archive = zip_bytes({"evals/x.yaml\r": EVAL})
    assert_refused(upload(client, files=[("bad.zip", archive)]), "control character")


def test_after_an_upload_the_browser_lands_on_the_manage_page_so_a_reload_stores_nothing(client, db):
    response = upload(client, files=[("tiny.yaml", EVAL)])
    [(manage_url, status)] = response.redirect_chain
    bundle = Bundle.objects.get()
    assert status == 303 and f"/b/{bundle.pk}/manage/" in manage_url
    assert client.get(manage_url).status_code == 200
    assert Bundle.objects.count() == 1


def test_the_manage_page_links_only_to_cases_of_its_own_bundle(client, db):
    response = upload(client, files=[("tiny.yaml", EVAL)])
    manage_url = response.redirect_chain[0][0]
    token = manage_url.split("#")[1]
    for hostile in ("javascript:alert(1)", "https://evil.example/", "/b/other/x.yaml/case/a/"):
        body = client.post(
            manage_url.split("?")[0], {"saved": "upload", "case": hostile, "token": token}
        ).content.decode()
        assert hostile not in body


def test_a_folder_file_name_with_a_line_separator_keeps_the_structure(client, db):
    name = "suite/odd\u2028name.yaml"
    response = upload(client, folder=[(name, EVAL), ("suite/b.yaml", EVAL)])
    assert response.status_code == 200
    assert sorted(Bundle.objects.get().file_map()) == sorted([name, "suite/b.yaml"])


def test_an_upload_declaring_more_than_twice_the_limit_is_refused_before_reading(client, db, settings):
    settings.MAX_BUNDLE_BYTES = 1000
    assert_refused(upload(client, files=[("big.yaml", b"x" * 2500)]), "larger than")


def test_an_upload_whose_first_case_cannot_be_found_still_reaches_the_manage_page(client, db, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("simulated renderer failure")

    monkeypatch.setattr("inspector.views.upload.first_case_url", broken)
    response = upload(client, files=[("tiny.yaml", EVAL)])
    assert response.redirect_chain[0][1] == 303
    assert "/manage/" in response.redirect_chain[0][0]
