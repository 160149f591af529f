"""Line numbers for TOML values, which `tomllib` does not report.

A structural scan of text tomllib has already accepted: it follows headers, keys, arrays and inline
tables, skips over string and scalar literals, and records for every value the lines it occupies,
keyed by the same path a reader would use on the parsed data, e.g.
("samples", "good", "messages", 0, "content") or ("samples", 3, "messages", 1).
"""

from __future__ import annotations

import bisect
import re
import tomllib

Path = tuple[str | int, ...]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^,\]\}\n#]*")


class LocateError(Exception):
    """The scan met something it does not understand (it should not, on valid TOML)."""


class TomlLines:
    """Spans of every value in a TOML document: `exact` for the item itself, `covering` for the
    item together with everything nested under it wherever it was written (a sample's table and
    its `[[...messages]]` tables may be far apart, even in reverse order)."""

    def __init__(self, text: str):
        self.text = text
        self.exact: dict[Path, tuple[int, int]] = {}
        self.covering: dict[Path, tuple[int, int]] = {}
        self._newlines = [match.start() for match in re.finditer("\n", text)]
        self._pos = 0
        self._arrays: dict[Path, int] = {}  # concrete path of an array of tables -> its length
        self._scan()

    def span(self, path: Path) -> tuple[int, int] | None:
        return self.exact.get(path)

    def covering_span(self, path: Path) -> tuple[int, int] | None:
        return self.covering.get(path)

    # -- recording -------------------------------------------------------------------------

    def _line(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def _record(self, path: Path, start: int, end: int) -> None:
        self.exact[path] = (start, end)
        for length in range(1, len(path) + 1):
            prefix = path[:length]
            known = self.covering.get(prefix)
            if known is None:
                self.covering[prefix] = (start, end)
            else:
                self.covering[prefix] = (min(known[0], start), max(known[1], end))

    # -- scanning --------------------------------------------------------------------------

    def _peek(self, text: str) -> bool:
        return self.text.startswith(text, self._pos)

    def _skip_blank(self, newlines: bool) -> None:
        text, pos, size = self.text, self._pos, len(self.text)
        while pos < size:
            char = text[pos]
            if char in " \t\r" or (newlines and char == "\n"):
                pos += 1
            elif char == "#":
                end = text.find("\n", pos)
                pos = size if end < 0 else end
            else:
                break
        self._pos = pos

    def _scan(self) -> None:
        table: Path = ()
        header_line: int | None = None
        last_line = 0
        size = len(self.text)
        while True:
            self._skip_blank(newlines=True)
            if self._pos >= size or self._peek("["):
                if header_line is not None:
                    self._record(table, header_line, max(header_line, last_line))
                if self._pos >= size:
                    return
                header_line = self._line(self._pos)
                last_line = header_line
                table = self._header()
                continue
            self._key_value(table)
            last_line = self._line(self._pos - 1)

    def _header(self) -> Path:
        is_array = self._peek("[[")
        self._pos += 2 if is_array else 1
        keys = self._key()
        self._skip_blank(newlines=False)
        closing = "]]" if is_array else "]"
        if not self._peek(closing):
            raise LocateError(f"unexpected header at line {self._line(self._pos)}")
        self._pos += len(closing)
        if not is_array:
            return self._concrete(keys)
        parent = self._concrete(keys[:-1]) + (keys[-1],)
        count = self._arrays.get(parent, 0)
        self._arrays[parent] = count + 1
        return parent + (count,)

    def _concrete(self, keys: tuple[str, ...]) -> Path:
        """A header's keys with the current index inserted after each array of tables."""
        path: list[str | int] = []
        for key in keys:
            path.append(key)
            count = self._arrays.get(tuple(path))
            if count:
                path.append(count - 1)
        return tuple(path)

    def _key(self) -> tuple[str, ...]:
        keys = []
        while True:
            self._skip_blank(newlines=False)
            keys.append(self._simple_key())
            self._skip_blank(newlines=False)
            if not self._peek("."):
                return tuple(keys)
            self._pos += 1

    def _simple_key(self) -> str:
        text, pos = self.text, self._pos
        if text.startswith('"', pos) or text.startswith("'", pos):
            end = self._string_end(pos)
            raw = text[pos:end]
            self._pos = end
            return tomllib.loads(f"k = {raw}")["k"]
        match = _BARE_KEY.match(text, pos)
        if not match:
            raise LocateError(f"unexpected key at line {self._line(pos)}")
        self._pos = match.end()
        return match.group()

    def _key_value(self, table: Path) -> None:
        keys = self._key()
        self._skip_blank(newlines=False)
        if not self._peek("="):
            raise LocateError(f"expected '=' at line {self._line(self._pos)}")
        self._pos += 1
        self._skip_blank(newlines=False)
        self._value(table + keys)

    def _value(self, path: Path) -> None:
        start = self._pos
        text = self.text
        if text.startswith("[", start):
            self._pos += 1
            index = 0
            while True:
                self._skip_blank(newlines=True)
                if self._peek("]"):
                    self._pos += 1
                    break
                self._value(path + (index,))
                index += 1
                self._skip_blank(newlines=True)
                if self._peek(","):
                    self._pos += 1
        elif text.startswith("{", start):
            self._pos += 1
            while True:
                self._skip_blank(newlines=True)
                if self._peek("}"):
                    self._pos += 1
                    break
                self._key_value(path)
                self._skip_blank(newlines=True)
                if self._peek(","):
                    self._pos += 1
        elif text.startswith(('"', "'"), start):
            self._pos = self._string_end(start)
        else:
            match = _SCALAR.match(text, start)
            end = start + (len(match.group().rstrip()) if match else 0)  # `*` always matches
            if end == start:
                raise LocateError(f"unexpected value at line {self._line(start)}")
            self._pos = end
        self._record(path, self._line(start), self._line(self._pos - 1))

    def _string_end(self, start: int) -> int:
        """Offset just past the string literal that opens at `start`."""
        text = self.text
        for quotes in ('"""', "'''"):
            if text.startswith(quotes, start):
                pos = start + 3
                while True:
                    if quotes == '"""':
                        pos = self._basic_until(pos, '"""')
                    else:
                        pos = text.find("'''", pos)
                        if pos < 0:
                            raise LocateError("unterminated string")
                    run = 3
                    # Up to two quotes may sit just before the closing delimiter.
                    while run < 5 and text.startswith(quotes[0], pos + run):
                        run += 1
                    return pos + run
        if text.startswith('"', start):
            return self._basic_until(start + 1, '"') + 1
        end = text.find("'", start + 1)
        if end < 0:
            raise LocateError("unterminated string")
        return end + 1

    def _basic_until(self, pos: int, closing: str) -> int:
        """Offset of the first unescaped `closing` at or after `pos` in a basic string."""
        text = self.text
        while True:
            quote = text.find(closing, pos)
            backslash = text.find("\\", pos, quote if quote >= 0 else None)
            if quote < 0:
                raise LocateError("unterminated string")
            if backslash < 0:
                return quote
            pos = backslash + 2
