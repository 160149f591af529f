"""Runs: what an eval runner kept of a run (agentv 4's run folder or results JSONL, agentv 5's
bundle, Inspect AI's logs, promptfoo's results.json and database), read into one shape (model.py, one module per run format) and set against what the eval
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


def _database(files: RunFiles) -> str | None:
    from inspector.core.runs.promptfoo_db import DB_SUFFIXES, is_database

    for path in files.paths():
        if (
            "/" not in path
            and path.lower().endswith(DB_SUFFIXES)
            and is_database(path, (files.read(path) or b"")[:16])
        ):
            return path
    return None


def read_files(files: RunFiles, eval_id: str | None = None) -> Run:
    """The run in `files`, whichever runner wrote it (of promptfoo's database, the eval
    `eval_id`, else the latest)."""
    database = _database(files)
    if database is not None:
        from inspector.core.runs.promptfoo_db import read_database

        return read_database(files.read(database) or b"", database, eval_id)
    for reader in (_promptfoo, _inspect, _agentv):
        run = reader(files)
        if run is not None:
            return run
    raise RunError(
        "not a run this tool reads: no agentv results (index.jsonl or a results "
        "JSONL), no Inspect AI log (.eval or .json) and no promptfoo results.json at its top"
    )


def read_run(path: Path, eval_id: str | None = None) -> Run:
    """A run on disk: a run folder, a zip of one, one results or log file, or promptfoo's
    database (opened where it is, so what promptfoo has not checkpointed yet is read too)."""
    if path.is_dir():
        return read_files(FolderFiles(path), eval_id)
    if not path.is_file():
        raise RunError(f"{path}: no such file or folder")
    from inspector.core.runs.promptfoo_db import is_database, read_database_file

    with path.open("rb") as handle:
        if is_database(path.name, handle.read(16)):
            return read_database_file(path, eval_id)
    data = path.read_bytes()
    if path.suffix == ".zip":
        return read_files(ZipFiles(data), eval_id)
    return read_files(OneFile(path.name, data), eval_id)


def read_in_worker(source: RunFiles | Path, eval_id: str | None = None) -> Run:
    """read_run (a path) or read_files (files in memory) as the bounded worker calls it: a
    refusal travels back as the InputError the worker passes on."""
    try:
        return read_run(source, eval_id) if isinstance(source, Path) else read_files(source, eval_id)
    except RunError as error:
        raise InputError(str(error)) from None
