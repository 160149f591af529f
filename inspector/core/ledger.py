"""What a suite costs: tokens per source file and per case, the price of one run, and what caching
would save (the cache map is `cache_map`).

Counts follow `tokens`: exact for OpenAI's encodings, o200k_base estimates (labelled) for providers
without a local tokenizer. A case's input is its sent messages (content, names and tool calls, plus
the chat format's per-message tokens) and its tool definitions as JSON. A file's tokens are the
segments its text produced, each counted alone, so a row can differ from a message's count by a
token where BPE merges across a boundary; the rest (separators, default prompts, formatting) is
"unattributed". Output is priced at the max output tokens, an upper bound, when they are set.

Which model a request is priced at: "as configured", each case at the provider and model its input
names (a promptfoo evaluation's provider, a raw request's `model`, a deck's model), the rest at the
picked provider (the fallback); "picked", every request at the picked provider. Each
case's judge requests (its LLM graders) are priced too, at the judge the input names, else at the
runner's default judge when the input says which (promptfoo's renderer already wrote it into the
judge's request), else at the fallback. A judge's prompt holds the candidate's answer, unknown
before the run: it is counted without it, and with max output tokens set, that many tokens are
added to the judge's input, the answer's upper bound, so the total stays an upper bound.
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
from .export.registry import REGISTRY
from .export.registry import provider as provider_spec
from .export.spec import PromptCache
from .model import CANDIDATE_PLACEHOLDER, GraderPrompt, Message, RenderedCase, RenderedDocument
from .tokens import TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, message_texts

DEFAULT_PROVIDER = "openai-chat"
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
    target: Target
    cost: prices.RequestCost | None = None
    cached_cost: prices.RequestCost | None = None  # in a suite run with the shared prefix cached
    judge_requests: int = 0
    judge_input_tokens: int = 0
    judge_cost: prices.RequestCost | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "provider": self.target.provider,
            "model": self.target.model,
            "input_tokens": self.input_tokens,
            "cost_usd": _usd(self.cost.total_usd) if self.cost else None,
            "judge_requests": self.judge_requests,
            "judge_input_tokens": self.judge_input_tokens,
            "judge_cost_usd": _usd(self.judge_cost.total_usd) if self.judge_cost else None,
            "files": self.files,
        }


@dataclass(frozen=True, slots=True)
class Target:
    """A provider and model a request is priced at."""

    provider: str  # an export provider's id
    model: str


@dataclass(slots=True)
class ModelRow:
    """The requests priced at one provider and model, and what they cost."""

    target: Target
    label: str
    exact: bool
    cases: int = 0  # candidate requests
    judge_requests: int = 0
    input_tokens: int = 0  # candidates' and judges'
    cost: Decimal = Decimal(0)
    cached_cost: Decimal = Decimal(0)
    prices: prices.ModelPrices | None = None
    price_problem: str | None = None

    def as_dict(self) -> dict[str, object]:
        priced = self.prices is not None
        return {
            "provider": self.target.provider,
            "model": self.target.model,
            "cases": self.cases,
            "judge_requests": self.judge_requests,
            "input_tokens": self.input_tokens,
            "input_tokens_exact": self.exact,
            "cost_usd": _usd(self.cost) if priced else None,
            "cost_usd_cached": _usd(self.cached_cost) if priced else None,
            "prices": self.prices.as_dict() if self.prices else None,
            "price_problem": self.price_problem,
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
    as_configured: bool = False  # each case at its own model (no provider picked)
    fallback_cases: int = 0  # as configured: cases whose input names no model, priced at `fallback`
    fallback: Target | None = None  # the picked provider and model
    fallback_judges: int = 0  # judge requests whose judge the input does not name
    models: list[ModelRow] = field(default_factory=list)  # the candidates' and judges' models
    not_run: int = 0  # cases left out: the tool skips them, or their request cannot be built

    @property
    def input_tokens(self) -> int:
        return sum(row.input_tokens for row in self.cases)

    @property
    def judge_requests(self) -> int:
        return sum(row.judge_requests for row in self.cases)

    @property
    def judge_input_tokens(self) -> int:
        return sum(row.judge_input_tokens for row in self.cases)

    def judge_cost(self) -> Decimal | None:
        if not self.priced:
            return None
        return sum((row.judge_cost.total_usd for row in self.cases if row.judge_cost), Decimal(0))

    @property
    def priced(self) -> bool:
        """Whether any request has a price (a model the price data lacks leaves its own out)."""
        return any(row.prices is not None for row in self.models)

    @property
    def attributed_tokens(self) -> int:
        return sum(row.tokens for row in self.files)

    def cost(self, cached: bool = False) -> Decimal | None:
        """Candidates' and judges' requests (judges are never cached: each holds its own answer)."""
        if not self.priced:
            return None
        return sum(
            ((row.cached_cost if cached else row.cost) for row in self.models if row.prices), Decimal(0)
        )

    def output_cost(self) -> Decimal | None:
        if not self.priced:
            return None
        return sum(
            (
                cost.output_usd
                for row in self.cases
                for cost in (row.cost, row.judge_cost)
                if cost is not None
            ),
            Decimal(0),
        )

    def as_dict(self) -> dict[str, object]:
        """The CLI's and the API's JSON (`manage.py ledger`)."""
        cost, cached = self.cost(), self.cost(cached=True)
        output = self.output_cost() if self.max_output_tokens else None
        cache = self.cache.as_dict() | {"source": self.cache_source}
        judges = self.judge_cost()
        return {
            "provider": self.provider,
            "model": self.model,
            "as_configured": self.as_configured,
            "fallback_cases": self.fallback_cases,
            "not_run": self.not_run,
            "fallback": {"provider": self.fallback.provider, "model": self.fallback.model}
            if self.fallback
            else None,
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
            "judges": {
                "requests": self.judge_requests,
                "input_tokens": self.judge_input_tokens,
                "cost_usd": _usd(judges) if judges is not None else None,
                "fallback_requests": self.fallback_judges,
            },
            "models": [row.as_dict() for row in self.models],
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


def _message_identity(message: Message, content: str) -> tuple:
    calls = tuple((call.id, call.name, call.arguments) for call in message.tool_calls)
    return ("message", message.role, message.name, content, calls, message.tool_call_id)


def case_pieces(
    case: RenderedCase,
    contents: list[str],
    message_tokens: dict[int, int],
    tools_tokens: int,
    system_first: bool,
    keys: _Keys,
) -> list[cache_map.Piece]:
    """The case's request in the provider's cache order (see cache_map); `contents` are its
    messages' contents, joined once."""
    pieces: list[cache_map.Piece] = []
    tools = _tools_text(case)
    if tools:
        pieces.append(cache_map.Piece("tools", keys(("tools", tools)), tools, tools_tokens, (), head="tools"))
    sent = [index for index, message in enumerate(case.messages) if message.omitted is None]
    if system_first:
        system = [index for index in sent if case.messages[index].role in SYSTEM_ROLES]
        if system:
            text = SYSTEM_JOINER.join(contents[index] for index in system)
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
                keys(_message_identity(message, contents[index])),
                contents[index],
                message_tokens[index],
                (index,),
                head=f"{message.role}\x00{message.name or ''}",
            )
        )
    return pieces


def cases_a_run_sends(cases: Iterable[RenderedCase]) -> list[RenderedCase]:
    """The cases a run costs: not those the source tool skips (agentv's refusals) or whose request
    the inspector cannot build, which are marked skipped too; a run sends them nothing priced here."""
    return [case for case in cases if not case.skipped]


def build_ledger(
    document: RenderedDocument | Iterable[RenderedCase],
    provider: str = DEFAULT_PROVIDER,
    settings: ExportSettings | None = None,
    as_configured: bool = False,
) -> Ledger:
    """The ledger and cache map of a document's cases (or of a bundle's, chained), their judges'
    requests included. Every request is priced at `provider` (the model from the export settings or
    its defaults); `as_configured`, each at the model its input names, `provider` being the fallback
    (see the module's docstring). The cache map is drawn with the rules of the provider most cases
    are priced at."""
    settings = settings or ExportSettings()
    picked = Target(provider, settings.resolved(provider_spec(provider).defaults).model)
    given = list(document.cases if isinstance(document, RenderedDocument) else document)
    cases = cases_a_run_sends(given)
    named, targets, primary = _targets(cases, as_configured, picked)
    spec = provider_spec(primary.provider)
    contents = [[message.content for message in case.messages] for case in cases]
    counters = {spec.encoding: _primed_counter(spec.encoding, cases, contents)}
    cache = spec.billing.cache if spec.billing else None
    files: dict[str, FileRow] = {}
    rows, all_pieces = _rows(cases, contents, targets, spec.encoding, counters, files, cache)
    counter = counters[spec.encoding]
    mapped = _cache_map(cases, all_pieces, cache, primary.model, counter)
    # Output is priced only at a limit the user set: a provider's default max_tokens (Anthropic's
    # 1,024, which its API requires) is no estimate of what a case writes, and pricing it made one
    # provider's total mostly assumed output while the others priced none.
    ledger = Ledger(
        primary.provider,
        primary.model,
        spec.encoding,
        spec.exact_tokens,
        settings.max_tokens,
        sorted(files.values(), key=lambda row: (-row.tokens, row.path)),
        rows,
        mapped,
        cache.source if cache else "",
        as_configured=as_configured,
        fallback_cases=sum(1 for target in named if target is None),
        fallback=picked,
        not_run=len(given) - len(cases),
    )
    if cache:
        ledger.notes += _cache_notes(
            spec.export_with_breakpoints is not None,
            spec.label,
            cache.mode,
            primary.model,
            mapped.minimum,
            mapped.minimum_known,
        )
        ledger.notes += _split_hints(cache.mode, mapped, cases, all_pieces, counter)
    judges = [_judge_requests(case, as_configured, picked) for case in cases]
    _price(ledger, primary, judges, counters)
    ledger.notes += _pricing_notes(ledger, picked, primary)
    return ledger


def _targets(
    cases: list[RenderedCase], as_configured: bool, picked: Target
) -> tuple[list[Target | None], list[Target], Target]:
    """What the input names for each case (as configured), what each is priced at, and the target
    most are (the cache map's)."""
    if not as_configured:
        return [None] * len(cases), [picked] * len(cases), picked
    named = [configured_target(case) for case in cases]
    targets = [target or picked for target in named]
    return named, targets, _most_common(targets) if targets else picked


def _cache_map(
    cases: list[RenderedCase],
    all_pieces: list[list[cache_map.Piece]],
    cache: PromptCache | None,
    model: str,
    counter: TokenCounter,
) -> cache_map.CacheMap:
    if cache is None:
        return cache_map.build(cases, all_pieces, 0, False, "none", 1, counter)
    minimum, known = cache.minimum(model)
    return cache_map.build(cases, all_pieces, minimum, known, cache.mode, cache.increment, counter)


def _rows(
    cases: list[RenderedCase],
    contents: list[list[str]],
    targets: list[Target],
    encoding: str,
    counters: dict[str, TokenCounter],
    files: dict[str, FileRow],
    cache: PromptCache | None,
) -> tuple[list[CaseRow], list[list[cache_map.Piece]]]:
    """Each case's row (counted with its own provider's tokenizer) and its pieces for the cache map
    (counted with the cache map's, `encoding`)."""
    counter = counters[encoding]
    keys = _Keys()
    rows: list[CaseRow] = []
    all_pieces: list[list[cache_map.Piece]] = []
    for case, texts, target in zip(cases, contents, targets, strict=True):
        row, message_tokens, tools_tokens = _case_row(case, texts, counter, files, target)
        own = provider_spec(target.provider).encoding
        if own != encoding:
            if own not in counters:
                counters[own] = _primed_counter(own, cases, contents)
            row.input_tokens = _case_row(case, texts, counters[own], {}, target)[0].input_tokens
        rows.append(row)
        all_pieces.append(
            case_pieces(case, texts, message_tokens, tools_tokens, bool(cache and cache.system_first), keys)
        )
    return rows, all_pieces


def configured_target(case: RenderedCase) -> Target | None:
    """The provider and model the case's input names for it: a request's own (a raw request, a
    promptfoo evaluation's body), else a deck's declared model; None when it names none."""
    return (
        _request_target(case.metadata)
        or _declared_target(case.metadata)
        or _provider_named(_agentv_candidate(case.metadata), case.metadata)
    )


def _request_target(metadata: dict) -> Target | None:
    api, request = metadata.get("format"), metadata.get("request")
    model = request.get("model") if isinstance(request, dict) else None
    if api in REGISTRY and isinstance(model, str) and model.strip():
        return Target(api, model.strip())
    return None


# A deck's model written as OpenRouter names it (`vendor/model`, gambit's default route): priced at
# the vendor's own API, whose list prices OpenRouter passes on.
DECK_VENDORS = {"openai": "openai-responses", "anthropic": "anthropic", "google": "gemini"}


def _declared_target(metadata: dict) -> Target | None:
    declared, api = metadata.get("export_defaults"), metadata.get("preferred_provider")
    model = declared.get("model") if isinstance(declared, dict) else None
    if api not in REGISTRY or not isinstance(model, str) or not model.strip():
        return None
    vendor, _, name = model.strip().partition("/")
    if name and vendor in DECK_VENDORS:
        return Target(DECK_VENDORS[vendor], name)
    return Target(api, model.strip())


def _agentv_candidate(metadata: dict) -> str | None:
    found = metadata.get("agentv_providers")
    return found.get("candidate") if isinstance(found, dict) else None


def _provider_named(name: str | None, metadata: dict) -> Target | None:
    """A provider named by a promptfoo-style id (`openai:gpt-4.1`), or by the identity of one the
    file's `providers` declares (agentv's newest commit), its `config.model` first."""
    if not name:
        return None
    from .promptfoo.providers import api_of  # the one reader of promptfoo's provider ids

    declared = (metadata.get("agentv_providers") or {}).get("declared") or {}
    entry = declared.get(name) or {"id": name, "model": None}
    api, model = api_of(str(entry["id"]))
    model = entry.get("model") or model
    return Target(api, model) if api in REGISTRY and model else None


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    grader: GraderPrompt
    target: Target
    named: bool  # the input names this judge (else: the fallback)


def _judge_requests(case: RenderedCase, as_configured: bool, picked: Target) -> list[JudgeRequest]:
    """The case's graders that ask a model, each with the judge it is priced at."""
    own = (case.metadata.get("promptfoo") or {}).get("graders") or []
    requests = []
    for position, grader in enumerate(case.graders):
        if not any(message.omitted is None for message in grader.messages):
            continue  # a script, or a grader that asks nothing
        target = None
        if as_configured:
            if position < len(own):  # promptfoo wrote its judge, default grader included, in the body
                target = _request_target(own[position].get("metadata") or {})
            target = target or _provider_named(grader.judge, case.metadata)
        requests.append(JudgeRequest(grader, target or picked, target is not None or not as_configured))
    return requests


def _judge_texts(grader: GraderPrompt) -> list[str]:
    """What a judge's prompt sends before the run, counted as the candidate's messages are (each
    message's whole text: tokens do not add up across the stretches it is cut into), the
    candidate's answer left out (only the run knows it)."""
    texts: list[str] = []
    for message in grader.messages:
        if message.omitted is None:
            content = message.content
            if CANDIDATE_PLACEHOLDER in content:
                content = content.replace(CANDIDATE_PLACEHOLDER, "")
            texts += message_texts(message, content)
    return texts


def _most_common(targets: list[Target]) -> Target:
    """The target most cases are priced at (the first of equals)."""
    counts: dict[Target, int] = {}
    for target in targets:
        counts[target] = counts.get(target, 0) + 1
    return max(counts, key=counts.__getitem__)


def _primed_counter(encoding: str, cases: list[RenderedCase], contents: list[list[str]]) -> TokenCounter:
    """A counter that has counted every text of the cases' sent messages and tools at once."""
    counter = TokenCounter(encoding)
    counter.prime(
        text
        for case, texts in zip(cases, contents, strict=True)
        for message, content in zip(case.messages, texts, strict=True)
        if message.omitted is None
        for text in message_texts(message, content) + [segment.text for segment in message.segments]
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
    case: RenderedCase, contents: list[str], counter: TokenCounter, files: dict[str, FileRow], target: Target
) -> tuple[CaseRow, dict[int, int], int]:
    """The case's tokens, per message and per file; `counter` has counted its texts already."""
    tokens_of = counter.known.__getitem__
    message_tokens: dict[int, int] = {}
    per_file: dict[str, int] = {}
    for index, message in enumerate(case.messages):
        if message.omitted is not None:
            continue
        message_tokens[index] = TOKENS_PER_MESSAGE + sum(
            map(tokens_of, message_texts(message, contents[index]))
        )
        for segment in message.segments:
            path = segment.origin.path
            if path is not None:
                per_file[path] = per_file.get(path, 0) + tokens_of(segment.text)
    tools_tokens = counter(_tools_text(case))
    for path, tokens in per_file.items():
        row = files.get(path) or files.setdefault(path, FileRow(path))
        row.tokens += tokens
        row.cases += 1
    total = sum(message_tokens.values()) + TOKENS_PER_REPLY + tools_tokens
    return CaseRow(case.id, total, per_file, target), message_tokens, tools_tokens


def _price(
    ledger: Ledger, primary: Target, judges: list[list[JudgeRequest]], counters: dict[str, TokenCounter]
) -> None:
    """Each case's and judge's cost at its own model, and the subtotals per model."""
    models: dict[Target, ModelRow] = {}
    _price_cases(ledger, primary, models)
    _price_judges(ledger, judges, models, counters)
    ledger.models = sorted(models.values(), key=lambda row: (-(row.cases + row.judge_requests), row.label))
    ledger.fallback_judges = sum(1 for requests in judges for request in requests if not request.named)
    found = models.get(primary) or _model_row({}, primary)
    ledger.prices = found.prices
    problems = [row.price_problem for row in ledger.models if row.price_problem]
    if primary not in models and found.price_problem:
        problems.insert(0, found.price_problem)
    ledger.price_problem = "; ".join(problems) or None


def _price_cases(ledger: Ledger, primary: Target, models: dict[Target, ModelRow]) -> None:
    output = ledger.max_output_tokens or 0
    cached = ledger.cache.cached_tokens
    # With caching, the group's first request writes the prefix and every later one reads it; a
    # provider whose data has no write price (OpenAI, Gemini) bills the write as plain input. Only
    # the cache map's own provider and model is priced cached: another's cache holds other requests.
    members = {position for position in ledger.cache.group if ledger.cases[position].target == primary}
    first = min(members, default=-1)
    for position, row in enumerate(ledger.cases):
        model = _model_row(models, row.target)
        model.cases += 1
        model.input_tokens += row.input_tokens
        if model.prices is None:
            continue
        prices_provider = model.prices.provider
        row.cost = row.cached_cost = prices.request_cost(
            prices_provider, row.target.model, row.input_tokens, output
        )
        if cached and position in members:
            writes = cached if model.prices.cache_write_mtok is not None else 0
            row.cached_cost = prices.request_cost(
                prices_provider,
                row.target.model,
                row.input_tokens,
                output,
                **({"cache_write_tokens": writes} if position == first else {"cache_read_tokens": cached}),
            )
        model.cost += row.cost.total_usd
        model.cached_cost += row.cached_cost.total_usd


def _price_judges(
    ledger: Ledger,
    judges: list[list[JudgeRequest]],
    models: dict[Target, ModelRow],
    counters: dict[str, TokenCounter],
) -> None:
    """Judges are priced uncached: each request holds its own case's answer."""
    output = ledger.max_output_tokens or 0
    for row, requests, counts in zip(
        ledger.cases, judges, _judge_tokens(judges, counters, output), strict=True
    ):
        for request, tokens in zip(requests, counts, strict=True):
            model = _model_row(models, request.target)
            model.judge_requests += 1
            model.input_tokens += tokens
            row.judge_requests += 1
            row.judge_input_tokens += tokens
            if model.prices is None:
                continue
            cost = prices.request_cost(model.prices.provider, request.target.model, tokens, output)
            row.judge_cost = cost if row.judge_cost is None else _plus(row.judge_cost, cost)
            model.cost += cost.total_usd
            model.cached_cost += cost.total_usd


def _judge_tokens(
    judges: list[list[JudgeRequest]], counters: dict[str, TokenCounter], answer_bound: int
) -> list[list[int]]:
    """Each judge request's input: its stretches (each tokenizer counts all of its judges' at
    once), the chat format's tokens, and the bound of the candidate's answer it will hold."""
    texts = [[_judge_texts(request.grader) for request in requests] for requests in judges]
    pending: dict[str, list[str]] = {}
    for requests, row in zip(judges, texts, strict=True):
        for request, found in zip(requests, row, strict=True):
            pending.setdefault(provider_spec(request.target.provider).encoding, []).extend(found)
    for encoding, found in pending.items():
        if encoding not in counters:
            counters[encoding] = TokenCounter(encoding)
        counters[encoding].prime(found)
    return [
        [
            _judge_total(request, found, counters, answer_bound)
            for request, found in zip(requests, row, strict=True)
        ]
        for requests, row in zip(judges, texts, strict=True)
    ]


def _judge_total(
    request: JudgeRequest, texts: list[str], counters: dict[str, TokenCounter], answer_bound: int
) -> int:
    sent = sum(1 for message in request.grader.messages if message.omitted is None)
    known = counters[provider_spec(request.target.provider).encoding].known
    return TOKENS_PER_REPLY + answer_bound + TOKENS_PER_MESSAGE * sent + sum(map(known.__getitem__, texts))


def _model_row(models: dict[Target, ModelRow], target: Target) -> ModelRow:
    found = models.get(target)
    if found is not None:
        return found
    spec = provider_spec(target.provider)
    row = models[target] = ModelRow(target, spec.label, spec.exact_tokens)
    if spec.billing is None:
        row.price_problem = f"no price data is configured for {spec.label}"
        return row
    try:
        row.prices = prices.model_prices(spec.billing.prices_provider, target.model)
    except prices.PriceLookupError as problem:
        row.price_problem = str(problem)
    return row


def _count(number: int, one: str, many: str) -> str:
    return f"{number:,} {one if number == 1 else many}"


def _plus(first: prices.RequestCost, second: prices.RequestCost) -> prices.RequestCost:
    return prices.RequestCost(first.input_usd + second.input_usd, first.output_usd + second.output_usd)


def _pricing_notes(ledger: Ledger, picked: Target, primary: Target) -> list[str]:
    """What the priced requests assume: fallbacks, the judges' unknown input, the cache's reach."""
    notes = []
    if not ledger.max_output_tokens:
        notes.append("output is not priced: set max output tokens to price its upper bound")
    fallback = f"{provider_spec(picked.provider).label} {picked.model}"
    if ledger.fallback_judges:
        notes.append(
            f"{_count(ledger.fallback_judges, 'judge request names', 'judge requests name')} no judge "
            f"the ledger can price (the run's default judge, or a name the file does not declare): "
            f"priced at {fallback}"
        )
    if ledger.judge_requests:
        notes.append(
            "judge requests are counted without the candidate's answer, which only the run knows"
            + (
                f"; {ledger.max_output_tokens:,} tokens (the max output tokens, the answer's upper bound) "
                "are added to each judge's input"
                if ledger.max_output_tokens
                else ""
            )
        )
    if len(ledger.models) > 1 and ledger.cache.cacheable:
        notes.append(
            f"the cached cost caches only the {provider_spec(primary.provider).label} {primary.model} "
            "requests (the cache map's); the others and the judges are priced uncached"
        )
    return notes


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
