"""agentv 5's templates: the inspector's jinja2 rendering against nunjucks itself.

agentv 5 renders `prompts` and test fields with nunjucks 3.2 (interpolation.ts: autoescape off,
undefined prints nothing, a `load` filter). nunjucks is on the npm registry, pinned in
package-lock.json, so the template engine is checked against the real one: hypothesis writes
templates from the constructs the inspector treats as faithful, with values of every JSON type, and
each must print exactly what nunjucks prints (or both must refuse it). A construct the inspector
warns about is exempt: the warning is the promise there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.agentv.nunjucks import WHOLE_SIMPLE, Renderer
from inspector.core.model import InputError
from inspector.core.safe_parse import LimitExceeded
from inspector.core.yaml_lines import Node, from_plain

from .agentv import ORACLE_DIR

NUNJUCKS = ORACLE_DIR / "node_modules" / "nunjucks" / "package.json"


@pytest.fixture(scope="module")
def nunjucks():
    if shutil.which("node") is None or not NUNJUCKS.exists():
        reason = "nunjucks is not installed in tests/oracle (.ci/setup --test installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the nunjucks oracle must run in CI: {reason}")
        pytest.skip(reason)
    process = subprocess.Popen(
        ["node", str(ORACLE_DIR / "nunjucks_render.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ORACLE_DIR,
    )

    def render(template: str, context: dict[str, Any]) -> dict[str, str]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"template": template, "context": context}) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield render
    process.kill()
    process.wait()


VARS = {
    "s": "Hello, World",
    "t": "  padded  ",
    "i": 3,
    "z": 0,
    "neg": -2,
    "f": 2.5,
    "whole": 2.0,
    "big": 1e21,
    "b": True,
    "no": False,
    "n": None,
    "l": [1, "two", 3.0],
    "ls": ["a", "b"],
    "o": {"k": "v", "num": 7, "items": "key named items"},
    "e": [],
    "eo": {},
    "nested": {"inner": {"deep": "found"}},
    "js": '{"a": [1, 2]}',
    "empty": "",
}
NAMES = sorted(VARS) + ["missing"]
TEXT = st.text(alphabet="ab xy\n.,:-()!", max_size=8)


def lookups() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(NAMES),
        st.sampled_from(
            [
                "o.k",
                "o.num",
                "o.items",
                "o.missing",
                "nested.inner.deep",
                "nested.missing.deep",
                "s.length",
                "l.length",
                "ls.length",
                "e.length",
                "vars.s",
                "vars.o.k",
                "l[0]",
                "l[1]",
                "l[5]",
                "l[-1]",
                'o["k"]',
                'o["missing"]',
                "missing.deeper",
            ]
        ),
    )


FILTERS = [
    "upper",
    "lower",
    "capitalize",
    "trim",
    "length",
    "first",
    "last",
    'join(",")',
    "join",
    'default("d")',
    'default("d", true)',
    'replace("l", "L")',
    "abs",
    "string",
    "dump",
    "safe",
]


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    base = draw(st.one_of(lookups(), st.sampled_from(['"lit"', "1", "1.5", "true", "false"])))
    for name in draw(st.lists(st.sampled_from(FILTERS), max_size=2)):
        base = f"{base} | {name}"
    if depth == 0 and draw(st.integers(0, 4)) == 0:
        base = f"{base} ~ {draw(expressions(depth=1))}"
    return base


@st.composite
def templates(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["text", "output", "output", "if", "for", "set", "ws"] if depth < 2 else ["text", "output"]
            )
        )
        if kind == "text":
            parts.append(draw(TEXT))
        elif kind == "output":
            parts.append("{{ " + draw(expressions()) + " }}")
        elif kind == "ws":
            parts.append("{{- " + draw(lookups()) + " -}}")
        elif kind == "if":
            condition = draw(
                st.one_of(
                    lookups(),
                    st.sampled_from(
                        [
                            "not b",
                            "i > 1",
                            's == "Hello, World"',
                            "b and i",
                            "n or s",
                            "missing is defined",
                            "missing is undefined",
                            "e",
                            "eo",
                            "z",
                            "empty",
                        ]
                    ),
                )
            )
            body = draw(templates(depth=depth + 1))
            other = draw(st.one_of(st.just(""), templates(depth=depth + 1)))
            parts.append(
                "{% if " + condition + " %}" + body + ("{% else %}" + other if other else "") + "{% endif %}"
            )
        elif kind == "for":
            source = draw(st.sampled_from(["l", "ls", "e", "missing"]))
            body = draw(
                st.sampled_from(
                    ["{{ x }}", "{{ loop.index }}:{{ x }},", "{{ x | upper }}{% if loop.last %}.{% endif %}"]
                )
            )
            parts.append("{% for x in " + source + " %}" + body + "{% endfor %}")
        else:
            parts.append("{% set v = " + draw(expressions()) + " %}{{ v }}")
    return "".join(parts)


def ours(template: str) -> tuple[str | None, bool]:
    """(text or None when refused, whether the inspector warned that nunjucks may differ)."""
    renderer = Renderer(from_plain(VARS, 1), {})
    try:
        node = renderer.node(Node(template, 1, 1, 1), "t.yaml")
    except (InputError, LimitExceeded):
        return None, bool(renderer.warnings)
    return node.value, bool(renderer.warnings)


@settings(
    max_examples=int(os.environ.get("NUNJUCKS_EXAMPLES", "400")),
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(template=templates())
def test_templates_print_what_nunjucks_prints(nunjucks, template):
    if WHOLE_SIMPLE.match(template):
        return  # a whole `{{ name }}` takes the var's value; interpolation.ts, not nunjucks
    text, warned = ours(template)
    theirs = nunjucks(template, VARS)
    if warned:
        return
    if "error" in theirs:
        assert text is None, f"nunjucks refuses {template!r} ({theirs['error']}); we print {text!r}"
        return
    assert text == theirs["text"], f"{template!r}: nunjucks {theirs['text']!r}, ours {text!r}"
