"""The tools gambit-core 1.0.0-rc.2's runtime offers a deck (`buildToolDefs`): its built-in file
and command tools, as the run's permissions allow them, and the parameters of actions and
external tools, which come from Zod schemas the inspector does not run."""

from __future__ import annotations

from typing import Any

from ..model import Diagnostic

_PATH = {"type": "string"}
_NUMBER = {"type": "number"}
_BOOLEAN = {"type": "boolean"}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


# (name, description, parameters) in the order buildToolDefs adds them, with the permission
# scope each needs.
BUILTIN_TOOLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "read_file",
        "Read a UTF-8 text file.",
        _object({"path": _PATH, "start_line": _NUMBER, "end_line": _NUMBER}, ["path"]),
    ),
    (
        "list_dir",
        "List directory entries.",
        _object({"path": _PATH, "recursive": _BOOLEAN, "max_entries": _NUMBER}, ["path"]),
    ),
    (
        "grep_files",
        "Search text files using a regular expression.",
        _object({"path": _PATH, "query": _PATH, "max_matches": _NUMBER}, ["path", "query"]),
    ),
    (
        "apply_patch",
        "Apply text replacements to a file using old/new edit pairs.",
        _object(
            {
                "path": _PATH,
                "create_if_missing": _BOOLEAN,
                "edits": {
                    "type": "array",
                    "items": _object(
                        {"old_text": _PATH, "new_text": _PATH, "replace_all": _BOOLEAN},
                        ["old_text", "new_text"],
                    ),
                },
            },
            ["path", "edits"],
        ),
    ),
    (
        "exec",
        "Run an allowed command with optional args.",
        _object(
            {
                "command": _PATH,
                "args": {"type": "array", "items": _PATH},
                "cwd": _PATH,
                "timeout_ms": _NUMBER,
            },
            ["command"],
        ),
    ),
)
_SCOPE = {
    "read_file": "read",
    "list_dir": "read",
    "grep_files": "read",
    "apply_patch": "write",
    "exec": "run",
}


def _granted(value: Any, run: bool = False) -> bool:
    if value is True:
        return True
    if isinstance(value, list):
        return bool(value)
    if run and isinstance(value, dict):
        return bool(value.get("paths")) or bool(value.get("commands"))
    return False


def allowed_builtins(permissions: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """The built-in tools a root run offers: all of them when the deck declares no permissions
    (gambit starts from allow-all), else those its declaration grants."""
    if not permissions or not isinstance(permissions, dict):
        return list(BUILTIN_TOOLS)
    return [
        tool
        for tool in BUILTIN_TOOLS
        if _granted(permissions.get(_SCOPE[tool[0]]), run=_SCOPE[tool[0]] == "run")
    ]


def schema_parameters(
    reference: str, path: str, line: int | None, warnings: list[Diagnostic]
) -> dict[str, Any]:
    """What the inspector can say about a tool's parameters: gambit converts the Zod schema
    (zod-to-json-schema); the inspector does not run TypeScript, so it names the schema."""
    warnings.append(
        Diagnostic(
            f"parameters come from the Zod schema {reference}, which gambit turns into JSON Schema "
            "by running it; the inspector does not run TypeScript, so the tool shows the schema's "
            "name instead of its fields",
            path,
            line,
        )
    )
    return {"type": "object", "description": f"schema from {reference}"}
