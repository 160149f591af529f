"""The agentv rendering engine: eval file -> the exact messages each agentv release sends.

`render_eval_file` loads any agentv schema generation (see `schema`), resolves files and guidelines
inside the bundle (see `files`) and renders every case with the requested profile (see `profiles`).
"""

from __future__ import annotations

from collections.abc import Callable

from ..bundle import Bundle
from ..model import Diagnostic, RenderedDocument
from ..options import AIBFF_PROFILES, RenderOptions
from .auto import choose_profile
from .files import config_patterns, unusable_patterns
from .prepare import Context
from .profiles import RENDERERS
from .schema import Suite, read_suite
from .v4 import read_suite_v4
from .v5 import read_suite_v5
from .v5_next import read_suite_v5_next

__all__ = ["render_eval_file"]

# agentv 4 and 5 read files by their own, stricter rules; the older profiles share one reader.
READERS: dict[str, Callable[[Bundle, str], Suite]] = {
    "agentv-4": read_suite_v4,
    "agentv-5": read_suite_v5,
    "agentv-5-next-58f316c": read_suite_v5_next,
}


NEWEST = "agentv-5-next-58f316c"


def _run_judge_is_agentv(suite: Suite, profile: str) -> None:
    """`--grader-provider agentv`: the run's judge is agentv's own agent, for the newest commit's
    graders (the one profile whose built-in agent prompts are rendered)."""
    if profile != NEWEST:
        suite.warnings.append(
            Diagnostic(
                f"grader provider agentv is rendered for the {NEWEST} profile only; this file is "
                f"read as {profile}, so its judges are shown as the file names them",
                suite.path,
            )
        )
        return
    for case in suite.cases:
        if case.grading is not None:
            case.grading.agent_judge = True


def render_eval_file(bundle: Bundle, path: str, options: RenderOptions) -> RenderedDocument:
    profile, reason = options.profile, "chosen in the settings"
    if profile in AIBFF_PROFILES:
        profile, reason = choose_profile(bundle, path)
        reason += f" ({options.profile} is for aibff's grader decks)"
    elif profile == "auto":
        profile, reason = choose_profile(bundle, path)
    renderer = RENDERERS[profile]
    suite = READERS.get(profile, read_suite)(bundle, path)
    if options.grader_provider == "agentv":
        _run_judge_is_agentv(suite, profile)
    if options.guideline_patterns is not None:
        patterns = tuple(options.guideline_patterns)
        source = None
    else:
        patterns, source = config_patterns(bundle, path)
    for pattern in unusable_patterns(patterns):
        suite.warnings.append(
            Diagnostic(
                f"guideline pattern {pattern!r} is not a valid glob; it matches nothing", source or path
            )
        )
    context = Context(bundle, path, patterns, options.system_prompt)
    cases = [renderer(case, context) for case in suite.cases]
    return RenderedDocument(path, "agentv", cases, suite.warnings, profile=profile, profile_reason=reason)
