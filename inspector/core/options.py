from __future__ import annotations

from dataclasses import dataclass

# "auto" picks, per file, the agentv generation whose schema the file is written in.
# aibff's grader decks follow aibff's code of an era: August 2025 by default, June's or July's
# when chosen.
AIBFF_PROFILES = ("aibff-2025-06", "aibff-2025-07", "aibff-2025-08")
PROFILES = (
    "auto",
    "spec",
    "agentv-0.10",
    "agentv-3.8",
    "agentv-4",
    "agentv-5",  # tag v5.3.1-next.1
    "agentv-5-next-58f316c",  # agentv's main at commit 58f316ca2, untagged (v5_next.py)
    *AIBFF_PROFILES,
)


# The run's judges a render can stand for (agentv's `--grader-provider`): "" leaves the file's.
GRADER_PROVIDERS = ("", "agentv")


@dataclass(frozen=True, slots=True)
class RenderOptions:
    profile: str = "auto"
    # None: take guideline_patterns from the nearest .agentv/config.yaml.
    guideline_patterns: tuple[str, ...] | None = None
    # A configured default system prompt; None leaves the profile's own default.
    system_prompt: str | None = None
    # Token budget for the context builder; None keeps every message.
    max_tokens: int | None = None
    input_format: str = "auto"
    # agentv's `--grader-provider`: "agentv" makes the run's judge agentv's own agent, which agentv
    # asks in built-in mode (a system and a user prompt) instead; None keeps the file's judges.
    grader_provider: str | None = None
    encoding: str = "o200k_base"
    # gambit decks: the run's context input and first user message, as `gambit run --context` and
    # `--message` take them (JSON, or plain text when they do not parse).
    gambit_context: str | None = None
    gambit_message: str | None = None
    # gambit decks: the context input taken from a file of the deck's samples/ folder, by name
    # (in place of gambit_context).
    gambit_context_sample: str | None = None
    # gambit grader decks: the conversation to grade (a JSON array of {role, content}), as
    # `gambit grade` passes a session to the grader.
    gambit_conversation: str | None = None
    # ...or read from a file: a JSON sample of the deck by name, or a JSON file of the bundle by
    # its path (in place of gambit_conversation).
    gambit_conversation_sample: str | None = None
    # gambit decks: a folder of an installed gambit-core whose snippets/ gambit://snippets/ embeds
    # are read from when the upload has no copy. Set by the server (GAMBIT_CORE_DIR) or the
    # command line (--gambit-core), never from a page's or API's settings.
    gambit_core: str | None = None
