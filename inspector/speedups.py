"""Compiled copies of the hottest core modules (mypyc), used only while they match their source.

The provider exporters' per-message handlers and the OpenAI Chat reader run once per message of
every request converted; compiled by mypyc (which ships with mypy) they run faster. It is opt-in:
the source stays the program, and `.ci/setup --speedups` builds the copies into build/speedups/
when it can (a C compiler and Python's headers); CI runs the suite as plain Python and checks the
compiled build once (tests/test_speedups.py). An import finder serves them only when every
compiled module's source is byte for byte the one they were built from, so an edited module is
never shadowed by a stale build; otherwise everything runs as plain Python. `INSPECTOR_SPEEDUPS=0` turns them off.

    .venv/bin/python -c "import inspector.speedups as s; s.main()"   # build, or say it is current
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "build" / "speedups"
MODULES = (
    "inspector.core.conversations.openai_chat",
    "inspector.core.export.anthropic",
    "inspector.core.export.common",  # the base of their per-export state, compiled with them
    "inspector.core.export.gemini",
)
# mypyc puts the code of every module of a build in one shared library of this name, which each
# module's small extension imports as a top-level module.
GROUP = "inspector_speedups"
SHARED = f"{GROUP}__mypyc"

_active: list[str] = []


def source_file(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def build_tag() -> str:
    """What a build is only good for: this interpreter's ABI on this platform."""
    return f"{sys.implementation.cache_tag}-{sysconfig.get_platform()}"


def fingerprint(modules: tuple[str, ...] = MODULES) -> dict[str, str]:
    return {module: hashlib.sha256(source_file(module).read_bytes()).hexdigest() for module in modules}


def compiled_files(manifest: dict, folder: Path = FOLDER) -> dict[str, Path] | None:
    """The extension file of each compiled module and of the shared library, when `manifest`
    was built for this interpreter from today's sources; None when anything differs (one stale
    module makes the whole build stale: they share one library)."""
    if manifest.get("tag") != build_tag() or manifest.get("sources") != fingerprint():
        return None
    files = {name: folder / relative for name, relative in manifest.get("files", {}).items()}
    if set(files) != {*MODULES, SHARED} or not all(path.is_file() for path in files.values()):
        return None
    return files


class _CompiledFinder(importlib.abc.MetaPathFinder):
    def __init__(self, files: dict[str, Path]):
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: object = None,  # noqa: ARG002 - the finder protocol
        target: ModuleType | None = None,  # noqa: ARG002
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def current_files() -> dict[str, Path] | None:
    """compiled_files of the build in FOLDER; None when there is none, or a broken manifest."""
    try:
        manifest = json.loads((FOLDER / "manifest.json").read_text(encoding="utf-8"))
        return compiled_files(manifest)
    except (OSError, ValueError, AttributeError):
        return None


def install() -> None:
    """Serve the compiled modules on import when the build matches (see the module's doc)."""
    if _active or os.environ.get("INSPECTOR_SPEEDUPS", "1").lower() in ("0", "off", "false", "no"):
        return
    files = current_files()
    if files is None:
        return
    sys.meta_path.insert(0, _CompiledFinder(files))
    _active.extend(MODULES)


def active() -> bool:
    """Whether the compiled modules are what `import` gives (benchmarks print it)."""
    return bool(_active) and all(
        not (sys.modules[module].__file__ or "").endswith(".py")
        for module in MODULES
        if module in sys.modules
    )


def build(folder: Path = FOLDER) -> None:
    """Compile MODULES into `folder` and write its manifest last, so that a failed build leaves
    none behind."""
    import shutil
    import tempfile

    from mypyc.build import mypycify  # mypy's; imported only to build
    from setuptools import Distribution  # type: ignore[import-untyped, unused-ignore]

    manifest_file = folder / "manifest.json"
    # A fresh folder, not files overwritten in place: a running server has the old libraries
    # mapped, and rewriting one under it would crash it (removed, they live on until it exits).
    shutil.rmtree(folder, ignore_errors=True)
    sources = fingerprint()
    with tempfile.TemporaryDirectory(prefix="speedups-") as scratch:
        cwd = Path.cwd()
        os.chdir(ROOT)  # mypyc names each module by its path from here
        try:
            # Its own empty settings: the project's [tool.mypy] loads the Django plugin.
            config = Path(scratch) / "mypy.ini"
            config.write_text("[mypy]\n", encoding="utf-8")
            extensions = mypycify(
                [
                    "--config-file",
                    str(config),
                    *(str(source_file(module).relative_to(ROOT)) for module in MODULES),
                ],
                group_name=GROUP,
                target_dir=str(Path(scratch) / "c"),
            )
            distribution = Distribution(
                {
                    "name": GROUP,
                    "ext_modules": extensions,
                    "script_args": [
                        "--quiet",
                        "build_ext",
                        "--build-lib",
                        str(folder),
                        "--build-temp",
                        scratch,
                    ],
                }
            )
            distribution.parse_command_line()
            distribution.run_commands()
        finally:
            os.chdir(cwd)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    files = {module: str(Path(*module.split("."))) + suffix for module in MODULES}
    files[SHARED] = SHARED + suffix
    missing = [name for name, relative in files.items() if not (folder / relative).is_file()]
    if missing:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"the build made no extension for {', '.join(missing)}")
    manifest_file.write_text(
        json.dumps({"tag": build_tag(), "sources": sources, "files": files}, indent=1), encoding="utf-8"
    )


def main() -> int:
    """Build unless the build is current; the exit status says whether the copies are usable."""
    if current_files() is not None:
        print("speedups: up to date")
        return 0
    try:
        build()
    except Exception as error:  # noqa: BLE001 - any failure means plain Python, which works
        print(
            f"speedups: not built ({type(error).__name__}: {error}); the core runs as plain Python",
            file=sys.stderr,
        )
        return 1
    print(f"speedups: built {len(MODULES)} modules into {FOLDER.relative_to(ROOT)}")
    return 0
