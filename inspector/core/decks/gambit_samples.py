"""Context inputs a gambit deck's own folder offers: the files of `samples/` beside its entry point
(gambit 1.0's deck folder contract recommends that folder and leaves its files' form open). A
sample is chosen by name (its path inside `samples/`, with or without its suffix) and is the input
as `gambit run --context "$(cat FILE)"` passes it, or for a scenario deck `gambit scenario
--bot-input "$(cat FILE)"`: the file's text without its final line breaks, which gambit's
parseContext/parseBotInput read as JSON when it parses, else as the text."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from ..bundle import Bundle, decode, normalize
from ..model import InputError, Origin, OriginKind

SAMPLES_FOLDER = "samples"
SAMPLE_SUFFIXES = (".json", ".txt", ".md")
NOT_SAMPLES = (".deck.md", ".card.md", "/PROMPT.md")  # decks and cards kept in the folder
MAX_LISTED = 200


@dataclass(frozen=True, slots=True)
class ContextSample:
    name: str  # its path inside samples/ without the suffix
    file: str  # with it
    path: str  # in the bundle


def deck_samples(bundle: Bundle, deck: str) -> list[ContextSample]:
    """The deck's samples in path order (at most MAX_LISTED); a name two files share goes to the
    first."""
    folder = posixpath.join(posixpath.dirname(deck), SAMPLES_FOLDER)
    found: dict[str, ContextSample] = {}
    for path in bundle.paths_under(folder):
        if not path.endswith(SAMPLE_SUFFIXES) or ("/" + path).endswith(NOT_SAMPLES):
            continue
        file = path[len(folder) + 1 :]
        name = posixpath.splitext(file)[0]
        found.setdefault(name, ContextSample(name, file, path))
        if len(found) >= MAX_LISTED:
            break
    return list(found.values())


def _chosen(
    bundle: Bundle, deck: str, name: str, kind: str, suffixes: tuple[str, ...] = SAMPLE_SUFFIXES
) -> ContextSample:
    samples = [s for s in deck_samples(bundle, deck) if s.file.endswith(suffixes)]
    chosen = next((s for s in samples if name in (s.name, s.file)), None)
    if chosen is None:
        names = ", ".join(s.name for s in samples[:20]) or "none"
        folder = posixpath.join(posixpath.dirname(deck), SAMPLES_FOLDER)
        raise InputError(f"no {kind} sample {name!r} in {folder}/ (samples: {names})", deck)
    return chosen


def sample_text(bundle: Bundle, deck: str, name: str) -> tuple[str, Origin]:
    """The chosen sample's text as gambit's CLI receives it, traced to the file's lines."""
    chosen = _chosen(bundle, deck, name, "context")
    decoded = bundle.text(chosen.path)
    text = "" if decoded is None else decoded.text.rstrip("\n")  # as $(cat FILE) drops them
    return text, Origin(OriginKind.CASE_TEXT, chosen.path, 1, text.count("\n") + 1)


def conversation_file(bundle: Bundle, deck: str, name: str, limit: int) -> tuple[str, str]:
    """(path, text) of the conversation a grader grades: a JSON sample of the deck by name, or a
    JSON file of the bundle by its path (a session gambit saved, say)."""
    path = normalize(name) if name.endswith(".json") else None
    data = bundle.read(path) if path else None
    if path is None or data is None:
        path = _chosen(bundle, deck, name, "conversation", (".json",)).path
        data = bundle.read(path) or b""
    if len(data) > limit:
        raise InputError(f"the conversation is larger than {limit:,} bytes", path)
    return path, decode(data).text
