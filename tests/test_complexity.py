"""Every function and method of the `inspector` package stays small enough to read: radon's
cyclomatic complexity at most 15. One test per package directory, so a failure names where."""

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

PACKAGE = Path(__file__).resolve().parents[1] / "inspector"
BOUND = 15
DIRECTORIES = sorted({path.parent for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts})


def blocks(found):
    """Functions and methods (cc_visit lists a class's methods beside it) and their closures."""
    for block in found:
        if isinstance(block, Function):
            yield block
            yield from blocks(block.closures)


@pytest.mark.parametrize(
    "directory", DIRECTORIES, ids=lambda directory: str(directory.relative_to(PACKAGE.parent))
)
def test_no_function_is_above_the_bound(directory):
    too_complex = [
        f"{path.name}: {block.fullname} (line {block.lineno}): {block.complexity}"
        for path in sorted(directory.glob("*.py"))
        for block in blocks(cc_visit(path.read_text()))
        if block.complexity > BOUND
    ]
    assert not too_complex, f"split these: {too_complex}"
