"""The bundle page's ledger panel and the case page's cached-prefix band."""

from __future__ import annotations

import re

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from inspector.core import prices
from inspector.core.promptfoo.graders import DEFAULT_GRADING_MODEL
from tests.core.test_ledger_as_configured import CONFIG as PROMPTFOO_CONFIG

POLICY = "".join(
    f"Rule {number}: answer carefully and cite the source of every claim.\n" for number in range(200)
)


def _case(name: str, prompt: str) -> str:
    return (
        f"  - id: {name}\n    criteria: ok\n    input:\n      - role: system\n        content:\n"
        f"          - type: file\n            value: ../prompts/{prompt}\n"
        f"      - role: user\n        content: Question {name}\n"
    )


def lazy(client, page: str, slot: str) -> str:
    """What the page loads into its `slot` after it arrives (htmx, hx-trigger="load")."""
    url = re.search(rf'id="{slot}"[^>]*hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    return client.get(url, headers={"HX-Request": "true"}).content.decode()


def ledger(client, bundle, params=None) -> str:
    page = client.get(f"/b/{bundle.pk}/", params or {}).content.decode()
    return lazy(client, page, "ledger-slot")


@pytest.fixture
def suite(db):
    files = {
        "evals/suite.yaml": "tests:\n"
        + _case("a", "policy.md")
        + _case("b", "policy.md")
        + _case("c", "policy.md")
        + _case("d", "short.md"),
        "prompts/policy.md": POLICY,
        "prompts/short.md": "Be brief.\n",
    }
    bundle, _ = store_bundle({path: text.encode() for path, text in files.items()})
    return bundle


def test_the_bundle_page_shows_the_ledger_with_prices_and_their_date(client, suite):
    page = ledger(client, suite)
    assert 'id="ledger"' in page
    assert f'<span id="prices-as-of">{prices.prices_as_of()}</span>' in page
    assert "gpt-5.4-mini: input $0.75" in page  # the default OpenAI model, priced by genai-prices
    files = re.findall(r'<tr class="ledger-file"><td><a href="[^"]*">([^<]+)</a>', page)
    assert files[0] == "prompts/policy.md"  # the costliest first
    assert '<svg class="ledger-chart"' in page and "<script" not in page.split('id="ledger"')[1]


def test_the_file_table_sorts_by_the_column_asked_for(client, suite):
    page = ledger(client, suite, {"ledger_sort": "path"})
    files = re.findall(r'<tr class="ledger-file"><td><a href="[^"]*">([^<]+)</a>', page)
    assert files == sorted(files)
    assert 'aria-sort="ascending"' in page


def test_the_panel_names_where_a_case_leaves_the_cached_prefix(client, suite):
    page = ledger(client, suite, {"provider": "anthropic", "max_output_tokens": "100"})
    breaks = page.split('id="ledger-breaks"')[1].split("</table>")[0]
    assert ">d</a>" in breaks and "evals/suite.yaml:" in breaks
    assert 'id="ledger-cost-cached"' in page
    assert "estimate" in page  # no local Claude tokenizer


def test_an_unknown_model_shows_a_problem_not_an_error(client, suite):
    response = client.get(f"/b/{suite.pk}/", {"model": "no-such-model"})
    assert response.status_code == 200
    assert "no price for model &#x27;no-such-model&#x27;" in lazy(
        client, response.content.decode(), "ledger-slot"
    )


def test_the_case_page_marks_the_cached_prefix(client, suite):
    url = addresses.case_url(suite.pk, "evals/suite.yaml", "b")
    page = client.get(url).content.decode()
    band = lazy(client, page, "cache-band-slot")
    assert "3 of 4" in band and "cached in a suite run" in band
    assert 'data-cached-messages="0,1"' in band  # app.js marks those cards when the band arrives
    assert "prompts/policy.md" in band  # tokens rolled up per file


def test_a_case_outside_the_group_says_where_it_leaves_it(client, suite):
    page = client.get(addresses.case_url(suite.pk, "evals/suite.yaml", "d")).content.decode()
    band = lazy(client, page, "cache-band-slot")
    assert "leaves the prefix" in band and "evals/suite.yaml:" in band
    assert 'data-cached-messages=""' in band


def test_the_anthropic_export_panel_places_breakpoints_when_asked(client, suite):
    url = addresses.case_url(suite.pk, "evals/suite.yaml", "b")
    page = client.get(url, {"provider": "anthropic", "cache_breakpoints": "1"}).content.decode()
    assert "data-cache-breakpoints checked" in page
    assert "cache_control breakpoint after the system prompt" in page
    assert "&quot;cache_control&quot;" in page or '"cache_control"' in page
    plain = client.get(url, {"provider": "anthropic"}).content.decode()
    assert "cache_control breakpoint after" not in plain and "data-cache-breakpoints>" in plain


@pytest.mark.browser
def test_the_band_arrives_after_the_page_and_marks_the_cached_messages(browser, live_server, suite):
    page = browser.new_page(base_url=live_server.url)
    page.set_default_timeout(15_000)
    page.goto(addresses.case_url(suite.pk, "evals/suite.yaml", "b"))
    page.wait_for_selector("#cache-band.cache-band")
    assert page.locator("#m0.cached-prefix").count() == 1
    assert "(OpenAI Chat)" in page.inner_text("#cache-band")
    page.select_option("#provider", "anthropic")  # the band follows the export's provider
    page.wait_for_selector("#cache-band >> text=Prompt cache (Anthropic)")
    page.goto(f"/b/{suite.pk}/")
    page.wait_for_selector("#ledger")
    page.close()


@pytest.fixture
def promptfoo_bundle(db):
    files = {
        "promptfooconfig.yaml": PROMPTFOO_CONFIG,
        "questions.csv": "question\nWhat is 2+2?\nWho wrote Hamlet?\n",
    }
    bundle, _ = store_bundle({path: text.encode() for path, text in files.items()})
    return bundle


def test_the_panel_prices_each_model_as_configured_with_the_judges_on_their_own_line(
    client, promptfoo_bundle
):
    page = ledger(client, promptfoo_bundle, {"max_output_tokens": "100"})
    judges = re.search(r'id="ledger-judges">(.*?)</p>', page, re.S).group(1)
    assert "<strong>4</strong> judge requests" in judges
    models = re.search(r'id="ledger-models".*?</table>', page, re.S).group(0)
    rows = re.findall(r"<tr title=[^>]*><td>([^<]+)</td>", models)
    assert sorted(rows) == sorted(
        ["OpenAI Chat gpt-4.1-mini", "Anthropic claude-sonnet-4-5", f"OpenAI Chat {DEFAULT_GRADING_MODEL}"]
    )
    assert "Each case priced at the model its input names." in page
    assert 'value="configured" selected' in page


def test_the_panel_says_how_many_cases_fall_back_and_prices_all_at_a_picked_provider(client, suite):
    page = ledger(client, suite)
    assert "<strong>4</strong> of 4 name none and are priced at OpenAI Chat gpt-5.4-mini." in page
    assert 'id="ledger-models"' not in page  # one model: no subtotals
    picked = ledger(client, suite, {"pricing": "picked", "provider": "anthropic"})
    assert 'value="picked" selected' in picked and 'id="ledger-configured"' not in picked
    assert "<strong>4</strong> judge requests" in picked
