"""An uploaded run, checked for the API and the page: the run (a run folder's files, a zip of one, a
results JSONL, an Inspect AI log or promptfoo's results.json) and, optionally, the project's files
it is compared with; without them, the eval files the run kept (a promptfoo run folder's own
promptfooconfig.*). Stored, a run is a bundle like any upload (bundles/ingest.store_bundle: the
same checks, blobs, share link and manage token) whose `run_root` folder holds the run's files and
whose other files are the project's; the stateless check (`POST /api/runs/check`) lays the upload
out the same way and checks it through the same function. The run is read, like every render, in
the bounded worker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inspector.bundles.ingest import (
    UploadError,
    collect_files,
    default_title,
    store_bundle,
    store_bundle_once,
)
from inspector.core.bundle import Bundle, DirectoryBundle, MemoryBundle
from inspector.core.model import InputError, RenderedDocument
from inspector.core.render_settings import SettingsError, parse_render_options
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
from inspector.core.runs.promptfoo import config_in, with_config
from inspector.models import Bundle as StoredBundle
from inspector.rendering import query_settings, web_policy
from inspector.rendering.untrusted import render_untrusted

Uploads = list[tuple[str, bytes]]
RUN_FOLDER = "run"


@dataclass(frozen=True)
class RunUpload:
    """An upload laid out as the bundle that stores it: the project's files at their paths, the
    run's under `run_root`."""

    files: dict[str, bytes]
    run_root: str
    title: str


def _run_root(project: dict[str, bytes]) -> str:
    """`run/`, or `run-2/`... when the project has a folder of that name."""
    taken = {path.split("/", 1)[0] for path in project}
    number = 1
    while (name := RUN_FOLDER if number == 1 else f"{RUN_FOLDER}-{number}") in taken:
        number += 1
    return name + "/"


def _run_part(run_uploads: Uploads) -> dict[str, bytes]:
    """One log or results file stays one file (an Inspect .eval is a zip, not a folder); anything
    else is a folder's files, zips unpacked."""
    if len(run_uploads) == 1 and not run_uploads[0][0].lower().endswith(".zip"):
        name, data = run_uploads[0]
        return collect_files([(name.replace("\\", "/").rsplit("/", 1)[-1], data)])
    return collect_files(run_uploads)


def lay_out(run_uploads: Uploads, project_uploads: Uploads) -> RunUpload:
    """UploadError for an upload no bundle may hold (the same checks as any upload)."""
    if not run_uploads:
        raise UploadError("upload the run: its folder, a zip of it, a results JSONL or an Inspect log")
    run = _run_part(run_uploads)
    project = collect_files(project_uploads) if project_uploads else {}
    root = _run_root(project)
    laid = {**project, **{root + path: data for path, data in run.items()}}
    # Once more on the whole: the limits hold for the bundle, not for each half.
    files = collect_files(list(laid.items()), expand_zips=False)
    names = [name for name, _ in run_uploads]
    return RunUpload(files, root, f"Run: {default_title(names, len(run))}")


def run_source(files: dict[str, bytes], run_root: str) -> RunFiles:
    """The run's files of a laid-out upload, as the readers take them."""
    inside = {path[len(run_root) :]: data for path, data in files.items() if path.startswith(run_root)}
    if len(inside) == 1:
        name, data = next(iter(inside.items()))
        if "/" not in name:
            return OneFile(name, data)
    return MemoryFiles(inside)


def _project(files: dict[str, bytes], run_root: str, run: Run) -> dict[str, bytes]:
    """The project's files; a folder uploaded whole is read from inside it unless the run's eval
    paths name that folder."""
    project = {path: data for path, data in files.items() if not path.startswith(run_root)}
    prefix = single_top_folder(list(project))
    named = {case.eval_path for case in run.cases if case.eval_path}
    if prefix and not any(path in project for path in named):
        project = {path[len(prefix) :]: data for path, data in project.items()}
    return project


def read_upload(upload: RunUpload) -> Run:
    """RunError when the run is not one this tool reads, or cannot be read within the limits."""
    return web_policy.read_run_untrusted(run_source(upload.files, upload.run_root), upload.title)


def check_laid_out(upload: RunUpload, profile: str | None, run: Run | None = None) -> RunCheck:
    """The check of a laid-out upload (stored or not): against the project's files when it has
    them, else the eval files the run kept."""
    source = run_source(upload.files, upload.run_root)
    run = run or read_upload(upload)
    project = _project(upload.files, upload.run_root, run)
    bundle: Bundle
    if project:
        bundle = MemoryBundle(project)
    elif isinstance(source, MemoryFiles):
        bundle = MemoryBundle(source.files)
    elif run.profile is None:  # a runner whose inputs no eval file of ours renders
        bundle = MemoryBundle({})
    else:
        raise RunError("a single results or log file keeps no eval files: upload the project's files too")
    in_run = not project
    if run.runner == "promptfoo" and config_in(bundle.paths()):
        # The config beside results.json is the project promptfoo ran in, kept or not in the run.
        run, in_run = with_config(run, bundle.paths(), "the files compared with"), False
    return _checked(run, bundle, profile, in_run)


def _checked(run: Run, bundle: Bundle, profile: str | None, in_run: bool) -> RunCheck:
    chosen = profile or run.profile or "auto"
    options = query_settings.parse_render_options({"profile": chosen})
    policy = web_policy.render_policy()

    def render(path: str) -> RenderedDocument:
        if bundle.text(path) is None:
            raise InputError("no such file among the files compared with", path)
        return render_untrusted(bundle, path, options, policy)

    return check_run(run, render, chosen, in_run=in_run)


def check_upload(run_uploads: Uploads, project_uploads: Uploads, profile: str | None) -> RunCheck:
    """An upload checked and not stored. RunError, UploadError or SettingsError when the upload
    cannot be used."""
    return check_laid_out(lay_out(run_uploads, project_uploads), profile)


def store_run(
    run_uploads: Uploads, project_uploads: Uploads, token_hash: str = "", key: str | None = None
) -> tuple[StoredBundle, str | None, Run]:
    """The run stored as a bundle once it is known to be a run: the bundle, its manage token
    (none given `token_hash`: a queued upload; none either for a retry under an Idempotency-Key
    `key` that stored it already) and the run as read."""
    upload = lay_out(run_uploads, project_uploads)
    run = read_upload(upload)
    if key is not None:
        bundle, token, created = store_bundle_once(
            upload.files, title=upload.title, key=key, run_root=upload.run_root
        )
        return bundle, token if created else None, run
    bundle, token = store_bundle(
        upload.files, title=upload.title, run_root=upload.run_root, token_hash=token_hash
    )
    return bundle, token, run


def stored_upload(bundle: StoredBundle, files: dict[str, bytes]) -> RunUpload:
    return RunUpload(files, bundle.run_root, bundle.title or bundle.pk)


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
    run = web_policy.read_run_untrusted(FolderFiles(root / run_path), run_path)
    return _checked(run, DirectoryBundle(root), profile, in_run=False)


__all__ = ["RunError", "SettingsError", "UploadError", "check_upload", "parse_render_options"]
