"""The web's renders of outside content: the bounded worker under the limits the settings give."""

from __future__ import annotations

from inspector.core import bounded
from inspector.core.bundle import Bundle as FileSet
from inspector.core.model import RenderedDocument
from inspector.core.options import RenderOptions
from inspector.core.runs.model import Run, RunFiles
from inspector.rendering import untrusted
from inspector.rendering.kept_render import PickledRender


def render_files(files: FileSet, path: str, options: RenderOptions) -> RenderedDocument:
    """Render a document of a file set, every case with its own id (the pages and API address
    cases by id)."""
    return render_untrusted(files, path, options, distinct_ids=True)


def render_policy() -> untrusted.RenderPolicy:
    """Where the web's renders of outside content run: the settings' limits (read from the same
    environment variables as the console commands' `RenderPolicy.from_environment`)."""
    from django.conf import settings

    return untrusted.RenderPolicy(
        bounded.Limits(
            memory_bytes=settings.RENDER_MEMORY_MB * 1024 * 1024,
            cpu_seconds=settings.RENDER_CPU_SECONDS,
            deadline_seconds=settings.RENDER_DEADLINE_SECONDS,
            workers=settings.RENDER_WORKERS,
            resident_bytes=settings.RENDER_RESIDENT_MB * 1024 * 1024,
        ),
        settings.RENDER_IN_PROCESS,
        settings.GAMBIT_CORE_DIR,
    )


def render_untrusted(
    files: FileSet, path: str, options: RenderOptions | None, distinct_ids: bool = False
) -> RenderedDocument:
    """untrusted.render_untrusted under the settings' policy."""
    return untrusted.render_untrusted(files, path, options, render_policy(), distinct_ids)


def render_to_keep(files: FileSet, path: str, options: RenderOptions) -> PickledRender:
    """untrusted.render_to_keep under the settings' policy (keep_upload_renders keeps it)."""
    return untrusted.render_to_keep(files, path, options, render_policy())


def list_untrusted(files: FileSet) -> list[str]:
    """untrusted.list_untrusted under the settings' policy."""
    return untrusted.list_untrusted(files, render_policy())


def read_run_untrusted(files: RunFiles, name: str) -> Run:
    """untrusted.read_run_untrusted under the settings' policy."""
    return untrusted.read_run_untrusted(files, name, render_policy())
