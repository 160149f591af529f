"""`prompt-inspector run-check RUN [--files DIR] [--profile P]` (and `manage.py run_check`): a run
(agentv 4's run folder or results JSONL, an Inspect AI log, promptfoo's results.json; a folder,
zip or file) set against what its eval files render now, as JSON: per case same / differs /
not_in_run / not_in_files, the messages' differences, the source lines that caused them and each
judge prompt's status. Exit 1 when any case or judge prompt differs (for CI), 2 when the run or the
files cannot be used. No Django: the files are rendered by the core in the bounded worker, as `render` does."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from inspector.cli.console import Options, Output, default_root
from inspector.core.bundle import DirectoryBundle
from inspector.core.model import InputError, RenderedDocument
from inspector.core.options import PROFILES
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.core.runs.compare import RunCheck, check_run
from inspector.core.runs.model import Run, RunError
from inspector.core.runs.promptfoo import with_config
from inspector.rendering.untrusted import RenderPolicy, read_run_untrusted, render_untrusted


class RunCheckError(Exception):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run",
        help="a run folder (agentv's -o DIR, .agentv/results/<run>), a zip of "
        "one, a results JSONL, an Inspect AI log (.eval, .json) or promptfoo's results.json",
    )
    parser.add_argument(
        "--files",
        metavar="DIR",
        help="the project whose eval files the run is compared with (default: the "
        "nearest folder above the run holding .git or .agentv; for promptfoo, the "
        "folder of its results.json, whose promptfooconfig.* is rendered)",
    )
    parser.add_argument(
        "--in-run",
        action="store_true",
        help="compare with the eval files the run itself kept (agentv's "
        "task/EVAL.yaml or test/EVAL.yaml), not the project's",
    )
    parser.add_argument(
        "--eval",
        metavar="ID",
        help="of promptfoo's database (promptfoo.db), the eval with this id (default: the latest)",
    )
    parser.add_argument(
        "--profile", choices=PROFILES, help="render the files with this profile (default: the run's runner's)"
    )


PROJECT_MARKS = (".git", ".agentv")


def files_root(run_path: Path, raw: str | None) -> Path | None:
    """--files, else the project the run lies in (the nearest folder above it holding .git or
    .agentv), else None: the run's own copies of its eval files."""
    if raw:
        root = Path(raw)
        if not root.is_dir():
            raise RunCheckError(f"{root}: --files is not a folder")
        return root
    root = default_root(run_path.parent if run_path.is_dir() else run_path)
    return root if any((root / mark).exists() for mark in PROJECT_MARKS) else None


def check(run: Run, root: Path, profile: str | None, policy: RenderPolicy, in_run: bool = False) -> RunCheck:
    chosen = profile or run.profile or "auto"
    try:
        options = parse_render_options({"profile": chosen})
    except SettingsError as error:
        raise RunCheckError(str(error)) from None
    bundle = DirectoryBundle(root)

    def render(path: str) -> RenderedDocument:
        if bundle.text(path) is None:
            raise InputError(f"no such file in {root}", path)
        return render_untrusted(bundle, path, options, policy)

    result = check_run(run, render, chosen, in_run)
    if profile and run.profile and profile != run.profile:
        result.notes.append(
            f"rendered with profile {profile}; the run was made by {run.runner} (profile {run.profile})"
        )
    return result


def run_check(options: Options, output: Output, policy: RenderPolicy) -> int:
    run_path = Path(options["run"])
    try:
        run = read_run_untrusted(run_path, str(run_path), policy, options.get("eval"))
        root = None if options.get("in_run") else files_root(run_path, options.get("files"))
        if root is None and not run_path.is_dir() and run.profile is None:
            root = run_path.parent  # nothing of it is rendered: no eval file of ours holds its cases
        if root is None and not run_path.is_dir():
            raise RunCheckError(
                f"{run_path}: name the project with --files (the run's own eval "
                "files are read from a run folder)"
            )
        if run.runner == "promptfoo":
            folder = run_path if run_path.is_dir() else run_path.parent
            root = Path(options["files"]) if options.get("files") else folder
            run = with_config(run, (path.name for path in root.iterdir() if path.is_file()), str(root))
        in_run = root is None
        result = check(run, root or run_path, options.get("profile"), policy, in_run)
    except (RunError, RunCheckError, InputError) as error:
        output.err(f"error: {error}")
        return 2
    output.out(json.dumps(result.as_contract(), indent=2, ensure_ascii=False))
    return 1 if result.differs else 0
