"""What a suite costs: tokens per source file and per case, the price of one run, and what caching
would save (the cache map is `cache_map`).

Counts follow `tokens`: exact for OpenAI's encodings, o200k_base estimates (labelled) for providers
without a local tokenizer. A case's input is its sent messages (content, names and tool calls, plus
the chat format's per-message tokens) and its tool definitions as JSON. A file's tokens are the
segments its text produced, each counted alone, so a row can differ from a message's count by a
token where BPE merges across a boundary; the rest (separators, default prompts, formatting) is
"unattributed". Output is priced at the max output tokens, an upper bound, when they are set.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

import toktok

from . import cache_map, prices
from .cache_hint import split_hint
from .export.anthropic_cache import MAX_BREAKPOINTS, CacheMark
from .export.common import ExportSettings
from .export.registry import provider as provider_spec
from .model import Message, RenderedCase, RenderedDocument
from .tokens import TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, message_texts

SYSTEM_ROLES = frozenset({"system", "developer"})
SYSTEM_JOINER = "\n\n"  # how Anthropic and Gemini join system messages sent first


class TokenCounter:
    """Counts each distinct text once: a suite repeats its guidelines in every case."""

    def __init__(self, encoding: str):
        self.encoding = encoding
        self.known: dict[str, int] = {"": 0}

    def prime(self, texts: Iterable[str]) -> None:
        known = self.known
        missing = list({text for text in texts if text not in known})
        if missing:
            known.update(zip(missing, toktok.batch_count(missing, self.encoding), strict=True))

    def __call__(self, text: str) -> int:
        found = self.known.get(text)
        if found is None:
            self.prime([text])
            found = self.known[text]
        return found


@dataclass(slots=True)
class FileRow:
    path: str
    tokens: int = 0  # over the whole suite
    cases: int = 0  # cases that send some of its text

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "tokens": self.tokens, "cases": self.cases}


@dataclass(slots=True)
class CaseRow:
    id: str
    input_tokens: int
    files: dict[str, int]
    cost: prices.RequestCost | None = None
    cached_cost: prices.RequestCost | None = None  # in a suite run with the shared prefix cached

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "input_tokens": self.input_tokens,
            "cost_usd": _usd(self.cost.total_usd) if self.cost else None,
            "files": self.files,
        }


@dataclass(slots=True)
class Ledger:
    provider: str
    model: str
    encoding: str
    exact: bool
    max_output_tokens: int | None
    files: list[FileRow]
    cases: list[CaseRow]
    cache: cache_map.CacheMap
    cache_source: str
    prices: prices.ModelPrices | None = None
    price_problem: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(row.input_tokens for row in self.cases)

    @property
    def attributed_tokens(self) -> int:
        return sum(row.tokens for row in self.files)

    def cost(self, cached: bool = False) -> Decimal | None:
        if self.prices is None:
            return None
        return sum(
            (
                (row.cached_cost if cached else row.cost) or prices.RequestCost(Decimal(0), Decimal(0))
            ).total_usd
            for row in self.cases
        ) or Decimal(0)

    def output_cost(self) -> Decimal | None:
        if self.prices is None:
            return None
        return sum((row.cost.output_usd for row in self.cases if row.cost), Decimal(0))

    def as_dict(self) -> dict[str, object]:
        """The CLI's and the API's JSON (`manage.py ledger`)."""
        cost, cached = self.cost(), self.cost(cached=True)
        output = self.output_cost() if self.max_output_tokens else None
        cache = self.cache.as_dict() | {"source": self.cache_source}
        return {
            "provider": self.provider,
            "model": self.model,
            "tokenizer": {"encoding": self.encoding, "exact": self.exact},
            "files": [row.as_dict() for row in self.files],
            "cases": [row.as_dict() for row in self.cases],
            "cache": cache,
            "total": {
                "cases": len(self.cases),
                "input_tokens": self.input_tokens,
                "input_tokens_exact": self.exact,
                "attributed_tokens": self.attributed_tokens,
                "unattributed_tokens": self.input_tokens - self.attributed_tokens,
                "max_output_tokens": self.max_output_tokens,
                "output_cost_usd_upper_bound": _usd(output) if output is not None else None,
                "cost_usd": _usd(cost) if cost is not None else None,
                "cost_usd_cached": _usd(cached) if cached is not None else None,
            },
            "prices": self.prices.as_dict() if self.prices else None,
            "price_problem": self.price_problem,
            "prices_source": prices.source_label(),
            "prices_as_of": prices.prices_as_of(),
            "notes": self.notes,
        }


def _usd(value: Decimal) -> float:
    return float(round(value, 6))


def _tools_text(case: RenderedCase) -> str:
    if not case.tools:
        return ""
    return json.dumps(
        [
            {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
            for tool in case.tools
        ],
        sort_keys=True,
        ensure_ascii=False,
    )


class _Keys:
    """Small integers standing for equal pieces, so the trie compares ints, not texts."""

    def __init__(self) -> None:
        self.ids: dict[tuple, int] = {}

    def __call__(self, identity: tuple) -> int:
        return self.ids.setdefault(identity, len(self.ids))


def _message_identity(message: Message) -> tuple:
    calls = tuple((call.id, call.name, call.arguments) for call in message.tool_calls)
    return ("message", message.role, message.name, message.content, calls, message.tool_call_id)


def case_pieces(
    case: RenderedCase, message_tokens: dict[int, int], tools_tokens: int, system_first: bool, keys: _Keys
) -> list[cache_map.Piece]:
    """The case's request in the provider's cache order (see cache_map)."""
    pieces: list[cache_map.Piece] = []
    tools = _tools_text(case)
    if tools:
        pieces.append(cache_map.Piece("tools", keys(("tools", tools)), tools, tools_tokens, (), head="tools"))
    sent = [index for index, message in enumerate(case.messages) if message.omitted is None]
    if system_first:
        system = [index for index in sent if case.messages[index].role in SYSTEM_ROLES]
        if system:
            text = SYSTEM_JOINER.join(case.messages[index].content for index in system)
            pieces.append(
                cache_map.Piece(
                    "system",
                    keys(("system", text)),
                    text,
                    sum(message_tokens[index] for index in system),
                    tuple(system),
                    SYSTEM_JOINER,
                    head="system",
                )
            )
        sent = [index for index in sent if case.messages[index].role not in SYSTEM_ROLES]
    for index in sent:
        message = case.messages[index]
        pieces.append(
            cache_map.Piece(
                "message",
                keys(_message_identity(message)),
                message.content,
                message_tokens[index],
                (index,),
                head=f"{message.role}\x00{message.name or ''}",
            )
        )
    return pieces


def build_ledger(
    document: RenderedDocument | Iterable[RenderedCase], provider: str, settings: ExportSettings | None = None
) -> Ledger:
    """The ledger and cache map of a document's cases (or of a bundle's, chained) for a provider;
    the model and max output tokens come from the export settings or the provider's defaults."""
    spec = provider_spec(provider)
    resolved = (settings or ExportSettings()).resolved(spec.defaults)
    cases = list(document.cases if isinstance(document, RenderedDocument) else document)
    counter = _primed_counter(spec.encoding, cases)
    billing = spec.billing
    cache = billing.cache if billing else None
    minimum, known = cache.minimum(resolved.model) if cache else (0, False)
    keys = _Keys()
    files: dict[str, FileRow] = {}
    rows: list[CaseRow] = []
    all_pieces: list[list[cache_map.Piece]] = []
    for case in cases:
        row, message_tokens, tools_tokens = _case_row(case, counter, files)
        rows.append(row)
        all_pieces.append(
            case_pieces(case, message_tokens, tools_tokens, bool(cache and cache.system_first), keys)
        )
    mapped = cache_map.build(
        cases,
        all_pieces,
        minimum,
        known,
        cache.mode if cache else "none",
        cache.increment if cache else 1,
        counter,
    )
    # Output is priced only at a limit the user set: a provider's default max_tokens (Anthropic's
    # 1,024, which its API requires) is no estimate of what a case writes, and pricing it made one
    # provider's total mostly assumed output while the others priced none.
    ledger = Ledger(
        provider,
        resolved.model,
        spec.encoding,
        spec.exact_tokens,
        (settings or ExportSettings()).max_tokens,
        sorted(files.values(), key=lambda row: (-row.tokens, row.path)),
        rows,
        mapped,
        cache.source if cache else "",
    )
    if cache:
        ledger.notes += _cache_notes(
            spec.export_with_breakpoints is not None, spec.label, cache.mode, resolved.model, minimum, known
        )
        ledger.notes += _split_hints(cache.mode, mapped, cases, all_pieces, counter)
    if billing is None:
        ledger.price_problem = f"no price data is configured for {spec.label}"
    else:
        _price(ledger, billing.prices_provider)
    return ledger


def _primed_counter(encoding: str, cases: list[RenderedCase]) -> TokenCounter:
    """A counter that has counted every text of the cases' sent messages and tools at once."""
    counter = TokenCounter(encoding)
    counter.prime(
        text
        for case in cases
        for message in case.sent_messages
        for text in message_texts(message) + [segment.text for segment in message.segments]
    )
    counter.prime(_tools_text(case) for case in cases)
    return counter


def _split_hints(
    mode: str,
    mapped: cache_map.CacheMap,
    cases: list[RenderedCase],
    pieces: list[list[cache_map.Piece]],
    counter: TokenCounter,
) -> list[str]:
    """With marked blocks only, and nothing cacheable: which file to send as a block of its own."""
    if mode != "breakpoints" or mapped.cacheable:
        return []
    hint = split_hint(cases, pieces, mapped.minimum, counter)
    return [hint] if hint else []


def _cache_notes(
    export_places_marks: bool, label: str, mode: str, model: str, minimum: int, known: bool
) -> list[str]:
    """What the cached cost assumes: marked blocks, or a minimum length the table lacks."""
    notes = []
    if mode == "breakpoints":
        placed = (
            "the export's cache option places them"
            if export_places_marks
            else "they are placed there; this export does not place them"
        )
        notes.append(
            f"{label} caches only up to a marked block (cache_control, "
            f"cachePoint): the cached cost assumes {placed}"
        )
    if not known:
        notes.append(
            f"{model} is not in {label}'s table of minimum cacheable "
            f"lengths: {minimum:,} tokens assumed, the largest it documents"
        )
    return notes


def _case_row(
    case: RenderedCase, counter: TokenCounter, files: dict[str, FileRow]
) -> tuple[CaseRow, dict[int, int], int]:
    message_tokens: dict[int, int] = {}
    per_file: dict[str, int] = {}
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        message_tokens[index] = TOKENS_PER_MESSAGE + sum(counter(text) for text in message_texts(message))
        for segment in message.segments:
            path = segment.origin.path
            if path is not None:
                per_file[path] = per_file.get(path, 0) + counter(segment.text)
    tools_tokens = counter(_tools_text(case))
    for path, tokens in per_file.items():
        row = files.get(path) or files.setdefault(path, FileRow(path))
        row.tokens += tokens
        row.cases += 1
    total = sum(message_tokens.values()) + TOKENS_PER_REPLY + tools_tokens
    return CaseRow(case.id, total, per_file), message_tokens, tools_tokens


def _price(ledger: Ledger, prices_provider: str) -> None:
    try:
        found = prices.model_prices(prices_provider, ledger.model)
    except prices.PriceLookupError as problem:
        ledger.price_problem = str(problem)
        return
    ledger.prices = found
    output = ledger.max_output_tokens or 0
    if not output:
        ledger.notes.append("output is not priced: set max output tokens to price its upper bound")
    mapped = ledger.cache
    cached = mapped.cached_tokens
    # With caching, the group's first request writes the prefix and every later one reads it; a
    # provider whose data has no write price (OpenAI, Gemini) bills the write as plain input.
    writes = cached if found.cache_write_mtok is not None else 0
    first = mapped.group[0] if mapped.group else -1
    members = set(mapped.group)
    for position, row in enumerate(ledger.cases):
        row.cost = prices.request_cost(prices_provider, ledger.model, row.input_tokens, output)
        if not cached or position not in members:
            row.cached_cost = row.cost
        elif position == first:
            row.cached_cost = prices.request_cost(
                prices_provider, ledger.model, row.input_tokens, output, cache_write_tokens=writes
            )
        else:
            row.cached_cost = prices.request_cost(
                prices_provider, ledger.model, row.input_tokens, output, cache_read_tokens=cached
            )


def cache_marks(ledger: Ledger, position: int) -> list[CacheMark]:
    """Where the Anthropic export's cache option puts `cache_control` for the case at `position`:
    after each prefix the map finds shared and long enough, at most four."""
    pieces = ledger.cache.pieces[position] if ledger.cache.pieces else []
    marks = []
    for depth, cases, tokens in ledger.cache.breakpoints(position, MAX_BREAKPOINTS):
        piece = pieces[depth - 1]
        index = piece.messages[-1] if piece.kind == "message" else None
        marks.append(CacheMark(piece.kind, index, cases, tokens))
    return marks
