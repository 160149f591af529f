"""A conversation of thousands of messages: the page carries its first messages and loads the rest
as the reader scrolls (a plain link shows them all without JavaScript); a request of megabytes is
shown by its start, and Download saves all of it."""

import re

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.cases.message_cards import FIRST_MESSAGES, MESSAGE_CHUNK
from tests.web.conftest import SCREENSHOTS

MESSAGES = 450


def conversation(messages: int) -> bytes:
    lines = ["evalcases:", "  - id: long", "    outcome: ok", "    input_messages:"]
    for index in range(messages):
        role = "user" if index % 2 == 0 else "assistant"
        lines += [f"      - role: {role}", f'        content: "message number {index} {"x" * 300}"']
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def long_case(db):
    bundle, _ = store_bundle({"long.yaml": conversation(MESSAGES)}, title="long")
    return bundle, case_url(bundle.pk, "long.yaml", "long")


def cards(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<article class="msg[^"]*" id="m(\d+)"', html)]


def test_the_page_carries_the_first_messages_and_a_way_to_the_rest(client, long_case):
    _, url = long_case
    page = client.get(url).content.decode()
    assert cards(page) == list(range(FIRST_MESSAGES))
    assert f'hx-get="{url}messages/?from={FIRST_MESSAGES}"' in page
    assert f"Messages {FIRST_MESSAGES + 1}–{MESSAGES} of {MESSAGES}: show them all" in page
    assert f"<strong>{MESSAGES}</strong> messages sent" in page  # the totals count every message


def test_each_chunk_loads_the_next_and_points_past_itself(client, long_case):
    _, url = long_case
    chunk = client.get(f"{url}messages/?from={FIRST_MESSAGES}").content.decode()
    assert cards(chunk) == list(range(FIRST_MESSAGES, FIRST_MESSAGES + MESSAGE_CHUNK))
    assert f"messages/?from={FIRST_MESSAGES + MESSAGE_CHUNK}" in chunk and "<html" not in chunk
    last = client.get(f"{url}messages/?from={FIRST_MESSAGES + MESSAGE_CHUNK}").content.decode()
    assert cards(last) == list(range(FIRST_MESSAGES + MESSAGE_CHUNK, MESSAGES))
    assert "more-messages" not in last


def test_without_javascript_one_link_shows_every_message(client, long_case):
    _, url = long_case
    assert cards(client.get(url + "?all_messages=1").content.decode()) == list(range(MESSAGES))


def test_a_large_request_is_shown_by_its_start_and_downloads_whole(client, db):
    bundle, _ = store_bundle({"long.yaml": conversation(800)}, title="long")
    url = case_url(bundle.pk, "long.yaml", "long")
    page = client.get(url).content.decode()
    assert 'id="export-truncated"' in page and 'id="copy-payload"' not in page
    download = client.get(url + "export/?download=1")
    assert download.status_code == 200 and b"message number 799" in download.content


@pytest.mark.browser
def test_scrolling_down_loads_the_rest_of_the_conversation(browser, live_server, long_case):
    _, url = long_case
    page = browser.new_page(viewport={"width": 1280, "height": 800}, base_url=live_server.url)
    page.set_default_timeout(15_000)
    page.goto(url)
    assert page.locator("#rendered article.msg").count() == FIRST_MESSAGES
    for _ in range(100):  # a generous bound for a busy machine; it stops as soon as all are in
        page.locator("#rendered article.msg").last.scroll_into_view_if_needed()
        page.mouse.wheel(0, 4000)
        if page.locator("#rendered article.msg").count() == MESSAGES:
            break
        page.wait_for_timeout(300)
    assert page.locator("#rendered article.msg").count() == MESSAGES
    page.screenshot(path=str(SCREENSHOTS / "long-conversation.png"))
    page.close()
