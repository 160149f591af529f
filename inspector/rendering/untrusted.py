"""Content from outside (uploads, posted text, the console commands' files) rendered in a bounded
worker process, so a parser crash or a runaway is an InputError (LimitExceeded) naming the file,
never a dead web worker or a hung command.

No Django: the web reads its `RenderPolicy` from the settings (`web_policy.render_policy`), the
console commands from the same environment variables (`RenderPolicy.from_environment`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from inspector.core import bounded
from inspector.core.bundle import Bundle as FileSet
from inspector.core.documents import (
    give_cases_distinct_ids,
    list_documents,
    listing_parses,
    render_document,
)
from inspector.core.model import InputError, RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.runs import read_in_worker
from inspector.core.runs.model import Run, RunError, RunFiles
from inspector.core.safe_parse import LimitExceeded
from inspector.rendering.kept_render import PickledRender, render_pickled

MB = 1024 * 1024


def request_budget_seconds(environ: Mapping[str, str] = os.environ) -> float:
    """What a web request's bounded work may take in all: three quarters of gunicorn's timeout
    (inspector/gunicorn_conf.py reads the same REQUEST_TIMEOUT_SECONDS), the rest left for what
    follows (pickling into the cache, the page, the database)."""
    return max(1.0, int(environ.get("REQUEST_TIMEOUT_SECONDS", "30")) * 0.75)


def render_deadline_seconds(environ: Mapping[str, str] = os.environ) -> float:
    """One render's deadline: RENDER_DEADLINE_SECONDS, never past the request's budget."""
    budget = request_budget_seconds(environ)
    return min(float(environ.get("RENDER_DEADLINE_SECONDS", budget)), budget)


@dataclass(frozen=True)
class RenderPolicy:
    """Where renders of outside content run and the installed gambit-core they may read."""

    limits: bounded.Limits = bounded.Limits()
    # Debugging only: render in this process, without the worker's limits.
    in_process: bool = False
    gambit_core: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> RenderPolicy:
        """The variables settings.py reads, with the same defaults (the core's Limits)."""
        default = bounded.Limits()

        def number(name: str, fallback: float) -> int:
            return int(environ.get(name, str(int(fallback))))

        limits = bounded.Limits(
            memory_bytes=number("RENDER_MEMORY_MB", default.memory_bytes / MB) * MB,
            cpu_seconds=number("RENDER_CPU_SECONDS", default.cpu_seconds),
            deadline_seconds=render_deadline_seconds(environ),
            workers=number("RENDER_WORKERS", default.workers),
            resident_bytes=number("RENDER_RESIDENT_MB", default.resident_bytes / MB) * MB,
        )
        in_process = environ.get("RENDER_IN_PROCESS", "false").lower() in ("1", "true", "yes", "on")
        return cls(limits, in_process, environ.get("GAMBIT_CORE_DIR") or None)

    def settle(self, options: RenderOptions | None) -> RenderOptions | None:
        """The options with the policy's gambit-core folder, unless they name their own."""
        if self.gambit_core and (options is None or options.gambit_core is None):
            return replace(options or RenderOptions(), gambit_core=self.gambit_core)
        return options


def render_untrusted(
    files: FileSet, path: str, options: RenderOptions | None, policy: RenderPolicy, distinct_ids: bool = False
) -> RenderedDocument:
    """render_document for content from outside, in the bounded worker unless the policy says not."""
    options = policy.settle(options)
    if policy.in_process:
        document = render_document(files, path, options)
        return give_cases_distinct_ids(document) if distinct_ids else document
    return bounded.render_bounded(files, path, options, limits=policy.limits, distinct_ids=distinct_ids)


def render_to_keep(files: FileSet, path: str, options: RenderOptions, policy: RenderPolicy) -> PickledRender:
    """The render with distinct case ids, pickled in the bounded worker the way the render cache
    keeps it (an upload's renders are kept: upload_renders.keep_upload_renders)."""
    settled = policy.settle(options)
    if policy.in_process:
        return render_pickled(files, path, settled)
    return bounded.pool(policy.limits).call(render_pickled, files, path, settled, path=path)


def list_untrusted(files: FileSet, policy: RenderPolicy) -> list[str]:
    """list_documents, which parses `.json` files to recognise requests: bounded the same way."""
    if policy.in_process or not any(listing_parses(path) for path in files.paths()):
        return list_documents(files)  # path rules only: nothing is parsed
    return bounded.pool(policy.limits).call(list_documents, files)


def read_run_untrusted(
    source: RunFiles | Path, name: str, policy: RenderPolicy, eval_id: str | None = None
) -> Run:
    """A run read (its JSON, JSONL, logs, zips and SQLite parsed) in the bounded worker: a refusal,
    a crash or a limit is a RunError naming `name`, the upload or path it came from."""
    if policy.in_process:
        return _read_run_here(source, eval_id)
    try:
        return bounded.pool(policy.limits).call(read_in_worker, source, eval_id, path=name)
    except LimitExceeded as error:  # a crash, a runaway or a limit: named by the upload or path
        raise RunError(str(error)) from None
    except InputError as error:  # the reader's refusal, which names the run's file itself
        raise RunError(error.diagnostic.message) from None
    except bounded.WorkerError as error:  # a reader's own bug on odd input: still the file's fault
        raise RunError(f"{name}: not readable as a run ({error})") from None


def _read_run_here(source: RunFiles | Path, eval_id: str | None) -> Run:
    try:
        return read_in_worker(source, eval_id)
    except InputError as error:
        raise RunError(str(error)) from None
