"""The judge's prompts, a script grader's note and the model's earlier reasoning (thinking) in a real
Chromium, at desktop and 390 px: on the case page under the strict CSP, and in the one-file offline
copy, which shows them the way the case page does."""

import json

import pytest
from django.core.cache import cache

from inspector.bundles import offline
from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from inspector.core.bundle import MemoryBundle
from inspector.core.documents import give_cases_distinct_ids, list_documents, render_document
from tests.core.test_provider_own_blocks import ANTHROPIC
from tests.web.conftest import SCREENSHOTS

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SUITE = b"""tests:
  - id: refund
    criteria: Explains the refund policy and offers the next step
    input: Can I get a refund for an order from last month?
    expected_output: Yes, within 60 days; here is how to start it.
    assertions:
      - type: llm-grader
        name: policy
        prompt: file://graders/policy.md
      - type: llm-grader
        name: depth
        rubrics:
          - id: accuracy
            outcome: States the 60-day window
            min_score: 0.7
            score_ranges: {0: Wrong or missing, 5: Vague, 8: Exact}
      - type: code-grader
        name: format
        command: [python3, scripts/check_format.py]
      - type: contains
        value: "60 days"
"""
FILES = {
    "evals/refund.yaml": SUITE,
    "evals/graders/policy.md": b"Grade the answer below against the policy.\n\nQuestion: {{ input }}\n"
    b"Answer: {{ output }}\nExpected: {{ expected_output }}\n",
    "evals/scripts/check_format.py": b"import json, sys\nprint(json.dumps({'score': 1}))\n",
    "requests/thinking.json": json.dumps(ANTHROPIC, indent=2).encode(),
}


@pytest.fixture
def bundle(transactional_db):
    cache.clear()
    found, _ = store_bundle(FILES, title="judges")
    return found


def _painted(page) -> None:
    """Two frames after a scroll: cards off screen skip rendering (content-visibility: auto)
    until then, and a screenshot taken sooner shows them empty."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def _no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_the_judges_prompts_and_a_script_graders_note_on_the_case_page(page, bundle, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(addresses.case_url(bundle.pk, "evals/refund.yaml", "refund"))
    graders = page.locator("#graders")
    graders.wait_for()
    names = graders.locator("details.grader > summary strong").all_inner_texts()
    assert names == ["policy", "depth", "format", "contains"]
    policy = graders.locator("details.grader").nth(0)
    assert policy.locator(".msg").count() == 2  # the system prompt and the filled template
    assert "Question: Can I get a refund" in policy.locator(".msg").nth(1).text_content()
    depth = graders.locator("details.grader").nth(1).locator(".msg").nth(1).text_content()
    assert "### Criterion: accuracy [REQUIRED: min score 0.7]" in depth
    assert "  - Score 8-10: Exact" in depth
    script = graders.locator("details.grader").nth(2)
    assert script.locator(".msg").count() == 0
    note = script.locator(".grader-note")
    assert note.is_visible()
    assert note.inner_text().startswith("Runs `python3 scripts/check_format.py` on the answer")
    assert (
        graders.locator("details.grader")
        .nth(3)
        .locator(".grader-note")
        .inner_text()
        .startswith("Checks that the answer contains `60 days`.")
    )
    _no_sideways_scroll(page)
    for _ in range(2):  # once more after the cards above it took their real height
        script.scroll_into_view_if_needed()
        _painted(page)
    page.screenshot(path=str(SCREENSHOTS / ("judge-prompts-390.png" if viewport else "judge-prompts.png")))
    assert page.csp_errors == []


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "390px"])
def test_thinking_is_a_labelled_segment_beside_the_text(page, bundle, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(addresses.case_url(bundle.pk, "requests/thinking.json", "thinking"))
    thinking = page.locator("#rendered .seg.thinking").first
    thinking.wait_for()
    assert thinking.locator(".thinking-label").inner_text().lower() == "thinking"
    assert "I should look." in thinking.inner_text()
    for _ in range(2):
        thinking.scroll_into_view_if_needed()
        _painted(page)
    _no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / ("thinking-390.png" if viewport else "thinking.png")))
    assert page.csp_errors == []


def test_the_offline_copy_shows_graders_and_thinking_as_the_case_page_does(page, tmp_path):
    files = MemoryBundle(FILES)
    documents = offline.render_all(
        lambda path: give_cases_distinct_ids(render_document(files, path, None)), list_documents(files)
    )
    path = tmp_path / "copy.html"
    path.write_text(
        offline.offline_html(offline.offline_data("judges", offline.text_files(files), documents))
    )
    page.goto(path.as_uri())
    page.wait_for_selector(".msg")
    cases = page.locator("#offline-case option").all_inner_texts()
    page.select_option("#offline-case", str(next(i for i, name in enumerate(cases) if "refund" in name)))
    graders = page.locator("#graders")
    graders.wait_for()
    assert graders.locator("details.grader > summary strong").all_inner_texts() == [
        "policy",
        "depth",
        "format",
        "contains",
    ]
    assert graders.locator("details.grader").nth(0).locator(".msg").count() == 2
    assert (
        graders.locator("details.grader")
        .nth(2)
        .locator(".grader-note")
        .inner_text()
        .startswith("Runs `python3 scripts/check_format.py`")
    )
    page.select_option("#offline-case", str(next(i for i, name in enumerate(cases) if "thinking" in name)))
    thinking = page.locator(".seg.thinking").first
    thinking.wait_for()
    assert thinking.locator(".thinking-label").inner_text().lower() == "thinking"
    assert "I should look." in thinking.inner_text()
