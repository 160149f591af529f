"""Images and files in raw requests, each format's spelling read into `Media`.

Every reader takes one content part (a dict) and returns the media with the part's keys it used,
or None when the part is no image or file it knows. A data URL is split into its media type and
base64 data only in the exact `data:<type>;base64,<data>` form, so writing it back gives the same
string; any other URL is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..model import Media

DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+);base64,([A-Za-z0-9+/=]*)", re.ASCII)
MediaReader = Callable[[dict[str, Any]], tuple[Media, set[str]] | None]


def from_url(kind: str, url: str, **fields: Any) -> Media:
    match = DATA_URL.fullmatch(url)
    if match:
        return Media(kind, media_type=match.group(1), data=match.group(2), **fields)
    return Media(kind, url=url, **fields)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def openai_chat(part: dict[str, Any]) -> tuple[Media, set[str]] | None:
    kind = part.get("type")
    if kind == "image_url" and isinstance(part.get("image_url"), dict):
        image = part["image_url"]
        if isinstance(image.get("url"), str) and set(image) <= {"url", "detail"}:
            return from_url("image", image["url"], detail=_text_or_none(image.get("detail"))), {
                "type",
                "image_url",
            }
    if kind == "file" and isinstance(part.get("file"), dict):
        file = part["file"]
        if set(file) <= {"file_data", "file_id", "filename"} and file:
            data = file.get("file_data")
            media = from_url("file", data) if isinstance(data, str) else Media("file")
            if media.url is not None:  # raw base64 rather than a data URL
                media = Media("file", data=media.url)
            return Media(
                media.kind,
                media.media_type,
                media.data,
                None,
                _text_or_none(file.get("file_id")),
                _text_or_none(file.get("filename")),
            ), {"type", "file"}
    return None


def openai_responses(part: dict[str, Any]) -> tuple[Media, set[str]] | None:
    kind = part.get("type")
    if kind == "input_image":
        url = part.get("image_url")
        detail = _text_or_none(part.get("detail"))
        if isinstance(url, str):
            return from_url("image", url, detail=detail), {"type", "image_url", "detail"}
        if isinstance(part.get("file_id"), str):
            return Media("image", file_id=part["file_id"], detail=detail), {"type", "file_id", "detail"}
    if kind == "input_file":
        data, url = part.get("file_data"), part.get("file_url")
        fields = {
            "file_id": _text_or_none(part.get("file_id")),
            "filename": _text_or_none(part.get("filename")),
        }
        used = {"type", "file_data", "file_url", "file_id", "filename"}
        if isinstance(data, str):
            media = from_url("file", data, **fields)
            if media.url is not None:
                media = Media("file", data=data, **fields)
            return media, used
        if isinstance(url, str):
            return Media("file", url=url, **fields), used
        if fields["file_id"]:
            return Media("file", **fields), used
    return None


def anthropic(part: dict[str, Any]) -> tuple[Media, set[str]] | None:
    kind = part.get("type")
    source = part.get("source")
    if kind not in ("image", "document") or not isinstance(source, dict):
        return None
    media_kind = "image" if kind == "image" else "file"
    source_type = source.get("type")
    if source_type == "base64" and set(source) == {"type", "media_type", "data"}:
        media = Media(
            media_kind, media_type=_text_or_none(source["media_type"]), data=_text_or_none(source["data"])
        )
    elif source_type == "url" and set(source) == {"type", "url"} and isinstance(source["url"], str):
        media = Media(media_kind, url=source["url"])
    elif source_type == "file" and set(source) == {"type", "file_id"}:
        media = Media(media_kind, file_id=_text_or_none(source["file_id"]))
    else:
        return None
    used = {"type", "source"}
    if kind == "document" and isinstance(part.get("title"), str):
        media = Media(media.kind, media.media_type, media.data, media.url, media.file_id, part["title"])
        used.add("title")
    return media, used


def gemini(part: dict[str, Any]) -> tuple[Media, set[str]] | None:
    inline = part.get("inlineData")
    if isinstance(inline, dict) and set(inline) == {"mimeType", "data"}:
        media_type = _text_or_none(inline["mimeType"])
        kind = "image" if (media_type or "").startswith("image/") else "file"
        return Media(kind, media_type=media_type, data=_text_or_none(inline["data"])), {"inlineData"}
    file = part.get("fileData")
    if (
        isinstance(file, dict)
        and isinstance(file.get("fileUri"), str)
        and set(file) <= {"fileUri", "mimeType"}
    ):
        media_type = _text_or_none(file.get("mimeType"))
        kind = "image" if (media_type or "").startswith("image/") else "file"
        return Media(kind, media_type=media_type, url=file["fileUri"]), {"fileData"}
    return None
