"""The providers, in the order every menu offers them. A new provider is one module with a
`PROVIDER = Provider(...)` (see spec.py) and one line here."""

from __future__ import annotations

from . import anthropic, bedrock_converse, gemini, openai_chat, openai_responses
from .spec import Provider

REGISTRY: dict[str, Provider] = {
    module.PROVIDER.id: module.PROVIDER
    for module in (openai_chat, openai_responses, anthropic, gemini, bedrock_converse)
}
PROVIDERS: tuple[str, ...] = tuple(REGISTRY)


def provider(provider_id: str) -> Provider:
    """The spec of a provider id; ValueError names the choices."""
    try:
        return REGISTRY[provider_id]
    except KeyError:
        raise ValueError(f"unknown provider {provider_id!r}; choose one of "
                         f"{', '.join(PROVIDERS)}") from None
