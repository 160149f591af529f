"""A bundle page of a large file shows its cases in pages of 200, and the filter searches every
case on the server; small bundles keep the instant filter in the page."""

import re

import pytest

from inspector.ingest import store_bundle
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
    assert "Cases 1–200 of 450" in page and "<h1>453 cases</h1>" in page
    assert "data-search" not in page  # paged: the server filters
    next_url = re.search(r'class="pager-next"[^>]*hx-get="([^"]+)"', page) or re.search(
        r'href="([^"]+)" class="pager-next"', page)
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
    response = client.get(f"/b/{big.pk}/?q=case-0001", headers={"HX-Request": "true",
                                                                "HX-Target": "case-sections"})
    text = response.content.decode()
    assert text.lstrip().startswith('<div id="case-sections">') and "<html" not in text


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
