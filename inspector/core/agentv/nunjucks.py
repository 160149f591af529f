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
from typing import Any

from jinja2 import ChainableUndefined, TemplateSyntaxError, nodes
from jinja2.exceptions import TemplateError
from jinja2.sandbox import SandboxedEnvironment

from ..model import Diagnostic, InputError, LineSpan, OriginKind
from ..safe_parse import LimitExceeded
from .pieces import Piece
from .yamltree import Node, js_number

# interpolation.ts WHOLE_SIMPLE_TEMPLATE_VAR_PATTERN: a field that is only `{{ a.b }}` takes the
# variable's own value, whatever its type.
WHOLE_SIMPLE = re.compile(
    r"^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}\s*$")
TEMPLATE_SYNTAX = ("{{", "{%", "{#")
MAX_OUTPUT = 5_000_000  # characters one template may produce

# Filters whose nunjucks and jinja2 versions agree on eval-file values (plus agentv's `load` and
# nunjucks' `dump`, defined below).
FAITHFUL_FILTERS = {"upper", "lower", "capitalize", "trim", "length", "first", "last", "join",
                    "default", "d", "replace", "safe", "abs", "load", "dump", "string"}
FAITHFUL_NODES = (nodes.Template, nodes.Output, nodes.TemplateData, nodes.Name, nodes.Getattr,
                  nodes.Getitem, nodes.Const, nodes.If, nodes.CondExpr, nodes.Compare,
                  nodes.Operand, nodes.And, nodes.Or, nodes.Not, nodes.For, nodes.Assign,
                  nodes.Concat, nodes.Filter, nodes.Test, nodes.List, nodes.Tuple)
FAITHFUL_TESTS = {"defined", "undefined", "none"}


class JsList(list):
    """An array: true in a condition even when empty, printed as JavaScript joins it."""

    def __bool__(self) -> bool:
        return True


class JsObject(dict):
    """An object: true in a condition even when empty."""

    def __bool__(self) -> bool:
        return True


def js_value(value: Any) -> Any:
    """A plain YAML/JSON value with JavaScript's truthiness for arrays and objects."""
    if isinstance(value, dict):
        return JsObject({key: js_value(item) for key, item in value.items()})
    if isinstance(value, list):
        return JsList(js_value(item) for item in value)
    return value


def js_string(value: Any) -> str:
    """String(value) as nunjucks prints it: undefined and null print nothing."""
    if value is None or isinstance(value, ChainableUndefined):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return js_number(value)
    if isinstance(value, list):
        return ",".join(js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _dump(value: Any, spaces: int | None = None) -> str:
    from .v4 import js_json

    return js_json(value, indent=spaces)


class _Environment(SandboxedEnvironment):
    # `"a" * 10**9` or `9 ** 9 ** 9` would take the worker's memory or time before any output cap.
    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > 64:
            raise LimitExceeded("the template raises a number to a power above 64")
        if operator == "*":
            for text, count in ((left, right), (right, left)):
                if isinstance(text, (str, list)) and isinstance(count, int) and \
                        len(text) * count > MAX_OUTPUT:
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
        return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, dict):
            key = js_string(argument) if not isinstance(argument, str) else argument
            return obj[key] if key in obj else self.undefined(obj=obj, name=key)
        if isinstance(obj, (str, list)):
            if isinstance(argument, str) and argument == "length":
                return len(obj)
            if isinstance(argument, int) and not isinstance(argument, bool) and \
                    0 <= argument < len(obj):
                return obj[argument]
        return self.undefined(obj=obj, name=str(argument))


def _environment() -> _Environment:
    environment = _Environment(undefined=ChainableUndefined, autoescape=False,
                               keep_trailing_newline=True, finalize=js_string)
    environment.filters["load"] = json.loads
    environment.filters["dump"] = _dump
    return environment


ENVIRONMENT = _environment()


@dataclass(frozen=True, slots=True)
class Where:
    """Where a template or a variable is written: a file and the lines of its text."""

    path: str
    first_line: int
    last_line: int
    kind: OriginKind = OriginKind.CASE_TEXT  # FILE for a `file://` prompt's text
    via: LineSpan | None = None  # the line that pulled that file in


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
            return Node([self.node(item, where_path) for item in value], node.start_line,
                        node.end_line, node.text_line)
        if isinstance(value, dict):
            return Node({key: self.node(item, where_path) for key, item in value.items()},
                        node.start_line, node.end_line, node.text_line)
        return node

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
        template_pieces = node.pieces or [Piece(source, OriginKind.CASE_TEXT, path,
                                                node.text_line, node.end_line)]
        if not any(mark in source for mark in TEMPLATE_SYNTAX):
            return Node(source, node.start_line, node.end_line, node.text_line,
                        pieces=template_pieces)
        # The text's own lines: from its single piece when it has one, else where it is written.
        first = template_pieces[0]
        where = (Where(first.path or path, first.first_line or 1, first.last_line or node.end_line,
                       first.kind, first.via)
                 if len(template_pieces) == 1 else Where(path, node.text_line, node.end_line))
        try:
            tree = ENVIRONMENT.parse(source)
        except TemplateSyntaxError as error:
            raise InputError(f"Template render error: {error.message} (agentv's nunjucks fails "
                             f"this file as well)", where.path,
                             where.first_line + (error.lineno or 1) - 1) from None
        self._check(tree, where)
        text = self._render(tree, where)
        pieces = self._pieces(tree, where, text) if len(template_pieces) == 1 else None
        if pieces is None:
            pieces = [Piece(text, where.kind, where.path, where.first_line, where.last_line,
                            via=where.via)]
        return Node(text, node.start_line, node.end_line, node.text_line, pieces=pieces)

    def _render(self, tree: nodes.Template, where: Where) -> str:
        try:
            template = ENVIRONMENT.from_string(tree)
            produced: list[str] = []
            size = 0
            for chunk in template.generate(self.context):
                size += len(chunk)
                if size > MAX_OUTPUT:
                    raise LimitExceeded(f"the template produces more than {MAX_OUTPUT:,} "
                                        f"characters", where.path, where.first_line)
                produced.append(chunk)
            return "".join(produced)
        except LimitExceeded as error:
            if error.diagnostic.path:
                raise
            raise LimitExceeded(error.diagnostic.message, where.path, where.first_line) from None
        except (TemplateError, TypeError, ValueError, ArithmeticError) as error:
            raise InputError(f"Template render error: {error}", where.path,
                             where.first_line) from None

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
            line = where.first_line + (item.lineno or 1) - 1
            key = (where.path, line, problem)
            if key in self._warned:
                continue
            self._warned.add(key)
            self.warnings.append(Diagnostic(
                f"this template uses {problem}, which the inspector renders with jinja2; "
                f"agentv's nunjucks may print something else here", where.path, line))

    def _pieces(self, tree: nodes.Template, where: Where, text: str) -> list[Piece] | None:
        """Template text at the template's lines, each simple `{{ var }}` at the var's line.
        None when the template has control flow (its text is then traced as a whole)."""
        pieces: list[Piece] = []
        for statement in tree.body:
            if not isinstance(statement, nodes.Output):
                return None
            for part in statement.nodes:
                if isinstance(part, nodes.TemplateData):
                    line = where.first_line + (part.lineno or 1) - 1
                    pieces.append(Piece(part.data, where.kind, where.path, line, where.last_line,
                                        via=where.via))
                    continue
                root = _root_name(part)
                if root is None:
                    return None
                shown = self._render(nodes.Template([nodes.Output([part])]), where)
                origin = self.origins.get(root)
                if origin is None:
                    line = where.first_line + (part.lineno or 1) - 1
                    pieces.append(Piece(shown, where.kind, where.path, line, where.last_line,
                                        via=where.via))
                else:
                    pieces.append(Piece(shown, OriginKind.CASE_TEXT, origin.path,
                                        origin.first_line, origin.last_line))
        if "".join(piece.text for piece in pieces) != text:
            return None
        return pieces


def _root_name(expression: nodes.Expr) -> str | None:
    """The variable a lookup starts from (`vars.x.y` -> x), through filters; None for anything
    more than a lookup."""
    while isinstance(expression, nodes.Filter):
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

