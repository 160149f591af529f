"""The core's agentv and deck readers, the agentv profiles and the core's top-level modules stay
small enough to read: no function, method or closure above radon complexity 15 (issue 33).

yamlfast.py and yamltree.py (being replaced), bounded.py, collector.py, formats.py, export/ and
conversations/ are held to the bound by their own work, not here."""

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class, Function

CORE = Path(__file__).resolve().parents[2] / "inspector" / "core"
LIMIT = 15
ELSEWHERE = {"agentv/yamlfast.py", "agentv/yamltree.py", "bounded.py", "collector.py", "formats.py"}
FILES = sorted(path for pattern in ("*.py", "agentv/*.py", "agentv/profiles/*.py", "decks/*.py")
               for path in CORE.glob(pattern)
               if path.relative_to(CORE).as_posix() not in ELSEWHERE)


def _functions(blocks: Iterable[Function | Class]) -> Iterator[Function]:
    for block in blocks:
        if isinstance(block, Class):
            yield from _functions([*block.methods, *block.inner_classes])
        else:
            yield block
            yield from _functions(block.closures)


def test_the_files_are_found():
    assert len(FILES) > 40


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(CORE).as_posix())
def test_no_function_is_above_complexity_15(path):
    # radon lists a method both on its own and in its class: each is named once.
    too_complex = sorted({f"{block.fullname} (line {block.lineno}): {block.complexity}"
                          for block in _functions(cc_visit(path.read_text(encoding="utf-8")))
                          if block.complexity > LIMIT})
    assert not too_complex, f"{path.name}: split these along their seams: {too_complex}"
