"""The providers, in the order every menu offers them. A new provider is one module with a
`PROVIDER = Provider(...)` (see spec.py), registered with `register`: the hook every provider goes
through, the built-ins too (export/__init__.py registers them)."""

from __future__ import annotations

from .spec import Provider

REGISTRY: dict[str, Provider] = {}
PROVIDERS: tuple[str, ...] = ()


def register(spec: Provider) -> Provider:
    """Offer a provider everywhere (exports, menus, the API's enum, the CLI's --to), after those
    registered before it. Surfaces built at import (the API's enum, the CLI's choices) offer the
    providers registered by then."""
    global PROVIDERS
    if spec.id in REGISTRY:
        raise ValueError(f"provider {spec.id!r} is registered already")
    REGISTRY[spec.id] = spec
    PROVIDERS = tuple(REGISTRY)
    return spec


def unregister(provider_id: str) -> None:
    global PROVIDERS
    del REGISTRY[provider_id]
    PROVIDERS = tuple(REGISTRY)


def with_cache_breakpoints() -> tuple[str, ...]:
    """The providers whose exports can mark the cache map's breakpoints (the cache option)."""
    return tuple(spec.id for spec in REGISTRY.values() if spec.export_with_breakpoints is not None)


def provider(provider_id: str) -> Provider:
    """The spec of a provider id; ValueError names the choices."""
    try:
        return REGISTRY[provider_id]
    except KeyError:
        raise ValueError(f"unknown provider {provider_id!r}; choose one of {', '.join(PROVIDERS)}") from None
