"""What a web worker loads once, done when it starts rather than in its first visitor's request:
the token encodings (half a second) and the source lexers (a tenth)."""

from __future__ import annotations


def warm_up() -> None:
    from inspector import presenters
    from inspector.core import tokens

    for encoding in tokens.EXACT_ENCODINGS:
        tokens.count_text("warm up", encoding)
    for name in ("a.yaml", "a.json", "a.md", "a.toml", "a.py", "a.sh", "a.ts", "a.txt"):
        presenters.highlight_lines(name, "warm: up\n")
