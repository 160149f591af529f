"""How pages address cases and files: case ids inside URLs, links to a case and to a source file,
absolute links for sharing, download names."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urlencode

from django.urls import reverse

# Case ids may hold any character, including "/" and "..". WSGI decodes %2F before routing, so a
# percent-encoded slash would still split the path; instead anything outside a small safe set is
# written as ~XX per UTF-8 byte. Common ids (letters, digits, dashes) stay readable.
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


_PLAIN_ID = re.compile(r"[A-Za-z0-9_.-]+")


_ESCAPE = re.compile(r"~([0-9A-F]{2})")


def encode_case_id(case_id: str) -> str:
    if _PLAIN_ID.fullmatch(case_id) and case_id.strip("."):
        return case_id  # most ids: nothing to escape (a character loop cost 8 µs per link)
    if case_id and set(case_id) == {"."}:
        # "." and ".." are path segments a browser would collapse.
        return "".join("~2E" for _ in case_id)
    if not case_id:
        return "~"
    out = []
    for char in case_id:
        if char in _SAFE:
            out.append(char)
        else:
            out.extend(f"~{byte:02X}" for byte in char.encode("utf-8"))
    return "".join(out)


def decode_case_id(value: str) -> str | None:
    """The case id an encoded URL segment stands for, or None when the segment is malformed."""
    if value == "~":
        return ""
    data = bytearray()
    # Split keeps the captured hex digits at odd positions; literal text sits at even ones.
    for position, part in enumerate(_ESCAPE.split(value)):
        if position % 2:
            data.append(int(part, 16))
        elif "~" in part:
            return None
        else:
            data.extend(part.encode("utf-8", errors="surrogatepass"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


_CASE_ID_SLOT = "CaseIdSlot0"


@lru_cache(maxsize=256)
def _case_url_around(bundle_id: str, document: str) -> tuple[str, str]:
    url = reverse("case", kwargs={"bundle_id": bundle_id, "document": document, "case_id": _CASE_ID_SLOT})
    before, _, after = url.rpartition(_CASE_ID_SLOT)
    return before, after


def case_url(bundle_id: str, document: str, case_id: str, query: str = "") -> str:
    # reverse() once per file: a page of thousands of case links spent most of its time in it. The
    # id needs no quote() as reverse() does: encoded, it holds only letters, digits and -_.~, which
    # quote() leaves alone.
    before, after = _case_url_around(bundle_id, document)
    url = before + encode_case_id(case_id) + after
    return f"{url}?{query}" if query else url


def source_url(bundle_id: str, path: str, start: int | None = None, end: int | None = None) -> str:
    url = reverse("source", kwargs={"bundle_id": bundle_id, "path": path})
    if start:
        url += "?" + urlencode({"hl": f"{start}-{end or start}"})
    return url


def parse_line_range(value: str | None) -> tuple[int, int] | None:
    """ "3-7" or "5" as an inclusive line range; anything else is ignored rather than refused, since a
    wrong highlight is harmless."""
    if not value:
        return None
    match = re.fullmatch(r"(\d{1,7})(?:-(\d{1,7}))?", value.strip())
    if not match:
        return None
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start < 1 or end < start:
        return None
    return start, end


def file_stem(name: str) -> str:
    """A download file name's stem from a path, title or id: safe characters only, never empty."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:80] or "download"


def absolute_url(request, path: str) -> str:
    """An absolute link for sharing: SITE_ROOT when set (behind a proxy that rewrites the host)."""
    from django.conf import settings

    if settings.SITE_ROOT:
        return settings.SITE_ROOT.rstrip("/") + path
    return request.build_absolute_uri(path)
