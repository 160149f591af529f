"""Raw conversations: OpenAI Chat, Anthropic Messages, OpenAI Responses / Codex Prompt, Gemini
generateContent and AWS Bedrock Converse requests.

A request body (JSON or YAML) becomes one case in the neutral model, so it gets the same inspector,
token counts and exporters as an eval file. Tool calls keep their ids: a result always names the
call it answers, whatever the source format called that link.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import Any

import yaml

from ..bundle import Bundle
from ..model import InputError, RenderedCase, RenderedDocument
from ..options import RenderOptions
from ..plain import json_safe
from ..safe_parse import check_expansion, check_nesting, check_yaml_nesting
from ..sourcemap import Spans, json_spans, node_spans
from ..yaml_lines import load_yaml
from .builder import Builder
from .codex import ModelFamily, Prompt, get_formatted_input, get_full_instructions
from .spec import RequestFormat

__all__ = [
    "AGENTV_KEYS",
    "ModelFamily",
    "Prompt",
    "get_formatted_input",
    "get_full_instructions",
    "is_agentv_text",
    "load_any",
    "read_with",
    "render_request_file",
]

# Top-level keys of an agentv eval file; such a file is never a request body, even with `input`.
AGENTV_KEYS = {"evalcases", "eval_cases", "tests", "cases", "$schema", "turns"}


# -- detection ----------------------------------------------------------------------------------


def _load_any(text: str) -> Any:
    """The parsed document for sniffing, or None when it cannot be (safely) parsed."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        try:
            check_nesting(text)
            return json.loads(stripped)
        except (InputError, ValueError, RecursionError):
            pass
    try:
        check_yaml_nesting(text)
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        check_expansion(node)
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, InputError, RecursionError):
        return None


# A top-level block-mapping key of an agentv eval file, at the start of a line. A line that starts
# at column 0 with `key:` can only be a key of the document's top mapping (a block scalar, a
# continuation line or a nested key is indented), so finding one settles that the document is not
# a request body without parsing it: a 10 MB eval file was parsed once more just to learn that.
_AGENTV_KEY_LINE = re.compile(
    r"^(?:" + "|".join(re.escape(key) for key in sorted(AGENTV_KEYS)) + r")[ \t]*:(?:[ \t]|$)", re.MULTILINE
)


def is_agentv_text(text: str) -> bool:
    """Whether the text is settled as an agentv eval file (not a request body) without parsing it."""
    stripped = text.lstrip("\ufeff \t\r\n")
    return not stripped.startswith(("{", "[")) and _AGENTV_KEY_LINE.search(text) is not None


def load_any(text: str) -> Any:
    """The parsed document for sniffing, or None when it cannot be (safely) parsed."""
    return _load_any(text)


# -- loading ------------------------------------------------------------------------------------


def render_request_file(
    bundle: Bundle,
    path: str,
    request: Callable[[Any, str], RequestFormat],
    options: RenderOptions | None = None,
) -> RenderedDocument:
    """A request body file as a document of one case; `request` names the body's API (given the
    parsed body and the path: the registry detects it, or looks the format up by its name)."""
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    data, spans = _parse(decoded.text, path)
    chosen = request(data, path)
    if not isinstance(data, dict):
        raise InputError("a request body must be an object", path, 1)
    case = read_with(chosen, data, path, spans, options)
    return RenderedDocument(path=path, kind="conversation", cases=[case])


def read_with(
    request: RequestFormat,
    data: dict,
    path: str,
    spans: Spans | None = None,
    options: RenderOptions | None = None,
) -> RenderedCase:
    """One request body of that API, already parsed, as a case (no spans: bodies given as dicts,
    whose origins have no lines)."""
    case = request.read(Builder(path, spans or {}), _case_id(path), data, options or RenderOptions())
    case.metadata["format"] = request.name
    return case


def _case_id(path: str) -> str:
    """A request's one case is named after its file."""
    return posixpath.basename(path).rsplit(".", 1)[0]


def _parse(text: str, path: str) -> tuple[Any, Spans]:
    stripped = text.lstrip("\ufeff \t\r\n")
    if path.lower().endswith(".json") or stripped.startswith(("{", "[")):
        check_nesting(text, path)  # JSON has no block scalars: every bracket counts
        try:
            data = json.loads(text.lstrip("\ufeff"))
        except json.JSONDecodeError as error:
            if path.lower().endswith(".json"):
                raise InputError(f"invalid JSON: {error.msg}", path, error.lineno, error.colno) from None
        else:
            return data, json_spans(text)
    # The one YAML-with-lines reader (yaml_lines.py): values and their lines in one pass.
    root = load_yaml(text, path)
    if root is None:
        return None, {}
    return json_safe(root.plain()), node_spans(root)
