"""agentv 5's templates (nunjucks in `interpolation.ts`), rendered with jinja2's sandbox.

nunjucks and jinja2 share their syntax but not JavaScript's values: agentv prints `true`, `1`,
`a,b` and `[object Object]` where Python would print `True`, `1.0`, `['a', 'b']` and a dict, and
JavaScript finds `[]` true and `x.length` on a string. The environment below makes jinja2 answer as
nunjucks does for the constructs eval authors write (output, attribute and index lookups, the
common filters, `if`, `for`, `set`); anything else still renders, with a warning that agentv may
print something else.

Each rendered string also returns its pieces: the template's own text points at the template's
lines and the text of a `{{ var }}` at the line the variable is defined on.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import ChainableUndefined, Template, TemplateSyntaxError, nodes
from jinja2.exceptions import TemplateError
from jinja2.sandbox import SandboxedEnvironment

from ..js import JS_WHITESPACE, JsList, JsObject, js_json, js_truthy, js_value
from ..js import js_string as js_text
from ..model import Diagnostic, InputError, LineSpan, OriginKind
from ..safe_parse import LimitExceeded
from ..yaml_lines import Node
from .pieces import Piece

# interpolation.ts WHOLE_SIMPLE_TEMPLATE_VAR_PATTERN: a field that is only `{{ a.b }}` takes the
# variable's own value, whatever its type.
WHOLE_SIMPLE = re.compile(r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}\s*$")
TEMPLATE_SYNTAX = ("{{", "{%", "{#")
MAX_OUTPUT = 5_000_000  # characters one template may produce

# Filters whose nunjucks and jinja2 versions agree on eval-file values (plus agentv's `load` and
# nunjucks' `dump`, defined below).
FAITHFUL_FILTERS = {
    "upper",
    "lower",
    "capitalize",
    "trim",
    "length",
    "first",
    "last",
    "join",
    "default",
    "d",
    "replace",
    "safe",
    "abs",
    "load",
    "dump",
    "string",
}
FAITHFUL_NODES = (
    nodes.Template,
    nodes.Output,
    nodes.TemplateData,
    nodes.Name,
    nodes.Getattr,
    nodes.Getitem,
    nodes.Const,
    nodes.If,
    nodes.CondExpr,
    nodes.Compare,
    nodes.Operand,
    nodes.And,
    nodes.Or,
    nodes.Not,
    nodes.For,
    nodes.Assign,
    nodes.Concat,
    nodes.Filter,
    nodes.Test,
    nodes.List,
    nodes.Tuple,
)
FAITHFUL_TESTS = {"defined", "undefined", "none"}


def js_string(value: Any) -> str:
    """String(value) as nunjucks prints it: undefined and null print nothing."""
    return "" if value is None or _undefined(value) else js_text(value)


class SafeString(str):
    """nunjucks' SafeString: an object, so true in a condition even when empty."""

    def __bool__(self) -> bool:
        return True


def _copy_safeness(source: Any, text: str) -> str:
    """runtime.js copySafeness: a filter given a SafeString returns one."""
    return SafeString(text) if isinstance(source, SafeString) else text


class JsError(Exception):
    """What nunjucks throws (a TypeError in JavaScript): agentv's load fails on it."""


def _undefined(value: Any) -> bool:
    return isinstance(value, ChainableUndefined)


def _normalize(value: Any, default: Any) -> Any:
    """nunjucks' filters.js normalize: null, undefined and false become the default."""
    return default if value is None or value is False or _undefined(value) else value


def _string_method(value: Any, method: str) -> str:
    if not isinstance(value, str):
        raise JsError(f"{_js_type(value)}.{method} is not a function")
    return value


def _js_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "num"
    if isinstance(value, list):
        return "arr"
    if isinstance(value, dict):
        return "obj"
    return "str"


def _upper(value: Any) -> str:
    return _string_method(_normalize(value, ""), "toUpperCase").upper()


def _lower(value: Any) -> str:
    return _string_method(_normalize(value, ""), "toLowerCase").lower()


def _capitalize(value: Any) -> str:
    value = _normalize(value, "")
    text = _string_method(value, "toLowerCase").lower()
    return _copy_safeness(value, text[:1].upper() + text[1:])


def _trim(value: Any) -> str:
    if value is None or _undefined(value):
        raise JsError("Cannot read properties of null (reading 'replace')")
    return _copy_safeness(value, _string_method(value, "replace").strip(JS_WHITESPACE))


def _length(value: Any) -> Any:
    value = _normalize(value, "")
    if isinstance(value, dict):
        return len(value)
    if isinstance(value, (str, list)):
        return len(value)
    return ENVIRONMENT.undefined(name="length")


def _index(value: Any, position: str) -> Any:
    if value is None or _undefined(value):
        raise JsError(f"Cannot read properties of {'null' if value is None else 'undefined'}")
    if isinstance(value, (str, list)) and len(value) and not isinstance(value, SafeString):
        return value[0] if position == "first" else value[-1]
    return ENVIRONMENT.undefined(name=position)


def _join(value: Any, separator: Any = None, attribute: Any = None) -> str:
    if not isinstance(value, list):
        raise JsError(f"{_js_type(value)}.join is not a function")
    if attribute:
        value = [item.get(attribute) if isinstance(item, dict) else None for item in value]
    glue = js_string(separator) if separator not in (None, "", 0, False) and not _undefined(separator) else ""
    return glue.join(js_string(item) for item in value)


def _js_truthy(value: Any) -> bool:
    return not _undefined(value) and js_truthy(value)


def _default(value: Any, fallback: Any = None, boolean: Any = False) -> Any:
    if _js_truthy(boolean):
        return value if _js_truthy(value) else fallback
    return fallback if _undefined(value) else value


def _replace(value: Any, old: Any, new: Any = None, limit: Any = None) -> Any:
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        old = js_string(old)
    elif not isinstance(old, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = js_string(value)
    if not isinstance(value, str):
        return value
    new_text = js_string(new) if new is not None else "undefined"
    if old == "":
        return _copy_safeness(value, new_text + new_text.join(value) + new_text)
    count = -1 if limit is None or _undefined(limit) else int(limit)
    if count == 0 or old not in value:
        return value
    return _copy_safeness(value, value.replace(old, new_text, count))


def _to_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip(JS_WHITESPACE)
        if not text:
            return 0.0
        try:
            return float(text) if not text.lower().startswith(("inf", "-inf", "+inf", "nan")) else math.nan
        except ValueError:
            return math.nan
    if isinstance(value, list):
        return _to_number(js_string(value)) if len(value) <= 1 else math.nan
    return math.nan


def _abs(value: Any) -> float:
    return abs(_to_number(value))


def _string(value: Any) -> str:
    if value is None or _undefined(value):
        raise JsError("Cannot read properties of null (reading 'toString')")
    return _copy_safeness(value, js_string(value))


def _safe(value: Any) -> str:
    return SafeString("" if value is None or _undefined(value) else js_string(value))


def _concat_operand(value: Any) -> str:
    """`~` joins as JavaScript's `+` does: undefined and null print their names."""
    if _undefined(value):
        return "undefined"
    if value is None:
        return "null"
    return js_string(value)


def _dump(value: Any, spaces: int | None = None) -> Any:
    if _undefined(value):
        return ENVIRONMENT.undefined(name="dump")
    if isinstance(value, SafeString):  # an object with its text and length as properties
        return js_json({"val": str(value), "length": len(value)}, indent=spaces)
    return js_json(value, indent=spaces)


def _loop_one(value: Any) -> Any:
    """`{% for x in value %}` as nunjucks loops: over an array's items or a string's characters;
    an object (looped only with two names), a number, a boolean or null loop over nothing."""
    return value if isinstance(value, (list, str, ChainableUndefined)) else JsList()


def _loop_pairs(value: Any) -> Any:
    """`{% for key, value in value %}`: an object's entries, a string's (index, character)."""
    if isinstance(value, dict):
        return JsList(JsList(pair) for pair in value.items())
    if isinstance(value, str):
        return JsList(JsList((str(index), char)) for index, char in enumerate(value))
    return value if isinstance(value, (list, ChainableUndefined)) else JsList()


NUNJUCKS_FILTERS = {
    "upper": _upper,
    "lower": _lower,
    "capitalize": _capitalize,
    "trim": _trim,
    "length": _length,
    "first": lambda value: _index(value, "first"),
    "last": lambda value: _index(value, "last"),
    "join": _join,
    "default": _default,
    "d": _default,
    "replace": _replace,
    "abs": _abs,
    "string": _string,
    "safe": _safe,
    "dump": _dump,
    "load": lambda value: js_value(json.loads(value)),
    "_concat_operand": _concat_operand,
    "_loop_one": _loop_one,
    "_loop_pairs": _loop_pairs,
}


class _Environment(SandboxedEnvironment):
    # `"a" * 10**9` or `9 ** 9 ** 9` would take the worker's memory or time before any output cap.
    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > 64:
            raise LimitExceeded("the template raises a number to a power above 64")
        if operator == "*":
            for text, count in ((left, right), (right, left)):
                if (
                    isinstance(text, (str, list))
                    and isinstance(count, int)
                    and len(text) * count > MAX_OUTPUT
                ):
                    raise LimitExceeded(f"the template builds text over {MAX_OUTPUT:,} characters")
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # nunjucks looks names up as JavaScript properties: keys of objects, `length` of strings
        # and arrays, nothing else (a dict's `items` is its key "items", not a method).
        if isinstance(obj, dict):
            return obj[attribute] if attribute in obj else self.undefined(obj=obj, name=attribute)
        if isinstance(obj, (str, list)) and attribute == "length":
            return len(obj)
        if isinstance(obj, ChainableUndefined):
            return obj
        if obj is None:
            raise JsError(f"Cannot read properties of null (reading '{attribute}')")
        if isinstance(obj, (str, list, int, float)):
            return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)  # jinja2's own objects, such as `loop`

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, dict):
            key = js_string(argument) if not isinstance(argument, str) else argument
            return obj[key] if key in obj else self.undefined(obj=obj, name=key)
        if isinstance(obj, (str, list)):
            if isinstance(argument, str) and argument == "length":
                return len(obj)
            if isinstance(argument, int) and not isinstance(argument, bool) and 0 <= argument < len(obj):
                return obj[argument]
        return self.undefined(obj=obj, name=str(argument))


def _environment(newline: str = "\n") -> _Environment:
    # optimized=False: jinja2 folds constant filter calls into the compiled code as Python
    # literals, and a JavaScript NaN (`"x" | abs`) has none.
    environment = _Environment(
        undefined=ChainableUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=js_string,
        optimized=False,
        newline_sequence=newline,
    )
    environment.filters.update(NUNJUCKS_FILTERS)
    return environment


ENVIRONMENT = _environment()
# jinja2 writes every line end of a template's text as its newline_sequence; nunjucks keeps them
# as written. A template whose lines all end in CRLF (a CSV cell, a CRLF file) keeps them here.
_CRLF_ENVIRONMENT = _environment("\r\n")


def _environment_for(source: str) -> _Environment:
    crlf = source.count("\r\n")
    return _CRLF_ENVIRONMENT if crlf and crlf == source.count("\n") == source.count("\r") else ENVIRONMENT


@dataclass(frozen=True, slots=True)
class Where:
    """Where a template or a variable is written: a file and the lines of its text."""

    path: str
    first_line: int
    last_line: int
    kind: OriginKind = OriginKind.CASE_TEXT  # FILE for a `file://` prompt's text
    via: LineSpan | None = None  # the line that pulled that file in

    def line_of(self, template_line: int | None) -> int:
        """The file line of the template's `template_line` (1-based). A block scalar's lines are
        the file's; a quoted one's are not (`"a\\nb"` is two lines of text on one of the file, and
        folding makes several of the file one of text), so no line is past the text's last."""
        line = self.first_line + (template_line or 1) - 1
        return line if line < self.last_line else self.last_line


# A filter jinja2 lacks: nunjucks may lack it too, or the file adds it in JavaScript.
UNKNOWN_FILTER_NOTE = (
    " (if the file adds it with `nunjucks_filters` (agentv) or `nunjucksFilters` (promptfoo), "
    "it is JavaScript, which the inspector does not run)"
)


class Renderer:
    """interpolateTemplateVars for one test's vars. `origins` maps a variable name to where it is
    defined, so the text it produces can point there."""

    def __init__(self, variables: Node, origins: dict[str, Where]):
        self.variables = variables
        self.origins = origins
        self.context = js_value(variables.plain())
        self.context = {**self.context, "vars": JsObject(self.context)}
        self.warnings: list[Diagnostic] = []
        self._warned: set[tuple[str, int, str]] = set()

    def node(self, node: Node | None, where_path: str) -> Node | None:
        """Every string in `node` rendered; a whole `{{ name }}` becomes the variable's node."""
        if node is None:
            return None
        value = node.value
        if isinstance(value, str):
            whole = WHOLE_SIMPLE.match(value)
            if whole:
                found = self._lookup(whole.group(1))
                if found is not None:
                    return found
            return self._text(node, where_path)
        if isinstance(value, list):
            return Node(
                [self.node(item, where_path) for item in value],
                node.start_line,
                node.end_line,
                node.text_line,
                pieces=node.pieces,
            )
        if isinstance(value, dict):
            return Node(
                {key: self.node(item, where_path) for key, item in value.items()},
                node.start_line,
                node.end_line,
                node.text_line,
                pieces=node.pieces,
            )
        return node

    def text(self, node: Node, path: str) -> Node:
        """One string rendered as text, never replaced by a variable's own value (promptfoo's
        renderString)."""
        return self._text(node, path)

    def _lookup(self, expression: str) -> Node | None:
        parts = expression.split(".")
        if parts[0] == "vars" and len(parts) > 1:
            parts = parts[1:]
        current: Node | None = self.variables
        for part in parts:
            if current is None or not isinstance(current.value, dict):
                return None
            current = current.value.get(part)
        return current

    def _text(self, node: Node, path: str) -> Node:
        source = node.value
        template_pieces = node.pieces or [
            Piece(source, OriginKind.CASE_TEXT, path, node.text_line, node.end_line)
        ]
        if not any(mark in source for mark in TEMPLATE_SYNTAX):
            return Node(source, node.start_line, node.end_line, node.text_line, pieces=template_pieces)
        # The text's own lines: from its single piece when it has one, else where it is written.
        # Text made of pieces from several files (a prompt filled with a var that holds `{{ }}`)
        # points at its first piece's file and lines: the node's lines may be another file's.
        first = template_pieces[0]
        where = (
            Where(
                first.path or path,
                first.first_line or 1,
                first.last_line or node.end_line,
                first.kind,
                first.via,
            )
            if len(template_pieces) == 1
            else Where(path, node.text_line, node.end_line)
            if first.path is None or first.first_line is None
            else Where(
                first.path,
                first.first_line,
                first.last_line or first.first_line + first.text.count("\n"),
                first.kind,
                first.via,
            )
        )
        try:
            tree = _environment_for(source).parse(source)
        except TemplateSyntaxError as error:
            raise InputError(
                f"Template render error: {error.message} (agentv's nunjucks fails this file as well)",
                where.path,
                where.line_of(error.lineno),
            ) from None
        self._check(tree, where)
        text = self._render(tree, where, source)
        pieces = self._pieces(tree, where, text) if len(template_pieces) == 1 else None
        if pieces is None:
            pieces = [Piece(text, where.kind, where.path, where.first_line, where.last_line, via=where.via)]
        return Node(text, node.start_line, node.end_line, node.text_line, pieces=pieces)

    def _render(self, tree: nodes.Template, where: Where, source: str | None = None) -> str:
        """`source`, when the tree is a whole template's: its compiled form is kept (a prompt is
        the same text in every test of a suite; compiling it is most of rendering it)."""
        try:
            template = _compiled(source) if source is not None else ENVIRONMENT.from_string(_js_concat(tree))
            produced: list[str] = []
            size = 0
            for chunk in template.generate(self.context):
                size += len(chunk)
                if size > MAX_OUTPUT:
                    raise LimitExceeded(
                        f"the template produces more than {MAX_OUTPUT:,} characters",
                        where.path,
                        where.first_line,
                    )
                produced.append(chunk)
            return "".join(produced)
        except LimitExceeded as error:
            if error.diagnostic.path:
                raise
            raise LimitExceeded(error.diagnostic.message, where.path, where.first_line) from None
        except (TemplateError, TypeError, ValueError, ArithmeticError, JsError) as error:
            message = f"Template render error: {error}"
            if str(error).startswith("No filter named"):
                message += UNKNOWN_FILTER_NOTE
            raise InputError(message, where.path, where.first_line) from None

    def _check(self, tree: nodes.Template, where: Where) -> None:
        for item in tree.find_all(nodes.Node):
            problem = None
            if not isinstance(item, FAITHFUL_NODES):
                problem = f"`{type(item).__name__}` expressions"
            elif isinstance(item, nodes.Filter) and item.name not in FAITHFUL_FILTERS:
                problem = f"the `{item.name}` filter"
            elif isinstance(item, nodes.Test) and item.name not in FAITHFUL_TESTS:
                problem = f"the `{item.name}` test"
            if problem is None:
                continue
            line = where.line_of(item.lineno)
            key = (where.path, line, problem)
            if key in self._warned:
                continue
            self._warned.add(key)
            self.warnings.append(
                Diagnostic(
                    f"this template uses {problem}, which the inspector renders with jinja2; "
                    f"agentv's nunjucks may print something else here",
                    where.path,
                    line,
                )
            )

    def _pieces(self, tree: nodes.Template, where: Where, text: str) -> list[Piece] | None:
        """Template text at the template's lines, each simple `{{ var }}` at the var's line.
        None when the template has control flow (its text is then traced as a whole)."""
        pieces: list[Piece] = []
        for statement in tree.body:
            if not isinstance(statement, nodes.Output):
                return None
            for part in statement.nodes:
                if isinstance(part, nodes.TemplateData):
                    line = where.line_of(part.lineno)
                    pieces.append(
                        Piece(part.data, where.kind, where.path, line, where.last_line, via=where.via)
                    )
                    continue
                root = _root_name(part)
                if root is None:
                    return None
                shown = self._render(nodes.Template([nodes.Output([part])]), where)
                origin = self.origins.get(root)
                if origin is None:
                    line = where.line_of(part.lineno)
                    pieces.append(Piece(shown, where.kind, where.path, line, where.last_line, via=where.via))
                else:
                    pieces.append(
                        Piece(shown, OriginKind.CASE_TEXT, origin.path, origin.first_line, origin.last_line)
                    )
        if "".join(piece.text for piece in pieces) != text:
            return None
        return pieces


@lru_cache(maxsize=512)
def _compiled(source: str) -> Template:
    """A template's source, parsed and compiled as `_render` compiles a tree (parsed afresh: the
    tree the caller holds is not the one `_js_concat` rewrites)."""
    return ENVIRONMENT.from_string(_js_concat(_environment_for(source).parse(source)))


def _js_concat(tree: nodes.Template) -> nodes.Template:
    """Every `~` operand through `_concat_operand`, so jinja2's str() never prints Python."""
    for concat in tree.find_all(nodes.Concat):
        concat.nodes = [
            nodes.Filter(operand, "_concat_operand", [], [], None, None, lineno=operand.lineno)
            for operand in concat.nodes
        ]
    # And every loop over an object as nunjucks loops: entries for two names, nothing for one.
    for loop in tree.find_all(nodes.For):
        name = "_loop_pairs" if isinstance(loop.target, nodes.Tuple) else "_loop_one"
        loop.iter = nodes.Filter(loop.iter, name, [], [], None, None, lineno=loop.iter.lineno)
    return tree


def _root_name(expression: nodes.Expr) -> str | None:
    """The variable a lookup starts from (`vars.x.y` -> x), through filters; None for anything
    more than a lookup."""
    while isinstance(expression, nodes.Filter) and expression.node is not None:
        expression = expression.node
    chain: list[str] = []
    while isinstance(expression, (nodes.Getattr, nodes.Getitem)):
        if isinstance(expression, nodes.Getattr):
            chain.append(expression.attr)
        elif isinstance(expression.arg, nodes.Const):
            chain.append(str(expression.arg.value))
        else:
            return None
        expression = expression.node
    if not isinstance(expression, nodes.Name):
        return None
    if expression.name == "vars":
        return chain[-1] if chain else None
    return expression.name
