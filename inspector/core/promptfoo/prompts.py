"""The prompts of a promptfoo config (promptfoo's src/prompts: readPrompts, processPrompt and the
processors by extension), each with the lines its text is written on.

A prompt promptfoo would get by running code (a JavaScript or Python function, `exec:`) or by
asking a service (Langfuse, Portkey, Helicone) is kept in its place, so the matrix and the indices
stay promptfoo's, and named as not run.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from ..agentv.pieces import Piece
from ..model import InputError, LineSpan, OriginKind
from ..yaml_lines import Node, from_plain
from .source import FILE_PREFIX, Source, jsonl_trees

# PROMPT_DELIMITER; promptfoo reads PROMPTFOO_PROMPT_SEPARATOR from the environment, which a
# config file does not carry.
DELIMITER = "---"
# prompts/utils.ts VALID_FILE_EXTENSIONS
FILE_EXTENSIONS = (
    ".cjs",
    ".cts",
    ".j2",
    ".js",
    ".json",
    ".jsonl",
    ".md",
    ".mjs",
    ".mts",
    ".py",
    ".ts",
    ".txt",
    ".yml",
    ".yaml",
)
CODE_EXTENSIONS = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".py")
EXECUTABLE_EXTENSIONS = (".sh", ".bash", ".exe", ".bat", ".cmd", ".ps1", ".rb", ".pl")
SERVICES = ("portkey://", "langfuse://", "helicone://")
GLOB_MAGIC = re.compile(r"[*?\[\]{}]")


@dataclass
class Prompt:
    """One prompt as promptfoo holds it: `raw` (what it renders), `label`, `id`, `config`; `node`
    is its text with the lines it comes from, `tree` the same as a JSON value when it is one."""

    raw: str
    label: str
    node: Node
    id: str | None = None
    config: dict[str, Any] | None = None
    tree: Node | None = None
    unsupported: str | None = None  # why the inspector does not produce this prompt's text


def maybe_file_path(text: str) -> bool:
    """prompts/utils.ts maybeFilePath: promptfoo reads such a prompt as a path."""
    if "\n" in text or any(service in text for service in SERVICES):
        return False
    tokens = text.split(":")
    last = tokens[-1]
    before = tokens[-2] if len(tokens) > 1 else ""
    return (
        text.startswith(FILE_PREFIX)
        or any(last.endswith(ext) or before.endswith(ext) for ext in FILE_EXTENSIONS)
        or (len(text) >= 3 and text[-3] == ".")
        or (len(text) >= 4 and text[-4] == ".")
        or "*" in text
        or "/" in text
        or "\\" in text
    )


def read_prompts(source: Source, node: Node | None) -> list[Prompt]:
    if node is None:
        raise InputError("promptfoo needs `prompts`", source.path, 1)
    prompts: list[Prompt] = []
    for entry in _entries(source, node):
        batch = _process(source, entry)
        if not batch:
            raise InputError(
                f"There are no prompts in {json.dumps(entry['raw'])}", source.path, entry["node"].start_line
            )
        prompts.extend(batch)
    return prompts


def _entries(source: Source, node: Node) -> list[dict[str, Any]]:
    """normalizeInput: a string, a list of strings and objects, or a map of path -> label."""
    value = node.value
    if isinstance(value, str):
        return [{"raw": value, "node": node}]
    if isinstance(value, dict):
        return [{"raw": key, "label": item.plain(), "node": item} for key, item in value.items()]
    if not isinstance(value, list) or not value:
        raise InputError(f"Invalid input prompt: {json.dumps(node.plain())}", source.path, node.start_line)
    entries = []
    seen: set[str] = set()  # combineConfigs keeps a prompt string written twice once
    for item in value:
        if isinstance(item.value, str):
            if item.value in seen:
                continue
            seen.add(item.value)
            entries.append({"raw": item.value, "node": item})
        elif isinstance(item.value, dict):
            plain = item.plain()
            raw_node = item.get("raw") if plain.get("raw") else item.get("id")
            entries.append({**plain, "raw": plain.get("raw") or plain.get("id"), "node": raw_node or item})
        else:
            raise InputError(
                f"Invalid input prompt: {json.dumps(item.plain())}", source.path, item.start_line
            )
    return entries


def _process(source: Source, entry: dict[str, Any]) -> list[Prompt]:
    raw, node = entry["raw"], entry["node"]
    if not isinstance(raw, str):
        raise InputError(
            f"prompt.raw must be a string, but got {json.dumps(raw)}", source.path, node.start_line
        )
    if raw.startswith("exec:"):
        return [_not_run(entry, "an `exec:` prompt runs a program")]
    if not maybe_file_path(raw):
        return [_string_prompt(entry)]
    reference = raw[len(FILE_PREFIX) :] if raw.startswith(FILE_PREFIX) else raw
    path_part, function = _function_suffix(reference)
    if GLOB_MAGIC.search(path_part):
        return _globbed(source, entry, path_part) or [_string_prompt(entry)]
    path = source.resolve(path_part)
    extension = posixpath.splitext(path_part)[1]
    if extension in CODE_EXTENSIONS or function is not None:
        return [_not_run(entry, f"a prompt function ({path_part}) is JavaScript or Python code")]
    if extension in EXECUTABLE_EXTENSIONS:
        return [_not_run(entry, f"an executable prompt ({path_part}) runs a program")]
    if path is None or not source.bundle.exists(path):
        # promptfoo finds no file, so no processor, and stops: "There are no prompts in ...".
        return []
    return _file_prompts(source, entry, path, extension)


def _function_suffix(reference: str) -> tuple[str, str | None]:
    """parsePathOrGlob: `file.py:name` names a function."""
    head, colon, name = reference.rpartition(":")
    if colon and len(head) > 1 and head.endswith(CODE_EXTENSIONS + (".go", ".rb")):
        return head, name
    return reference, None


def _globbed(source: Source, entry: dict[str, Any], pattern: str) -> list[Prompt]:
    full = source.resolve(pattern)
    prompts: list[Prompt] = []
    for path in source.glob(full, entry["node"].start_line) if full is not None else []:
        # A globbed file's label is its own path (the pattern's label is not passed on).
        prompts.extend(
            _file_prompts(source, {"raw": path, "node": entry["node"]}, path, posixpath.splitext(path)[1])
        )
    return prompts


def _string_prompt(entry: dict[str, Any]) -> Prompt:
    """processString."""
    raw, node = entry["raw"], entry["node"]
    label = entry.get("label")
    prompt = Prompt(
        raw,
        raw if label is None else _js_string(label),
        _text_node(raw, node),
        entry.get("id"),
        entry.get("config"),
    )
    for service in SERVICES:
        if raw.startswith(service):
            prompt.unsupported = f"a prompt from {service[:-3].capitalize()} is fetched at run time"
    return prompt


def _not_run(entry: dict[str, Any], why: str) -> Prompt:
    raw, node = entry["raw"], entry["node"]
    label = entry.get("label")
    return Prompt(
        raw,
        raw if label is None else _js_string(label),
        _text_node(raw, node),
        entry.get("id"),
        entry.get("config"),
        unsupported=why,
    )


def _text_node(raw: str, node: Node) -> Node:
    return Node(raw, node.start_line, node.end_line, node.text_line)


def _js_string(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _file_prompts(source: Source, entry: dict[str, Any], path: str, extension: str) -> list[Prompt]:
    text = source.read_text(path) or ""
    via = LineSpan(source.path, entry["node"].start_line, entry["node"].end_line)
    label = entry.get("label")
    config = entry.get("config")
    if extension == ".txt":
        return _text_file(path, text, label, via)
    if extension in (".j2", ".md"):
        shown = label or f"{path}: {text[:50]}..."
        return [
            Prompt(text, shown, _file_node(text, path, 1, via), None, config if extension == ".j2" else None)
        ]
    if extension == ".jsonl":
        return _jsonl_file(path, text, label, config, via)
    if extension in (".json", ".yaml", ".yml"):
        return [_structured_file(source, path, text, label, config, via)]
    return []


def _file_node(text: str, path: str, first_line: int, via: LineSpan) -> Node:
    last = first_line + text.count("\n")
    return Node(
        text,
        first_line,
        last,
        first_line,
        pieces=[Piece(text, OriginKind.FILE, path, first_line, last, via=via)],
    )


def _text_file(path: str, text: str, label: str | None, via: LineSpan) -> list[Prompt]:
    """processTxtFile: sections between lines that are only `---`, each trimmed."""
    prompts: list[Prompt] = []
    buffer: list[str] = []
    start = 1
    lines = re.split(r"\r?\n", text)
    for number, line in enumerate([*lines, None], start=1):
        if line is not None and line.strip() != DELIMITER:
            buffer.append(line)
            continue
        joined = "\n".join(buffer)
        raw = joined.strip()
        if raw:
            leading = joined[: len(joined) - len(joined.lstrip())].count("\n")
            shown = f"{label}: {path}: {raw}" if label else f"{path}: {raw}"
            prompts.append(Prompt(raw, shown, _file_node(raw, path, start + leading, via)))
        buffer = []
        start = number + 1
    return prompts


def _jsonl_file(
    path: str, text: str, label: str | None, config: dict[str, Any] | None, via: LineSpan
) -> list[Prompt]:
    lines = [line for line in re.split(r"\r?\n", text) if line]
    trees = jsonl_trees(text)
    several = len(lines) > 1
    prompts = []
    for line, tree in zip(lines, trees, strict=False):
        shown = (f"{label}: {line}" if label else f"{path}: {line}") if several else (label or path)
        prompts.append(
            Prompt(
                line,
                shown,
                _file_node(line, path, tree.start_line, via),
                None,
                config,
                tree=_with_file_pieces(tree, path, via),
            )
        )
    return prompts


def _structured_file(
    source: Source, path: str, text: str, label: str | None, config: dict[str, Any] | None, via: LineSpan
) -> Prompt:
    """processJsonFile / processYamlFile: the parsed document, as compact JSON."""
    try:
        tree = source.tree(path, text)
    except (InputError, ValueError):
        tree = None
    if tree is None or (path.endswith(".json") and not _is_json(text)):
        # Not parsed: promptfoo keeps the file's text as the prompt.
        shown = label or f"{path}: {text}"
        return Prompt(text, shown, _file_node(text, path, 1, via), None, config)
    raw = json.dumps(tree.plain(), ensure_ascii=False, separators=(",", ":"))
    shown = label or (f"{path}: {raw}" if path.endswith(".json") else f"{path}: {raw[:80]}")
    return Prompt(
        raw, shown, _file_node(raw, path, 1, via), None, config, tree=_with_file_pieces(tree, path, via)
    )


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _with_file_pieces(tree: Node, path: str, via: LineSpan) -> Node:
    """Each string of a prompt file's document pointing at its own lines in that file."""
    return tree.map_strings(
        lambda node: Node(
            node.value,
            node.start_line,
            node.end_line,
            node.text_line,
            pieces=[Piece(node.value, OriginKind.FILE, path, node.text_line, node.end_line, via=via)],
        )
    )


def inline_tree(prompt: Prompt) -> Node | None:
    """A prompt written in the config whose text is JSON: its value, on the prompt's lines."""
    if prompt.tree is not None:
        return prompt.tree
    try:
        value = json.loads(prompt.raw)
    except ValueError:
        return None
    return from_plain(value, prompt.node.text_line)
