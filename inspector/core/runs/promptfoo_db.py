"""promptfoo's own database (`~/.promptfoo/promptfoo.db`, or `$PROMPTFOO_CONFIG_DIR/promptfoo.db`,
as promptfoo 0.123.1 writes it unless run with `--no-write`): one `evals` row per eval and one
`eval_results` row per evaluation, whose columns hold what results.json holds (`prompt`,
`provider`, `response`, `grading_result` as JSON text, `test_idx`, `prompt_idx`, `error`), so each
row is read as promptfoo.py reads a results.json entry. One eval is read: the one named, else the
latest. The database is opened read-only (a file on disk with `mode=ro`; an upload's bytes in
memory, with `query_only`), and only ever inside the bounded worker, with SQLite's cell size checks
on against a damaged or hostile file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from inspector.core.runs.model import Run, RunError
from inspector.core.runs.promptfoo import case_of

SQLITE_HEADER = b"SQLite format 3\x00"
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
# Bytes 18 and 19 of the header: the file format's write and read versions, 2 in WAL mode. A
# database in memory has no WAL: the copy is read as a rollback-journal database (1), which is
# what the pages hold once promptfoo has checkpointed (it does on closing).
_VERSIONS = slice(18, 20)


def is_database(name: str, head: bytes) -> bool:
    return name.lower().endswith(DB_SUFFIXES) and head.startswith(SQLITE_HEADER)


def _defended(connection: sqlite3.Connection) -> sqlite3.Connection:
    # trusted_schema stays on: promptfoo's own indexes are on json_extract() expressions, which
    # the SQLite Python 3.11 comes with (3.40) refuses in an untrusted schema. What a hostile schema could call is what
    # the standard library registers (no extension loading) and can write nothing (query_only, a
    # read-only file or a private copy in memory), in the bounded worker.
    connection.execute("PRAGMA cell_size_check = ON")
    connection.execute("PRAGMA query_only = ON")
    return connection


def open_path(path: Path) -> sqlite3.Connection:
    """The database on disk, read-only (WAL pages not yet checkpointed are read too)."""
    return _defended(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True))


def open_bytes(data: bytes) -> sqlite3.Connection:
    """An uploaded database, in memory."""
    copy = bytearray(data)
    if copy[_VERSIONS] == b"\x02\x02":
        copy[_VERSIONS] = b"\x01\x01"
    connection = sqlite3.connect(":memory:")
    connection.deserialize(bytes(copy))
    return _defended(connection)


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _chosen(connection: sqlite3.Connection, eval_id: str | None, name: str) -> tuple[str, int]:
    """The eval named, else the latest, and how many the database holds."""
    ids = [row[0] for row in connection.execute("SELECT id FROM evals ORDER BY created_at DESC, rowid DESC")]
    if not ids:
        raise RunError(f"{name}: promptfoo's database holds no eval")
    if eval_id is None:
        return ids[0], len(ids)
    if eval_id not in ids:
        raise RunError(f"{name}: no eval {eval_id} in it (the latest is {ids[0]})")
    return eval_id, len(ids)


_RESULTS = (
    "SELECT test_idx, prompt_idx, prompt, provider, response, grading_result, error "
    "FROM eval_results WHERE eval_id = ? ORDER BY test_idx, prompt_idx, rowid"
)


def read_connection(connection: sqlite3.Connection, name: str, eval_id: str | None = None) -> Run:
    try:
        chosen, count = _chosen(connection, eval_id, name)
        rows = connection.execute(_RESULTS, (chosen,)).fetchall()
    except sqlite3.DatabaseError as error:
        raise RunError(f"{name}: not a promptfoo database SQLite can read ({error})") from None
    finally:
        connection.close()
    results = [
        {
            "testIdx": test,
            "promptIdx": prompt_index,
            "prompt": _json(prompt) or {},
            "provider": _json(provider) or {},
            "response": _json(response) or {},
            "gradingResult": _json(grading),
            "error": error,
        }
        for test, prompt_index, prompt, provider, response, grading, error in rows
    ]
    cases = [case_of(result) for result in results]
    for case in cases:
        case.source = name
    which = "named" if eval_id is not None else "latest"
    notes = [
        f"{name}: eval {chosen}, the {which} of the {count} it holds",
        f"{name}: promptfoo keeps the rendered prompts and judge prompts, not the request bodies",
    ]
    return Run(
        "promptfoo",
        None,
        None,
        cases,
        version_note="promptfoo's database does not record the version that wrote it",
        notes=notes,
    )


def read_database(data: bytes, name: str, eval_id: str | None = None) -> Run:
    try:
        connection = open_bytes(data)
    except sqlite3.DatabaseError as error:
        raise RunError(f"{name}: not a database SQLite can read ({error})") from None
    return read_connection(connection, name, eval_id)


def read_database_file(path: Path, eval_id: str | None = None) -> Run:
    try:
        connection = open_path(path)
    except sqlite3.DatabaseError as error:
        raise RunError(f"{path}: not a database SQLite can read ({error})") from None
    return read_connection(connection, str(path), eval_id)
