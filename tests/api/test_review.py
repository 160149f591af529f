"""The review API: threads anchored to messages, selections and file lines (shown on both sides),
replies, resolve, own edits, moderation, limits, verdicts, and threads following revisions."""

import pytest
from django.core.cache import cache, caches
from django.test import override_settings

from inspector.bundles.ingest import delete_bundle, store_bundle
from inspector.models import hash_token
from inspector.rendering import cache as render_cache
from inspector.review import service
from inspector.review.models import Comment, Thread, WriteCount

SUITE = b"""description: Two cases share a guideline
evalcases:
  - id: first
    outcome: ok
    input_messages:
      - role: system
        content: You review code.
      - role: user
        content:
          - type: text
            value: Please check the first function carefully.
          - type: file
            value: rules.instructions.md
  - id: second
    outcome: ok
    input_messages:
      - role: user
        content:
          - type: text
            value: Please check the second function.
          - type: file
            value: rules.instructions.md
"""
GUIDE = b"# Rules\n\n- Point out bugs before style.\n- Quote the line.\n"
CONFIG = b'guideline_patterns:\n  - "**/*.instructions.md"\n'
FILES = {"evals/suite.yaml": SUITE, "evals/rules.instructions.md": GUIDE, ".agentv/config.yaml": CONFIG}


@pytest.fixture(autouse=True)
def _no_rate_carry_over():
    render_cache.clear()  # the rate window is per address and the test client's address never changes
    yield


@pytest.fixture
def suite(db):
    return store_bundle(FILES, title="suite")


def post_thread(client, bundle_id, anchor, body="Looks odd", key=None, **extra):
    headers = {"HTTP_X_AUTHOR_KEY": key} if key else {}
    return client.post(
        f"/api/bundles/{bundle_id}/threads",
        {"anchor": anchor, "body": body, **extra},
        content_type="application/json",
        **headers,
    )


def case_threads(client, bundle_id, case_id, key=None):
    headers = {"HTTP_X_AUTHOR_KEY": key} if key else {}
    response = client.get(
        f"/api/bundles/{bundle_id}/threads", {"document": "evals/suite.yaml", "case_id": case_id}, **headers
    )
    assert response.status_code == 200, response.json()
    return response.json()


def message_content(client, bundle_id, case_id, index):
    case = client.get(f"/api/bundles/{bundle_id}/cases/{case_id}").json()
    return case["messages"][index]["content"]


def selection(text, quote, case_id="first"):
    content_start = text.index(quote)
    return {
        "kind": "text",
        "document": "evals/suite.yaml",
        "case_id": case_id,
        "message_index": 1,
        "start": content_start,
        "quote": quote,
    }


def test_a_selection_comment_is_placed_on_its_text_and_traced_to_its_source_line(client, suite):
    bundle, _ = suite
    content = message_content(client, bundle.pk, "first", 1)
    response = post_thread(client, bundle.pk, selection(content, "first function"), author="Ann")
    assert response.status_code == 201, response.json()
    created = response.json()
    assert created["author_key"] and created["comments"][0]["author"] == "Ann"
    [thread] = case_threads(client, bundle.pk, "first")
    assert thread["state"] == "here" and thread["message_index"] == 1
    assert content[thread["start"] : thread["end"]] == "first function"
    # The other side: the eval file's line that wrote the text.
    assert thread["path"] == "evals/suite.yaml" and thread["start_line"] == 11
    assert case_threads(client, bundle.pk, "second") == []


def test_a_comment_on_a_guideline_line_shows_on_every_case_that_carries_it_with_a_count(client, suite):
    bundle, _ = suite
    anchor = {"kind": "line", "path": "evals/rules.instructions.md", "start_line": 3, "end_line": 3}
    assert post_thread(client, bundle.pk, anchor, "Too strict?").status_code == 201
    for case_id in ("first", "second"):
        [thread] = case_threads(client, bundle.pk, case_id)
        assert thread["kind"] == "line" and thread["cases"] == 2
        assert thread["quote"] == "- Point out bugs before style."


def test_a_line_of_the_eval_file_shows_only_on_the_case_it_wrote(client, suite):
    bundle, _ = suite
    anchor = {"kind": "line", "path": "evals/suite.yaml", "start_line": 20, "end_line": 20}
    assert post_thread(client, bundle.pk, anchor).status_code == 201
    assert case_threads(client, bundle.pk, "first") == []
    [thread] = case_threads(client, bundle.pk, "second")
    assert thread["cases"] == 1


def test_replies_resolve_and_reopen(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    starter = "s" * 32
    thread = post_thread(client, bundle.pk, anchor, key=starter).json()
    reply = client.post(
        f"/api/bundles/{bundle.pk}/threads/{thread['id']}/comments",
        {"body": "Agreed", "author": "Bo"},
        content_type="application/json",
    )
    assert reply.status_code == 201 and reply.json()["author"] == "Bo"
    for resolved in (True, False):
        answer = client.post(
            f"/api/bundles/{bundle.pk}/threads/{thread['id']}/resolve",
            {"resolved": resolved},
            content_type="application/json",
            HTTP_X_AUTHOR_KEY=starter,
        )
        assert answer.status_code == 200 and answer.json()["resolved"] is resolved
    [listed] = case_threads(client, bundle.pk, "first")
    assert [c["body"] for c in listed["comments"]] == ["Looks odd", "Agreed"]


def test_markdown_is_rendered_and_raw_html_is_escaped(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    body = "**bold** <script>alert(1)</script> [x](javascript:alert(1)) [ok](https://example.com)"
    html = post_thread(client, bundle.pk, anchor, body).json()["comments"][0]["html"]
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html and 'href="https://example.com"' in html


def test_only_the_writing_browser_edits_or_deletes_and_the_manage_token_moderates(client, suite):
    bundle, token = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 1}
    mine = "k" * 32
    created = post_thread(client, bundle.pk, anchor, key=mine).json()
    assert created["author_key"] is None  # the key was sent, not made
    comment_id = created["comments"][0]["id"]
    url = f"/api/bundles/{bundle.pk}/comments/{comment_id}"
    stranger = client.patch(
        url, {"body": "hijacked"}, content_type="application/json", HTTP_X_AUTHOR_KEY="x" * 32
    )
    assert stranger.status_code == 403 and "browser that wrote" in stranger.json()["detail"]
    edited = client.patch(url, {"body": "Reworded"}, content_type="application/json", HTTP_X_AUTHOR_KEY=mine)
    assert edited.status_code == 200 and edited.json()["edited"] and edited.json()["mine"]
    assert client.delete(url, HTTP_X_AUTHOR_KEY="x" * 32).status_code == 403
    assert client.delete(url, HTTP_X_MANAGE_TOKEN=token).status_code == 204
    assert not Thread.objects.filter(bundle=bundle).exists()  # its only comment went


def test_the_api_takes_no_identity_from_cookies_and_sets_none(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    client.cookies["pi_review_key"] = "victim-key-" + "v" * 24  # a browser's page key, carried along
    response = post_thread(client, bundle.pk, anchor)
    assert "pi_review_key" not in response.cookies
    made = response.json()["author_key"]
    assert made and made != client.cookies["pi_review_key"].value  # a new key, not the cookie's
    comment_id = response.json()["comments"][0]["id"]
    url = f"/api/bundles/{bundle.pk}/comments/{comment_id}"
    assert client.delete(url).status_code == 403  # the cookie alone is nobody
    assert client.delete(url, HTTP_X_AUTHOR_KEY=made).status_code == 204


def test_a_locked_bundle_refuses_comments_and_verdicts(client, suite):
    bundle, token = suite
    url = f"/api/bundles/{bundle.pk}/review-lock"
    assert (
        client.put(
            url, {"locked": True}, content_type="application/json", HTTP_X_MANAGE_TOKEN="wrong"
        ).status_code
        == 403
    )
    assert client.put(
        url, {"locked": True}, content_type="application/json", HTTP_X_MANAGE_TOKEN=token
    ).json() == {"locked": True}
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 1}
    refused = post_thread(client, bundle.pk, anchor)
    assert refused.status_code == 403 and "locked" in refused.json()["detail"]
    verdict = client.put(
        f"/api/bundles/{bundle.pk}/verdicts",
        {"document": "evals/suite.yaml", "case_id": "first", "verdict": "ok"},
        content_type="application/json",
    )
    assert verdict.status_code == 403


@pytest.mark.parametrize(
    ("anchor", "status", "words"),
    [
        (
            {
                "kind": "text",
                "document": "evals/suite.yaml",
                "case_id": "first",
                "message_index": 1,
                "quote": "not in the message",
            },
            400,
            "not in message #1",
        ),
        (
            {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 9},
            400,
            "between 0 and 1",
        ),
        (
            {"kind": "message", "document": "evals/nope.yaml", "case_id": "first", "message_index": 0},
            404,
            "no document",
        ),
        (
            {"kind": "message", "document": "evals/suite.yaml", "case_id": "nope", "message_index": 0},
            404,
            "no case",
        ),
        ({"kind": "line", "path": "evals/rules.instructions.md", "start_line": 40}, 400, "has no lines"),
        ({"kind": "line", "path": "missing.md", "start_line": 1}, 404, "no file"),
    ],
)
def test_an_anchor_that_is_not_in_the_rendering_is_refused_with_its_reason(
    client, suite, anchor, status, words
):
    bundle, _ = suite
    response = post_thread(client, bundle.pk, anchor)
    assert response.status_code == status and words in response.json()["detail"]
    assert not Thread.objects.exists()


def test_limits_on_size_count_and_rate_answer_clear_messages(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    with override_settings(COMMENT_MAX_CHARS=10):
        too_long = post_thread(client, bundle.pk, anchor, "x" * 11)
    assert too_long.status_code == 413 and "at most 10" in too_long.json()["detail"]
    assert post_thread(client, bundle.pk, anchor, "   ").status_code == 400
    with override_settings(COMMENTS_PER_BUNDLE=1):
        assert post_thread(client, bundle.pk, anchor).status_code == 201
        full = post_thread(client, bundle.pk, anchor)
    assert full.status_code == 409 and "limit of 1 comments" in full.json()["detail"]
    render_cache.clear()
    WriteCount.objects.all().delete()
    with override_settings(REVIEW_WRITES_PER_MINUTE=2):
        answers = [post_thread(client, bundle.pk, anchor).status_code for _ in range(3)]
        assert answers == [201, 201, 429]
        assert "at most 2 a minute" in post_thread(client, bundle.pk, anchor).json()["detail"]


def _thread_from(client, bundle_id, anchor, **headers):
    return client.post(
        f"/api/bundles/{bundle_id}/threads",
        {"anchor": anchor, "body": "Hm"},
        content_type="application/json",
        **headers,
    ).status_code


def test_the_write_limit_is_counted_once_for_every_web_worker(client, suite, monkeypatch):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    # Each write as another worker process would make it: its own client of the shared cache, and
    # nothing left in the process-local default cache.
    monkeypatch.setattr(service, "rate_store", lambda: caches.create_connection("renders"))
    answers = []
    with override_settings(REVIEW_WRITES_PER_MINUTE=2):
        for _ in range(3):
            cache.clear()
            answers.append(_thread_from(client, bundle.pk, anchor))
    assert answers == [201, 201, 429]


def test_x_forwarded_for_names_the_client_only_behind_the_configured_proxies(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    with override_settings(REVIEW_WRITES_PER_MINUTE=1):
        # By default the header is anyone's to write: a new one each time buys no more writes.
        assert _thread_from(client, bundle.pk, anchor, HTTP_X_FORWARDED_FOR="198.51.100.1") == 201
        assert _thread_from(client, bundle.pk, anchor, HTTP_X_FORWARDED_FOR="198.51.100.2") == 429
        render_cache.clear()
        with override_settings(TRUSTED_PROXY_COUNT=1):
            # Behind one proxy, the address it appended is the client; what the client put left of
            # it is not.
            assert (
                _thread_from(client, bundle.pk, anchor, HTTP_X_FORWARDED_FOR="10.0.0.1, 203.0.113.7") == 201
            )
            assert (
                _thread_from(client, bundle.pk, anchor, HTTP_X_FORWARDED_FOR="10.0.0.2, 203.0.113.7") == 429
            )
            assert _thread_from(client, bundle.pk, anchor, HTTP_X_FORWARDED_FOR="203.0.113.8") == 201


@pytest.mark.parametrize(
    ("proxies", "forwarded", "address"),
    [
        (0, "203.0.113.7", "127.0.0.1"),
        (1, "", "127.0.0.1"),
        (1, "1.1.1.1, 203.0.113.7", "203.0.113.7"),
        (2, "1.1.1.1, 203.0.113.7, 10.0.0.9", "203.0.113.7"),
        (3, " 203.0.113.7 ,10.0.0.9", "203.0.113.7"),  # fewer entries than proxies: the outermost there is
    ],
)
def test_the_client_address_counts_trusted_proxies_from_the_right(rf, proxies, forwarded, address):
    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(TRUSTED_PROXY_COUNT=proxies):
        assert service.client_address(request) == address


def test_verdicts_give_review_progress_and_the_needs_changes_list(client, suite):
    bundle, _ = suite
    url = f"/api/bundles/{bundle.pk}/verdicts"

    def put(body):
        return client.put(url, body, content_type="application/json", HTTP_X_AUTHOR_KEY="c" * 32)

    assert put({"document": "evals/suite.yaml", "case_id": "first", "verdict": "ok"}).status_code == 200
    answer = put(
        {
            "document": "evals/suite.yaml",
            "case_id": "second",
            "verdict": "changes",
            "note": "Too vague",
            "author": "Cy",
        }
    )
    assert answer.json() == {
        "document": "evals/suite.yaml",
        "case_id": "second",
        "verdict": "changes",
        "note": "Too vague",
        "author": "Cy",
        "author_fingerprint": service.fingerprint(hash_token("c" * 32)),
        "author_key": None,
    }
    progress = client.get(url).json()
    assert (progress["total"], progress["reviewed"], progress["ok"]) == (2, 2, 1)
    assert [item["case_id"] for item in progress["needs_changes"]] == ["second"]
    assert put({"document": "evals/suite.yaml", "case_id": "first", "verdict": None}).status_code == 200
    assert client.get(url).json()["reviewed"] == 1
    assert put({"document": "evals/suite.yaml", "case_id": "nope", "verdict": "ok"}).status_code == 404
    assert put({"document": "evals/suite.yaml", "case_id": "first", "verdict": "meh"}).status_code == 422


def test_deleting_a_bundle_deletes_its_comments_and_verdicts(client, suite):
    bundle, _ = suite
    anchor = {"kind": "message", "document": "evals/suite.yaml", "case_id": "first", "message_index": 0}
    post_thread(client, bundle.pk, anchor)
    client.put(
        f"/api/bundles/{bundle.pk}/verdicts",
        {"document": "evals/suite.yaml", "case_id": "first", "verdict": "ok"},
        content_type="application/json",
    )
    delete_bundle(bundle)
    assert not Thread.objects.exists() and not Comment.objects.exists()


def test_comments_follow_a_revision_when_their_text_is_unchanged_and_are_outdated_otherwise(client, suite):
    bundle, _ = suite
    content = message_content(client, bundle.pk, "first", 1)
    post_thread(client, bundle.pk, selection(content, "first function"), "kept")
    post_thread(client, bundle.pk, selection(content, "carefully"), "gone")
    post_thread(
        client,
        bundle.pk,
        {"kind": "line", "path": "evals/rules.instructions.md", "start_line": 4, "end_line": 4},
        "moved line",
    )
    # The revision drops "carefully" and moves the guideline line down by one.
    revised = dict(
        FILES,
        **{
            "evals/suite.yaml": SUITE.replace(b" carefully", b""),
            "evals/rules.instructions.md": GUIDE.replace(b"# Rules\n", b"# Rules\n\nIntro.\n"),
        },
    )
    child, _ = store_bundle(revised, title="suite (revised)", parent=bundle)
    threads = {t["comments"][0]["body"]: t for t in case_threads(client, child.pk, "first")}
    assert threads["kept"]["state"] == "carried" and threads["kept"]["bundle"] == bundle.pk
    assert threads["gone"]["state"] == "outdated"
    assert threads["gone"]["made_on"].startswith(f"/b/{bundle.pk}/evals/suite.yaml/case/first/")
    assert threads["moved line"]["state"] == "carried"
    assert threads["moved line"]["start_line"] == 6
    # The parent still shows them all where they were made.
    assert {t["state"] for t in case_threads(client, bundle.pk, "first")} == {"here"}


def test_unknown_bundles_threads_and_comments_are_404(client, suite):
    bundle, _ = suite
    assert client.get("/api/bundles/nope/threads").status_code == 404
    answer = client.post(
        f"/api/bundles/{bundle.pk}/threads/999/comments", {"body": "x"}, content_type="application/json"
    )
    assert answer.status_code == 404
    assert client.delete(f"/api/bundles/{bundle.pk}/comments/999").status_code == 404


def test_a_bundle_that_is_not_stored_takes_no_comments(db):
    from inspector.models import Bundle
    from inspector.review import service

    unsaved = Bundle(pk="local", title="a folder")
    with pytest.raises(service.ReviewError) as refused:
        service.check_open(unsaved)
    assert refused.value.status == 403 and "not stored" in str(refused.value)
