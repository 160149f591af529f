"""Runs: what an eval runner kept of a run (agentv 4's run folder or results JSONL, agentv 5's
bundle, Inspect AI's logs, promptfoo's results.json), read into one shape (model.py, one module per run format) and set against what the eval
files render now (compare.py)."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.core.model import InputError
from inspector.core.runs.model import FolderFiles, OneFile, Run, RunError, RunFiles, ZipFiles, text_of


def _first_row(files: RunFiles, path: str) -> object:
    for line in (text_of(files, path) or "").splitlines():
        if line.strip():
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def _promptfoo(files: RunFiles) -> Run | None:
    from inspector.core.runs import promptfoo

    for path in files.paths():
        if (
            path.endswith(".json")
            and "/" not in path
            and promptfoo.is_promptfoo_results((files.read(path) or b"")[:4096])
        ):
            return promptfoo.read_promptfoo(files, path)
    return None


def _inspect(files: RunFiles) -> Run | None:
    from inspector.core.runs import inspect_logs

    logs = [path for path in files.paths() if inspect_logs.is_log_name(path)]
    if logs and inspect_logs.is_inspect_log(files, logs[0]):
        return inspect_logs.read_inspect(files, logs)
    return None


def _agentv(files: RunFiles) -> Run | None:
    from inspector.core.runs import agentv4, agentv5

    index = agentv5.index_path(files)
    if index is not None and agentv5.is_agentv5_row(_first_row(files, index)):
        return agentv5.read_agentv5(files, index)
    results = [path for path in files.paths() if path.endswith(".jsonl") and "/" not in path]
    for path in sorted(results, key=lambda name: name != "index.jsonl"):
        if agentv4.is_agentv4_row(_first_row(files, path)):
            return agentv4.read_agentv4(files, path)
    return None


def read_files(files: RunFiles) -> Run:
    """The run in `files`, whichever runner wrote it."""
    for reader in (_promptfoo, _inspect, _agentv):
        run = reader(files)
        if run is not None:
            return run
    raise RunError(
        "not a run this tool reads: no agentv results (index.jsonl or a results "
        "JSONL), no Inspect AI log (.eval or .json) and no promptfoo results.json at its top"
    )


def read_run(path: Path) -> Run:
    """A run on disk: a run folder, a zip of one, or one results or log file."""
    if path.is_dir():
        return read_files(FolderFiles(path))
    if not path.is_file():
        raise RunError(f"{path}: no such file or folder")
    data = path.read_bytes()
    if path.suffix == ".zip":
        return read_files(ZipFiles(data))
    return read_files(OneFile(path.name, data))


def read_in_worker(source: RunFiles | Path) -> Run:
    """read_run (a path) or read_files (files in memory) as the bounded worker calls it: a
    refusal travels back as the InputError the worker passes on."""
    try:
        return read_run(source) if isinstance(source, Path) else read_files(source)
    except RunError as error:
        raise InputError(str(error)) from None
