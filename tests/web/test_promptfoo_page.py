"""A promptfoo config uploaded with its prompt and test files: the bundle page lists its
evaluations test by test, and an evaluation's page shows where each stretch of text is written."""

from __future__ import annotations

import re

import pytest

from inspector.models import Bundle

from .test_upload import upload

CONFIG = b"""\
prompts:
  - file://prompts/ask.txt
  - "Tell me about {{ topic }}"
providers:
  - openai:chat:gpt-4o-mini
  - id: anthropic:messages:claude-3-5-haiku-latest
    label: haiku
tests: file://cases.csv
"""
ASK = b"You are terse.\n\nQuestion about {{ topic }}?\n"
CASES = b"topic\nrain\nsnow\n"


@pytest.fixture
def bundle_page(client, db):
    response = upload(
        client,
        folder=[
            ("suite/promptfooconfig.yaml", CONFIG),
            ("suite/prompts/ask.txt", ASK),
            ("suite/cases.csv", CASES),
        ],
    )
    assert response.status_code == 200
    return client.get(f"/b/{Bundle.objects.get().pk}/")


def test_the_bundle_page_lists_every_evaluation_by_test(bundle_page):
    body = bundle_page.content.decode()
    ids = re.findall(r"test (\d) · prompt (\d) · ([\w:.-]+)", body)
    seen = list(dict.fromkeys(ids))
    assert seen == [
        ("0", "0", "openai:gpt-4o-mini"),
        ("0", "1", "openai:gpt-4o-mini"),
        ("0", "2", "haiku"),
        ("0", "3", "haiku"),
        ("1", "0", "openai:gpt-4o-mini"),
        ("1", "1", "openai:gpt-4o-mini"),
        ("1", "2", "haiku"),
        ("1", "3", "haiku"),
    ]


def test_an_evaluation_points_at_the_prompt_file_and_the_csv_row(client, bundle_page):
    body = bundle_page.content.decode()
    link = re.search(r'href="([^"]+)"[^>]*>\s*test 1 · prompt 0', body)
    assert link is not None
    page = client.get(link.group(1).replace("&amp;", "&"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Question about" in text and "snow" in text
    assert "suite/prompts/ask.txt" in text
    assert "suite/cases.csv" in text


def test_the_bundle_page_shows_the_prompt_by_provider_matrix_with_a_case_link_per_cell(client, bundle_page):
    body = bundle_page.content.decode()
    matrix = re.search(r'<table class="matrix">(.*?)</table>', body, re.S)
    assert matrix is not None
    heads = re.findall(
        r'<span class="matrix-provider">([^<]+)</span> <span class="matrix-prompt"[^>]*>prompt (\d)',
        matrix.group(1),
    )
    # promptfoo's columns: each prompt for each provider, its prompt index the column's.
    assert heads == [("openai:gpt-4o-mini", "0"), ("openai:gpt-4o-mini", "1"), ("haiku", "2"), ("haiku", "3")]
    assert 'title="suite/prompts/ask.txt: You are terse.' in matrix.group(1)
    rows = re.findall(r'<tr class="matrix-row">(.*?)</tr>', matrix.group(1), re.S)
    assert [re.search(r"test (\d)", row).group(1) for row in rows] == ["0", "1"]
    cells = re.findall(r'<a href="([^"]+)" class="matrix-cell" title="([^"]+)">(\d+) tok</a>', rows[1])
    assert [title for _, title, _ in cells] == [
        "test 1 · prompt 0 · openai:gpt-4o-mini",
        "test 1 · prompt 1 · openai:gpt-4o-mini",
        "test 1 · prompt 2 · haiku",
        "test 1 · prompt 3 · haiku",
    ]
    url, _, tokens = cells[0]
    page = client.get(url.replace("&amp;", "&"))
    assert page.status_code == 200 and "snow" in page.content.decode()
    assert int(tokens) > 0
