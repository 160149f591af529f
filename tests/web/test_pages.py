"""Bundle, case, source, export and batch pages: what they show, and that bad requests get a clear
404 or 400 instead of a server error."""

import json
import re
from html import unescape

import pytest

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url, decode_case_id, encode_case_id
from inspector.core.bundle import MemoryBundle
from inspector.core.documents import render_document
from inspector.core.options import RenderOptions


def page(client, url, status=200, **headers):
    response = client.get(url, **headers)
    assert response.status_code == status, response.content[:2000]
    return response.content.decode()


def test_bundle_page_lists_files_and_cases_with_counts(client, tiny):
    bundle, _ = tiny
    body = page(client, f"/b/{bundle.pk}/")
    assert "evals/tiny.yaml" in body
    assert "notes.instructions.md" in body and ".agentv/" in body
    assert 'id="case-filter"' in body
    rows = re.findall(r'<tr class="case-row" data-search="([^"]*)">', body)
    assert len(rows) == 3
    # The filter searches ids and message text.
    assert "hello there." in unescape(rows[0]) and "first" in rows[0]
    assert case_url(bundle.pk, "evals/tiny.yaml", "first") in body
    assert case_url(bundle.pk, "evals/tiny.yaml", "odd/id with spaces?#&") in body


def test_case_ids_with_any_characters_round_trip_through_urls():
    for case_id in ["plain-id_1.2", "a/b", "..", ".", "", "spaces and ?#&%", "ünïcødé~", "~41"]:
        encoded = encode_case_id(case_id)
        assert "/" not in encoded and "?" not in encoded and "#" not in encoded and "%" not in encoded
        assert encoded not in (".", "..")
        assert decode_case_id(encoded) == case_id
    assert decode_case_id("~zz") is None


def test_case_page_shows_source_and_messages_side_by_side(client, tiny):
    bundle, _ = tiny
    body = page(client, case_url(bundle.pk, "evals/tiny.yaml", "first"))
    assert 'id="source-pane"' in body and 'data-path="evals/tiny.yaml"' in body
    # The case's lines are highlighted in the source.
    assert '<div class="line hl" id="L3"' in body
    assert '<div class="line" id="L1"' in body
    # Role cards with anchors, segments marked by origin, hover titles naming file and lines.
    assert 'id="m0"' in body and 'class="msg role-system' in body
    assert 'class="msg role-user' in body
    assert 'class="seg k-guideline"' in body
    assert 'title="Guideline file: evals/notes.instructions.md:1-3' in body
    assert f'data-src="/b/{bundle.pk}/source/evals/notes.instructions.md?hl=1-3"' in body
    assert "Case text" in body and "Guideline file" in body  # legend
    assert "tokens" in body and "tok ·" in body
    # Export panel: the default provider and form, highlighted, with download link.
    assert 'id="export-code"' in body and "&quot;messages&quot;" in body
    assert "download=1" in body


def test_source_lines_keep_their_indentation_without_a_span_per_run_of_spaces(client, tiny):
    bundle, _ = tiny
    body = page(client, case_url(bundle.pk, "evals/tiny.yaml", "first"))
    lines = re.findall(r'<div class="line[^"]*" id="L\d+"[^>]*>.*?<span class="text">(.*?)</div>', body)
    assert any(re.match(r"^ {2,}<span", line) for line in lines)  # indented, the spaces as text
    assert '<span class="w">' not in body


def test_case_page_with_odd_id(client, tiny):
    bundle, _ = tiny
    body = page(client, case_url(bundle.pk, "evals/tiny.yaml", "odd/id with spaces?#&"))
    assert "Second case text." in body


def test_settings_live_in_the_query_string(client, tiny):
    bundle, _ = tiny
    url = case_url(bundle.pk, "evals/tiny.yaml", "first")
    default = page(client, url)
    custom = page(client, url + "?patterns_mode=custom&patterns=&system_prompt=Default+sys")
    assert 'class="seg k-guideline"' in default
    assert 'class="seg k-guideline"' not in custom  # no patterns: the guideline is an attached file
    assert 'name="patterns_mode" value="custom" checked' in custom
    profile = page(client, url + "?profile=agentv-0.10")
    assert '<option value="agentv-0.10" selected>' in profile


def test_token_budget_marks_dropped_messages(client, tiny):
    bundle, _ = tiny
    full = page(client, case_url(bundle.pk, "evals/tiny.yaml", "chat"))
    assert "not sent:" not in full
    body = page(client, case_url(bundle.pk, "evals/tiny.yaml", "chat") + "?max_tokens=20")
    assert 'class="msg role-user omitted" id="m0"' in body
    assert 'class="msg role-assistant omitted" id="m1"' in body
    assert 'class="msg role-user" id="m2"' in body
    assert "not sent: dropped to fit the 20-token budget" in body
    assert "2 omitted" in body


def test_htmx_requests_get_the_partials(client, tiny):
    bundle, _ = tiny
    url = case_url(bundle.pk, "evals/tiny.yaml", "first")
    rendered = page(client, url + "?profile=agentv-3.8", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="rendered")
    assert rendered.lstrip().startswith('<section id="rendered"')
    assert "<html" not in rendered
    export = page(
        client, url + "?provider=anthropic&format=python", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="export"
    )
    assert export.lstrip().startswith('<section id="export"')
    assert "anthropic" in export.lower()


@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic", "gemini"])
@pytest.mark.parametrize("form", ["json", "curl", "python", "typescript"])
def test_every_provider_and_form_exports(client, tiny, provider, form):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    body = page(client, f"{base}?provider={provider}&format={form}")
    assert f'data-provider="{provider}" data-format="{form}"' in body
    download = client.get(f"{base}export/?provider={provider}&format={form}&download=1")
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    if form == "json":
        assert isinstance(json.loads(download.content), dict)


def test_export_without_download_redirects_to_the_case(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    response = client.get(base + "export/?provider=gemini")
    assert response.status_code == 302 and "provider=gemini" in response["Location"]


def test_source_pane_highlights_requested_lines(client, tiny):
    bundle, _ = tiny
    url = f"/b/{bundle.pk}/source/evals/notes.instructions.md?hl=1-2"
    full = page(client, url)
    assert "<html" in full and '<div class="line hl" id="L1"' in full and '<div class="line" id="L3"' in full
    partial = page(client, url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="source-pane")
    assert partial.lstrip().startswith('<section id="source-pane"')
    # A malformed range is ignored rather than refused.
    assert '<div class="line hl"' not in page(
        client, f"/b/{bundle.pk}/source/evals/notes.instructions.md?hl=x"
    )


def test_batch_jsonl_for_bundle_and_document(client, tiny):
    bundle, _ = tiny
    response = client.get(f"/b/{bundle.pk}/batch.jsonl?provider=anthropic")
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.content.decode().splitlines()]
    assert len(lines) == 3 and "custom_id" in lines[0]
    one = client.get(f"/b/{bundle.pk}/batch.jsonl?document=evals/tiny.yaml")
    assert one.status_code == 200 and len(one.content.decode().splitlines()) == 3


@pytest.mark.parametrize(
    "suffix, status, message",
    [
        ("/b/nope/", 404, "No bundle has this id"),
        ("/b/{id}/evals/tiny.yaml/case/missing/", 404, "no case with this id"),
        ("/b/{id}/evals/missing.yaml/case/first/", 404, "no file at that path"),
        ("/b/{id}/evals/tiny.yaml/case/bad~zz/", 404, "malformed"),
        ("/b/{id}/evals/tiny.yaml/case/first/?profile=nope", 400, "unknown profile"),
        ("/b/{id}/evals/tiny.yaml/case/first/?max_tokens=abc", 400, "whole number"),
        ("/b/{id}/evals/tiny.yaml/case/first/?max_tokens=0", 400, "between"),
        ("/b/{id}/evals/tiny.yaml/case/first/?provider=acme", 400, "unknown provider"),
        ("/b/{id}/evals/tiny.yaml/case/first/?format=cobol", 400, "unknown format"),
        ("/b/{id}/evals/tiny.yaml/case/first/?temperature=hot", 400, "temperature"),
        ("/b/{id}/evals/tiny.yaml/case/first/?input_format=xml", 400, "unknown input format"),
        ("/b/{id}/evals/tiny.yaml/case/first/export/?provider=acme&download=1", 400, "unknown provider"),
        ("/b/{id}/source/nothing.txt", 404, "no file at that path"),
        ("/b/{id}/source/../../etc/passwd", 404, ""),
        ("/b/{id}/batch.jsonl?provider=acme", 400, "unknown provider"),
        ("/b/{id}/batch.jsonl?document=nope.yaml", 404, "no such document"),
        ("/b/{id}/manage/wrong-token/", 404, "No bundle matches"),
        ("/b/" + "x" * 300 + "/", 404, ""),
        ("/nothing-here", 404, "Not found"),
    ],
)
def test_bad_requests_get_clear_errors(client, tiny, suffix, status, message):
    bundle, _ = tiny
    response = client.get(suffix.replace("{id}", bundle.pk))
    assert response.status_code == status
    assert message in response.content.decode()


def test_a_file_that_cannot_render_shows_its_error(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"broken.yaml": b"evalcases: [\n"}, title="broken")
    body = page(client, f"/b/{bundle.pk}/")
    assert "notice error" in body
    assert client.get(f"/b/{bundle.pk}/broken.yaml/case/x/").status_code == 400


def test_no_server_path_in_pages(client, tiny, settings):
    bundle, _ = tiny
    base = str(settings.BASE_DIR)
    for url in [
        f"/b/{bundle.pk}/",
        case_url(bundle.pk, "evals/tiny.yaml", "first"),
        "/",
        f"/b/{bundle.pk}/source/evals/tiny.yaml",
        "/b/nope/",
    ]:
        assert base not in client.get(url).content.decode()


def test_pages_send_a_strict_content_security_policy(client, tiny):
    bundle, _ = tiny
    response = client.get(case_url(bundle.pk, "evals/tiny.yaml", "first"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    body = response.content.decode()
    assert "<script>" not in body and " style=" not in body and "<style" not in body
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", body))
    assert not re.search(r"<[^>]+\son[a-z]+=", body)  # no inline event handlers


def test_htmx_settings_change_pushes_the_canonical_link(client, tiny):
    bundle, _ = tiny
    url = case_url(bundle.pk, "evals/tiny.yaml", "first")
    response = client.get(
        url + "?profile=agentv-4&max_tokens=&system_prompt=&input_format=auto"
        "&patterns_mode=config&patterns=x&provider=openai-chat",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="rendered",
    )
    assert response["HX-Push-Url"] == url + "?profile=agentv-4"


def big_suite(cases: int) -> bytes:
    lines = ["evalcases:"]
    for index in range(cases):
        lines += [
            f"  - id: c{index}",
            "    outcome: ok",
            "    input_messages:",
            "      - role: user",
            f"        content: Question {index}",
        ]
    return ("\n".join(lines) + "\n").encode()


def test_a_large_file_shows_a_window_around_the_case_and_links_the_whole_file(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"big.yaml": big_suite(2000)}, title="big")
    body = page(client, case_url(bundle.pk, "big.yaml", "c1000"))
    assert 'id="L5002"' in body and 'class="line hl" id="L5002"' in body
    assert 'id="L1"' not in body and 'id="L9000"' not in body
    assert "Open the whole file" in body and "all=1" in body
    # The editor of a large file loads on demand instead of doubling every page.
    assert 'id="source-text"' not in body
    editor = page(client, case_url(bundle.pk, "big.yaml", "c1000") + "editor/")
    assert editor.lstrip().startswith('<form method="post"') and 'id="source-text"' in editor
    assert "id: c1999" in editor
    whole = page(client, f"/b/{bundle.pk}/source/big.yaml?all=1&hl=5002-5006")
    assert 'id="L1"' in whole and 'id="L10000"' in whole


def test_small_files_have_the_editor_inline(client, tiny):
    bundle, _ = tiny
    body = page(client, case_url(bundle.pk, "evals/tiny.yaml", "first"))
    assert 'id="source-text"' in body and "Save as new revision" in body


def test_healthz_answers_ok(client, db):
    assert client.get("/healthz").content == b"ok"


def test_wrong_methods_are_refused_not_crashed(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    assert client.post(f"/b/{bundle.pk}/").status_code == 405
    assert client.post(base).status_code == 405
    assert client.get(base + "preview/").status_code == 405
    assert client.get(base + "revise/").status_code == 405
    assert client.put("/").status_code == 405


def test_warnings_sit_beside_the_message_they_concern(client, db):
    from inspector.bundles.ingest import store_bundle

    suite = b"""evalcases:
  - id: w
    outcome: ok
    input_messages:
      - role: system
        content: Fine.
      - role: user
        content:
          - type: file
            value: missing.md
"""
    bundle, _ = store_bundle({"e.yaml": suite}, title="warn")
    body = page(client, case_url(bundle.pk, "e.yaml", "w"))
    card = re.search(r'<article class="msg role-user omitted" id="m1".*?</article>', body, re.S).group(0)
    assert "File not found: missing.md" in card
    assert "not sent: the message has no content" in card
    listing = page(client, f"/b/{bundle.pk}/")
    assert 'class="badge warn-badge">1<' in listing


def test_not_found_page_never_shows_the_url_table(client, db):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    body = response.content.decode()
    assert "URLPattern" not in body and "tried" not in body
    assert "nothing at this address" in body


def test_a_rejected_setting_in_an_htmx_swap_replaces_the_pane_with_the_reason(client, tiny):
    url = f"/b/{tiny[0].pk}/evals/tiny.yaml/case/first/"
    for target in ("rendered", "export"):
        response = client.get(url + "?max_tokens=0", HTTP_HX_REQUEST="true", HTTP_HX_TARGET=target)
        assert response.status_code == 400
        body = response.content.decode()
        assert f'id="{target}"' in body and "between" in body
        assert "<html" not in body


def test_a_file_read_in_the_wrong_format_says_so_in_the_pane(client, tiny):
    url = f"/b/{tiny[0].pk}/evals/tiny.yaml/case/first/?input_format=deck"
    response = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="rendered")
    assert response.status_code == 400
    assert "invalid TOML" in response.content.decode()


def test_the_bad_settings_page_links_to_the_default_view(client, tiny):
    url = f"/b/{tiny[0].pk}/evals/tiny.yaml/case/first/"
    body = page(client, url + "?max_tokens=-5", status=400)
    assert f'href="{url}"' in body


def test_every_case_with_a_duplicate_id_has_its_own_page(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle(
        {"e.yaml": b"tests:\n  - id: dup\n    input: first\n  - id: dup\n    input: second\n"}
    )
    body = page(client, f"/b/{bundle.pk}/")
    assert "/case/dup~232/" in body
    second = page(client, f"/b/{bundle.pk}/e.yaml/case/dup~232/")
    assert "second" in second


@pytest.mark.parametrize("segment", ["%00", "a%00b", "~ZZ", "a~", "~FF~FE", "%ED%A0%80"])
def test_malformed_case_addresses_are_not_found(client, tiny, segment):
    bundle, _ = tiny
    assert client.get(f"/b/{bundle.pk}/evals/tiny.yaml/case/{segment}/").status_code == 404
    assert client.get(f"/b/{bundle.pk}/evals/tiny.yaml/case/{segment}/export/").status_code == 404


@pytest.mark.parametrize("form", ["json", "curl", "python", "typescript"])
def test_the_code_shown_is_exactly_the_code_downloaded(client, tiny, form):
    bundle, _ = tiny
    url = f"/b/{bundle.pk}/evals/tiny.yaml/case/first/"
    body = page(client, url + f"?format={form}")
    shown = re.search(
        r'<pre class="code-block highlight" id="export-code"[^>]*>(.*?)</pre>', body, re.S
    ).group(1)
    downloaded = client.get(url + f"export/?format={form}&download=1").content.decode()
    assert unescape(re.sub(r"<[^>]+>", "", shown)) == downloaded.rstrip("\n")


@pytest.mark.parametrize(
    "url", ["/b/%00/", "/b/a%00b/manage/x/", "/b/%00/batch.jsonl", "/b/%00/source/x", "/b/%00/x.yaml/case/a/"]
)
def test_bundle_ids_outside_the_token_alphabet_are_not_found(client, db, url):
    assert client.get(url).status_code == 404


def test_an_unknown_bundle_does_not_empty_the_cache(client, tiny):
    from inspector.bundles import loading

    bundle, _ = tiny
    client.get(f"/b/{bundle.pk}/")
    assert loading._files_cache.get(bundle.pk) is not None
    client.get("/b/doesnotexist/")
    assert loading._files_cache.get(bundle.pk) is not None


def test_the_batch_of_an_unrenderable_file_names_the_error(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"bad.yaml": b"tests: [\n"})
    response = client.get(f"/b/{bundle.pk}/batch.jsonl", {"document": "bad.yaml"})
    assert response.status_code == 400
    assert "invalid YAML" in response.content.decode()


def test_a_grader_deck_case_shows_its_sample_file_with_the_sample_highlighted(client, db):
    from inspector.bundles.ingest import store_bundle

    deck = b"# Grader\n\nScore the reply.\n\n![samples](./samples.toml)\n"
    samples = (
        b'[samples.first]\nscore = 1\n[[samples.first.messages]]\nrole = "user"\ncontent = "Hi"\n\n'
        b'[samples.second]\nscore = 2\n[[samples.second.messages]]\nrole = "user"\ncontent = "Bye"\n'
    )
    bundle, _ = store_bundle({"g.deck.md": deck, "samples.toml": samples})
    body = page(client, f"/b/{bundle.pk}/g.deck.md/case/second/")
    assert 'data-path="samples.toml"' in body
    highlighted = re.findall(r'<div class="line hl[^"]*" id="L(\d+)"', body)
    assert highlighted and int(highlighted[0]) >= 7
    # The editor still edits the deck itself.
    assert "Score the reply." in re.search(r'<textarea name="text".*?</textarea>', body, re.S).group(0)


def test_case_page_shows_images_as_thumbnails_and_remote_ones_as_links(client, db):
    from inspector.bundles.ingest import store_bundle

    data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 10,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
                ],
            }
        ],
    }
    bundle, _ = store_bundle({"request.json": json.dumps(body).encode()}, title="pictures")
    html = page(client, case_url(bundle.pk, "request.json", "request"))
    assert f'<img class="thumb" src="data:image/png;base64,{data}"' in html
    # A remote image is a link the reader may follow; the page never loads it.
    assert 'href="https://example.com/cat.png"' in html
    assert 'src="https://example.com/cat.png"' not in html


def test_a_case_page_names_the_undecodable_bytes_of_its_file(client, db):
    from inspector.bundles.ingest import store_bundle

    bundle, _ = store_bundle({"e.yaml": b"tests:\n  - id: one\n    criteria: ok\n    input: caf\xe9\n"})
    body = unescape(page(client, case_url(bundle.pk, "e.yaml", "one")))
    assert "is not valid UTF-8" in body


def test_the_paste_boxs_placeholder_is_todays_agentv_file_and_renders_as_one(client, db):
    home = client.get("/").content.decode()
    placeholder = unescape(re.search(r'<textarea name="text"[^>]* placeholder="([^"]*)"', home).group(1))
    text = placeholder.replace("...", "What is 2 + 2?")
    bundle = MemoryBundle({"eval.yaml": text.encode()})
    document = render_document(bundle, "eval.yaml", RenderOptions())
    assert document.profile == "agentv-5"
    assert [case.id for case in document.cases] == ["my-case"]
    assert document.cases[0].messages[-1].content == "What is 2 + 2?"


def test_a_case_page_says_the_files_own_warnings_such_as_being_read_as_promptfoo(client, db):
    # agentv's examples/features/external-datasets/evals/checks.yaml, without its `name` and under a
    # name agentv's CLI does not look for: promptfoo's three keys only.
    suite = (
        b"providers:\n  - llm\nprompts:\n  - '{{ input }}'\ntests:\n  - id: a\n    vars:\n      input: Hi\n"
    )
    bundle, _ = store_bundle({"evals/checks.yaml": suite})
    bundle_page = page(client, f"/b/{bundle.pk}/")
    case_link = unescape(re.search(r'href="(/b/[^"]+/case/[^"]+)"', bundle_page).group(1))
    case_page = page(client, case_link)
    notes = case_page[case_page.index('id="file-warnings"') :]
    notes = notes[: notes.index("</details>")]
    assert "1 note on the whole file" in notes
    assert "evals/checks.yaml:1: read as a promptfoo config" in unescape(notes)
    assert "choose the input format `agentv`" in unescape(notes)
    # The inspector, not promptfoo, leaves the case out: promptfoo would run it on provider `llm`.
    assert "Not rendered: provider &#x27;llm&#x27; is not one whose request the inspector builds" in case_page
    assert "The source tool would skip" not in case_page
    as_agentv = page(client, case_url(bundle.pk, "evals/checks.yaml", "a") + "?input_format=agentv")
    assert "Rendered as <strong>agentv-5-next-58f316c</strong>" in as_agentv
    assert "read as a promptfoo config" not in as_agentv
