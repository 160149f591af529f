"""Guards for every parser call on uploaded text.

libyaml's C composer overflows the C stack (the process dies) on flow collections nested tens of
thousands deep, `json` and `tomllib` raise RecursionError on deep nesting, and YAML aliases let a
few hundred bytes describe a tree of billions of nodes. Each parser call on user text goes through
these checks first, so hostile input is a clear InputError, never a crash.
"""

from __future__ import annotations

import re
from typing import Any

from .model import InputError

MAX_NESTING = 500  # far beyond any honest eval file, deck or request body
MAX_EXPANDED_NODES = 2_000_000
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")


def check_nesting(text: str, path: str | None = None) -> None:
    """Refuse text whose brackets nest deeper than MAX_NESTING. Brackets inside strings count too:
    a cheap over-estimate, and prose never nests hundreds of brackets deep."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return
    depth = 0
    for char in _NOT_A_BRACKET.sub("", text):
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise InputError(f"the document is nested more than {MAX_NESTING} levels deep", path)
        elif depth:
            depth -= 1


def check_expansion(node: Any, path: str | None = None) -> None:
    """Refuse a composed YAML tree whose aliases expand past MAX_EXPANDED_NODES values."""
    sizes: dict[int, int] = {}

    def size(current: Any) -> int:
        known = sizes.get(id(current))
        if known is not None:
            return known
        total = 1
        value = current.value
        if isinstance(value, list):
            for item in value:
                children = item if isinstance(item, tuple) else (item,)
                for child in children:
                    total += size(child)
                    if total > MAX_EXPANDED_NODES:
                        raise InputError(
                            f"the YAML aliases expand to more than {MAX_EXPANDED_NODES:,} values "
                            "(an alias bomb?)", path)
        sizes[id(current)] = total
        return total

    if node is not None:
        try:
            size(node)
        except RecursionError:
            raise InputError(f"the document is nested more than {MAX_NESTING} levels deep",
                             path) from None
