"""One prompt rendered with one test's vars, as promptfoo's renderPrompt and then the provider's
parseChatPrompt turn it into messages.

A prompt whose text is JSON has every string inside rendered on its own (renderVarsInObject) and
is sent as that JSON; any other prompt is rendered whole, after each var that is itself a template
is rendered with the others, and is then read as `- role:` YAML, as JSON, or as one user message.
Templates are nunjucks configured as promptfoo configures it (`autoescape: false`, undefined prints
nothing, `env`), rendered by the agentv engine's jinja2 sandbox that prints as JavaScript does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..agentv.nunjucks import Renderer, Where
from ..agentv.pieces import Piece
from ..js import JsObject, js_value
from ..model import Diagnostic, InputError
from ..yaml_lines import Node, from_plain
from .prompts import Prompt, inline_tree

PARTIAL_TAG = re.compile(r"({%[^%]*$|{{[^}]*$|{#[^#]*$)", re.MULTILINE)
RAW_OPEN = re.compile(r"{%\s*raw\s*%}")
RAW_CLOSE = re.compile(r"{%\s*endraw\s*%}")
VARIABLE = re.compile(
    r"\{\{[\s]*([^{}\s|]+)[\s]*(?:\|[^}]+)?\}\}|"
    r"\{%[\s]*(?:if|for)[\s]+([^{}\s]+)[\s]*.*?%\}"
)
FOR_LOOP = re.compile(r"\{%[\s]*for[\s]+(\w+)[\s]+in[\s]+(\w+)[\s]*%\}")
COMMENT = re.compile(r"\{#[\s\S]*?#\}")
ROOT_NAME = re.compile(r"^([A-Za-z_]\w*)")


@dataclass
class Rendered:
    """What the provider receives: `messages` (promptfoo's plain chat messages) and, per message,
    the pieces its string content is made of (None where it is not one traced string)."""

    messages: Any
    pieces: list[list[Piece] | None] = field(default_factory=list)
    text: str | None = None  # the rendered prompt string, before it is read as messages


def auto_wrap_raw(template: str) -> str:
    """autoWrapRawIfPartialNunjucks: a template with an unclosed tag is literal text."""
    if PARTIAL_TAG.search(template) and not (RAW_OPEN.search(template) and RAW_CLOSE.search(template)):
        return "{% raw %}" + template + "{% endraw %}"
    return template


def template_variables(template: str) -> list[str]:
    """extractVariablesFromTemplate."""
    template = COMMENT.sub("", template)
    names: dict[str, None] = {}
    for match in VARIABLE.finditer(template):
        name = match.group(1) or match.group(2)
        if name:
            names[name] = None
    for match in FOR_LOOP.finditer(template):
        names.pop(match.group(1), None)
        names[match.group(2)] = None
    return list(names)


def references_undefined(template: str, values: dict[str, Any]) -> bool:
    for name in template_variables(template):
        root = ROOT_NAME.match(name)
        if root and root.group(1) != "env" and root.group(1) not in values:
            return True
    return False


class PromptRenderer:
    """The nunjucks context of one evaluation: its vars and `env` (the config's `env` only: the
    inspector has no process environment)."""

    def __init__(self, values: dict[str, Any], origins: dict[str, Where], env: dict[str, Any]):
        self.values = values
        self.renderer = Renderer(from_plain({}, 1), origins)
        self.env = env
        self.renderer.context = self._context(values)

    def _context(self, values: dict[str, Any]) -> dict[str, Any]:
        context = dict(js_value(values))
        context.setdefault("env", JsObject(js_value(self.env)))
        return context

    def text(self, node: Node, path: str) -> Node:
        return self.renderer.text(node, path)

    def with_values(self, values: dict[str, Any]) -> PromptRenderer:
        other = PromptRenderer.__new__(PromptRenderer)
        other.values, other.env = values, self.env
        other.renderer = Renderer(from_plain({}, 1), self.renderer.origins)
        other.renderer.context = other._context(values)
        return other

    @property
    def warnings(self) -> list[Diagnostic]:
        # The engine words its notes for agentv, whose nunjucks promptfoo shares.
        return [
            Diagnostic(
                item.message.replace("agentv's nunjucks", "promptfoo's nunjucks"),
                item.path,
                item.line,
                item.column,
                item.severity,
            )
            for item in self.renderer.warnings
        ]


def render_prompt(
    prompt: Prompt, renderer: PromptRenderer, path: str, prefix: str = "", suffix: str = ""
) -> Rendered:
    raw = prefix + prompt.raw + suffix
    tree = _json_tree(prompt, raw)
    if tree is not None:
        rendered = _render_tree(tree, renderer, path)
        plain = rendered.plain()
        if not isinstance(plain, list):
            return Rendered(plain, [], json.dumps(plain, ensure_ascii=False, indent=2))
        return Rendered(
            plain,
            [_content_pieces(message) for message in rendered.value],
            json.dumps(plain, ensure_ascii=False, indent=2),
        )
    return _render_text(prompt, raw, renderer, path, (prefix, suffix))


def _json_tree(prompt: Prompt, raw: str) -> Node | None:
    if not _parses(raw):
        return None
    if raw == prompt.raw:
        return inline_tree(prompt)
    return from_plain(json.loads(raw), prompt.node.text_line)


def _parses(text: str) -> bool:
    try:
        json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return False
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"JSON.parse has no {name}")


def _render_tree(node: Node, renderer: PromptRenderer, path: str) -> Node:
    """renderVarsInObject: every string rendered, keys and other values as they are."""
    return node.map_strings(lambda leaf: renderer.text(leaf, path))


def _content_pieces(message: Node) -> list[Piece] | None:
    content = message.get("content") if isinstance(message.value, dict) else None
    if content is None or not isinstance(content.value, str):
        return None
    return content.pieces


def _render_text(
    prompt: Prompt, raw: str, renderer: PromptRenderer, path: str, affixes: tuple[str, str]
) -> Rendered:
    rendered_values = {}
    for name, value in renderer.values.items():
        if isinstance(value, str) and not references_undefined(value, renderer.values):
            value = renderer.text(Node(auto_wrap_raw(value), 1, 1, 1), path).value
        rendered_values[name] = value
    outer = renderer.with_values(rendered_values)
    template = auto_wrap_raw(raw)
    node = (
        prompt.node
        if template == prompt.raw and not any(affixes)
        else Node(template, prompt.node.start_line, prompt.node.end_line, prompt.node.text_line)
    )
    if node is prompt.node and node.pieces is None:
        node = Node(template, node.start_line, node.end_line, node.text_line)
    text_node = outer.text(node, path)
    result = Rendered(None, [], text_node.value)
    result.messages = parse_chat_prompt(text_node.value)
    if result.messages is None:
        result.messages = [{"role": "user", "content": text_node.value}]
        result.pieces = [text_node.pieces]
    else:
        result.pieces = [None] * (len(result.messages) if isinstance(result.messages, list) else 0)
    renderer.renderer.warnings.extend(
        item for item in outer.renderer.warnings if item not in renderer.renderer.warnings
    )
    return result


def parse_chat_prompt(text: str) -> Any:
    """parseChatPrompt: `- role:` YAML, JSON, or None for a plain prompt (one user message)."""
    trimmed = text.strip()
    if trimmed.startswith("- role:"):
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise InputError(f"Chat Completion prompt is not a valid YAML string: {error}") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError:
        if looks_like_json(trimmed):
            raise InputError("Chat Completion prompt is not a valid JSON string") from None
        return None


def looks_like_json(trimmed: str) -> bool:
    if trimmed.startswith("{") and trimmed.endswith("}"):
        return True
    if trimmed.startswith("[") and trimmed.endswith("]"):
        after = trimmed[1:].lstrip()
        return (
            after[:1] in ('"', "{", "[")
            or bool(re.match(r"^[\d-]", after))
            or bool(re.match(r"^(true|false|null)", after))
            or not after.strip()
        )
    return False
