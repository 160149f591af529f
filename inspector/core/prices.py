"""Prices per model from pydantic's `genai-prices` package, never a table of our own.

Its data ships inside the wheel (updated monthly upstream) and is read offline; nothing is fetched at
run time. The data carries no "checked on" date, so the date shown is the newest dated price change
it records that is already in force: the data cannot be older than that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache, lru_cache
from importlib.metadata import version

import genai_prices
from genai_prices import Usage
from genai_prices import types as price_types
from genai_prices.data_snapshot import get_snapshot

PACKAGE = "genai-prices"


class PriceLookupError(LookupError):
    """The price data has no price for this model at this provider."""


@dataclass(frozen=True, slots=True)
class ModelPrices:
    """A model's prices in USD per million tokens (below any long-prompt tier)."""

    model: str  # the price data's own id for the model
    provider: str
    input_mtok: Decimal | None
    output_mtok: Decimal | None
    cache_read_mtok: Decimal | None
    cache_write_mtok: Decimal | None
    tiered: bool  # a longer prompt is billed at other rates (the costs apply them per request)

    def as_dict(self) -> dict[str, object]:
        def number(value: Decimal | None) -> float | None:
            return None if value is None else float(value)

        return {
            "model": self.model,
            "provider": self.provider,
            "input_per_mtok": number(self.input_mtok),
            "output_per_mtok": number(self.output_mtok),
            "cache_read_per_mtok": number(self.cache_read_mtok),
            "cache_write_per_mtok": number(self.cache_write_mtok),
            "tiered": self.tiered,
        }


@dataclass(frozen=True, slots=True)
class RequestCost:
    input_usd: Decimal
    output_usd: Decimal

    @property
    def total_usd(self) -> Decimal:
        return self.input_usd + self.output_usd


def source_label() -> str:
    return f"{PACKAGE} {version(PACKAGE)}"


@cache
def prices_as_of(today: date | None = None) -> str:
    """ISO date of the newest price change in the data that is in force on `today`."""
    today = today or datetime.now(UTC).date()
    newest: date | None = None
    for provider in get_snapshot().providers:
        for model in provider.models:
            constraints = [item.constraint for item in model.prices] if isinstance(model.prices, list) else []
            constraints += [variant.constraint for variant in model.price_variants or []]
            for constraint in constraints:
                start = getattr(constraint, "start_date", None)
                if start is not None and start <= today and (newest is None or start > newest):
                    newest = start
    return newest.isoformat() if newest else "unknown"


def _base(value: object) -> Decimal | None:
    if isinstance(value, price_types.TieredPrices):
        return value.base
    return value if isinstance(value, Decimal) else None


@lru_cache(maxsize=256)
def model_prices(prices_provider: str, model: str) -> ModelPrices:
    """The model's current prices; PriceLookupError when the data does not know it."""
    calculation = _calc(prices_provider, model, 0, 0, 0, 0)
    price = calculation.model_price
    keys = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")
    tiered = any(isinstance(getattr(price, key), price_types.TieredPrices) for key in keys)
    return ModelPrices(
        calculation.model.id,
        calculation.provider.id,
        _base(price.input_mtok),
        _base(price.output_mtok),
        _base(price.cache_read_mtok),
        _base(price.cache_write_mtok),
        tiered,
    )


@lru_cache(maxsize=65536)
def request_cost(
    prices_provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int = 0,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> RequestCost:
    """One request's cost; `input_tokens` counts every input token, cached ones included (the
    data's convention), and long-prompt tiers apply to the request as a whole."""
    calculation = _calc(
        prices_provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
    )
    return RequestCost(calculation.input_price, calculation.output_price)


def _calc(
    prices_provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int,
    cache_write_tokens: int,
) -> price_types.PriceCalculation:
    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read_tokens,
        cache_write_tokens=cache_write_tokens,
    )
    try:
        return genai_prices.calc_price(usage, model, provider_id=prices_provider)
    except LookupError:
        raise PriceLookupError(
            f"{source_label()} has no price for model {model!r} at {prices_provider!r}"
        ) from None
