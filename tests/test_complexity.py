"""The exporters stay small enough to read: no function above radon's grade C (complexity 20).

Issue 11 split the exporters into one turn assembly with a handler per role; each role's common
shape has a fast path of its own (`_plain_*`), tried before the general handler.
"""

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

EXPORT = Path(__file__).resolve().parents[1] / "inspector" / "core" / "export"
GRADE_C = 20


@pytest.mark.parametrize("path", sorted(EXPORT.glob("*.py")), ids=lambda path: path.name)
def test_no_exporter_function_is_above_grade_c(path):
    too_complex = [f"{block.fullname} (line {block.lineno}): {block.complexity}"
                   for block in cc_visit(path.read_text())
                   if isinstance(block, Function) and block.complexity > GRADE_C]
    assert not too_complex, f"{path.name}: split these by role or block kind: {too_complex}"
