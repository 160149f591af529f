"""yaml 2.8.3's %YAML and %TAG directives and tag names (doc/directives.js), as its Composer uses them:
the version a document declares picks its schema, and a tag's handle resolves through %TAG."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_TAGS = {"!!": "tag:yaml.org,2002:"}


class URIError(Exception):
    pass


def decode_uri_component(text: str) -> str:
    """JS decodeURIComponent: %XX escapes of UTF-8 bytes, anything malformed an URIError."""
    out: list[str] = []
    index = 0
    while index < len(text):
        if text[index] != "%":
            out.append(text[index])
            index += 1
            continue
        raw = bytearray()
        while index < len(text) and text[index] == "%":
            hex_digits = text[index + 1 : index + 3]
            if len(hex_digits) != 2 or not re.fullmatch(r"[0-9a-fA-F]{2}", hex_digits):
                raise URIError("URI malformed")
            raw.append(int(hex_digits, 16))
            index += 3
            if _complete_utf8(raw):
                break
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise URIError("URI malformed") from error
    return "".join(out)


def _complete_utf8(raw: bytearray) -> bool:
    lead = raw[0]
    expected = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4
    return len(raw) >= expected


# What JS's String.prototype.trim takes off: its WhiteSpace (the BOM among it, unlike Python's
# str.strip) and LineTerminators, and no more (str.strip also takes \x1c-\x1f and \x85).
JS_WHITE_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
JS_WHITE_SPACE += "\u2028\u2029\u202f\u205f\u3000\ufeff"


@dataclass
class Directives:
    """Directives (doc/directives.js): the stream's, and each document's copy of them."""

    version: str = "1.2"
    explicit: bool = False
    tags: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_TAGS))
    doc_start: bool = False
    at_next_document: bool = False

    def at_document(self) -> Directives:
        """atDocument: the document's copy; a 1.2 stream forgets its directives after it."""
        copy = Directives(self.version, self.explicit, dict(self.tags))
        if self.version == "1.1":
            self.at_next_document = True
        elif self.version == "1.2":
            self.at_next_document = False
            self.version, self.explicit, self.tags = "1.2", False, dict(DEFAULT_TAGS)
        return copy

    def add(self, line: str, on_error: Callable[[int, str, bool], None]) -> bool:
        """add: one directive line; on_error(offset in the line, message, warning)."""
        if self.at_next_document:
            self.version, self.explicit, self.tags = "1.1", False, dict(DEFAULT_TAGS)
            self.at_next_document = False
        parts = re.split(r"[ \t]+", line.strip(JS_WHITE_SPACE))
        name = parts.pop(0)
        if name == "%TAG":
            if len(parts) != 2:
                on_error(0, "%TAG directive should contain exactly two parts", False)
                if len(parts) < 2:
                    return False
            self.tags[parts[0]] = parts[1]
            return True
        if name == "%YAML":
            return self._add_yaml(parts, on_error)
        on_error(0, f"Unknown directive {name}", True)
        return False

    def _add_yaml(self, parts: list[str], on_error: Callable[[int, str, bool], None]) -> bool:
        self.explicit = True
        if len(parts) != 1:
            on_error(0, "%YAML directive should contain exactly one part", False)
            return False
        version = parts[0]
        if version in ("1.1", "1.2"):
            self.version = version
            return True
        is_valid = re.fullmatch(r"[0-9]+\.[0-9]+", version) is not None
        on_error(6, f"Unsupported YAML version {version}", is_valid)
        return False

    def tag_name(self, source: str, on_error: Callable[[str], None]) -> str | None:
        """tagName: the tag a tag token names, '!' for the non-specific one, None if unresolvable."""
        if source == "!":
            return "!"
        if source[:1] != "!":
            on_error(f"Not a valid tag: {source}")
            return None
        if source[1:2] == "<":
            verbatim = source[2:-1]
            if verbatim in ("!", "!!"):
                on_error(f"Verbatim tags aren't resolved, so {source} is invalid.")
                return None
            if source[-1] != ">":
                on_error("Verbatim tags must end with a >")
            return verbatim
        last = source.rindex("!")
        handle, suffix = source[: last + 1], source[last + 1 :]
        if not suffix:
            on_error(f"The {source} tag has no suffix")
        prefix = self.tags.get(handle)
        if prefix:
            try:
                return prefix + decode_uri_component(suffix)
            except URIError as error:
                on_error(f"URIError: {error}")
                return None
        if handle == "!":
            return source
        on_error(f"Could not resolve tag: {source}")
        return None
