"""Hostile files through every door (upload page, API upload, /api/render, the CLI): a clear error
naming the file, nothing stored, no 500, and the test process never at risk (renders run in the
bounded worker; the CLI in its own process)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from inspector.bundles.ingest import _write_bundle
from inspector.models import Blob, Bundle, BundleFile
from tests.hostile import shapes

SHAPES = shapes()
ROOT = Path(__file__).resolve().parents[2]


def assert_nothing_stored():
    assert (Bundle.objects.count(), BundleFile.objects.count(), Blob.objects.count()) == (0, 0, 0)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_upload_page_refuses_a_hostile_file_and_stores_nothing(client, db, shape):
    path, _, says, _ = SHAPES[shape]
    response = client.post(
        "/",
        {
            "files": [
                SimpleUploadedFile(name.rsplit("/", 1)[-1], text.encode())
                for name, text in SHAPES[shape].files.items()
            ]
        },
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "Upload refused" in body and says in body and path.rsplit("/", 1)[-1] in body
    assert_nothing_stored()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_api_refuses_a_hostile_upload_with_422_naming_the_file(client, db, shape):
    path, _, says, _ = SHAPES[shape]
    response = client.post("/api/bundles", {"files": SHAPES[shape].files}, content_type="application/json")
    assert response.status_code == 422, response.content[:500]
    answer = response.json()
    assert answer["file"] == path and says in answer["detail"]
    assert_nothing_stored()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_api_render_refuses_a_hostile_file_with_422(client, db, shape):
    path, _, says, _ = SHAPES[shape]
    response = client.post(
        "/api/render", {"files": SHAPES[shape].files, "path": path}, content_type="application/json"
    )
    assert response.status_code == 422, response.content[:500]
    assert response.json()["file"] == path and says in response.json()["detail"]


@pytest.mark.parametrize(
    "shape",
    [
        "yaml-block-sequence",
        "yaml-complex-key",
        "toml-dotted-key",
        "yaml-alias-bomb",
        "json-request-flow",
        "deck-embed-fan-out",
    ],
)
def test_the_cli_exits_2_naming_the_file(tmp_path, shape):
    path, _, says, _ = SHAPES[shape]
    (tmp_path / ".git").mkdir()
    for name, text in SHAPES[shape].files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = subprocess.run(
        [sys.executable, "manage.py", "render", str(tmp_path / path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr[-1000:]
    assert result.stderr.startswith(f"error: {path}") and says in result.stderr


def test_merely_invalid_yaml_is_still_stored_to_be_fixed_in_the_editor(client, db):
    response = client.post(
        "/api/bundles", {"files": {"e.yaml": "tests: [unclosed\n"}}, content_type="application/json"
    )
    assert response.status_code == 201
    assert Bundle.objects.count() == 1


def _upload_a_big_honest_file(client):
    """40,000 small cases: honest, but heavy enough to meet a tight worker limit."""
    big = "tests:\n" + "".join(f"  - id: c{i}\n    input: hello {i}\n" for i in range(40_000))
    return client.post("/api/bundles", {"files": {"e.yaml": big}}, content_type="application/json")


@override_settings(RENDER_DEADLINE_SECONDS=0.5)
def test_a_file_that_outlasts_the_worker_deadline_is_refused_at_the_door(client, db):
    response = _upload_a_big_honest_file(client)
    assert response.status_code == 422
    assert response.json()["file"] == "e.yaml", response.json()
    assert "longer than" in response.json()["detail"]
    assert_nothing_stored()


@override_settings(RENDER_RESIDENT_MB=16)
def test_a_file_whose_render_outgrows_the_resident_memory_limit_is_refused_at_the_door(client, db):
    response = _upload_a_big_honest_file(client)
    assert response.status_code == 422
    assert response.json()["file"] == "e.yaml"
    assert "(16 MB of memory)" in response.json()["detail"]
    assert_nothing_stored()


def test_a_poisoned_bundle_stored_before_the_door_check_is_an_error_page_not_a_crash(client, db):
    path, text, _, _ = SHAPES["yaml-block-sequence"]
    bundle, _ = _write_bundle({path: text.encode()}, title="old", parent=None, example="")
    assert client.get(f"/b/{bundle.pk}/").status_code == 200
    response = client.get(f"/api/bundles/{bundle.pk}/cases")
    assert response.status_code == 200
    assert "nested more than" in json.dumps(response.json())
