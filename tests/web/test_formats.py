"""Other inputs on the case page: raw conversations with tool calls, and sample decks."""

import json
import re

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses
from tests.conftest import REPO

TONE_GRADER = REPO / "fixtures" / "examples" / "tone-grader-deck" / "graders"

CHAT = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "Answer with tools."},
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "<Paris>"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ],
}


def test_tool_calls_and_results_are_shown_as_such(client, db):
    bundle, _ = store_bundle({"chat.json": json.dumps(CHAT, indent=1).encode()}, title="chat")
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    match = re.search(r'href="(/b/[^"]+/case/[^"]+)"', body)
    page = client.get(match.group(1).replace("&amp;", "&")).content.decode()
    assert 'class="msg role-assistant"' in page and 'class="msg role-tool"' in page
    assert 'class="tool-call"' in page and "<strong>get_weather</strong>" in page
    assert "&quot;&lt;Paris&gt;&quot;" in page
    assert "result of <code>call_1</code>" in page


def test_a_pasted_request_is_first_exported_to_its_own_api(client, db):
    """An Anthropic body opens as the Anthropic request it is (the same request, no Changes);
    choosing another provider still works, and an eval file keeps the OpenAI Chat default."""
    anthropic_body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 300,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "Hi"}],
    }
    bundle, _ = store_bundle(
        {"request.json": json.dumps(anthropic_body).encode(), "chat.json": json.dumps(CHAT).encode()},
        title="requests",
    )
    for path, provider in (("request.json", "anthropic"), ("chat.json", "openai-chat")):
        case_id = path.removesuffix(".json")
        page = client.get(addresses.case_url(bundle.pk, path, case_id)).content.decode()
        assert f'<option value="{provider}" selected>' in page, path
    page = client.get(addresses.case_url(bundle.pk, "request.json", "request", "provider=gemini"))
    assert '<option value="gemini" selected>' in page.content.decode()


def test_a_sample_deck_renders_its_samples(client, db):
    files = {
        p.relative_to(TONE_GRADER).as_posix(): p.read_bytes() for p in TONE_GRADER.rglob("*") if p.is_file()
    }
    bundle, _ = store_bundle(files, title="deck")
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    assert "tone-samples.toml" in body
    links = re.findall(r'href="(/b/[^"]+/case/[^"]+)"', body)
    assert links, "the deck should list at least one sample"
    page = client.get(links[0].replace("&amp;", "&"))
    assert page.status_code == 200
    assert 'class="seg k-' in page.content.decode()


def test_a_gambit_deck_page_takes_the_runs_context_and_message(client, db):
    deck = (
        '+++\nlabel = "support"\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\n'
        "You help.\n\n![tone](./tone.card.md)\n"
    )
    bundle, _ = store_bundle(
        {"support/PROMPT.md": deck.encode(), "support/tone.card.md": b"Be kind.\n"}, title="gambit"
    )
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    link = re.search(r'href="(/b/[^"]+/case/[^"]+)"', body).group(1).replace("&amp;", "&")
    page = client.get(
        link, {"gambit_context": '{"orderId": "A-1"}', "gambit_message": "Where is my order?"}
    ).content.decode()
    assert 'class="msg role-tool"' in page and "<strong>gambit_context</strong>" in page
    assert "&quot;orderId&quot;:&quot;A-1&quot;" in page and "Where is my order?" in page
    assert 'name="gambit_context"' in page and "tools: read_file" in page
    # gambit calls the model in the Responses form: the export starts there.
    assert 'data-provider="openai-responses"' in page


def test_a_servers_installed_gambit_core_fills_snippets_on_the_case_page(client, db, settings, tmp_path):
    from inspector.rendering import cache as render_cache

    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "context.md").write_text("Read the gambit_context result first.\n")
    deck = (
        '+++\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nYou help.\n\n'
        "![ctx](gambit://snippets/context.md)\n"
    )
    bundle, _ = store_bundle({"support/PROMPT.md": deck.encode()}, title="gambit")
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    link = re.search(r'href="(/b/[^"]+/case/[^"]+)"', body).group(1).replace("&amp;", "&")
    without = client.get(link).content.decode()
    assert "[gambit snippet context.md: not in the upload]" in without
    key = render_cache.key("render", "same", "parts")
    settings.GAMBIT_CORE_DIR = str(tmp_path)
    # Renders made without the snippets (or with another gambit-core) are never served again.
    assert render_cache.key("render", "same", "parts") != key
    page = client.get(link).content.decode()
    assert "Read the gambit_context result first." in page
    assert "gambit-core (installed)/snippets/context.md:1" in page
    assert "gambit-core (installed)/snippets" not in "".join(re.findall(r'href="[^"]*"', page))
    assert "not in the upload" not in page


def test_a_gambit_deck_page_takes_the_context_input_from_a_sample_it_lists(client, db):
    deck = '+++\n[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nYou help.\n'
    bundle, _ = store_bundle(
        {
            "support/PROMPT.md": deck.encode(),
            "support/samples/late-order.json": b'{"orderId": "A-9"}\n',
            "support/samples/greeting.txt": b"Say hello.\n",
        },
        title="gambit",
    )
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    link = re.search(r'href="(/b/[^"]+/case/[^"]+)"', body).group(1).replace("&amp;", "&")
    page = client.get(link).content.decode()
    select = re.search(r'<select name="gambit_context_sample".*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="([^"]*)"', select) == ["", "greeting", "late-order"]
    chosen = client.get(link, {"gambit_context_sample": "late-order"}).content.decode()
    assert "<strong>gambit_context</strong>" in chosen
    assert "&quot;orderId&quot;:&quot;A-9&quot;" in chosen
    assert "support/samples/late-order.json:1" in chosen  # the tool result's origin
    assert '<option value="late-order" selected>' in chosen


def test_a_grader_deck_page_names_the_aibff_era_it_follows(client, db):
    # Its samples' messages are arrays, which August's code sent as "[object Object],...".
    files = {
        p.relative_to(TONE_GRADER).as_posix(): p.read_bytes() for p in TONE_GRADER.rglob("*") if p.is_file()
    }
    bundle, _ = store_bundle(files, title="tone deck")
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    link = next(
        found for found in re.findall(r'href="(/b/[^"]+/case/[^"]+)"', body) if "tone.deck.md" in found
    ).replace("&amp;", "&")
    august = client.get(link).content.decode()
    assert "Rendered as <strong>aibff-2025-08</strong>" in august
    assert "[object Object],[object Object]" in august
    july = client.get(link, {"profile": "aibff-2025-07"}).content.decode()
    assert "Rendered as <strong>aibff-2025-07</strong>" in july
    assert "[object Object]" not in july and "[{&quot;role&quot;:&quot;user&quot;" in july
    assert '<option value="aibff-2025-07" selected>' in july


def test_a_grader_deck_page_grades_a_conversation_chosen_from_its_samples(client, db):
    deck = (
        '+++\ncontextSchema = "gambit://schemas/graders/contexts/turn.zod.ts"\n'
        '[modelParams]\nmodel = "openai/gpt-4o-mini"\n+++\n\nGrade the reply.\n'
    )
    chat = '[\n  {"role": "user", "content": "Hi"},\n  {"role": "assistant", "content": "Yo"}\n]\n'
    bundle, _ = store_bundle(
        {
            "grader/PROMPT.md": deck.encode(),
            "grader/samples/short-chat.json": chat.encode(),
            "grader/samples/persona.txt": b"not a conversation\n",
        },
        title="gambit grader",
    )
    body = client.get(f"/b/{bundle.pk}/").content.decode()
    link = re.search(r'href="(/b/[^"]+/case/[^"]+)"', body).group(1).replace("&amp;", "&")
    page = client.get(link).content.decode()
    select = re.search(r'<select name="gambit_conversation_sample".*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="([^"]*)"', select) == ["", "short-chat"]
    # The deck's address with a conversation is its first graded turn, at that turn's address.
    moved = client.get(link, {"gambit_conversation_sample": "short-chat"})
    turn = addresses.case_url(bundle.pk, "grader/PROMPT.md", "grader@turn-1")
    assert moved.status_code == 302 and moved.url.split("?")[0] == turn
    chosen = client.get(moved.url).content.decode()
    # The message to grade, traced to its line of the file.
    assert re.search(
        r'messageToGrade&quot;:</span><span [^>]*title="Case text: grader/samples/'
        r"short-chat.json:3 [^>]*>{&quot;role&quot;:&quot;assistant&quot;",
        chosen,
    )
    assert '<option value="short-chat" selected>' in chosen
    back = client.get(moved.url.split("?")[0], HTTP_HX_REQUEST="true", HTTP_HX_TARGET="rendered")
    assert back["HX-Redirect"] == addresses.case_url(bundle.pk, "grader/PROMPT.md", "grader")
