"""Review on the pages (Django client): the case page's panel, its forms with and without htmx,
verdicts and progress on the bundle page, moderation on the manage page, the diff pages."""

import json
import re
from html import unescape

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from inspector.rendering import cache as render_cache
from inspector.review.models import Comment, Thread, Verdict
from tests.api.test_review import FILES, GUIDE, SUITE
from tests.web.test_agentv5_next_pages import OWN_AGENT


@pytest.fixture(autouse=True)
def _fresh_rate_window():
    render_cache.clear()
    yield


@pytest.fixture
def suite(db):
    return store_bundle(FILES, title="suite")


def case_path(bundle, case_id="first"):
    return addresses.case_url(bundle.pk, "evals/suite.yaml", case_id)


def panel(client, bundle, case_id="first", htmx=True):
    """The case's review panel, as the case page loads it (or, without JavaScript, its page)."""
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.get(
        f"/b/{bundle.pk}/review/panel/", {"document": "evals/suite.yaml", "case_id": case_id}, **headers
    ).content.decode()


def progress(client, bundle):
    return client.get(f"/b/{bundle.pk}/review/progress/", HTTP_HX_REQUEST="true").content.decode()


def post(client, bundle, htmx=False, **fields):
    data = {"document": "evals/suite.yaml", "case_id": "first", **fields}
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-panel"} if htmx else {}
    return client.post(f"/b/{bundle.pk}/review/", data, **headers)


def test_the_case_page_loads_its_review_panel_and_links_it_for_browsers_without_javascript(client, suite):
    bundle, _ = suite
    page = client.get(case_path(bundle)).content.decode()
    # The page itself holds no review state (it is cached and shared); the panel loads after it.
    url = f"/b/{bundle.pk}/review/panel/?document=evals/suite.yaml&amp;case_id=first"
    assert f'hx-get="{url}"' in page and f'<noscript><a href="{url}"' in page
    page = panel(client, bundle)
    assert page.lstrip().startswith('<section id="review-panel"') and 'id="new-thread"' in page
    assert "message #0 (system)" in page and "message #1 (user)" in page
    assert 'data-markers="[]"' in page


def test_commenting_without_javascript_redirects_back_and_remembers_the_name(client, suite):
    bundle, _ = suite
    response = post(client, bundle, action="thread", target="1", body="Needs *care*", author="Ann")
    assert response.status_code == 302
    assert response["Location"] == f"/b/{bundle.pk}/review/panel/?document=evals%2Fsuite.yaml&case_id=first"
    assert response.cookies["pi_author"].value == "Ann" and response.cookies["pi_review_key"].value
    page = client.get(response["Location"]).content.decode()
    assert "<!doctype html>" in page.lower()  # a page of its own
    assert "<em>care</em>" in page and "Ann" in page
    assert 'value="Ann"' in page  # the name comes back from its cookie
    assert "Edit" in page  # the same browser may edit it


def test_an_htmx_comment_on_a_selection_answers_the_panel_and_errors_show_in_it(client, suite):
    bundle, _ = suite
    answer = post(
        client,
        bundle,
        htmx=True,
        action="thread",
        kind="text",
        message_index="1",
        start="13",
        quote="first function",
        body="Which one?",
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    assert html.lstrip().startswith('<section id="review-panel"') and "Which one?" in html
    assert "selection in message #1" in html
    bad = post(
        client,
        bundle,
        htmx=True,
        action="thread",
        kind="text",
        message_index="1",
        quote="no such words",
        body="x",
    )
    assert bad.status_code == 400 and "not in message #1" in bad.content.decode()
    assert Thread.objects.count() == 1


def test_a_line_comment_shows_on_both_cases_with_its_count(client, suite):
    bundle, _ = suite
    post(
        client,
        bundle,
        action="thread",
        kind="line",
        path="evals/rules.instructions.md",
        start_line="3",
        end_line="3",
        body="Too strict",
    )
    for case_id in ("first", "second"):
        page = panel(client, bundle, case_id)
        assert "Too strict" in page and "evals/rules.instructions.md line 3" in page
        assert "2 cases" in page


def test_reply_resolve_edit_and_delete_from_the_page(client, suite):
    bundle, _ = suite
    post(client, bundle, action="thread", target="0", body="First")
    thread = Thread.objects.get()
    post(client, bundle, action="reply", thread=str(thread.pk), body="Second")
    post(client, bundle, action="resolve", thread=str(thread.pk))
    thread.refresh_from_db()
    assert thread.resolved and thread.comments.count() == 2
    first = thread.comments.first()
    post(client, bundle, action="edit", comment=str(first.pk), body="Changed")
    first.refresh_from_db()
    assert first.body == "Changed" and first.edited
    stranger = client.__class__()
    refused = stranger.post(
        f"/b/{bundle.pk}/review/",
        {"document": "evals/suite.yaml", "case_id": "first", "action": "delete", "comment": str(first.pk)},
    )
    assert refused.status_code == 403 and Comment.objects.filter(pk=first.pk).exists()
    post(client, bundle, action="delete", comment=str(first.pk))
    assert not Comment.objects.filter(pk=first.pk).exists()


def test_verdicts_show_as_progress_and_badges_on_the_bundle_page(client, suite):
    bundle, _ = suite
    post(client, bundle, action="verdict", verdict="changes", note="Vague prompt")
    post(client, bundle, action="thread", target="0", body="Open question")
    page = progress(client, bundle)
    assert "Reviewed 1 of 2" in page
    assert 'id="needs-changes"' in page and "Vague prompt" in page
    # Each case's verdict and open threads, for the script that marks the (cached) page's rows.
    rows = json.loads(unescape(re.search(r'data-rows="([^"]*)"', page).group(1)))
    assert rows == {"evals/suite.yaml\u0000first": ["changes", 1]}
    assert Verdict.objects.get().author == "Anonymous"


def test_the_manage_page_locks_comments_and_deletes_any(client, suite):
    bundle, token = suite
    post(client, bundle, action="thread", target="0", body="Spam")
    manage = f"/b/{bundle.pk}/manage/"
    page = client.post(manage, {"token": token}).content.decode()
    assert "Spam" in page and 'id="lock-comments"' in page
    client.post(manage, {"token": token, "action": "lock-comments"})
    refused = post(client, bundle, action="thread", target="0", body="More")
    assert refused.status_code == 403 and "locked" in refused.content.decode()
    comment = Comment.objects.get()
    page = client.post(manage, {"token": token, "action": "delete-comment", "comment": str(comment.pk)})
    assert "The comment was deleted." in page.content.decode() and not Comment.objects.exists()
    wrong = client.post(manage, {"token": "wrong", "action": "unlock-comments"})
    assert wrong.status_code == 404


def test_a_revision_page_shows_carried_and_outdated_comments(client, suite):
    bundle, _ = suite
    post(
        client,
        bundle,
        htmx=True,
        action="thread",
        kind="text",
        message_index="1",
        start="13",
        quote="first function",
        body="kept",
    )
    post(
        client,
        bundle,
        htmx=True,
        action="thread",
        kind="text",
        message_index="1",
        quote="carefully",
        body="gone",
    )
    child, _ = store_bundle(
        dict(FILES, **{"evals/suite.yaml": SUITE.replace(b" carefully", b"")}), parent=bundle
    )
    page = panel(client, child)
    assert "from <a href" in page and "an earlier revision" in page
    assert 'outdated — <a href="' + case_path(bundle) in page


def test_the_diff_pages_show_counts_causes_and_word_changes(client, suite):
    bundle, _ = suite
    child, _ = store_bundle(
        dict(
            FILES,
            **{
                "evals/rules.instructions.md": GUIDE.replace(b"bugs", b"real bugs"),
                "evals/suite.yaml": SUITE.replace(b"second function", b"other function"),
            },
        ),
        parent=bundle,
    )
    bundle_page = progress(client, child)
    link = re.search(r'href="([^"]+)" id="diff-parent"', bundle_page).group(1).replace("&amp;", "&")
    page = client.get(link).content.decode()
    assert "2 changed" in page and "0 added" in page
    assert "evals/rules.instructions.md line 3</code> changed — 2 cases" in page
    case_link = (
        re.search(r'href="([^"]+)" class="case-diff-link">second', page).group(1).replace("&amp;", "&")
    )
    case_page = client.get(case_link).content.decode()
    assert "<del>second</del>" in case_page and "<ins>other</ins>" in case_page
    assert "evals/suite.yaml line 20</code> changed — 1 case" in case_page
    assert "evals/rules.instructions.md line 3</code> changed — 2 cases" in case_page
    assert 'id="payload-diff"' in case_page


def test_one_bundle_under_two_profiles(client, suite):
    bundle, _ = suite
    page = client.get(
        "/diff/",
        {
            "old": bundle.pk,
            "new": f"http://x/b/{bundle.pk}/",
            "old_profile": "spec",
            "new_profile": "agentv-4",
        },
    )
    assert page.status_code == 200 and "One bundle under two settings" in page.content.decode()


def test_diff_errors_are_pages_not_500s(client, suite):
    bundle, _ = suite
    assert client.get("/diff/", {"old": "nope", "new": bundle.pk}).status_code == 404
    assert client.get("/diff/", {"old": bundle.pk, "new": bundle.pk, "old_profile": "x"}).status_code == 400
    assert (
        client.get(
            "/diff/case/",
            {"old": bundle.pk, "new": bundle.pk, "document": "evals/suite.yaml", "case": "nope"},
        ).status_code
        == 404
    )
    assert client.get("/diff/").status_code == 200  # the form


def href(page, link_id):
    return unescape(re.search(rf'href="([^"]+)"[^>]* id="{link_id}"', page).group(1))


def own_agent_under_two_settings(client, **settings):
    """The diff page of the own-agent suite against itself, under the settings given."""
    bundle, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    page = client.get("/diff/", {"old": bundle.pk, "new": bundle.pk, **settings}).content.decode()
    return bundle, page


def test_a_diff_shows_the_judge_request_the_runs_judge_setting_changes(client, db):
    bundle, page = own_agent_under_two_settings(client, old_grader_provider="", new_grader_provider="agentv")
    assert "1 changed" in page and "1 judge request changed" in page
    # The form sends each side's judge back as it was picked.
    assert '<select name="old_grader_provider"' in page
    new_select = page[page.index('<select name="new_grader_provider"') :]
    assert new_select.index('<option value="agentv" selected>') < new_select.index("</select>")
    case_link = unescape(re.search(r'href="([^"]+)" class="case-diff-link">docs', page).group(1))
    case_page = client.get(case_link).content.decode()
    assert 'id="judges"' in case_page and "Judge llm-rubric" in case_page
    assert "asks grader-a → agentv" in case_page and "Judge agent-rubric" not in case_page
    assert "<ins>" in case_page and "0 messages differ" in case_page
    refused = client.get("/diff/", {"old": bundle.pk, "new": bundle.pk, "new_grader_provider": "judge"})
    assert refused.status_code == 400 and "unknown grader provider" in refused.content.decode()


def test_a_diff_names_each_sides_settings_in_words_not_as_a_python_dict(client, db):
    bundle, page = own_agent_under_two_settings(client, input_format="agentv", new_grader_provider="agentv")
    assert (
        "Old: <code>input_format=agentv</code> · "
        "New: <code>input_format=agentv</code>, <code>grader_provider=agentv</code> ·"
    ) in page
    assert "{&#x27;" not in page
    # "Read as" is on the form, so a file auto reads as promptfoo's can be compared as agentv's.
    for side in ("old", "new"):
        select = page[page.index(f'<select name="{side}_input_format"') :]
        assert select.index('<option value="agentv" selected>') < select.index("</select>")
    plain = client.get("/diff/", {"old": bundle.pk, "new": bundle.pk}).content.decode()
    assert "Old: default settings · New: default settings ·" in plain


def test_links_into_a_diff_keep_the_pages_settings_and_a_shared_one_applies_to_both_sides(client, db):
    parent, _ = store_bundle({"evals/suite.yaml": OWN_AGENT}, title="own agent")
    child, _ = store_bundle(
        {"evals/suite.yaml": OWN_AGENT.replace(b"Is short", b"Is very short")}, parent=parent
    )
    settings = {"grader_provider": "agentv", "gambit_message": "hi"}
    bundle_panel = client.get(
        f"/b/{child.pk}/review/progress/", settings, HTTP_HX_REQUEST="true"
    ).content.decode()
    diff_page = client.get(href(bundle_panel, "diff-parent")).content.decode()
    assert "1 changed" in diff_page and '<input type="hidden" name="gambit_message" value="hi">' in diff_page
    case_link = unescape(re.search(r'href="([^"]+)" class="case-diff-link">docs', diff_page).group(1))
    assert "asks agentv</span>" in client.get(case_link).content.decode()
    compare_form = client.get(href(bundle_panel, "diff-other")).content.decode()
    assert compare_form.count('<option value="agentv" selected>') == 2
    case_panel = client.get(
        f"/b/{child.pk}/review/panel/",
        {"document": "evals/suite.yaml", "case_id": "docs", **settings},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    case_page = client.get(href(case_panel, "case-diff-parent")).content.decode()
    # Both sides asked agentv's own agent, the rubric's words changed.
    assert "Judge llm-rubric" in case_page and "asks agentv</span>" in case_page
    assert "Is<ins> very</ins> short" in case_page and "evals/suite.yaml line 13</code> changed" in case_page


def test_the_source_page_takes_line_comments_and_lists_them_with_their_cases(client, suite):
    bundle, _ = suite
    source = f"/b/{bundle.pk}/source/evals/rules.instructions.md"
    page = client.get(source).content.decode()
    assert f'hx-get="/b/{bundle.pk}/review/panel/?file=evals/rules.instructions.md"' in page
    file_panel = f"/b/{bundle.pk}/review/panel/?file=evals%2Frules.instructions.md"
    page = client.get(file_panel, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="review-panel"' in page and 'name="start_line"' in page
    response = client.post(
        f"/b/{bundle.pk}/review/",
        {
            "file": "evals/rules.instructions.md",
            "action": "thread",
            "kind": "line",
            "path": "evals/rules.instructions.md",
            "start_line": "4",
            "end_line": "4",
            "body": "Which line?",
        },
    )
    assert response.status_code == 302 and response["Location"] == file_panel
    page = client.get(file_panel).content.decode()
    assert "Which line?" in page and "2 cases" in page
    htmx = client.post(
        f"/b/{bundle.pk}/review/",
        {
            "file": "evals/rules.instructions.md",
            "action": "thread",
            "kind": "line",
            "path": "evals/rules.instructions.md",
            "start_line": "99",
            "body": "x",
        },
        HTTP_HX_REQUEST="true",
    )
    assert htmx.status_code == 400 and "has no lines 99" in htmx.content.decode()


def test_review_panels_of_unknown_cases_files_and_bundles_are_404(client, suite):
    bundle, _ = suite
    assert (
        client.get(
            f"/b/{bundle.pk}/review/panel/", {"document": "evals/suite.yaml", "case_id": "nope"}
        ).status_code
        == 404
    )
    assert client.get(f"/b/{bundle.pk}/review/panel/", {"file": "nope.md"}).status_code == 404
    assert client.get("/b/nope/review/progress/").status_code == 404
    assert client.get(f"/b/{bundle.pk}/review/progress/", {"profile": "x"}).status_code == 400
