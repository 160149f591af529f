"""The bundle page at 390 px with the deep paths agentv's example folders have: a file's heading
wraps instead of widening the page."""

import pytest

from inspector.bundles.ingest import store_bundle

pytestmark = pytest.mark.browser

SUITE = b"prompts:\n  - '{{ input }}'\ntests:\n  - id: a\n    vars:\n      input: Hi\n"


def test_a_long_file_path_wraps_on_a_phone(page, transactional_db):
    path = "examples/features/externaldatasets/evals/scenarios/translationmatrix.eval.yaml"  # no hyphen to break at
    bundle, _ = store_bundle({path: SUITE}, title="deep paths")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/b/{bundle.pk}/")
    page.wait_for_load_state("networkidle")  # the ledger panel arrives after the page
    heading = page.locator(".doc-path", has_text="translationmatrix")
    assert heading.is_visible()
    assert heading.bounding_box()["x"] + heading.bounding_box()["width"] <= 390
    wide = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 390)"
        ".map(e => e.tagName + '.' + e.className)"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, wide[:10]
