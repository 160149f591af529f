"""What a web worker loads once, done when it starts rather than in its first visitor's request:
the URL configuration with the API's schemas (a fifth of a second), the token encodings (half a
second) and the source lexers (a tenth)."""

from __future__ import annotations


def warm_up() -> None:
    from django.urls import get_resolver

    from inspector.cases import highlighting
    from inspector.core import tokens

    get_resolver().url_patterns  # noqa: B018 - imports the URL modules, as a first request would

    for encoding in tokens.EXACT_ENCODINGS:
        tokens.count_text("warm up", encoding)
    for name in ("a.yaml", "a.json", "a.md", "a.toml", "a.py", "a.sh", "a.ts", "a.txt"):
        highlighting.highlight_lines(name, "warm: up\n")
