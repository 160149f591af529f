"""Forms for the pages that take input: upload, paste and revisions. Upload limits live in ingest, so
these only check the shape of the request."""

from __future__ import annotations

from django import forms

from inspector.bundles.ingest import UploadError, refuse_oversized

MAX_PASTE_CHARS = 5_000_000


class PasteForm(forms.Form):
    text = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_PASTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )
    filename = forms.CharField(required=False, max_length=4096, initial="eval.yaml")
    title = forms.CharField(required=False, max_length=200)
    # One relative path per line for the files chosen with the folder picker, in the order the browser
    # sends them: multipart uploads carry only base names.
    relative_paths = forms.CharField(required=False, widget=forms.HiddenInput, max_length=2_000_000)


def uploads_from_request(form: PasteForm, files: list, folder_files: list) -> list[tuple[str, bytes]]:
    """(path, bytes) pairs from the chosen files, the folder picker and the paste box."""
    refuse_oversized([upload.size or 0 for upload in [*files, *folder_files]])
    uploads: list[tuple[str, bytes]] = [(upload.name, upload.read()) for upload in files]
    uploads += _folder_uploads(form, folder_files)
    text = form.cleaned_data.get("text") or ""
    if text.strip():
        name = (form.cleaned_data.get("filename") or "").strip() or "eval.yaml"
        uploads.append((name, text.encode("utf-8")))
    if not uploads:
        raise UploadError("choose a file, a folder or a zip, or paste some text")
    return uploads


def _folder_uploads(form: PasteForm, folder_files: list) -> list[tuple[str, bytes]]:
    """The folder picker's files under their paths in the folder, which the page's script sends."""
    # The page's script joins the paths with "\n"; browsers send form text with CRLF. Not
    # splitlines(): it also splits on characters a file name may hold (U+2028, \x0b, ...).
    relative_text = (form.cleaned_data.get("relative_paths") or "").replace("\r\n", "\n")
    relative = [line for line in relative_text.split("\n") if line]
    if folder_files and len(relative) != len(folder_files):
        relative = []  # without the script the folder structure is unknown: keep base names
    return [
        (relative[index] if relative else upload.name, upload.read())
        for index, upload in enumerate(folder_files)
    ]


class RevisionForm(forms.Form):
    text = forms.CharField(required=False, strip=False, max_length=MAX_PASTE_CHARS)
