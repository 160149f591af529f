"""The model's earlier reasoning in a raw request (Anthropic thinking and redacted_thinking blocks,
Bedrock Converse reasoningContent) shows on the case page as labelled segments of their own, traced
to their lines, while the message's text and the exports stay as they were."""

from __future__ import annotations

import json
import re

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.core.export import export_case
from tests.core.test_provider_own_blocks import ANTHROPIC, BEDROCK, read


def _thinking_spans(page: str) -> list[str]:
    return re.findall(r'<span class="seg thinking k-thinking"[^>]*>.*?</span>.*?</span>', page, re.S)


def _page(client, body: dict) -> str:
    text = json.dumps(body, indent=2).encode()
    bundle, _ = store_bundle({"request.json": text}, title="thinking")
    return client.get(case_url(bundle.pk, "request.json", "request")).content.decode()


def test_anthropic_thinking_blocks_are_labelled_segments_traced_to_their_lines(client, db):
    page = _page(client, ANTHROPIC)
    thinking, redacted = _thinking_spans(page)
    assert '<span class="thinking-label">thinking</span>I should look.' in thinking
    assert 'data-path="request.json"' in thinking
    lines = json.dumps(ANTHROPIC, indent=2).splitlines()
    first = next(number for number, line in enumerate(lines, 1) if '"thinking": "I should' in line)
    start = int(re.search(r'data-from="(\d+)"', thinking).group(1))
    end = int(re.search(r'data-to="(\d+)"', thinking).group(1))
    assert start <= first <= end  # the block's own lines in the source
    assert (
        '<span class="thinking-label">redacted thinking</span>(encrypted by the provider: '
        "6 bytes)" in redacted
    )
    assert "Thinking (not in the text)" in page  # in the legend
    assert "is not shown" not in page  # no longer a warning
    # The text and the export are what they were: the thinking is beside the text, not in it.
    assistant = read(ANTHROPIC, "anthropic").messages[1]
    assert assistant.content == "Looking."
    assert export_case(read(ANTHROPIC, "anthropic"), "anthropic").payload == ANTHROPIC


def test_converse_reasoning_is_a_labelled_segment(client, db):
    [thinking] = _thinking_spans(_page(client, BEDROCK))
    assert '<span class="thinking-label">thinking</span>I should look.' in thinking
    assert 'data-path="request.json"' in thinking
