"""The case page's Files panel and the line endpoint behind a click on a source line (Django's
client; tests/web/test_files_panel_browser.py drives them in Chromium)."""

import re
from html import unescape

from inspector.bundles.ingest import store_bundle
from inspector.cases import addresses, files_panel
from tests.web.conftest import CONFIG, EVAL

DOCUMENT = "evals/tiny.yaml"


def case_base(bundle, case_id="first"):
    return addresses.case_url(bundle.pk, DOCUMENT, case_id)


def test_the_files_panel_lists_every_file_as_a_plain_link_with_its_part_in_the_case(client, tiny):
    bundle, _ = tiny
    page = client.get(case_base(bundle)).content.decode()
    panel = re.search(
        r'<details class="files-panel" id="files-panel" open>(.*?)</details>', page, re.S
    ).group(1)
    links = dict(re.findall(r'<a href="([^"]+)" class="file-link" data-path="([^"]+)"', panel))
    assert sorted(links.values()) == [".agentv/config.yaml", "evals/notes.instructions.md", DOCUMENT]
    by_path = {path: unescape(url) for url, path in links.items()}
    assert by_path[DOCUMENT] == f"/b/{bundle.pk}/source/{DOCUMENT}?hl=3-13"  # at the case's lines
    assert by_path["evals/notes.instructions.md"] == f"/b/{bundle.pk}/source/evals/notes.instructions.md"
    assert re.search(
        r'data-path="evals/tiny.yaml"[^>]*aria-current="true">'
        r'<span class="name-head"></span><span class="name-tail">tiny.yaml</span></a> '
        r'<span class="file-role">this case</span>',
        panel,
    )
    assert re.search(
        r'>notes.ins</span><span class="name-tail">tructions.md</span></a> <span class="file-role">guideline</span>',
        panel,
    )
    assert 'Files <span class="muted">(3)</span>' in panel
    # Each file opens in the source pane with htmx, and as its own page without JavaScript.
    assert client.get(by_path["evals/notes.instructions.md"]).status_code == 200


def test_settings_changed_in_place_relabel_the_files(client, tiny):
    """The settings form swaps the messages; the Files list comes along out of band, since new
    guideline patterns change which files the case draws on."""
    bundle, _ = tiny
    query = "?patterns_mode=custom&patterns=no-such-file.md"
    swapped = client.get(case_base(bundle) + query, headers={"HX-Request": "true", "HX-Target": "rendered"})
    body = swapped.content.decode()
    listing = re.search(
        r'<nav aria-label="Files of this bundle" id="files-list" hx-swap-oob="true">(.*?)</nav>', body, re.S
    ).group(1)
    # No longer a guideline by the patterns, the notes are still attached by the case itself.
    assert re.search(
        r'>notes.ins</span><span class="name-tail">tructions.md</span></a> <span class="file-role">attached</span>',
        listing,
    )
    assert re.search(r'>tiny.yaml</span></a> <span class="file-role">this case</span>', listing)
    again = client.get(case_base(bundle), headers={"HX-Request": "true", "HX-Target": "rendered"})
    assert re.search(
        r'>notes.ins</span><span class="name-tail">tructions.md</span></a> <span class="file-role">guideline</span>',
        again.content.decode(),
    )


def test_a_line_of_another_case_links_to_it_with_the_page_settings(client, tiny):
    bundle, _ = tiny
    answer = client.get(case_base(bundle) + "line/", {"path": DOCUMENT, "line": "17", "profile": "spec"})
    body = unescape(answer.content.decode())
    assert answer.status_code == 200
    assert "Line 17 belongs to case odd/id with spaces?#&." in body
    jump = re.search(r'<a href="([^"]+)" id="line-jump" data-jump>', body).group(1)
    assert jump == addresses.case_url(bundle.pk, DOCUMENT, "odd/id with spaces?#&") + "?profile=spec#L17"


def test_a_key_agentv_does_not_send_is_named_with_who_reads_it(client, tiny):
    bundle, _ = tiny
    body = unescape(client.get(case_base(bundle) + "line/", {"path": DOCUMENT, "line": "4"}).content.decode())
    assert "Line 4 is `outcome`: agentv does not send it to the model; graders read it." in body
    assert 'id="line-jump"' not in body


def test_a_line_that_is_not_there_is_not_found(client, tiny):
    bundle, _ = tiny
    base = case_base(bundle) + "line/"
    assert client.get(base, {"path": "evals/missing.yaml", "line": "1"}).status_code == 404
    assert client.get(base, {"path": DOCUMENT, "line": "x"}).status_code == 404
    assert "The file has no line 999." in client.get(base, {"path": DOCUMENT, "line": "999"}).content.decode()


def test_a_bundle_of_many_files_lists_the_case_s_own_and_links_the_rest(client, db):
    files = {
        DOCUMENT: EVAL,
        "evals/notes.instructions.md": b"# Notes\n",
        ".agentv/config.yaml": CONFIG,
        "evals/sibling.txt": b"near\n",
    }
    files.update(
        {f"data/part-{n // 100}/file-{n:04d}.txt": b"x\n" for n in range(files_panel.FILES_PANEL_LIMIT + 50)}
    )
    bundle, _ = store_bundle(files, title="many")
    page = client.get(case_base(bundle)).content.decode()
    panel = re.search(
        r'<details class="files-panel" id="files-panel" open>(.*?)</details>', page, re.S
    ).group(1)
    listed = re.findall(r'class="file-link" data-path="([^"]+)"', panel)
    # The case's file, its guideline and the files beside it; not the unrelated data files.
    assert sorted(listed) == ["evals/notes.instructions.md", "evals/sibling.txt", DOCUMENT]
    hidden = len(files) - 3
    assert f'Files <span class="muted">({len(files)})</span>' in panel
    more = re.search(
        r'<p class="muted files-more" id="files-more">(\d+) more files: <a href="([^"]+)"', panel
    )
    assert int(more.group(1)) == hidden
    assert unescape(more.group(2)).startswith(f"/b/{bundle.pk}/")
