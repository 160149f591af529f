"""Editing in place (preview, nothing stored), saving revisions, deleting with the manage link, and
escaping of everything a prompt can contain."""

import re

from inspector.bundles.ingest import store_bundle
from inspector.cases.addresses import case_url
from inspector.models import Bundle
from tests.web.conftest import EVAL, open_manage_page


def test_preview_renders_edited_text_without_storing_anything(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    edited = EVAL.decode().replace("Hello there.", "Edited greeting.")
    response = client.post(
        base + "preview/",
        {"text": edited, "profile": "spec"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="rendered",
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="rendered"')
    assert "Edited greeting." in body and "Preview of your unsaved edit" in body
    assert Bundle.objects.count() == 1
    assert "Hello there." in client.get(base).content.decode()


def test_preview_of_broken_text_shows_the_error_in_the_pane(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    response = client.post(base + "preview/", {"text": "evalcases: [\n"})
    assert response.status_code == 200
    assert "Cannot render the edited text" in response.content.decode()


def test_preview_with_bad_settings_says_so(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    response = client.post(base + "preview/", {"text": EVAL.decode(), "max_tokens": "lots"})
    assert response.status_code == 200
    assert "whole number" in response.content.decode()


def test_preview_and_revise_need_csrf(tiny):
    from django.test import Client

    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    client = Client(enforce_csrf_checks=True)
    assert client.post(base + "preview/", {"text": "x"}).status_code == 403
    assert client.post(base + "revise/", {"text": "x"}).status_code == 403
    assert Bundle.objects.count() == 1


def test_saving_a_revision_makes_a_new_bundle_and_keeps_the_old_one(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    edited = EVAL.decode().replace("Hello there.", "Revised greeting.")
    response = client.post(base + "revise/", {"text": edited, "profile": "agentv-4"}, follow=True)
    assert response.redirect_chain[0][1] == 303 and response.status_code == 200
    response = open_manage_page(client, response.redirect_chain[0][0])
    body = response.content.decode()
    revision = Bundle.objects.exclude(pk=bundle.pk).get()
    assert revision.parent_id == bundle.pk
    assert "New revision saved" in body
    new_case = case_url(revision.pk, "evals/tiny.yaml", "first", "profile=agentv-4")
    assert new_case.replace("&", "&amp;") in body
    assert re.search(rf"/b/{revision.pk}/manage/#[^/\"]+\"", body)
    assert "Revised greeting." in client.get(new_case).content.decode()
    old = client.get(base).content.decode()
    assert "Hello there." in old and "Revised greeting." not in old
    # Unchanged files are shared, not copied.
    assert revision.files.count() == bundle.files.count()
    assert f"/b/{bundle.pk}/" in client.get(f"/b/{revision.pk}/").content.decode()


def test_a_revision_that_removes_the_case_links_to_the_first_remaining_one(client, tiny):
    bundle, _ = tiny
    base = case_url(bundle.pk, "evals/tiny.yaml", "first")
    edited = EVAL.decode().replace("id: first", "id: renamed")
    body = client.post(base + "revise/", {"text": edited}, follow=True).content.decode()
    revision = Bundle.objects.exclude(pk=bundle.pk).get()
    assert case_url(revision.pk, "evals/tiny.yaml", "renamed") in body


def test_manage_link_deletes_the_bundle(client, tiny):
    bundle, token = tiny
    manage = f"/b/{bundle.pk}/manage/"
    page = client.post(manage, {"token": token})
    assert page.status_code == 200 and "Delete this bundle" in page.content.decode()
    assert "csrfmiddlewaretoken" in page.content.decode()
    assert client.get(f"/b/{bundle.pk}/").status_code == 200
    unconfirmed = client.post(manage, {"token": token, "action": "delete"})
    assert 'id="delete-refused"' in unconfirmed.content.decode()
    assert Bundle.objects.filter(pk=bundle.pk).exists()  # one click deletes nothing
    response = client.post(manage, {"token": token, "action": "delete", "confirm": "yes"})
    assert response.status_code == 200 and "Deleted" in response.content.decode()
    assert not Bundle.objects.filter(pk=bundle.pk).exists()
    assert client.get(f"/b/{bundle.pk}/").status_code == 404
    assert client.post(manage, {"token": token, "action": "delete", "confirm": "yes"}).status_code == 404


def test_the_manage_token_travels_in_the_fragment_never_in_a_requested_address(client, tiny):
    bundle, token = tiny
    shell = client.get(f"/b/{bundle.pk}/manage/")
    assert shell.status_code == 200 and token not in shell.content.decode()
    page = client.post(f"/b/{bundle.pk}/manage/", {"token": token})
    assert f"/b/{bundle.pk}/manage/#{token}" in page.content.decode()
    for response in (shell, page):
        assert response["Cache-Control"] == "no-store"
        assert response["Referrer-Policy"] == "no-referrer"


def test_an_old_manage_link_is_answered_with_a_form_that_posts_its_token_and_still_deletes(client, tiny):
    bundle, token = tiny
    old = f"/b/{bundle.pk}/manage/{token}/"
    answered = client.get(old + "?saved=upload")
    assert answered.status_code == 200 and "Location" not in answered  # no further address holds it
    form = re.search(r'<form method="post" id="manage-unlock" action="([^"]+)"', answered.content.decode())
    assert form and form.group(1) == f"/b/{bundle.pk}/manage/" and token not in form.group(1)
    assert f'value="{token}"' in answered.content.decode()
    assert answered["Cache-Control"] == "no-store" and answered["Referrer-Policy"] == "no-referrer"
    opened = client.post(form.group(1), {"token": token, "saved": "upload"})
    assert opened.status_code == 200 and "delete-bundle" in opened.content.decode()
    assert client.get(f"/b/{bundle.pk}/manage/wrong/").status_code == 404
    assert client.post(old).status_code == 200  # a delete form loaded before the change
    assert not Bundle.objects.filter(pk=bundle.pk).exists()


def test_a_token_in_the_manage_query_is_answered_with_the_posting_form_not_a_further_address(client, tiny):
    bundle, token = tiny
    answered = client.get(f"/b/{bundle.pk}/manage/", {"token": token})
    assert answered.status_code == 200 and "Location" not in answered
    assert f'value="{token}"' in answered.content.decode()
    assert f'action="/b/{bundle.pk}/manage/"' in answered.content.decode()


def test_wrong_manage_token_cannot_delete(client, tiny):
    bundle, _ = tiny
    assert client.post(f"/b/{bundle.pk}/manage/not-the-token/").status_code == 404
    assert Bundle.objects.filter(pk=bundle.pk).exists()


XSS = b"""evalcases:
  - id: "<script>alert('id')</script>"
    outcome: ok
    input_messages:
      - role: system
        content: "<script>alert(1)</script><img src=x onerror=alert(2)>"
      - role: user
        content:
          - type: text
            value: "</span><b>bold?</b>"
          - type: file
            value: "<evil>.md"
"""


def test_prompts_with_html_and_script_appear_as_text(client, db):
    bundle, _ = store_bundle(
        {"x<b>.yaml": XSS, "<evil>.md": b"<iframe src=javascript:alert(3)>"},
        title="<script>alert('title')</script>",
    )
    pages = [
        f"/b/{bundle.pk}/",
        case_url(bundle.pk, "x<b>.yaml", "<script>alert('id')</script>"),
        f"/b/{bundle.pk}/source/x<b>.yaml",
        f"/b/{bundle.pk}/source/<evil>.md",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert "<script>alert" not in body
        assert "<img src=x" not in body and "<iframe" not in body and "<b>bold" not in body
        assert "<evil>" not in body
    case_page = client.get(pages[1]).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in case_page
    assert "&lt;/span&gt;&lt;b&gt;bold?&lt;/b&gt;" in case_page


def test_uploaded_title_and_errors_are_escaped(client, db):
    response = client.post("/", {"text": "x: 1", "filename": "../<script>x</script>"})
    assert response.status_code == 400
    assert "<script>x" not in response.content.decode()
