"""What a stored suite costs: the token ledger, prices and prompt-cache map of a bundle."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from inspector.ledgers.token_ledger import bundle_ledger
from inspector.rendering import query_settings

from .common import E400, E404, E422, export_params, get_bundle, render_options
from .schemas import ExportQuery

router = Router(tags=["ledger"])


class LedgerQuery(ExportQuery):
    pricing: Literal["configured", "picked"] | None = Field(
        None,
        description="configured (default): each case at the provider and model its input names "
        "(a promptfoo evaluation's provider, a raw request's model, a deck's model), the rest at "
        "`provider`; picked: every request, judges too, at `provider`.",
    )


class FileTokensOut(Schema):
    path: str
    tokens: int = Field(description="The file's tokens over the whole suite.")
    cases: int = Field(description="How many cases send some of its text.")


class CaseCostOut(Schema):
    id: str
    document: str
    provider: str = Field(description="The provider the case is priced at.")
    model: str
    input_tokens: int
    cost_usd: float | None = Field(description="Input, plus output at max_output_tokens when set.")
    judge_requests: int = Field(description="Its graders' requests to a judge model.")
    judge_input_tokens: int = Field(
        description="Without the candidate's answer; plus max_output_tokens, its bound, when set."
    )
    judge_cost_usd: float | None
    files: dict[str, int]


class CacheBreakOut(Schema):
    case: str
    message: int | None = Field(description="Index of the message in the case (null: tools).")
    path: str | None
    line: int | None
    detail: str


class CacheMapOut(Schema):
    shared_prefix_tokens: int
    cacheable: bool
    cases_sharing: int
    minimum_tokens: int
    minimum_known: bool
    mode: str = Field(description="automatic (any shared prefix) or breakpoints (cache_control).")
    cached_tokens_per_reuse: int
    breaks: list[CacheBreakOut]
    source: str


class JudgesOut(Schema):
    requests: int
    input_tokens: int
    cost_usd: float | None
    fallback_requests: int = Field(description="Priced at `provider`: the input names no judge.")


class ModelSubtotalOut(Schema):
    provider: str
    model: str
    cases: int
    judge_requests: int
    input_tokens: int
    input_tokens_exact: bool
    cost_usd: float | None
    cost_usd_cached: float | None
    prices: dict[str, Any] | None
    price_problem: str | None


class LedgerOut(Schema):
    provider: str = Field(description="The provider whose cache rules the cache map follows.")
    model: str
    as_configured: bool
    fallback_cases: int = Field(description="As configured: cases whose input names no model.")
    fallback: dict[str, str] | None = Field(
        None, description="The provider and model those cases, and unnamed judges, are priced at."
    )
    tokenizer: dict[str, Any]
    files: list[FileTokensOut]
    cases: list[CaseCostOut]
    cache: CacheMapOut
    total: dict[str, Any]
    judges: JudgesOut
    models: list[ModelSubtotalOut]
    prices: dict[str, Any] | None
    price_problem: str | None
    prices_source: str
    prices_as_of: str = Field(description="The newest price change in the price data in force.")
    notes: list[str]
    skipped_documents: list[str]
    not_run: int = Field(
        description="Cases not counted or priced: the source tool skips them (agentv's refusals), "
        "or the inspector cannot build their request (a promptfoo case on a provider it does not model)."
    )
    read_by: dict[str, str] = Field(
        description="Documents a suite reads as its cases (`tests: file://...`), each with that suite: "
        "not counted on their own, since the suite's cases count their text."
    )


@router.get(
    "/{bundle_id}/ledger",
    response={200: LedgerOut, **E400, **E404, **E422},
    summary="Tokens per file and case, the cost of a run, and the prompt-cache map",
)
def get_ledger(request: HttpRequest, bundle_id: str, query: Query[LedgerQuery]):
    """Every case of the bundle, or of `document`, counted with the provider's tokenizer (exact for
    OpenAI, an estimate otherwise), priced from the genai-prices data for `model` (the provider's
    default when absent), and compared as request prefixes for the provider's prompt cache."""
    loaded = get_bundle(bundle_id)
    provider = query_settings.parse_provider(query.provider)
    export = query_settings.parse_export_settings(export_params(query))
    document = query.document
    if document is not None and document not in loaded.documents:
        raise query_settings.SettingsError(f"{document!r} is not a document of this bundle")
    as_configured = query_settings.parse_pricing(query.pricing)
    found = bundle_ledger(loaded, render_options(query), provider, export, document, as_configured)
    data = found.ledger.as_dict()
    data["cases"] = [
        row.as_dict() | {"document": owner}
        for row, owner in zip(found.ledger.cases, found.documents, strict=True)
    ]
    data["skipped_documents"] = found.skipped
    data["read_by"] = found.read_by
    return data
