"""One entry point for every input family: pick the loader for a file and render it."""

from __future__ import annotations

import json

from . import formats
from .bundle import Bundle
from .formats import detect_format
from .model import Diagnostic, InputError, RenderedDocument, distinct_ids
from .options import PROFILES, RenderOptions

__all__ = ["detect_format", "list_documents", "render_document"]


def render_document(bundle: Bundle, path: str, options: RenderOptions | None = None) -> RenderedDocument:
    options = options or RenderOptions()
    if options.profile not in PROFILES:
        raise InputError(f"unknown profile {options.profile!r}; choose one of {', '.join(PROFILES)}")
    if options.input_format not in formats.INPUT_FORMATS:
        raise InputError(
            f"unknown input format {options.input_format!r}; choose one of {', '.join(formats.INPUT_FORMATS)}"
        )
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    input_format = options.input_format
    if input_format == "auto":
        input_format = detect_format(path, decoded.text)

    try:
        document = formats.REGISTRY[input_format].render(bundle, path, options)
    except RecursionError:
        # Every parser call is guarded by safe_parse; this is the backstop for any deep walk after.
        raise InputError("the document is nested too deeply to read", path) from None
    except InputError as error:
        if decoded.problem is None:
            raise
        # A parser's complaint about a binary or UTF-16 file hides the real cause: say it first.
        found = error.diagnostic
        raise InputError(
            f"the file {decoded.problem}; {found.message}", found.path or path, found.line, found.column
        ) from None

    if decoded.problem is not None:
        _note_undecodable(document, Diagnostic(f"the file {decoded.problem}", path, decoded.problem_line))
    if input_format == "agentv" and path.lower().endswith(".jsonl"):
        _note_results_file(document, decoded.text)
    if options.max_tokens is not None:
        from .context import apply_budget

        for case in document.cases:
            apply_budget(case, options.max_tokens, options.encoding)
    return document


def _note_undecodable(document: RenderedDocument, warning: Diagnostic) -> None:
    """A file read with replaced bytes is named on every case it made, where the page, the API and
    the CLI's JSON show a case's warnings; a file that made no case keeps it on the document."""
    holders = [case.warnings for case in document.cases] or [document.warnings]
    for warnings in holders:
        if warning not in warnings:
            warnings.insert(0, warning)


RESULTS_FILE = (
    "each line is the result of a run (`test_id`, `score`), not a test: this is agentv's results "
    "file (a `*.baseline.jsonl`, or what `agentv eval` wrote), and agentv would skip every line as "
    "a test; upload it with the project's files under Runs to compare the run with what the files "
    "send now"
)


def _note_results_file(document: RenderedDocument, text: str) -> None:
    """agentv's examples keep a run's results beside the suite (`suite.baseline.jsonl`); read as
    tests, every line is skipped, so the file says what it is and where it is read."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        record = json.loads(first)  # the loader has parsed this line already
    except ValueError:
        return
    if isinstance(record, dict) and "test_id" in record and "score" in record:
        document.warnings.insert(0, Diagnostic(RESULTS_FILE, document.path, 1))


def is_document(path: str, bundle: Bundle) -> bool:
    """Whether a bundle file is something the inspector renders (not config, sidecar or attachment)."""
    lower = path.lower()
    name = lower.rsplit("/", 1)[-1]
    if "/.agentv/" in f"/{lower}" or name.startswith("."):
        return False
    if lower.endswith((".toml", ".deck.md", ".jsonl")):
        return True
    if name == "prompt.md":
        return _is_gambit_prompt(path, bundle)
    if lower.endswith((".yaml", ".yml")):
        # A JSONL dataset's sidecar (<base>.yaml beside <base>.jsonl) describes it; it is not a suite.
        base = path.rsplit(".", 1)[0]
        return not bundle.exists(base + ".jsonl")
    if lower.endswith(".json"):
        decoded = bundle.text(path)
        if decoded is None:
            return False
        return formats.sniff(decoded.text) is not None
    return False


def listing_parses(path: str) -> bool:
    """Whether is_document parses the file's content to decide (a PROMPT.md's first characters are
    only compared; the rest is path rules): only such files make listing a bundle a parse of
    untrusted text, to be run in the bounded worker."""
    return path.lower().endswith(".json")


def _is_gambit_prompt(path: str, bundle: Bundle) -> bool:
    """A gambit deck folder's PROMPT.md, not the prompt file agentv 5 reads beside an eval file:
    one that opens with front matter, or that no eval file sits beside."""
    from .decks.gambit_text import starts_with_delimiter

    decoded = bundle.text(path)
    if decoded is None:
        return False
    if starts_with_delimiter(decoded.text):
        return True
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    return not any(
        other.startswith(folder)
        and "/" not in other[len(folder) :]
        and other.lower().endswith((".yaml", ".yml", ".jsonl"))
        for other in bundle.paths()
    )


def list_documents(bundle: Bundle) -> list[str]:
    from .decks.embeds import embedded_sample_files

    # A sample file a deck embeds is part of that deck, not a second document.
    embedded = embedded_sample_files(bundle)
    return [path for path in bundle.paths() if path not in embedded and is_document(path, bundle)]


def give_cases_distinct_ids(document: RenderedDocument) -> RenderedDocument:
    """Rename the second and later cases sharing an id to `<id>#2`, `#3`, ... so that every case
    can be addressed (a page or API URL per case). The loaders already warn about the duplicates;
    the command line keeps the ids as written."""
    for case, new_id in zip(document.cases, distinct_ids([case.id for case in document.cases]), strict=True):
        if new_id != case.id:
            case.metadata.setdefault("id_as_written", case.id)
            case.id = new_id
    return document
