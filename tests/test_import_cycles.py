"""No two modules of inspector/ import each other, directly or through others: every import counts,
at the top of a module or inside a function (a function-level import only hides a cycle until the
function runs), relative ones resolved against their package."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "inspector"


def module_name(path: Path, root: Path = PACKAGE.parent) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(path: Path, name: str) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules among `modules` that module `name`, read from `path`, imports: `from a import b`
    names the module a.b when there is one, else a (b is then something a defines)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = package_of(path, name).split(".")
                anchor = ".".join(package[: len(package) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {module for module in found if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    paths = [path for path in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in path.parts]
    modules = {module_name(path) for path in paths}
    return {module_name(path): imported_modules(path, module_name(path), modules) for path in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more modules (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in on_stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_two_modules_of_the_package_import_each_other():
    found = cycles(import_graph())
    assert found == [], "modules that import each other:\n" + "\n".join(
        " <-> ".join(component) for component in found
    )


def test_a_cycle_is_found_and_named(tmp_path):
    """The check itself: a cycle through a function-level, relative import is seen."""
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}
    assert cycles(graph) == [["p.a", "p.b", "p.c"]]
    package = tmp_path / "p"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from . import b\n")
    (package / "b.py").write_text("from p.a import f\nimport os\n")
    modules = {module_name(path, tmp_path) for path in package.glob("*.py")}
    assert modules == {"p", "p.a", "p.b"}
    assert imported_modules(package / "a.py", "p.a", modules) == {"p.b"}
    assert imported_modules(package / "b.py", "p.b", modules) == {"p.a"}
    assert cycles(
        {name: imported_modules(package / f"{name[2:] or '__init__'}.py", name, modules) for name in modules}
    ) == [["p.a", "p.b"]]
