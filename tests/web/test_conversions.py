"""Legacy userMessage/assistantResponse decks: the converted messages-format file is downloadable."""

import tomllib

from inspector.bundles.ingest import store_bundle

LEGACY_DECK = b"""[samples.polite]
userMessage = "Hi there"
assistantResponse = "Hello! How can I help?"
score = 3
"""


def test_bundle_page_offers_the_converted_deck_for_download(client, db):
    bundle, _ = store_bundle({"grader.deck.toml": LEGACY_DECK})
    page = client.get(f"/b/{bundle.pk}/").content.decode()
    assert "grader.deck.converted.toml" in page
    response = client.get(f"/b/{bundle.pk}/converted/grader.deck.toml?name=grader.deck.converted.toml")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    converted = tomllib.loads(response.content.decode())
    messages = converted["samples"]["polite"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == "Hi there"


def test_unknown_conversion_name_is_a_404(client, db):
    bundle, _ = store_bundle({"grader.deck.toml": LEGACY_DECK})
    assert client.get(f"/b/{bundle.pk}/converted/grader.deck.toml?name=nope.toml").status_code == 404
    assert client.get(f"/b/{bundle.pk}/converted/missing.toml?name=x").status_code == 404
