"""agentv 5's `tests` naming a folder: one case per sub-folder's `case.yaml`.

Follows `loadCasesFromDirectory` (the same in agentv 4.42.4) in `packages/core/src/evaluation/loaders/case-file-loader.ts` at
v5.3.1-next.1 (agentv's examples/showcase/directory-discovery): the folder's immediate
sub-folders in name order, each read from its `case.yaml` (else `case.yml`), named by the
sub-folder unless the file gives an `id`, with the sub-folder's `workspace/` as its workspace
template; a sub-folder without a case file is skipped with agentv's warning.
"""

from __future__ import annotations

from typing import Protocol

from ..bundle import Bundle
from ..js import js_truthy
from ..model import Diagnostic, InputError
from ..yaml_lines import Node


class _Loader(Protocol):
    """What of v4's loader this reads with (v4 reads folders through this module)."""

    bundle: Bundle
    path: str
    warnings: list[Diagnostic]

    def read(self, path: str) -> str | None: ...

    def yaml(self, path: str, text: str) -> Node | None: ...


def is_folder(bundle: Bundle, path: str) -> bool:
    """A bundle holds files only: a folder is a path some file lies under."""
    prefix = path.rstrip("/") + "/"
    return bundle.read(path) is None and any(name.startswith(prefix) for name in bundle.paths())


def folder_cases(
    loader: _Loader, folder: str, reference: Node, template_refused: bool = True
) -> list[tuple[Node, str]]:
    """Each sub-folder's case, with the case file it is written in. agentv 4.42.4 reads folders
    the same way; agentv 5 refuses the `workspace.template` a `workspace/` sub-folder sets."""
    prefix = folder.rstrip("/") + "/"
    names = sorted(
        {name[len(prefix) :].split("/", 1)[0] for name in loader.bundle.paths() if _nested(name, prefix)}
    )
    cases: list[tuple[Node, str]] = []
    for name in names:
        sub_folder = prefix + name
        case_path = next(
            (
                candidate
                for candidate in (f"{sub_folder}/case.yaml", f"{sub_folder}/case.yml")
                if loader.bundle.read(candidate) is not None
            ),
            None,
        )
        if case_path is None:
            loader.warnings.append(
                Diagnostic(
                    f"Skipping directory '{name}' — no case.yaml found", loader.path, reference.start_line
                )
            )
            continue
        cases.append((_case(loader, case_path, name, sub_folder, template_refused), case_path))
    return cases


def _nested(name: str, prefix: str) -> bool:
    """A file inside a sub-folder of the folder (not a file directly in it)."""
    return name.startswith(prefix) and "/" in name[len(prefix) :]


def _case(loader: _Loader, case_path: str, name: str, sub_folder: str, template_refused: bool) -> Node:
    text = loader.read(case_path) or ""
    node = loader.yaml(case_path, text)  # `{{ env.NAME }}` is rendered by the caller, as for cases files
    if node is None or not isinstance(node.value, dict):
        raise InputError(
            f"Case file must contain a YAML object, got {_js_typeof(node)}: {case_path}",
            case_path,
            node.start_line if node is not None else 1,
        )
    fields = dict(node.value)
    own_id = fields.get("id")
    if own_id is None or own_id.value is None:
        fields["id"] = Node(name, node.start_line, node.start_line, node.start_line)
    own_workspace = fields.get("workspace")
    workspace = f"{sub_folder}/workspace/"
    if (
        template_refused
        and not (own_workspace is not None and js_truthy(own_workspace.value))
        and any(path.startswith(workspace) for path in loader.bundle.paths())
    ):
        # agentv sets `workspace.template` to the folder, then refuses the key it set
        # (yaml-parser.ts parseWorkspaceConfig at v5.3.1-next.1): the whole file fails.
        raise InputError(
            "workspace.template has been removed from public eval YAML. Use environment.workdir "
            "and environment.setup for authored testbed setup.",
            case_path,
            node.start_line,
        )
    return Node(fields, node.start_line, node.end_line, node.text_line)


def _js_typeof(node: Node | None) -> str:
    """JavaScript's typeof for what the YAML held (an empty file holds null)."""
    value = node.value if node is not None else None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"
