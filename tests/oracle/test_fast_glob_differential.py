"""agentv's globs: the inspector's (inspector/core/fast_glob.py) against fast-glob itself.

agentv reads `file://` globs in `tests` and `scenarios` and glob shorthands in `tests` with
fast-glob (`fg(absolutePattern, { onlyFiles: true, absolute: true })`, sorted), at the version
agentv's bun.lock pins (fast-glob 3.3.3, micromatch 4.0.8, picomatch 2.3.1), which
tests/oracle/package-lock.json pins too. hypothesis writes patterns from what authors write —
names, `*`, `?`, `**`, braces, character classes (`[ab]`, `[a-c]`, `[!a]`, `[^a]`) and extglobs
(`@(…)`, `?(…)`, `*(…)`, `+(…)`, `!(…)`) — over a tree with dotfiles, a dot folder and names
that look like globs (`[ab].yaml`), and for each the inspector must list the files fast-glob
lists, in its order, or refuse the pattern as not read (a few forms picomatch turns into
something else again; they must stay few).

`FAST_GLOB_EXAMPLES=2000` runs a long search.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from inspector.core.bundle import DirectoryBundle, fast_glob_paths
from inspector.core.fast_glob import GlobNotRead

from .agentv import ORACLE_DIR

FAST_GLOB = ORACLE_DIR / "node_modules" / "fast-glob" / "package.json"
TREE = [
    "a.yaml",
    "b.yaml",
    "ab.yaml",
    "aa.yaml",
    "abc.yml",
    "c1.json",
    "ba.json",
    "A.yaml",
    "b",
    ".dot.yaml",
    "[ab].yaml",
    "a+b.yaml",
    "a-b.yaml",
    "a@b.yaml",
    "sub/a.yaml",
    "sub/b.json",
    "sub/deep/ab.yaml",
    "other/c1.json",
    ".hid/a.yaml",
    "x/.dot.json",
]
NAMES = st.sampled_from(["a", "b", "ab", "c", "c1", "x", "sub", "A", "-", "+", "@", "!", ".", "_"])
CLASSES = st.sampled_from(["[ab]", "[a-c]", "[!a]", "[^b]", "[a-]", "[0-9]", "[.a]", "[A-Z]", "[!.]"])
EXTGLOBS = st.sampled_from(
    ["@(a|b)", "!(a)", "!(a|ab)", "+(a|b)", "*(a|b)", "?(a|b)", "@(a*|b?)", "!(*.json)", "+(a)"]
)
ATOMS = st.one_of(NAMES, NAMES, st.sampled_from(["*", "?"]), CLASSES, EXTGLOBS)
EXTENSIONS = st.sampled_from(["", ".yaml", ".json", ".yml", ".*", ".y?ml", ".{yaml,json}", ".[jy]*"])
FOLDERS = st.sampled_from(["", "", "sub/", "**/", "*/", "s[u]b/", "@(sub|other)/", ".hid/", "!(x)/", "?ub/"])


@st.composite
def patterns(draw: st.DrawFn) -> str:
    # `**` inside a name is refused as not read (fast_glob.py): a run of stars is one star here
    name = re.sub(r"\*+", "*", "".join(draw(st.lists(ATOMS, min_size=1, max_size=3))))
    if draw(st.integers(0, 5)) == 0:
        name = "{" + name + "," + "".join(draw(st.lists(ATOMS, min_size=1, max_size=2))) + "}"
    return draw(FOLDERS) + name + draw(EXTENSIONS)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("globs")
    for name in TREE:
        (root / "evals" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "evals" / name).write_text("[]\n")
    return root


@pytest.fixture(scope="module")
def fast_glob(tree: Path):
    if shutil.which("node") is None or not FAST_GLOB.exists():
        reason = "fast-glob is not installed in tests/oracle (.ci/setup --test installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the fast-glob oracle must run in CI: {reason}")
        pytest.skip(reason)
    process = subprocess.Popen(
        ["node", str(ORACLE_DIR / "fast_glob.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ORACLE_DIR,
    )

    def listed(pattern: str) -> list[str]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"root": str(tree), "pattern": "evals/" + pattern}) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())["matches"]

    yield listed
    process.kill()
    process.wait()


def test_the_oracle_is_agentvs_pinned_fast_glob():
    lock = json.loads((ORACLE_DIR / "package-lock.json").read_text())["packages"]
    assert lock["node_modules/fast-glob"]["version"] == "3.3.3"
    assert lock["node_modules/micromatch"]["version"] == "4.0.8"
    assert lock["node_modules/micromatch/node_modules/picomatch"]["version"] == "2.3.1"


def _inspector(tree: Path, pattern: str) -> list[str] | None:
    try:
        return fast_glob_paths(DirectoryBundle(tree), "evals/" + pattern)
    except GlobNotRead:
        return None


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("[ab].yaml", ["evals/[ab].yaml", "evals/a.yaml", "evals/b.yaml"]),  # the class, and its own text
        ("[!a]*.yaml", ["evals/.dot.yaml", "evals/A.yaml", "evals/[ab].yaml", "evals/b.yaml"]),
        ("!(a).yaml", ["evals/.dot.yaml", "evals/A.yaml", "evals/[ab].yaml", "evals/b.yaml"]),
        ("@(a|b).yaml", ["evals/a.yaml", "evals/b.yaml"]),
        ("+(a).yaml", ["evals/a.yaml", "evals/aa.yaml"]),
        ("a+b.yaml", ["evals/a+b.yaml"]),
    ],
)
def test_readable_examples(tree, fast_glob, pattern, expected):
    assert fast_glob(pattern) == expected
    assert _inspector(tree, pattern) == expected


EXAMPLES = int(os.environ.get("FAST_GLOB_EXAMPLES", "300"))
_refused: list[str] = []
_compared: list[str] = []


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    phases=[Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pattern=patterns())
def test_the_inspector_lists_what_fast_glob_lists(tree, fast_glob, pattern):
    mine = _inspector(tree, pattern)
    if mine is None:
        _refused.append(pattern)
        return
    _compared.append(pattern)
    assert mine == fast_glob(pattern), pattern


def test_few_patterns_are_refused():
    # runs after the search above (pytest keeps the file's order)
    assert _compared, "the search ran"
    assert len(_refused) <= len(_compared) // 10, _refused[:20]
