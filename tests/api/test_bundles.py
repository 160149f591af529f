import io
import json
import zipfile
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import resolve

from inspector.models import Bundle
from tests.api.conftest import EVAL, example_files


def upload(client, files: dict[str, bytes], **fields):
    parts = [SimpleUploadedFile(path.rsplit("/", 1)[-1], data) for path, data in files.items()]
    return client.post("/api/bundles", {"files": parts, "paths": list(files), **fields})


def test_multipart_upload_keeps_relative_paths_and_returns_share_links(client, db):
    response = upload(client, example_files(), title="Review")
    assert response.status_code == 201, response.json()
    data = response.json()
    bundle = Bundle.objects.get(pk=data["id"])
    assert bundle.title == "Review"
    assert data["url"] == f"http://testserver/b/{bundle.pk}/"
    assert bundle.check_manage_token(data["manage_token"])
    assert data["manage_url"].startswith(f"http://testserver/b/{bundle.pk}/manage/")
    assert {f["path"] for f in data["files"]} >= {"evals/code-review.yaml", "evals/snippet.py"}
    assert data["documents"] == ["evals/code-review.yaml"]
    [document] = data["cases"]
    assert document["path"] == "evals/code-review.yaml" and document["error"] is None
    [case] = document["cases"]
    assert case["id"] == "review-second-largest"
    assert case["message_count"] == 2
    assert case["url"].startswith(f"http://testserver/b/{bundle.pk}/evals/code-review.yaml/case/")
    match = resolve(urlsplit(case["url"]).path)
    assert match.url_name == "case" and match.kwargs["document"] == "evals/code-review.yaml"


def test_multipart_upload_of_a_zip_unpacks_it(client, db):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in example_files().items():
            archive.writestr(path, data)
    response = client.post("/api/bundles", {"files": SimpleUploadedFile("suite.zip", buffer.getvalue())})
    assert response.status_code == 201
    assert response.json()["documents"] == ["evals/code-review.yaml"]


def test_json_upload_stores_the_files(client, db):
    response = client.post(
        "/api/bundles", {"files": {"evals/two.yaml": EVAL}, "title": "Two"}, content_type="application/json"
    )
    assert response.status_code == 201
    data = response.json()
    assert [case["id"] for case in data["cases"][0]["cases"]] == ["greet", "farewell"]
    assert data["title"] == "Two"


def test_upload_lists_case_warnings(client, db):
    text = EVAL.replace("content: Goodbye", "content:\n          - type: file\n            value: missing.md")
    response = client.post("/api/bundles", {"files": {"e.yaml": text}}, content_type="application/json")
    assert response.status_code == 201
    data = response.json()
    assert data["warnings"], data
    assert any("missing.md" in w["message"] for w in data["warnings"])
    assert data["cases"][0]["cases"][1]["warning_count"] >= 1


def test_upload_with_a_path_escaping_the_bundle_is_a_400_naming_the_path(client, db):
    response = client.post("/api/bundles", {"files": {"../x.yaml": EVAL}}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "path escapes the bundle root", "file": "../x.yaml", "line": None}
    assert not Bundle.objects.exists()


def test_upload_over_the_size_limit_is_a_413(client, db, settings):
    settings.MAX_BUNDLE_BYTES = 100
    response = client.post("/api/bundles", {"files": {"e.yaml": EVAL}}, content_type="application/json")
    assert response.status_code == 413
    assert "larger than" in response.json()["detail"]


def test_upload_with_too_many_files_is_a_413(client, db, settings):
    settings.MAX_BUNDLE_FILES = 1
    response = client.post(
        "/api/bundles", {"files": {"a.yaml": EVAL, "b.yaml": EVAL}}, content_type="application/json"
    )
    assert response.status_code == 413


def test_upload_of_a_bad_zip_is_a_400(client, db):
    response = client.post("/api/bundles", {"files": SimpleUploadedFile("x.zip", b"not a zip")})
    assert response.status_code == 400
    assert response.json()["file"] == "x.zip"


def test_upload_without_files_is_a_400(client, db):
    assert client.post("/api/bundles", {"title": "x"}).status_code == 400
    response = client.post("/api/bundles", {"files": {}}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == "the upload holds no files"


def test_upload_with_paths_not_matching_files_is_a_400(client, db):
    response = client.post(
        "/api/bundles", {"files": [SimpleUploadedFile("a.yaml", b"x")], "paths": ["a.yaml", "b.yaml"]}
    )
    assert response.status_code == 400


def test_upload_of_a_json_body_not_matching_the_schema_is_a_422(client, db):
    response = client.post("/api/bundles", {"files": ["a.yaml"]}, content_type="application/json")
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["files"]
    response = client.post("/api/bundles", "{not json", content_type="application/json")
    assert response.status_code == 422


def test_upload_in_another_content_type_is_refused(client, db):
    # text/plain is what a cross-site form or no-cors fetch can send: refused before it is read.
    response = client.post("/api/bundles", "files", content_type="text/plain")
    assert response.status_code == 415
    assert "multipart/form-data" in response.json()["detail"]


def test_get_bundle_describes_files_and_documents(client, example_bundle):
    bundle, _ = example_bundle
    data = client.get(f"/api/bundles/{bundle.pk}").json()
    assert data["id"] == bundle.pk and data["title"] == "Code review"
    assert data["documents"] == ["evals/code-review.yaml"]
    assert data["parent"] is None
    assert {"path": ".agentv/config.yaml", "size": len(example_files()[".agentv/config.yaml"])} in data[
        "files"
    ]


@pytest.mark.parametrize("bundle_id", ["doesnotexist", "a%00b", "x" * 80])
def test_unknown_bundle_is_a_json_404(client, db, bundle_id):
    response = client.get(f"/api/bundles/{bundle_id}")
    assert response.status_code == 404
    assert response.json()["detail"] == "no bundle with this id"


def test_cases_lists_each_document_with_counts(client, two_documents):
    bundle, _ = two_documents
    data = client.get(f"/api/bundles/{bundle.pk}/cases").json()
    assert [d["path"] for d in data] == ["a/first.yaml", "b/second.yaml"]
    assert [c["id"] for c in data[1]["cases"]] == ["welcome", "farewell"]
    assert data[0]["cases"][0]["message_count"] == 2
    assert data[0]["kind"] == "agentv"


def test_cases_follow_the_token_budget(client, two_documents):
    bundle, _ = two_documents
    data = client.get(f"/api/bundles/{bundle.pk}/cases", {"max_tokens": 1, "document": "a/first.yaml"}).json()
    [document] = data
    # Nothing can go: the system prompt and the latest user message always stay, over budget.
    assert document["cases"][0]["omitted_count"] == 0
    assert document["cases"][0]["warning_count"] >= 1


def test_cases_of_an_unrenderable_document_carry_its_error(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"bad.yaml": b"evalcases: [\n"})
    [document] = client.get(f"/api/bundles/{bundle.pk}/cases").json()
    assert document["error"]["file"] == "bad.yaml"
    assert document["cases"] == []


def test_case_detail_has_segments_origins_and_link(client, example_bundle):
    bundle, _ = example_bundle
    response = client.get(f"/api/bundles/{bundle.pk}/cases/review-second-largest")
    assert response.status_code == 200
    data = response.json()
    assert data["document"] == "evals/code-review.yaml"
    system = data["messages"][0]
    assert system["role"] == "system" and system["omitted"] is None
    assert "".join(s["text"] for s in system["segments"]) == system["content"]
    kinds = {s["origin"]["kind"] for s in system["segments"]}
    assert "guideline" in kinds
    guideline = next(s for s in system["segments"] if s["origin"]["kind"] == "guideline")
    assert guideline["origin"]["path"] == "prompts/python.instructions.md"
    assert guideline["origin"]["start_line"] == 1
    assert data["url"].endswith("/case/review-second-largest/")


def test_case_detail_takes_the_page_settings(client, example_bundle):
    bundle, _ = example_bundle
    url = f"/api/bundles/{bundle.pk}/cases/review-second-largest"
    no_guidelines = client.get(url, {"patterns": ""}).json()
    assert "guideline" not in {s["origin"]["kind"] for m in no_guidelines["messages"] for s in m["segments"]}
    budget = client.get(url, {"max_tokens": 5}).json()
    assert any("still over budget" in w["message"] for w in budget["warnings"])
    assert client.get(url, {"profile": "agentv-0.10"}).status_code == 200


def test_case_detail_with_a_bad_setting_is_a_400_or_422(client, example_bundle):
    bundle, _ = example_bundle
    url = f"/api/bundles/{bundle.pk}/cases/review-second-largest"
    response = client.get(url, {"max_tokens": 0})
    assert response.status_code == 400
    assert response.json()["detail"] == "max_tokens must be between 1 and 10,000,000"
    response = client.get(url, {"profile": "nope"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("query.profile")


def test_case_detail_picks_the_document_holding_the_case(client, two_documents):
    bundle, _ = two_documents
    assert client.get(f"/api/bundles/{bundle.pk}/cases/welcome").json()["document"] == "b/second.yaml"
    data = client.get(f"/api/bundles/{bundle.pk}/cases/farewell", {"document": "b/second.yaml"}).json()
    assert data["document"] == "b/second.yaml"


def test_case_ids_escaped_as_in_page_urls_are_found(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"e.yaml": EVAL.replace("id: greet", "id: group/greet").encode()})
    data = client.get(f"/api/bundles/{bundle.pk}/cases/group~2Fgreet").json()
    assert data["id"] == "group/greet"


def test_unknown_case_or_document_is_a_404(client, two_documents):
    bundle, _ = two_documents
    response = client.get(f"/api/bundles/{bundle.pk}/cases/nope")
    assert response.status_code == 404
    assert response.json()["detail"] == "no case 'nope' in this bundle"
    response = client.get(f"/api/bundles/{bundle.pk}/cases/greet", {"document": "zzz.yaml"})
    assert response.status_code == 404


def test_case_of_a_broken_only_document_is_a_422_with_file_and_line(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"bad.yaml": b"evalcases:\n  - id: x\n    input_messages: [\n"})
    response = client.get(f"/api/bundles/{bundle.pk}/cases/x")
    assert response.status_code == 422
    data = response.json()
    assert data["file"] == "bad.yaml"
    assert isinstance(data["line"], int)


def test_payload_as_json_has_payload_changes_lints_and_warnings(client, example_bundle):
    bundle, _ = example_bundle
    response = client.get(
        f"/api/bundles/{bundle.pk}/cases/review-second-largest/payload",
        {"provider": "anthropic", "model": "claude-x", "max_output_tokens": 77},
    )
    assert response.status_code == 200
    data = response.json()
    assert data["provider"] == "anthropic" and data["id"] == "review-second-largest"
    assert data["payload"]["model"] == "claude-x"
    assert data["payload"]["max_tokens"] == 77
    assert data["payload"]["system"].startswith("You are a senior Python reviewer.")
    assert data["changes"][0]["message_index"] == 0
    assert data["lints"] == [] and data["warnings"] == []


@pytest.mark.parametrize("form, marker", [("curl", "curl "), ("python", "import"), ("typescript", "")])
def test_payload_as_code_is_plain_text(client, example_bundle, form, marker):
    bundle, _ = example_bundle
    response = client.get(
        f"/api/bundles/{bundle.pk}/cases/review-second-largest/payload",
        {"provider": "openai-chat", "format": form},
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    assert marker in text and "senior Python reviewer" in text


def test_payload_with_bad_export_settings_is_a_400(client, example_bundle):
    bundle, _ = example_bundle
    url = f"/api/bundles/{bundle.pk}/cases/review-second-largest/payload"
    response = client.get(url, {"temperature": 5})
    assert response.status_code == 400
    assert response.json()["detail"] == "temperature must be between 0 and 2"
    assert client.get(url, {"provider": "cohere"}).status_code == 422


def test_batch_is_jsonl_with_one_line_per_case(client, two_documents):
    bundle, _ = two_documents
    response = client.get(
        f"/api/bundles/{bundle.pk}/batch", {"provider": "openai-chat", "document": "a/first.yaml"}
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jsonl")
    lines = [json.loads(line) for line in response.content.decode().splitlines() if line]
    assert len(lines) == 2
    assert "first.openai-chat.jsonl" in response["Content-Disposition"]


def test_batch_of_a_bundle_with_several_documents_needs_a_document(client, two_documents):
    bundle, _ = two_documents
    response = client.get(f"/api/bundles/{bundle.pk}/batch")
    assert response.status_code == 400
    assert "a/first.yaml" in response.json()["detail"]


def test_batch_of_the_only_document_needs_no_document(client, example_bundle):
    bundle, _ = example_bundle
    response = client.get(f"/api/bundles/{bundle.pk}/batch", {"provider": "anthropic"})
    assert response.status_code == 200
    assert len(response.content.decode().splitlines()) == 1


def test_delete_with_the_manage_token_header_removes_the_bundle(client, example_bundle):
    bundle, token = example_bundle
    assert client.get(f"/api/bundles/{bundle.pk}/cases").status_code == 200  # now cached
    response = client.delete(f"/api/bundles/{bundle.pk}", headers={"X-Manage-Token": token})
    assert response.status_code == 204
    assert not Bundle.objects.filter(pk=bundle.pk).exists()
    assert client.get(f"/api/bundles/{bundle.pk}/cases").status_code == 404


def test_delete_with_the_token_in_the_query_still_works_but_says_it_is_deprecated(client, example_bundle):
    bundle, token = example_bundle
    response = client.delete(f"/api/bundles/{bundle.pk}?token={token}")
    assert response.status_code == 204
    assert response["Deprecation"].startswith("@")  # RFC 9745: since when
    assert 'rel="deprecation"' in response["Link"]
    assert not Bundle.objects.filter(pk=bundle.pk).exists()


def test_delete_with_the_header_carries_no_deprecation(client, example_bundle):
    bundle, token = example_bundle
    response = client.delete(f"/api/bundles/{bundle.pk}", headers={"X-Manage-Token": token})
    assert response.status_code == 204 and "Deprecation" not in response


def test_delete_with_a_wrong_token_is_a_403(client, example_bundle):
    bundle, _ = example_bundle
    response = client.delete(f"/api/bundles/{bundle.pk}", headers={"X-Manage-Token": "wrong"})
    assert response.status_code == 403
    assert response.json()["detail"] == "wrong manage token"
    assert client.delete(f"/api/bundles/{bundle.pk}").status_code == 403
    assert Bundle.objects.filter(pk=bundle.pk).exists()


def test_delete_of_an_unknown_bundle_is_a_404(client, db):
    assert client.delete("/api/bundles/nothere", headers={"X-Manage-Token": "x"}).status_code == 404


def test_upload_of_more_files_than_django_accepts_is_a_413(client, db, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 1
    files = [SimpleUploadedFile("a.yaml", b"x"), SimpleUploadedFile("b.yaml", b"y")]
    response = client.post("/api/bundles", {"files": files})
    assert response.status_code == 413
    assert response.json()["detail"].startswith("too many files")


def test_a_json_body_larger_than_django_accepts_is_a_413(client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = client.post("/api/bundles", {"files": {"e.yaml": EVAL}}, content_type="application/json")
    assert response.status_code == 413
    response = client.post("/api/render", {"content": EVAL}, content_type="application/json")
    assert response.status_code == 413


def test_a_guideline_pattern_that_cannot_compile_matches_nothing_instead_of_failing(client, example_bundle):
    bundle, _ = example_bundle
    response = client.get(f"/api/bundles/{bundle.pk}/cases/review-second-largest", {"patterns": "\\"})
    assert response.status_code == 200
    kinds = {s["origin"]["kind"] for m in response.json()["messages"] for s in m["segments"]}
    assert "guideline" not in kinds


def test_an_upload_whose_listing_fails_still_returns_its_manage_token(client, db, monkeypatch):
    from inspector.rendering import stored_renders

    def broken(*args, **kwargs):
        raise RuntimeError("simulated renderer failure")

    monkeypatch.setattr(stored_renders, "render", broken)
    response = client.post(
        "/api/bundles",
        {"files": {"a.yaml": "tests:\n  - id: a\n    input: hi\n"}},
        content_type="application/json",
    )
    assert response.status_code == 201
    data = response.json()
    assert data["manage_token"] and data["cases"] == []
    assert "listing their cases failed" in data["warnings"][-1]["message"]


def test_an_upload_without_a_title_is_named_after_its_file(client, db):
    response = client.post(
        "/api/bundles",
        {"files": {"evals/a.yaml": "tests:\n  - id: a\n    input: hi\n"}},
        content_type="application/json",
    )
    assert response.json()["title"] == "a.yaml"


def test_a_retry_with_the_same_idempotency_key_returns_the_same_bundle_but_not_its_token(client, db):
    body = {"files": {"evals/x.yaml": "tests:\n  - id: a\n    input: hi\n"}}
    headers = {"HTTP_IDEMPOTENCY_KEY": "c0ffee00-aaaa-bbbb-cccc-123456789abc"}
    first = client.post("/api/bundles", body, content_type="application/json", **headers)
    again = client.post("/api/bundles", body, content_type="application/json", **headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"] and first.json()["manage_token"]
    # Whoever replays a key (a retry, or someone who saw it) learns the bundle, never its token.
    assert again.json()["manage_token"] is None and again.json()["manage_url"] is None
    assert Bundle.objects.count() == 1
    assert Bundle.objects.get().check_manage_token(first.json()["manage_token"])
    other = client.post(
        "/api/bundles", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="another-key-0001"
    )
    assert other.json()["id"] != first.json()["id"]


def test_an_idempotency_key_shorter_than_16_characters_is_refused(client, db):
    response = client.post(
        "/api/bundles",
        {"files": {"a.yaml": "tests: []\n"}},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="12345678",
    )
    assert response.status_code == 422 and "Idempotency-Key" in response.json()["detail"]
    assert not Bundle.objects.exists()


def test_an_idempotency_key_reused_for_different_files_is_refused(client, db):
    headers = {"HTTP_IDEMPOTENCY_KEY": "key-for-one-upload-0001"}
    assert (
        client.post(
            "/api/bundles", {"files": {"a.yaml": "tests: []\n"}}, content_type="application/json", **headers
        ).status_code
        == 201
    )
    response = client.post(
        "/api/bundles", {"files": {"a.yaml": "tests: [1]\n"}}, content_type="application/json", **headers
    )
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]


@pytest.mark.parametrize(
    "extra, part",
    [
        ({"title": ["one", "two"]}, "title"),
        ({"paths": SimpleUploadedFile("p.txt", b"evals/x.yaml")}, "paths"),
        ({"title": SimpleUploadedFile("t.txt", b"A title")}, "title"),
        ({"flag": "true"}, "flag"),
        ({"paths": "true"}, "paths"),
        ({"paths": "null"}, "paths"),
    ],
)
def test_multipart_parts_of_the_wrong_kind_are_422_naming_the_part(client, db, extra, part):
    response = client.post("/api/bundles", {"files": [SimpleUploadedFile("x.yaml", b"tests: []\n")], **extra})
    assert response.status_code == 422, response.content
    assert any(error["loc"] == [part] for error in response.json()["errors"])
    assert Bundle.objects.count() == 0


def test_files_sent_as_text_parts_are_422(client, db):
    response = client.post("/api/bundles", {"files": "tests: []"})
    assert response.status_code == 422


def test_a_case_of_a_file_with_undecodable_bytes_names_them_in_its_warnings(client, db):
    suite = b"tests:\n  - id: one\n    criteria: ok\n    input: caf\xe9\n"
    response = upload(client, {"evals/e.yaml": suite})
    assert response.status_code == 201, response.json()
    bundle_id = response.json()["id"]
    data = client.get(f"/api/bundles/{bundle_id}/cases/one").json()
    [warning] = [w for w in data["warnings"] if "not valid UTF-8" in w["message"]]
    assert (warning["path"], warning["line"]) == ("evals/e.yaml", 4)
