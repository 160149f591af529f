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
from types import ModuleType
from typing import Any

import yaml

from ..agentv.yamltree import load_yaml
from ..bundle import Bundle
from ..model import Diagnostic, InputError, RenderedCase, RenderedDocument
from ..options import RenderOptions
from ..plain import json_safe
from ..safe_parse import check_expansion, check_nesting, check_yaml_nesting
from ..sourcemap import Spans, json_spans, node_spans
from .builder import Builder
from .codex import ModelFamily, Prompt, get_formatted_input, get_full_instructions

__all__ = ["AGENTV_KEYS", "ModelFamily", "Prompt", "get_formatted_input",
           "get_full_instructions", "read_request", "render_conversation_file", "sniff"]

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
    r"^(?:" + "|".join(re.escape(key) for key in sorted(AGENTV_KEYS)) + r")[ \t]*:(?:[ \t]|$)",
    re.MULTILINE)


def sniff(text: str) -> str | None:
    """The conversation format of a request body, or None when it is not one."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith(("{", "[")) and _AGENTV_KEY_LINE.search(text):
        return None
    return formats().detect_request(_load_any(text))


# -- loading ------------------------------------------------------------------------------------

def render_conversation_file(bundle: Bundle, path: str, input_format: str,
                             options: RenderOptions | None = None) -> RenderedDocument:
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    data, spans = _parse(decoded.text, path)
    if input_format in ("auto", None):
        detected = formats().detect_request(data)
        if detected is None:
            raise InputError("not a request body this inspector knows: expected an OpenAI Chat "
                             "(messages), Anthropic Messages (messages with system or content "
                             "blocks), OpenAI Responses / Codex Prompt (input), Gemini "
                             "(contents) or Bedrock Converse (messages of type-less blocks) "
                             "object", path, 1)
        input_format = detected
    if not isinstance(data, dict):
        raise InputError("a request body must be an object", path, 1)
    case = read_request(data, input_format, path, spans, options)
    document = RenderedDocument(path=path, kind="conversation", cases=[case])
    if decoded.problem:
        document.warnings.append(Diagnostic(f"the file {decoded.problem}", path))
    return document


def read_request(data: dict, input_format: str, path: str, spans: Spans | None = None,
                 options: RenderOptions | None = None) -> RenderedCase:
    """One request body, already parsed, as a case: what a file's text becomes after parsing, and
    the way in for bodies given as dicts (no spans: their origins have no lines)."""
    request = formats().request_format(input_format)
    if request is None:
        names = [known.name for known in formats().request_formats()]
        raise InputError(f"unknown conversation format {input_format!r}; choose one of "
                         f"{', '.join(names)}", path)
    case = request.read(Builder(path, spans or {}), _case_id(path), data, options or RenderOptions())
    case.metadata["format"] = input_format
    return case


def formats() -> ModuleType:
    """The input-format registry, which lists this package's readers (so it is imported after
    them, when first asked)."""
    from .. import formats as registry

    return registry


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
                raise InputError(f"invalid JSON: {error.msg}", path, error.lineno,
                                 error.colno) from None
        else:
            return data, json_spans(text)
    # The one YAML-with-lines reader (agentv/yamltree.py): values and their lines in one pass.
    root = load_yaml(text, path)
    if root is None:
        return None, {}
    return json_safe(root.plain()), node_spans(root)
