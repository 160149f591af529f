"""One parser for render settings, with one set of limits, for the page's query string, the API's
typed bodies and the CLI's flags alike."""

from __future__ import annotations

from collections.abc import Mapping

from . import formats
from .options import GRADER_PROVIDERS, PROFILES, RenderOptions

MAX_SYSTEM_PROMPT = 100_000
MAX_PATTERNS = 50
MAX_TOKENS = 10_000_000
MAX_GAMBIT_INPUT = 1_000_000
# Every setting the parser reads, for the API and CLI to pass along by name.
SETTING_NAMES = (
    "profile",
    "patterns",
    "system_prompt",
    "max_tokens",
    "input_format",
    "grader_provider",
    "gambit_context",
    "gambit_context_sample",
    "gambit_message",
    "gambit_conversation",
    "gambit_conversation_sample",
)


class SettingsError(ValueError):
    """A render setting is not usable; the message says which and why."""


def parse_render_options(values: Mapping[str, object]) -> RenderOptions:
    """RenderOptions from `profile`, `input_format`, `patterns`, `system_prompt`, `max_tokens`,
    `grader_provider` (agentv's `--grader-provider`: `agentv`, or empty for the file's judges),
    and, for gambit decks, `gambit_context` and `gambit_message` (JSON or text, as gambit's
    `--context` and `--message` take them), `gambit_context_sample` (the context input from a
    file of the deck's samples/, by name) and `gambit_conversation` (what a grader grades).

    `patterns` absent (or `patterns_mode: config`) means the nearest .agentv/config.yaml's; a list
    is taken as is, text is split on commas and lines; present but empty means none. Values may be
    text (a query string) or typed (the API, the CLI)."""
    profile = str(values.get("profile") or "auto")
    if profile not in PROFILES:
        raise SettingsError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    input_format = str(values.get("input_format") or "auto")
    if input_format not in formats.INPUT_FORMATS:
        raise SettingsError(
            f"unknown input format {input_format!r}; choose one of {', '.join(formats.INPUT_FORMATS)}"
        )
    patterns = None
    if "patterns" in values and values.get("patterns_mode", "custom") != "config":
        patterns = _patterns(values.get("patterns"))
    grader_provider = str(values.get("grader_provider") or "")
    if grader_provider not in GRADER_PROVIDERS:
        raise SettingsError(
            f"unknown grader provider {grader_provider!r}; choose agentv, or leave it empty for the "
            "judges the file names"
        )
    system_prompt = values.get("system_prompt") or None
    if system_prompt is not None and len(str(system_prompt)) > MAX_SYSTEM_PROMPT:
        raise SettingsError("the system prompt is too long")
    return RenderOptions(
        profile=profile,
        guideline_patterns=patterns,
        system_prompt=None if system_prompt is None else str(system_prompt),
        max_tokens=_max_tokens(values.get("max_tokens")),
        input_format=input_format,
        grader_provider=grader_provider or None,
        **_gambit_inputs(values),
    )


def _patterns(raw: object) -> tuple[str, ...]:
    if isinstance(raw, (list, tuple)):
        # A list keeps patterns such as `*.{md,txt}` whole, where text splits on commas.
        patterns = tuple(str(item).strip() for item in raw if str(item).strip())
    else:
        text = str(raw or "")
        patterns = tuple(p.strip() for p in text.replace(",", "\n").splitlines() if p.strip())
    if len(patterns) > MAX_PATTERNS:
        raise SettingsError(f"at most {MAX_PATTERNS} guideline patterns")
    return patterns


def _max_tokens(raw: object) -> int | None:
    if raw in (None, ""):
        return None
    try:
        max_tokens = int(str(raw))
    except ValueError:
        raise SettingsError("max_tokens must be a whole number") from None
    if not 1 <= max_tokens <= MAX_TOKENS:
        raise SettingsError(f"max_tokens must be between 1 and {MAX_TOKENS:,}")
    return max_tokens


def _gambit_inputs(values: Mapping[str, object]) -> dict[str, str]:
    """The gambit deck inputs given; each input comes as text or from a sample, not both."""
    gambit = {}
    for name in (
        "gambit_context",
        "gambit_context_sample",
        "gambit_message",
        "gambit_conversation",
        "gambit_conversation_sample",
    ):
        value = values.get(name)
        if value is not None and value != "":
            if len(str(value)) > MAX_GAMBIT_INPUT:
                raise SettingsError(f"{name} is longer than {MAX_GAMBIT_INPUT:,} characters")
            gambit[name] = str(value)
    if "gambit_context" in gambit and "gambit_context_sample" in gambit:
        raise SettingsError("give the context input or a sample to take it from, not both")
    if "gambit_conversation" in gambit and "gambit_conversation_sample" in gambit:
        raise SettingsError("give the conversation or a file to read it from, not both")
    return gambit


# How the ledger prices a suite: each case at the model its input names (the rest at the picked
# provider), or every request at the picked provider.
PRICINGS = ("configured", "picked")


def parse_pricing(value: str | None) -> bool:
    """Whether the ledger prices as configured (the default) rather than all at the provider."""
    pricing = value or PRICINGS[0]
    if pricing not in PRICINGS:
        raise SettingsError(f"unknown pricing {pricing!r}; choose one of {', '.join(PRICINGS)}")
    return pricing == "configured"
