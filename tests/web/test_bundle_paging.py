"""A bundle page of a large file shows its cases in pages of 200, and the filter searches every
case on the server; small bundles keep the instant filter in the page."""

import re
from html import unescape

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.review.models import Verdict
from tests.web.conftest import SCREENSHOTS


def suite(cases: int) -> bytes:
    lines = ["tests:"]
    for index in range(cases):
        lines += [f"  - id: case-{index:04d}", f"    input: Question {index} about topic-{index % 7}"]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def big(db):
    bundle, _ = store_bundle({"evals/big.yaml": suite(450), "evals/small.yaml": suite(3)}, title="big")
    return bundle


def rows(html: str) -> list[str]:
    return re.findall(r'class="case-link">([^<]+)<', html)


def test_a_large_file_shows_its_first_200_cases_and_links_the_next_page(client, big):
    page = client.get(f"/b/{big.pk}/").content.decode()
    big_rows = [row for row in rows(page) if row.startswith("case-0")]
    assert len(big_rows) == 200 + 3  # the small file's three come first or last, whole
    assert "Cases 1–200 of 450" in page and 'data-total="453">453 cases</h1>' in page
    assert "data-search" not in page  # paged: the server filters
    next_url = re.search(r'class="pager-next"[^>]*hx-get="([^"]+)"', page) or re.search(
        r'href="([^"]+)" class="pager-next"', page
    )
    second = client.get(f"/b/{big.pk}/" + next_url.group(1).replace("&amp;", "&").split("#")[0])
    text = second.content.decode()
    assert "Cases 201–400 of 450" in text
    assert [row for row in rows(text) if row.startswith("case-0")][0] == "case-0200"
    assert "case-0199" not in rows(text)


def test_the_filter_finds_a_case_beyond_the_first_page(client, big):
    page = client.get(f"/b/{big.pk}/?q=case-0449").content.decode()
    assert "case-0449" in rows(page) and len(rows(page)) == 1
    assert "1 case matches “case-0449”" in page
    words = client.get(f"/b/{big.pk}/?q=topic-3 question").content.decode()
    assert len(rows(words)) == 64  # every seventh of 450 is topic-3; none in the small file
    none = client.get(f"/b/{big.pk}/?q=nothing-like-this").content.decode()
    assert 'id="no-match" hidden' not in none and "No file in this bundle" not in none


def test_htmx_gets_only_the_sections(client, big):
    response = client.get(
        f"/b/{big.pk}/?q=case-0001", headers={"HX-Request": "true", "HX-Target": "case-sections"}
    )
    text = response.content.decode()
    assert text.lstrip().startswith('<div id="case-sections" data-matching=') and "<html" not in text


def test_a_small_bundle_keeps_the_instant_filter(client, db):
    bundle, _ = store_bundle({"evals/small.yaml": suite(3)}, title="small")
    page = client.get(f"/b/{bundle.pk}/").content.decode()
    assert page.count("data-search=") == 3 and "data-server-filter" not in page


def test_a_page_past_the_end_shows_the_last_page(client, big):
    page = client.get(f"/b/{big.pk}/?doc=evals/big.yaml&offset=99999").content.decode()
    assert "Cases 401–450 of 450" in page


@pytest.mark.browser
def test_typing_in_the_filter_of_a_paged_bundle_asks_the_server(browser, live_server, big):
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 800}, base_url=live_server.url)
        page.set_default_timeout(15_000)
        page.goto(f"/b/{big.pk}/")
        assert page.locator(".case-row").count() == 203
        page.fill("#case-filter", "case-0449")
        page.wait_for_selector("#match-count")
        assert page.locator(".case-row").count() == 1
        assert "q=case-0449" in page.url
        if width == 390:
            page.screenshot(path=str(SCREENSHOTS / "bundle-filter-390.png"))
        page.fill("#case-filter", "")
        page.wait_for_selector("#case-sections:not(:has(#match-count))")
        assert page.locator(".case-row").count() == 203
        page.click(".pager-next")
        page.wait_for_selector("text=Cases 201–400 of 450")
        assert "offset=200" in page.url
        page.close()


def mark(client, bundle, case_id, verdict):
    """A verdict as the case page's form sends it (without JavaScript)."""
    answer = client.post(
        f"/b/{bundle.pk}/review/",
        {"action": "verdict", "document": "evals/big.yaml", "case_id": case_id, "verdict": verdict},
    )
    assert answer.status_code == 302


@pytest.fixture
def reviewed(client, big):
    mark(client, big, "case-0300", "changes")
    mark(client, big, "case-0449", "changes")
    mark(client, big, "case-0005", "ok")
    return big


def test_the_verdict_filter_finds_cases_on_every_page_of_a_paged_file(client, reviewed):
    changes = client.get(f"/b/{reviewed.pk}/?verdict=changes").content.decode()
    assert rows(changes) == ["case-0300", "case-0449"]
    assert "2 cases marked needs changes." in changes
    assert 'id="doc-evals-small-yaml"' not in changes  # a file with no such case is left out
    assert 'id="doc-evals-small-yaml"' in client.get(f"/b/{reviewed.pk}/").content.decode()
    assert rows(client.get(f"/b/{reviewed.pk}/?verdict=ok").content.decode()) == ["case-0005"]
    unreviewed = client.get(f"/b/{reviewed.pk}/?verdict=none").content.decode()
    assert "Cases 1–200 of 447 matching" in unreviewed and "case-0005" not in rows(unreviewed)
    assert "450 cases not reviewed." in unreviewed  # the small file's three are not reviewed either


def test_the_verdict_filter_combines_with_the_text_filter_sort_and_pages(client, reviewed):
    both = client.get(f"/b/{reviewed.pk}/?verdict=changes&q=topic-6").content.decode()
    assert rows(both) == ["case-0300"]  # 300 is topic-6, 449 is topic-1
    assert "1 case matches “topic-6”, marked needs changes." in both
    first = client.get(f"/b/{reviewed.pk}/?verdict=none&sort=warnings").content.decode()
    next_url = unescape(re.search(r'href="([^"]+)" class="pager-next"', first).group(1)).split("#")[0]
    assert "verdict=none" in next_url and "sort=warnings" in next_url
    last = client.get(f"/b/{reviewed.pk}/" + next_url).content.decode()
    assert "Cases 201–400 of 447 matching" in last
    end = client.get(f"/b/{reviewed.pk}/?verdict=none&doc=evals/big.yaml&offset=400").content.decode()
    assert "Cases 401–447 of 447 matching" in end and "case-0449" not in rows(end)
    # Sorting starts from the first page and keeps the filters.
    sort_url = unescape(re.search(r'href="([^"]+)" class="sort-link" id="sort-tokens', end).group(1))
    assert "verdict=none" in sort_url and "offset" not in sort_url


def test_a_filtered_page_follows_new_verdicts_and_unfiltered_pages_stay_cached(client, reviewed):
    plain = client.get(f"/b/{reviewed.pk}/")["ETag"]
    assert rows(client.get(f"/b/{reviewed.pk}/?verdict=changes").content.decode()) == [
        "case-0300",
        "case-0449",
    ]
    mark(client, reviewed, "case-0100", "changes")
    mark(client, reviewed, "case-0300", "")  # a verdict taken back
    filtered = client.get(f"/b/{reviewed.pk}/?verdict=changes")
    assert rows(filtered.content.decode()) == ["case-0100", "case-0449"]
    mark(client, reviewed, "case-0100", "ok")  # a verdict changed
    assert rows(client.get(f"/b/{reviewed.pk}/?verdict=changes").content.decode()) == ["case-0449"]
    again = client.get(f"/b/{reviewed.pk}/?verdict=changes", HTTP_IF_NONE_MATCH=filtered["ETag"])
    assert again.status_code == 200
    # The unfiltered page shows no review state, so verdicts leave its cached copy alone.
    assert client.get(f"/b/{reviewed.pk}/", HTTP_IF_NONE_MATCH=plain).status_code == 304
    # Nor does a note change the filtered list.
    current = client.get(f"/b/{reviewed.pk}/?verdict=changes")["ETag"]
    client.post(
        f"/b/{reviewed.pk}/review/",
        {
            "action": "verdict",
            "document": "evals/big.yaml",
            "case_id": "case-0449",
            "verdict": "changes",
            "note": "Typo",
        },
    )
    assert client.get(f"/b/{reviewed.pk}/?verdict=changes", HTTP_IF_NONE_MATCH=current).status_code == 304


def test_the_verdict_filter_is_a_form_field_that_works_without_javascript(client, reviewed):
    page = client.get(f"/b/{reviewed.pk}/?verdict=ok&sort=tokens").content.decode()
    form = re.search(r'<form method="get"[^>]*id="case-filter-form">.*?</form>', page, re.S).group(0)
    assert '<option value="ok" selected>' in form and 'name="verdict"' in form
    assert 'id="apply-filter"' in form  # a submit button for browsers without JavaScript
    assert 'type="hidden" name="sort" value="tokens"' in form
    assert 'type="hidden" name="verdict"' not in form  # the select sends it once


def test_htmx_gets_only_the_filtered_sections_and_a_bad_verdict_filters_nothing(client, reviewed):
    response = client.get(
        f"/b/{reviewed.pk}/?verdict=changes", headers={"HX-Request": "true", "HX-Target": "case-sections"}
    )
    text = response.content.decode()
    assert text.lstrip().startswith('<div id="case-sections" data-matching="2">') and rows(text) == [
        "case-0300",
        "case-0449",
    ]
    bad = client.get(f"/b/{reviewed.pk}/?verdict=maybe").content.decode()
    assert "Cases 1–200 of 450" in bad and 'id="match-count"' not in bad


@pytest.mark.browser
def test_the_verdict_filter_of_a_450_case_file_asks_the_server_with_and_without_javascript(
    browser, live_server, big
):
    for case_id, verdict in (("case-0300", "changes"), ("case-0449", "changes"), ("case-0005", "ok")):
        Verdict.objects.create(
            bundle=big,
            document="evals/big.yaml",
            case_id=case_id,
            verdict=verdict,
            author="Ana",
            author_key_hash="",
        )
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 800}, base_url=live_server.url)
        page.set_default_timeout(15_000)
        page.goto(f"/b/{big.pk}/")
        page.wait_for_selector(".case-row[data-verdict]")  # the progress panel has marked the rows
        page.select_option("#verdict-filter", "changes")
        page.wait_for_selector("text=2 cases marked needs changes.")
        assert page.locator(".case-link").all_inner_texts() == ["case-0300", "case-0449"]
        assert "verdict=changes" in page.url
        page.wait_for_selector(".case-row[data-verdict=changes] .verdict-changes")
        if width == 390:
            page.screenshot(path=str(SCREENSHOTS / "bundle-verdict-filter-390.png"))
        page.fill("#case-filter", "topic-6")
        page.wait_for_selector("text=1 case matches “topic-6”, marked needs changes.")
        assert page.locator(".case-link").all_inner_texts() == ["case-0300"]
        page.fill("#case-filter", "")
        page.wait_for_selector("text=2 cases marked needs changes.")  # before the next request
        page.select_option("#verdict-filter", "none")
        page.wait_for_selector("text=Cases 1–200 of 447 matching")
        page.click("#doc-evals-big-yaml .pager-next")
        page.wait_for_selector("text=Cases 201–400 of 447 matching")
        assert "verdict=none" in page.url and "offset=200" in page.url
        page.close()
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    page = context.new_page()
    page.goto(f"/b/{big.pk}/")
    page.select_option("#verdict-filter", "changes")
    page.click("#apply-filter")
    page.wait_for_url("**verdict=changes**")
    assert page.locator(".case-link").all_inner_texts() == ["case-0300", "case-0449"]
    context.close()


def test_the_needs_changes_list_links_the_filtered_list_with_the_page_settings(client, reviewed):
    panel = client.get(
        f"/b/{reviewed.pk}/review/progress/?profile=agentv-4&provider=anthropic", HTTP_HX_REQUEST="true"
    ).content.decode()
    link = unescape(re.search(r'<a href="([^"]+)" id="show-needs-changes">', panel).group(1))
    assert link.startswith(f"/b/{reviewed.pk}/?") and "verdict=changes" in link
    assert "profile=agentv-4" in link and "provider=anthropic" in link
    assert rows(client.get(link).content.decode()) == ["case-0300", "case-0449"]
