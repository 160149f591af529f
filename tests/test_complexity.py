"""The exporters stay small enough to read: no function above radon's grade C (complexity 20).

Issue 11 split the exporters into one turn assembly with a handler per role. The two hot loops
below grew back past grade C when their common message shapes were inlined for speed: splitting
them again by role costs 10-13% of the export's instructions (callgrind, 100 messages), more than
the issue's 10% allowance. They stay listed here, at their current complexity, until that is
solved; any other function, or either of them growing further, fails.
"""

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

EXPORT = Path(__file__).resolve().parents[1] / "inspector" / "core" / "export"
GRADE_C = 20
OPEN_IN_ISSUE_11 = {("anthropic.py", "_convert"): 45, ("gemini.py", "_convert"): 47}


@pytest.mark.parametrize("path", sorted(EXPORT.glob("*.py")), ids=lambda path: path.name)
def test_no_exporter_function_is_above_grade_c(path):
    too_complex = [f"{block.fullname} (line {block.lineno}): {block.complexity}"
                   for block in cc_visit(path.read_text()) if isinstance(block, Function)
                   and block.complexity > OPEN_IN_ISSUE_11.get((path.name, block.fullname), GRADE_C)]
    assert not too_complex, f"{path.name}: split these by role or block kind"


def test_the_exporters_still_listed_as_too_complex_are():
    still = {(name, block.fullname): block.complexity for name, _ in OPEN_IN_ISSUE_11
             for block in cc_visit((EXPORT / name).read_text())
             if isinstance(block, Function) and (name, block.fullname) in OPEN_IN_ISSUE_11}
    assert {key for key, complexity in still.items() if complexity > GRADE_C} == set(OPEN_IN_ISSUE_11), \
        "a listed function is back within grade C: take it off OPEN_IN_ISSUE_11"
