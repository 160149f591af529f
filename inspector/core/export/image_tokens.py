"""What an image costs in tokens at each provider, estimated offline from its size in pixels.

The size is read from the image's own header (PNG, GIF, JPEG, WebP) inside its base64 data; an
image given by URL is never fetched, so its cost is each provider's figure for a typical image.
Files (PDFs ...) have no offline estimate and count nothing.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct

from ..model import Media

HEADER_BYTES = 64 * 1024  # enough for any PNG/GIF/WebP header and a JPEG's usual SOF position


def dimensions(media: Media) -> tuple[int, int] | None:
    """(width, height) from the image header, or None when it cannot be read."""
    if media.kind != "image" or not media.data:
        return None
    chunk = media.data[: HEADER_BYTES * 4 // 3 // 4 * 4]
    try:
        raw = base64.b64decode(chunk)
    except (binascii.Error, ValueError):
        return None
    return _png(raw) or _gif(raw) or _webp(raw) or _jpeg(raw)


def _png(raw: bytes) -> tuple[int, int] | None:
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR" and len(raw) >= 24:
        return struct.unpack(">II", raw[16:24])
    return None


def _gif(raw: bytes) -> tuple[int, int] | None:
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return struct.unpack("<HH", raw[6:10])
    return None


def _webp(raw: bytes) -> tuple[int, int] | None:
    if raw[:4] != b"RIFF" or raw[8:12] != b"WEBP" or len(raw) < 30:
        return None
    kind = raw[12:16]
    if kind == b"VP8X":
        return (int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1)
    if kind == b"VP8L":
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def _jpeg(raw: bytes) -> tuple[int, int] | None:
    if raw[:2] != b"\xff\xd8":
        return None
    position = 2
    while position + 9 < len(raw):
        if raw[position] != 0xFF:
            return None
        marker = raw[position + 1]
        length = int.from_bytes(raw[position + 2 : position + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", raw[position + 5 : position + 9])
            return width, height
        position += 2 + length
    return None


def openai(media: Media) -> int:
    """OpenAI's tiles: 85 base tokens and 170 per 512-px tile after fitting 2048 and then a short
    side of 768 (85 alone at detail low); an unread size counts as 1024 x 1024 (765)."""
    if media.kind != "image":
        return 0
    if media.detail == "low":
        return 85
    pixels = dimensions(media) or (1024, 1024)
    scale = min(1.0, 2048 / max(pixels))
    width, height = pixels[0] * scale, pixels[1] * scale
    scale = min(1.0, 768 / min(width, height)) if min(width, height) else 1.0
    return 85 + 170 * math.ceil(width * scale / 512) * math.ceil(height * scale / 512)


def anthropic(media: Media) -> int:
    """Anthropic's width x height / 750 after fitting a long side of 1568 px; an unread size counts
    as the largest image that is not scaled down (about 1,600 tokens)."""
    if media.kind != "image":
        return 0
    found = dimensions(media)
    if found is None:
        return 1600
    width, height = found
    scale = min(1.0, 1568 / max(width, height)) if max(width, height) else 1.0
    return max(1, round(width * scale * height * scale / 750))


def gemini(media: Media) -> int:
    """Gemini's 258 tokens for an image up to 384 px on both sides, else 258 per tile, tiles of a
    side between 256 and 768 px; an unread size counts as one image of 258."""
    if media.kind != "image":
        return 0
    found = dimensions(media)
    if found is None:
        return 258
    width, height = found
    if width <= 384 and height <= 384:
        return 258
    tile = min(768, max(256, min(width, height) / 1.5))
    return 258 * math.ceil(width / tile) * math.ceil(height / tile)
