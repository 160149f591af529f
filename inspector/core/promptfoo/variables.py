"""A test's vars as renderPrompt (src/evaluatorHelpers.ts) prepares them: `file://` values read
(text trimmed, YAML as JSON text, images as base64 data URLs), one trailing newline dropped from
every string, and `{{ name }}` inside a var replaced by the other var (resolveVariables).

Each var remembers where it is written (`Where`), so the text it puts into a prompt points there:
the test's line, the CSV row, or the file a `file://` value reads.
"""

from __future__ import annotations

import base64
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any

import yaml

from ..agentv.nunjucks import Where
from ..model import LineSpan, OriginKind
from .source import FILE_PREFIX, Source

IMAGE_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
    ".ico": "image/x-icon",
    ".avif": "image/avif",
    ".heic": "image/heic",
}
MAGIC = (
    (b"\x89PNG", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"BM", "image/bmp"),
)
MEDIA_EXTENSIONS = (".mp3", ".wav", ".m4a", ".ogg", ".flac", ".aac", ".mp4", ".webm", ".mov", ".avi", ".mkv")
CODE_EXTENSIONS = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".py")
SIMPLE_REFERENCE = re.compile(r"\{\{\s*(\w+)\s*\}\}")


@dataclass
class Variables:
    values: dict[str, Any]
    origins: dict[str, Where]


def load_files(source: Source, variables: Variables, line: int | None) -> list[str]:
    """The `file://` values read in place; returns what could not be (named by the caller)."""
    problems = []
    for name, value in list(variables.values.items()):
        if not (isinstance(value, str) and value.startswith(FILE_PREFIX)):
            continue
        reference = value[len(FILE_PREFIX) :]
        path = source.resolve(reference)
        extension = posixpath.splitext(reference)[1].lower()
        if extension in CODE_EXTENSIONS:
            problems.append(f"var `{name}` comes from running {reference}, which the inspector does not run")
            continue
        data = source.read_bytes(path) if path is not None else None
        if path is None or data is None:
            problems.append(f"var `{name}`: no file {reference!r} in the bundle")
            continue
        loaded = _file_value(data, extension, reference, problems, name)
        variables.values[name] = loaded
        via = LineSpan(source.path, line, line) if line is not None else None
        variables.origins[name] = Where(path, 1, max(1, str(loaded).count("\n") + 1), OriginKind.FILE, via)
    return problems


def _file_value(data: bytes, extension: str, reference: str, problems: list[str], name: str) -> Any:
    if extension in (".yaml", ".yml"):
        return json.dumps(yaml.safe_load(data.decode("utf-8")), ensure_ascii=False, separators=(",", ":"))
    if extension == ".pdf":
        problems.append(
            f"var `{name}`: promptfoo extracts the text of {reference}; the inspector does not read PDFs"
        )
        return ""
    if extension in IMAGE_TYPES:
        mime = next((kind for magic, kind in MAGIC if data.startswith(magic)), None)
        if mime is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            mime = "image/webp"
        return f"data:{mime or IMAGE_TYPES[extension]};base64,{base64.b64encode(data).decode()}"
    if extension in MEDIA_EXTENSIONS:
        return base64.b64encode(data).decode()
    return data.decode("utf-8", "replace").strip()


def prepare(variables: Variables) -> None:
    """One trailing newline off every string, then resolveVariables."""
    values = variables.values
    for name, value in values.items():
        if isinstance(value, str) and value.endswith("\n"):
            values[name] = value[:-1]
    for _ in range(5):
        changed = False
        for name, value in values.items():
            if not isinstance(value, str):
                continue
            match = SIMPLE_REFERENCE.search(value)
            if match and match.group(1) in values:
                replacement = values[match.group(1)]
                values[name] = value.replace(match.group(0), _js_text(replacement), 1)
                changed = True
        if not changed:
            break


def _js_text(value: Any) -> str:
    """String(value) for what a var holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join("" if item is None else _js_text(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)
