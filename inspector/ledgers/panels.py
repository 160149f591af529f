"""View models for the ledger: the bundle page's panel (tables, the chart drawn here as SVG) and the
case page's cached-prefix band. Templates only print what these hold."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import urlencode

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from inspector.cases import addresses
from inspector.core import prices
from inspector.core.model import RenderedCase
from inspector.ledgers.token_ledger import BundleLedger, bundle_ledger, unstored_ledger
from inspector.rendering import query_settings
from inspector.views.common import PROVIDER_LABELS, RENDER_KEYS

SORTS = {
    "tokens": lambda row: (-row["tokens"], row["path"]),
    "path": lambda row: row["path"],
    "cases": lambda row: (-row["cases"], row["path"]),
}
MAX_BREAKS = 100
CHART_FILES = 15


def money(value: Decimal | None) -> str:
    if value is None:
        return "—"
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def tokens_label(tokens: int, exact: bool) -> str:
    return f"{tokens:,}" if exact else f"~{tokens:,}"


@dataclass
class LedgerPanel:
    provider: str
    model: str
    exact: bool
    case_count: int
    input_tokens: str
    cost: str
    cost_cached: str
    output_note: str | None
    price_line: str | None
    price_problem: str | None
    prices_source: str
    prices_as_of: str
    files: list[dict]
    sort: str
    sort_urls: dict[str, str]
    chart: SafeString
    cases: list[dict]
    cache: dict
    breaks: list[dict]
    more_breaks: int
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    read_by: dict[str, str] = field(default_factory=dict)  # documents left out: a suite reads them
    not_run: int = 0  # cases the source tool skips, not priced
    as_configured: bool = False
    fallback_cases: int = 0
    fallback: str = ""  # the provider and model they are priced at
    judges: dict = field(default_factory=dict)  # requests, tokens, cost
    models: list[dict] = field(default_factory=list)  # subtotals, when more than one model is priced


def panel_context(loaded, page, sort: str | None) -> dict:
    """The bundle page's context for templates/ledger_panel.html."""
    as_configured = query_settings.parse_pricing(page.params.get("pricing"))
    found = bundle_ledger(loaded, page.options, page.provider, page.export, as_configured=as_configured)
    return {
        "ledger": panel(loaded.record.pk, found, page.params, sort),
        "ledger_pricings": [("configured", "as configured"), ("picked", "all at the provider")],
        "ledger_pricing": "configured" if as_configured else "picked",
        "ledger_picked": page.provider,
        "ledger_picked_model": found.ledger.fallback.model if found.ledger.fallback else found.ledger.model,
        "ledger_params": {key: value for key, value in page.params.items() if key in RENDER_KEYS},
        "ledger_providers": list(PROVIDER_LABELS.items()),
        "ledger_model": page.params.get("model", ""),
        "ledger_max_output": page.params.get("max_output_tokens", ""),
    }


CASE_ROWS = 100


def panel(bundle_id: str, found: BundleLedger, params: dict[str, str], sort: str | None) -> LedgerPanel:
    ledger = found.ledger
    sort = sort if sort in SORTS else "tokens"
    total = ledger.input_tokens
    files = [
        {
            "path": row.path,
            "tokens": row.tokens,
            "tokens_label": tokens_label(row.tokens, ledger.exact),
            "cases": row.cases,
            "share": f"{row.tokens / total:.0%}" if total else "—",
            "url": addresses.source_url(bundle_id, row.path),
        }
        for row in ledger.files
    ]
    files.sort(key=SORTS[sort])
    query = {key: value for key, value in params.items() if key != "ledger_sort"}
    sort_urls = {name: "?" + urlencode(query | {"ledger_sort": name}) + "#ledger" for name in SORTS}
    # The costliest cases only: a 10,000-case file's table alone was megabytes of HTML.
    costliest = sorted(
        zip(ledger.cases, found.documents, strict=True), key=lambda pair: -pair[0].input_tokens
    )[:CASE_ROWS]
    cases = [
        {
            "id": row.id,
            "document": document,
            "tokens": tokens_label(row.input_tokens, ledger.exact),
            "model": f"{PROVIDER_LABELS.get(row.target.provider, row.target.provider)} {row.target.model}",
            "cost": money(row.cost.total_usd) if row.cost else "—",
            "judges": row.judge_requests,
            "judge_cost": money(row.judge_cost.total_usd) if row.judge_cost else "—",
            "url": addresses.case_url(bundle_id, document, row.id, urlencode(params)),
        }
        for row, document in costliest
    ]
    mapped = ledger.cache
    return LedgerPanel(
        provider=ledger.provider,
        model=ledger.model,
        exact=ledger.exact,
        case_count=len(ledger.cases),
        input_tokens=tokens_label(total, ledger.exact),
        cost=money(ledger.cost()),
        cost_cached=money(ledger.cost(cached=True)),
        output_note=(
            f"output priced at {ledger.max_output_tokens:,} tokens per request, an upper bound"
            if ledger.max_output_tokens
            else None
        ),
        price_problem=ledger.price_problem,
        prices_source=prices.source_label(),
        prices_as_of=prices.prices_as_of(),
        files=files,
        sort=sort,
        sort_urls=sort_urls,
        chart=chart(ledger.files[:CHART_FILES], ledger.exact),
        cases=cases,
        cache={
            "tokens": tokens_label(mapped.shared_prefix_tokens, ledger.exact),
            "sharing": len(mapped.group),
            "cacheable": mapped.cacheable,
            "minimum": f"{mapped.minimum:,}",
            "minimum_known": mapped.minimum_known,
            "mode": mapped.mode,
            "source_url": ledger.cache_source.split(" ", 1)[0],
            "source_note": ledger.cache_source.partition(" ")[2],
            "cached_tokens": f"{mapped.cached_tokens:,}",
        },
        breaks=_breaks(bundle_id, found, params),
        more_breaks=max(0, len(mapped.breaks) - MAX_BREAKS),
        notes=ledger.notes,
        skipped=found.skipped,
        read_by=found.read_by,
        not_run=found.ledger.not_run,
        **_pricing(ledger),
    )


def _pricing(ledger) -> dict:
    """What the panel says of the models priced: as configured or not, the fallback, the judges,
    each model's rates and, with more than one, their subtotals."""
    several = len(ledger.models) > 1
    fallback = ledger.fallback
    return {
        "as_configured": ledger.as_configured,
        "fallback_cases": ledger.fallback_cases,
        "fallback": f"{PROVIDER_LABELS.get(fallback.provider, fallback.provider)} {fallback.model}"
        if fallback
        else "",
        "judges": {
            "requests": ledger.judge_requests,
            "tokens": tokens_label(ledger.judge_input_tokens, ledger.exact),
            "cost": money(ledger.judge_cost()),
        },
        "models": [_model_row(row) for row in ledger.models] if several else [],
        "price_line": "; ".join(line for row in ledger.models if (line := price_line(row.prices)))
        if several
        else price_line(ledger.prices),
    }


def _model_row(row) -> dict:
    return {
        "label": f"{row.label} {row.target.model}",
        "cases": row.cases,
        "judge_requests": row.judge_requests,
        "tokens": tokens_label(row.input_tokens, row.exact),
        "cost": money(row.cost) if row.prices else "—",
        "problem": row.price_problem,
        "price_line": price_line(row.prices),
    }


def price_line(rates) -> str | None:
    """The model's rates per million tokens, as the panel states them."""
    if rates is None:
        return None
    parts = [f"input ${rates.input_mtok}", f"output ${rates.output_mtok}"]
    if rates.cache_read_mtok is not None:
        parts.append(f"cache read ${rates.cache_read_mtok}")
    if rates.cache_write_mtok is not None:
        parts.append(f"cache write ${rates.cache_write_mtok}")
    return (
        f"{rates.model}: "
        + ", ".join(parts)
        + " per million tokens"
        + (" (longer prompts are billed at other rates)" if rates.tiered else "")
    )


def _breaks(bundle_id: str, found: BundleLedger, params: dict[str, str]) -> list[dict]:
    """The first MAX_BREAKS places where the cached prefix breaks, linked to their case and line."""
    return [
        {
            "case": item.case,
            "message": item.message,
            "path": item.path,
            "line": item.line,
            "detail": item.detail,
            "case_url": addresses.case_url(
                bundle_id, found.documents[item.position], item.case, urlencode(params)
            ),
            "source_url": addresses.source_url(bundle_id, item.path, item.line, item.line)
            if item.path
            else None,
        }
        for item in found.ledger.cache.breaks[:MAX_BREAKS]
    ]


LABEL_CHARS = 30


def chart(rows, exact: bool) -> SafeString:
    """Tokens per file as horizontal bars, an SVG drawn here (no script, no CDN, no inline style)."""
    if not rows:
        return SafeString("")
    largest = max(row.tokens for row in rows) or 1
    label_width, bar_width, height = 250, 300, 22
    bars = []
    for number, row in enumerate(rows):
        y = number * height
        width = max(1, round(bar_width * row.tokens / largest))
        # 30 characters of 12px monospace fit the label column with room for a wide font; the
        # labels end at the bars, so one that runs long runs left, never under a bar.
        name = row.path if len(row.path) <= LABEL_CHARS else "…" + row.path[-(LABEL_CHARS - 1) :]
        bars.append(
            (
                label_width - 8,
                y + 15,
                name,
                row.path,
                label_width,
                y + 4,
                width,
                label_width + width + 6,
                tokens_label(row.tokens, exact),
            )
        )
    body = format_html_join(
        "",
        '<text x="{}" y="{}" text-anchor="end" class="ledger-chart-label"><title>{}</title>{}</text>'
        '<rect x="{}" y="{}" width="{}" height="14" rx="2" class="ledger-chart-bar"><title>{}</title></rect>'
        '<text x="{}" y="{}" class="ledger-chart-value">{}</text>',
        (
            (label_x, label_y, full, name, x, bar_y, width, full, value_x, label_y, value)
            for label_x, label_y, name, full, x, bar_y, width, value_x, value in bars
        ),
    )
    total_height = len(rows) * height
    return format_html(
        '<svg class="ledger-chart" viewBox="0 0 {} {}" role="img" aria-labelledby="ledger-chart-title">'
        '<title id="ledger-chart-title">Tokens per file over the suite</title>{}</svg>',
        label_width + bar_width + 90,
        total_height,
        body,
    )


@dataclass
class CacheBand:
    provider_label: str
    tokens: str
    sharing: int
    total: int
    cacheable: bool
    minimum: str
    whole: list[int]  # messages wholly in the cached prefix
    partial: tuple[int, int] | None  # (message, characters) the prefix ends inside
    files: list[tuple[str, str]]  # this case's tokens per file
    break_detail: str | None  # where this case leaves the shared prefix, when it does


def band(found: BundleLedger, case: RenderedCase, provider_label: str) -> CacheBand | None:
    position = next((number for number, item in enumerate(found.cases) if item.id == case.id), None)
    if position is None:
        return None
    ledger, mapped = found.ledger, found.ledger.cache
    covered = mapped.cached_chars(position, case)
    whole = [index for index, chars in covered.items() if chars >= len(case.messages[index].content)]
    partial = next(((index, chars) for index, chars in covered.items() if index not in whole), None)
    row = ledger.cases[position]
    files = [
        (path, tokens_label(tokens, ledger.exact))
        for path, tokens in sorted(row.files.items(), key=lambda item: -item[1])
    ]
    detail = next(
        (
            item.detail + (f" ({item.path}:{item.line})" if item.path else "")
            for item in mapped.breaks
            if item.position == position
        ),
        None,
    )
    return CacheBand(
        provider_label,
        tokens_label(mapped.shared_prefix_tokens, ledger.exact),
        len(mapped.group),
        len(ledger.cases),
        mapped.cacheable,
        f"{mapped.minimum:,}",
        sorted(whole),
        partial,
        files,
        detail,
    )


def band_context(
    loaded, document: str, edited_cases: list[RenderedCase] | None, case: RenderedCase, page
) -> dict:
    """The case page's context for templates/case_cache_band.html: its document's cache map for the
    page's provider and export settings (an unsaved edit's own, uncached)."""
    if edited_cases is None:
        found = bundle_ledger(loaded, page.options, page.provider, page.export, document)
    else:
        found = unstored_ledger(edited_cases, document, page.provider, page.export)
    shown = band(found, case, PROVIDER_LABELS[page.provider])
    cached: set[int] = set()
    if shown is not None:
        cached.update(shown.whole)
        if shown.partial:
            cached.add(shown.partial[0])
    return {"cache_band": shown, "cached_messages": cached}
