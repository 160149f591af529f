"""An uploaded run checked for the API and the page: the run (a run folder's files, a zip of one, a
results JSONL or an Inspect AI log) and, optionally, the project's files it is compared with;
without them, the eval files the run kept. Nothing is stored; every file goes through the
upload's checks (ingest.collect_files) and every render through the bounded worker."""

from __future__ import annotations

from pathlib import Path

from inspector.bundles.ingest import UploadError, collect_files
from inspector.core.bundle import Bundle, DirectoryBundle, MemoryBundle
from inspector.core.model import InputError, RenderedDocument
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.core.runs import read_files
from inspector.core.runs.compare import RunCheck, check_run
from inspector.core.runs.model import (
    FolderFiles,
    MemoryFiles,
    OneFile,
    Run,
    RunError,
    RunFiles,
    single_top_folder,
)
from inspector.rendering import query_settings, web_policy
from inspector.rendering.untrusted import render_untrusted


def run_files(uploads: list[tuple[str, bytes]]) -> RunFiles:
    """One log or results file as itself (an Inspect .eval is a zip, not a folder); anything else
    as a folder's files, zips unpacked."""
    if len(uploads) == 1 and not uploads[0][0].lower().endswith(".zip"):
        name, data = uploads[0]
        return OneFile(name.rsplit("/", 1)[-1], data)
    return MemoryFiles(collect_files(uploads))


def project_bundle(uploads: list[tuple[str, bytes]], run: Run) -> MemoryBundle:
    """The project's files; a folder uploaded whole is read from inside it unless the run's eval
    paths name that folder."""
    files = collect_files(uploads)
    prefix = single_top_folder(list(files))
    named = {case.eval_path for case in run.cases if case.eval_path}
    if prefix and not any(path in files for path in named):
        files = {path[len(prefix) :]: data for path, data in files.items()}
    return MemoryBundle(files)


def _checked(run: Run, bundle: Bundle, profile: str | None, in_run: bool) -> RunCheck:
    chosen = profile or run.profile or "auto"
    options = query_settings.parse_render_options({"profile": chosen})
    policy = web_policy.render_policy()

    def render(path: str) -> RenderedDocument:
        if bundle.text(path) is None:
            raise InputError("no such file among the files compared with", path)
        return render_untrusted(bundle, path, options, policy)

    return check_run(run, render, chosen, in_run=in_run)


def local_runs(root: Path) -> list[str]:
    """The run folders agentv wrote in a served folder (.agentv/results/<run>/), newest first."""
    results = root / ".agentv" / "results"
    if not results.is_dir():
        return []
    found = [
        folder
        for folder in results.iterdir()
        if folder.is_dir()
        and not folder.name.startswith(".")
        and ((folder / "index.jsonl").is_file() or (folder / ".internal" / "index.jsonl").is_file())
    ]
    found.sort(key=lambda folder: folder.stat().st_mtime, reverse=True)
    return [folder.relative_to(root).as_posix() for folder in found]


def check_local(root: Path, run_path: str, profile: str | None) -> RunCheck:
    """A run folder inside the served folder, against the served folder's files now."""
    if run_path not in local_runs(root):
        raise RunError(f"{run_path}: not a run folder of {root} (.agentv/results/<run>/)")
    run = read_files(FolderFiles(root / run_path))
    return _checked(run, DirectoryBundle(root), profile, in_run=False)


def check_upload(
    run_uploads: list[tuple[str, bytes]], project_uploads: list[tuple[str, bytes]], profile: str | None
) -> RunCheck:
    """RunError, UploadError or SettingsError when the upload cannot be used."""
    if not run_uploads:
        raise UploadError("upload the run: its folder, a zip of it, a results JSONL or an Inspect log")
    files = run_files(run_uploads)
    run = read_files(files)
    bundle: Bundle
    if project_uploads:
        bundle = project_bundle(project_uploads, run)
    elif isinstance(files, MemoryFiles):
        bundle = MemoryBundle(files.files)
    elif run.profile is None:  # a runner whose inputs no eval file of ours renders
        bundle = MemoryBundle({})
    else:
        raise RunError("a single results or log file keeps no eval files: upload the project's files too")
    return _checked(run, bundle, profile, in_run=not project_uploads)


__all__ = ["RunError", "SettingsError", "UploadError", "check_upload", "parse_render_options"]
