"""A file a suite reads as its cases, on the bundle page and in the ledger (page and API)."""

from __future__ import annotations

import re

import pytest

from inspector.bundles.ingest import store_bundle
from tests.core.test_readers import EXTERNAL_DATASETS
from tests.web.test_ledger_pages import ledger


@pytest.fixture
def bundle(db):
    stored, _ = store_bundle({path: text.encode() for path, text in EXTERNAL_DATASETS.items()})
    return stored


def _sections(page: str) -> dict[str, str]:
    """Each document's section of the bundle page, by path, in the page's order."""
    parts = re.findall(r'<section class="document".*?</section>', page, re.S)
    return {re.search(r'<span class="doc-path">([^<]+)</span>', part).group(1): part for part in parts}


def test_a_read_file_is_shown_under_its_suite_with_its_own_cases_folded(client, bundle):
    page = client.get(f"/b/{bundle.pk}/").content.decode()
    sections = _sections(page)
    assert list(sections) == [
        "evals/smoke/suite.yaml",
        "evals/cases/accuracy.yaml",  # read by both suites: under the first
        "evals/suite.yaml",
        "evals/cases/regression.jsonl",
        "other/eval.yaml",
    ]
    accuracy = sections["evals/cases/accuracy.yaml"]
    assert "Read by evals/smoke/suite.yaml as its cases" in accuracy
    assert 'href="#doc-evals-smoke-suite-yaml" class="reader-link">open the suite</a>' in accuracy
    folded = accuracy.split('<details class="read-alone">', 1)[1]
    assert "a bare list of cases" in folded  # its file-level warning, inside the details
    assert "accuracy-basic-math" in folded and "batch JSONL" not in accuracy
    assert "data-search" not in accuracy  # the filter in the page finds them in the suite's rows
    assert "Read by evals/suite.yaml as its cases" in sections["evals/cases/regression.jsonl"]
    # A file read by no one is as before.
    alone = sections["other/eval.yaml"]
    assert "Read by" not in alone and "<details" not in alone and "batch JSONL" in alone
    # The suites' cases only: 2 + 6 + 1, not the read files' 2 + 2 again.
    assert '<h1 id="case-total" data-total="9">9 cases</h1>' in page


def test_the_filter_finds_a_read_files_cases_in_its_suites_only(client, bundle):
    page = client.get(f"/b/{bundle.pk}/", {"q": "regression-greeting"}).content.decode()
    assert list(_sections(page)) == ["evals/suite.yaml"]


def test_the_ledger_leaves_out_the_files_a_suite_reads_and_says_so(client, bundle):
    panel = ledger(client, bundle)
    line = re.search(r'<p class="muted ledger-read-by"[^>]*>(.*?)</p>', panel).group(1)
    assert line == (
        "Not counted as suites of their own, since a suite reads them as its cases and counts them "
        "there: evals/cases/accuracy.yaml (read by evals/smoke/suite.yaml), "
        "evals/cases/regression.jsonl (read by evals/suite.yaml)."
    )
    data = client.get(f"/api/bundles/{bundle.pk}/ledger").json()
    # csv-magic-greeting has no assertion: agentv skips it, so a run sends it nothing
    assert data["total"]["cases"] == 8 and data["not_run"] == 1
    assert "csv-magic-greeting" not in {row["id"] for row in data["cases"]}
    not_run = re.search(r'<p class="muted ledger-not-run"[^>]*>(.*?)</p>', panel).group(1)
    assert not_run == (
        "1 case not priced: the source tool skips it, or the inspector cannot build its request "
        "(the case's page says which)."
    )
    assert {row["document"] for row in data["cases"]} == {
        "evals/smoke/suite.yaml",
        "evals/suite.yaml",
        "other/eval.yaml",
    }
    assert data["read_by"] == {
        "evals/cases/accuracy.yaml": "evals/smoke/suite.yaml",
        "evals/cases/regression.jsonl": "evals/suite.yaml",
    }
    assert data["skipped_documents"] == []


def test_a_bundle_no_suite_reads_from_has_no_such_line(client, db):
    stored, _ = store_bundle({"other/eval.yaml": EXTERNAL_DATASETS["other/eval.yaml"].encode()})
    assert "ledger-read-by" not in ledger(client, stored)
    assert client.get(f"/api/bundles/{stored.pk}/ledger").json()["read_by"] == {}
