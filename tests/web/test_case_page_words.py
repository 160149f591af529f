"""What the case and bundle pages say, checked with Django's client: the notices are true and said
once, the legend names only the origins the case uses, the counts name their tokenizer, long
messages collapse without JavaScript, tools and response formats have their own panel, and the
bundle table sorts by tokens and warnings across every row of a paged file."""

import json
import re

import pytest
from django.core.cache import cache

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from inspector.views import bundle as bundle_view

SKIPPED = b"""tests:
  - id: ok
    criteria: Says hi.
    input: Hello
  - id: half
    input: Hello
"""


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()


def page(client, bundle, document, case_id, query=""):
    response = client.get(addresses.case_url(bundle.pk, document, case_id, query))
    assert response.status_code == 200
    return response.content.decode()


def test_a_skipped_case_says_so_once(client, db):
    bundle, _ = store_bundle({"evals/a.yaml": SKIPPED}, title="t")
    html = page(client, bundle, "evals/a.yaml", "half")
    assert html.count("Skipping incomplete test: half") == 1


def test_changes_do_not_say_none_beside_a_lint_that_the_request_fails(client, db):
    request = {"messages": [{"role": "assistant", "content": "Hi"}]}
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="t")
    html = page(client, bundle, "request.json", "request", "provider=anthropic")
    assert "the first message must be a user message" in html
    changes = re.search(r'<ul class="notes changes">(.*?)</ul>', html, re.S).group(1)
    assert "map one to one" not in changes
    assert "Anthropic would reject this request" in changes


def test_without_lints_no_changes_means_one_to_one(client, db):
    request = {"messages": [{"role": "user", "content": "Hi"}]}
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="t")
    html = page(client, bundle, "request.json", "request")
    assert "None: the messages map one to one." in html


def test_a_part_the_inspector_cannot_show_is_named_with_the_right_article(client, db):
    # Images are content now; audio is still a part the inspector only marks.
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                ],
            }
        ]
    }
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="t")
    html = page(client, bundle, "request.json", "request")
    assert "a input_audio" not in html
    assert "the input_audio content part is not text" in html


def legend(html):
    block = re.search(r'<ul class="legend".*?</ul>', html, re.S).group(0)
    return re.findall(r"swatch k-([a-z]+)", block)


def test_the_legend_lists_only_the_origins_the_case_uses(client, tiny):
    bundle, _ = tiny
    assert legend(page(client, bundle, "evals/tiny.yaml", "first")) == [
        "case",
        "guideline",
        "marker",
        "separator",
    ]
    assert legend(page(client, bundle, "evals/tiny.yaml", "chat")) == ["case"]


def test_the_counts_name_their_tokenizer(client, tiny):
    bundle, _ = tiny
    assert "(counted with o200k_base)" in page(client, bundle, "evals/tiny.yaml", "first")
    estimate = page(client, bundle, "evals/tiny.yaml", "first", "provider=gemini")
    assert "estimated with o200k_base: this provider publishes no local tokenizer" in estimate


LONG = "\n".join(f"Rule {n}: answer carefully." for n in range(1, 81))


def test_a_long_message_collapses_with_a_control_that_needs_no_javascript(client, db):
    request = {"messages": [{"role": "system", "content": LONG}, {"role": "user", "content": "Short."}]}
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="t")
    html = page(client, bundle, "request.json", "request")
    long_card = re.search(r'<article [^>]*id="m0".*?</article>', html, re.S).group(0)
    short_card = re.search(r'<article [^>]*id="m1".*?</article>', html, re.S).group(0)
    # A checkbox and its label: CSS shows the rest, and the whole text is in the page to read.
    assert '<input type="checkbox" class="expand-toggle" id="expand-m0"' in long_card
    assert '<label class="expand-label" for="expand-m0">' in long_card
    assert "Show all 80 lines" in long_card
    assert "Rule 80: answer carefully." in long_card
    assert "expand-toggle" not in short_card


def test_tools_and_the_response_format_have_a_panel_of_their_own(client, db):
    request = {
        "messages": [{"role": "user", "content": "Weather in Lisbon?"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_forecast",
                    "description": "The forecast for a city.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "answer",
                "strict": True,
                "schema": {"type": "object", "properties": {"umbrella": {"type": "boolean"}}},
            },
        },
    }
    bundle, _ = store_bundle({"request.json": json.dumps(request).encode()}, title="t")
    html = page(client, bundle, "request.json", "request")
    panel = re.search(r'<section class="panel tools-panel" id="tools".*?</section>', html, re.S).group(0)
    assert "get_forecast" in panel and "The forecast for a city." in panel
    assert "&quot;city&quot;" in panel  # the schema, indented
    assert 'id="response-format"' in panel and "answer" in panel and "umbrella" in panel


def test_a_case_without_tools_has_no_tools_panel(client, tiny):
    bundle, _ = tiny
    assert 'id="tools"' not in page(client, bundle, "evals/tiny.yaml", "first")


def many_cases(count: int) -> bytes:
    """Cases whose sizes come in a scrambled order, every seventh with a warning (a missing file)."""
    lines = ["evalcases:"]
    for n in range(count):
        words = " ".join(["word"] * ((n * 37) % count + 1))
        lines += [
            f"  - id: c{n}",
            "    outcome: ok",
            "    input_messages:",
            "      - role: user",
            "        content:",
            "          - type: text",
            f"            value: {words}",
        ]
        if n % 7 == 3:
            lines += ["          - type: file", "            value: missing.md"]
    return ("\n".join(lines) + "\n").encode()


def ids_on(html: str) -> list[str]:
    return re.findall(r'class="case-link">([^<]+)</a>', html)


def test_the_bundle_table_sorts_by_tokens_across_every_page(client, db, monkeypatch):
    monkeypatch.setattr(bundle_view, "PAGE_ROWS", 10)
    bundle, _ = store_bundle({"evals/many.yaml": many_cases(25)}, title="t")
    url = f"/b/{bundle.pk}/"
    first_page = client.get(url + "?sort=tokens").content.decode()
    assert 'aria-sort="descending"' in first_page
    # The largest case of the whole file comes first, not the largest of the file's first page.
    largest = max(range(25), key=lambda n: (n * 37) % 25)
    assert ids_on(first_page)[0] == f"c{largest}"
    tokens = [int(t) for t in re.findall(r'<td class="num tokens">(\d+)</td>', first_page)]
    assert tokens == sorted(tokens, reverse=True) and len(tokens) == 10
    # A row counts what the case page counts.
    case_page = page(client, bundle, "evals/many.yaml", f"c{largest}")
    assert f'<span id="total-tokens">{tokens[0]:,} tokens' in case_page
    # The pager keeps the sort.
    next_url = re.search(r'class="pager-next" href="([^"]+)"', first_page) or re.search(
        r'<a href="([^"]+)" class="pager-next"', first_page
    )
    second_page = client.get(url + next_url.group(1).replace("&amp;", "&").split("#")[0]).content.decode()
    later = [int(t) for t in re.findall(r'<td class="num tokens">(\d+)</td>', second_page)]
    assert max(later) <= min(tokens)
    # Back to the file's order.
    plain = client.get(url).content.decode()
    assert ids_on(plain)[:3] == ["c0", "c1", "c2"]


def test_the_bundle_table_sorts_by_warnings(client, db):
    bundle, _ = store_bundle({"evals/many.yaml": many_cases(12)}, title="t")
    html = client.get(f"/b/{bundle.pk}/?sort=warnings").content.decode()
    warned = [f"c{n}" for n in range(12) if n % 7 == 3]
    assert ids_on(html)[: len(warned)] == warned
    assert 'href="?sort=tokens#doc-evals-many-yaml"' in html
