"""Raw conversations: OpenAI Chat, Anthropic Messages and OpenAI Responses / Codex Prompt requests.

A request body (JSON or YAML) becomes one case in the neutral model, so it gets the same inspector,
token counts and exporters as an eval file. Tool calls keep their ids: a result always names the
call it answers, whatever the source format called that link.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any

import yaml

from .agentv.yamltree import load_yaml
from .bundle import Bundle
from .model import (
    Diagnostic,
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    RenderedDocument,
    Segment,
    ToolCall,
    ToolSpec,
)
from .options import RenderOptions
from .plain import json_safe
from .safe_parse import check_expansion, check_nesting
from .sourcemap import Spans, json_spans, node_spans

FORMATS = ("openai-chat", "anthropic", "openai-responses")
# Top-level keys of an agentv eval file; such a file is never a request body, even with `input`.
_AGENTV_KEYS = {"evalcases", "eval_cases", "tests", "cases", "$schema", "turns"}
_ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "document"}
_RESPONSES_ITEMS = {"message", "function_call", "function_call_output", "reasoning",
                    "custom_tool_call", "custom_tool_call_output", "local_shell_call"}


# -- detection ----------------------------------------------------------------------------------

def _load_any(text: str) -> Any:
    """The parsed document for sniffing, or None when it cannot be (safely) parsed."""
    try:
        check_nesting(text)
    except InputError:
        return None
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(stripped)
        except (ValueError, RecursionError):
            pass
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        check_expansion(node)
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, InputError, RecursionError):
        return None


def sniff(text: str) -> str | None:
    """The conversation format of a request body, or None when it is not one."""
    return detect(_load_any(text))


def detect(data: Any) -> str | None:
    if not isinstance(data, dict) or _AGENTV_KEYS & data.keys():
        return None
    messages = data.get("messages")
    if isinstance(messages, list) and messages and all(
            isinstance(item, dict) and "role" in item for item in messages):
        if _looks_anthropic(data, messages):
            return "anthropic"
        return "openai-chat"
    items = data.get("input")
    codex_keys = {"base_instructions_override", "user_instructions", "output_schema"}
    item_list = isinstance(items, list) and all(
        isinstance(item, dict) and ("type" in item or "role" in item) for item in items)
    if item_list and (items or codex_keys & data.keys() or {"instructions", "tools"} & data.keys()):
        return "openai-responses"
    if isinstance(items, str) and ({"model", "instructions"} & data.keys() or codex_keys & data.keys()):
        return "openai-responses"
    return None


def _looks_anthropic(data: dict, messages: list) -> bool:
    if "system" in data and not any(message.get("role") == "system" for message in messages):
        return True
    tools = data.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(
                isinstance(block, dict) and block.get("type") in _ANTHROPIC_BLOCKS for block in content):
            return True
    return False


# -- seed 002: the Codex Prompt -----------------------------------------------------------------

@dataclass(slots=True)
class ModelFamily:
    family: str
    base_instructions: str
    supports_reasoning_summaries: bool = False
    needs_special_apply_patch_instructions: bool = False
    # Appended when the family needs them and no apply_patch tool is offered.
    apply_patch_instructions: str | None = None


@dataclass(slots=True)
class Prompt:
    input: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    base_instructions_override: str | None = None
    user_instructions: str | None = None
    output_schema: Any = None


def get_full_instructions(prompt: Prompt, model: ModelFamily) -> str:
    """The override if set, else the family's base instructions, then the user instructions."""
    sections = [prompt.base_instructions_override if prompt.base_instructions_override is not None
                else model.base_instructions]
    if prompt.user_instructions:
        sections.append(prompt.user_instructions)
    if (model.needs_special_apply_patch_instructions and model.apply_patch_instructions
            and not any(_tool_name(tool) == "apply_patch" for tool in prompt.tools)):
        sections.append(model.apply_patch_instructions)
    return "\n".join(section for section in sections if section)


def get_formatted_input(prompt: Prompt) -> list[dict[str, Any]]:
    """A new list holding the same items, every item type kept (seed 002: a shallow clone)."""
    return list(prompt.input)


def _tool_name(tool: Any) -> str | None:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    return function.get("name") if isinstance(function, dict) else tool.get("name")


# -- loading ------------------------------------------------------------------------------------

def render_conversation_file(bundle: Bundle, path: str, input_format: str,
                             options: RenderOptions | None = None) -> RenderedDocument:
    options = options or RenderOptions()
    decoded = bundle.text(path)
    if decoded is None:
        raise InputError("file not found in the bundle", path)
    data, spans = _parse(decoded.text, path)
    if input_format in ("auto", None):
        detected = detect(data)
        if detected is None:
            raise InputError("not a request body this inspector knows: expected an OpenAI Chat "
                             "(messages), Anthropic Messages (messages with system or content "
                             "blocks) or OpenAI Responses / Codex Prompt (input) object", path, 1)
        input_format = detected
    if input_format not in FORMATS:
        raise InputError(f"unknown conversation format {input_format!r}; choose one of "
                         f"{', '.join(FORMATS)}", path)
    if not isinstance(data, dict):
        raise InputError("a request body must be an object", path, 1)
    builder = _Builder(path, spans)
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    if input_format == "openai-chat":
        case = builder.openai_chat(stem, data)
    elif input_format == "anthropic":
        case = builder.anthropic(stem, data)
    else:
        case = builder.responses(stem, data, options)
    case.metadata["format"] = input_format
    document = RenderedDocument(path=path, kind="conversation", cases=[case])
    if decoded.problem:
        document.warnings.append(Diagnostic(f"the file {decoded.problem}", path))
    return document


def _parse(text: str, path: str) -> tuple[Any, Spans]:
    check_nesting(text, path)
    stripped = text.lstrip("\ufeff \t\r\n")
    if path.lower().endswith(".json") or stripped.startswith(("{", "[")):
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


class _Builder:
    def __init__(self, path: str, spans: Spans):
        self.path = path
        self.spans = spans
        self.warnings: list[Diagnostic] = []

    # -- helpers --

    def _lines(self, where: tuple) -> tuple[int | None, int | None]:
        return self.spans.get(where, (None, None))

    def _line(self, where: tuple) -> int | None:
        return self._lines(where)[0]

    def _span(self, where: tuple) -> LineSpan | None:
        start, end = self._lines(where)
        return None if start is None else LineSpan(self.path, start, end if end is not None
                                                   else start)

    def _origin(self, where: tuple, kind: OriginKind = OriginKind.CASE_TEXT) -> Origin:
        start, end = self._lines(where)
        return Origin(kind, self.path, start, end)

    def _warn(self, message: str, where: tuple) -> None:
        self.warnings.append(Diagnostic(message, self.path, self._line(where)))

    def _text(self, value: Any, where: tuple, what: str) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        self._warn(f"{what} is not a string; shown as JSON", where)
        return json.dumps(value, ensure_ascii=False)

    def _parts(self, content: Any, where: tuple, text_types: tuple[str, ...]) -> list[Segment]:
        """Segments for string content or a list of content parts; non-text parts become markers."""
        if content is None:
            return []
        if isinstance(content, str):
            return [Segment(content, self._origin(where))] if content else []
        if not isinstance(content, list):
            return [Segment(self._text(content, where, "content"), self._origin(where))]
        segments: list[Segment] = []
        for index, part in enumerate(content):
            part_where = where + (index,)
            if segments:
                segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
            if isinstance(part, str):
                segments.append(Segment(part, self._origin(part_where)))
            elif isinstance(part, dict) and part.get("type") in text_types:
                text = self._text(part.get("text"), part_where + ("text",), "a text part")
                segments.append(Segment(text, self._origin(part_where + ("text",))))
            else:
                kind = part.get("type", "part") if isinstance(part, dict) else type(part).__name__
                self._warn(f"a {kind} content part is not text; shown as a marker", part_where)
                segments.append(Segment(f"<{kind}>", self._origin(part_where, OriginKind.MARKER)))
        if segments and segments[-1].origin.kind == OriginKind.SEPARATOR:
            segments.pop()
        return segments

    def _arguments(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        return json.dumps({} if value is None else value, ensure_ascii=False)

    def _case(self, case_id: str, messages: list[Message], data: dict) -> RenderedCase:
        request = {key: value for key, value in data.items()
                   if key not in ("messages", "input", "tools", "system", "instructions",
                                  "response_format", "text", "output_schema", "output_config",
                                  "base_instructions_override", "user_instructions")}
        case = RenderedCase(id=case_id, messages=messages, span=self._span(()),
                            warnings=self.warnings)
        if request:
            case.metadata["request"] = request
        return case

    def _tools(self, tools: Any, where: tuple) -> list[ToolSpec]:
        if tools is None:
            return []
        if not isinstance(tools, list):
            self._warn("`tools` must be a list; ignored", where)
            return []
        specs = []
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict):
                self._warn("a tool must be an object; ignored", where + (index,))
                continue
            function: dict = tool["function"] if isinstance(tool.get("function"), dict) else tool
            name = function.get("name")
            if not isinstance(name, str) or not name:
                kind = tool.get("type", "tool")
                self._warn(f"a {kind} tool without a function name is not shown", where + (index,))
                continue
            parameters = function.get("parameters", function.get("input_schema"))
            specs.append(ToolSpec(name=name, description=function.get("description"),
                                  parameters=parameters if isinstance(parameters, dict) else None,
                                  strict=function.get("strict")))
        return specs

    def _message_items(self, data: dict):
        """(source path, message) for each entry of `messages`, each checked to have a role."""
        raw = data.get("messages")
        if not isinstance(raw, list):
            raise InputError("`messages` must be a list", self.path, self._line(("messages",)))
        for index, item in enumerate(raw):
            where = ("messages", index)
            if not isinstance(item, dict) or not isinstance(item.get("role"), str):
                raise InputError("each message needs a string `role`", self.path, self._line(where))
            yield where, item

    # -- OpenAI Chat Completions --

    def openai_chat(self, case_id: str, data: dict) -> RenderedCase:
        messages = []
        for where, item in self._message_items(data):
            message = Message(role=item["role"],
                              segments=self._parts(item.get("content"), where + ("content",),
                                                   ("text", "input_text", "output_text")),
                              name=item.get("name"), tool_call_id=item.get("tool_call_id"),
                              span=self._span(where))
            for call_index, call in enumerate(item.get("tool_calls") or []):
                call_where = where + ("tool_calls", call_index)
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    self._warn("a tool call without `function` is ignored", call_where)
                    continue
                message.tool_calls.append(ToolCall(
                    id=str(call.get("id", "")), name=str(function.get("name", "")),
                    arguments=self._arguments(function.get("arguments")),
                    origin=self._origin(call_where)))
            messages.append(message)
        case = self._case(case_id, messages, data)
        case.tools = self._tools(data.get("tools"), ("tools",))
        response_format = data.get("response_format")
        if isinstance(response_format, dict):
            schema = response_format.get("json_schema")
            if response_format.get("type") == "json_schema" and isinstance(schema, dict):
                case.output_schema = OutputSchema(name=str(schema.get("name", "output")),
                                                  schema=schema.get("schema") or {},
                                                  strict=schema.get("strict"))
            else:
                case.metadata["response_format"] = response_format
        return case

    # -- Anthropic Messages --

    def anthropic(self, case_id: str, data: dict) -> RenderedCase:
        messages: list[Message] = []
        system = data.get("system")
        if system:
            segments = self._parts(system, ("system",), ("text",))
            messages.append(Message("system", segments, span=self._span(("system",))))
        for where, item in self._message_items(data):
            messages.extend(self._anthropic_message(item, where))
        case = self._case(case_id, messages, data)
        case.tools = self._tools(data.get("tools"), ("tools",))
        output_format = (data.get("output_config") or {}).get("format") if isinstance(
            data.get("output_config"), dict) else None
        if isinstance(output_format, dict) and isinstance(output_format.get("schema"), dict):
            case.output_schema = OutputSchema(name="output", schema=output_format["schema"])
        return case

    def _anthropic_message(self, item: dict, where: tuple) -> list[Message]:
        role, content = item["role"], item.get("content")
        if not isinstance(content, list):
            return [Message(role, self._parts(content, where + ("content",), ("text",)),
                            span=self._span(where))]
        results: list[Message] = []
        segments: list[Segment] = []
        calls: list[ToolCall] = []
        for index, block in enumerate(content):
            block_where = where + ("content", index)
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_use":
                calls.append(ToolCall(id=str(block.get("id", "")), name=str(block.get("name", "")),
                                      arguments=self._arguments(block.get("input")),
                                      origin=self._origin(block_where)))
            elif kind == "tool_result":
                result = Message("tool", self._parts(block.get("content"), block_where + ("content",),
                                                     ("text",)),
                                 tool_call_id=str(block.get("tool_use_id", "")),
                                 span=self._span(block_where))
                if block.get("is_error"):
                    self._warn(f"tool result {result.tool_call_id} is marked is_error", block_where)
                results.append(result)
            elif kind in ("thinking", "redacted_thinking"):
                self._warn(f"a {kind} block is not shown", block_where)
            else:
                if segments:
                    segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
                if kind == "text":
                    segments.append(Segment(self._text(block.get("text"), block_where, "text"),
                                            self._origin(block_where + ("text",))))
                else:
                    label = kind or "block"
                    self._warn(f"a {label} content block is not text; shown as a marker",
                               block_where)
                    segments.append(Segment(f"<{label}>",
                                            self._origin(block_where, OriginKind.MARKER)))
        messages = list(results)
        if segments or calls or not results:
            messages.append(Message(role, segments, tool_calls=calls, span=self._span(where)))
        return messages

    # -- OpenAI Responses / Codex Prompt --

    def responses(self, case_id: str, data: dict, options: RenderOptions) -> RenderedCase:
        raw_input = data.get("input", [])
        items = [{"type": "message", "role": "user", "content": raw_input}] if isinstance(
            raw_input, str) else raw_input
        if not isinstance(items, list):
            raise InputError("`input` must be a string or a list of items", self.path,
                             self._line(("input",)))
        prompt = Prompt(
            input=items, tools=data.get("tools") or [],
            base_instructions_override=data.get("base_instructions_override",
                                                data.get("instructions")),
            user_instructions=data.get("user_instructions"),
            output_schema=data.get("output_schema"))
        messages: list[Message] = []
        instructions = self._instructions(prompt, data, options)
        if instructions is not None:
            messages.append(instructions)
        string_input = isinstance(raw_input, str)
        for index, item in enumerate(get_formatted_input(prompt)):
            where = ("input",) if string_input else ("input", index)
            self._responses_item(item, where, messages)
        case = self._case(case_id, messages, data)
        if instructions is not None:
            case.metadata["instructions_message"] = True
        case.tools = self._tools(prompt.tools, ("tools",))
        text_format = (data.get("text") or {}).get("format") if isinstance(data.get("text"),
                                                                           dict) else None
        if isinstance(text_format, dict) and text_format.get("type") == "json_schema":
            case.output_schema = OutputSchema(name=str(text_format.get("name", "output")),
                                              schema=text_format.get("schema") or {},
                                              strict=text_format.get("strict"))
        elif isinstance(prompt.output_schema, dict):
            case.output_schema = OutputSchema(name="output_schema", schema=prompt.output_schema,
                                              strict=True)
        return case

    def _instructions(self, prompt: Prompt, data: dict, options: RenderOptions) -> Message | None:
        family = ModelFamily(family=str(data.get("model", "")),
                             base_instructions=options.system_prompt or "")
        full = get_full_instructions(prompt, family)
        if not full:
            return None
        segments: list[Segment] = []
        if prompt.base_instructions_override is not None:
            key = "base_instructions_override" if "base_instructions_override" in data else "instructions"
            if prompt.base_instructions_override:
                segments.append(Segment(prompt.base_instructions_override, self._origin((key,))))
        elif family.base_instructions:
            segments.append(Segment(family.base_instructions, Origin(OriginKind.DEFAULT_PROMPT)))
        if prompt.user_instructions:
            if segments:
                segments.append(Segment("\n", Origin(OriginKind.SEPARATOR)))
            segments.append(Segment(prompt.user_instructions, self._origin(("user_instructions",))))
        return Message("system", segments, span=self._span(("instructions",)) or
                       self._span(("base_instructions_override",)) or
                       self._span(("user_instructions",)))

    def _responses_item(self, item: Any, where: tuple, messages: list[Message]) -> None:
        if not isinstance(item, dict):
            raise InputError("each input item must be an object", self.path, self._line(where))
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            if not isinstance(role, str):
                raise InputError("an input message needs a string `role`", self.path,
                                 self._line(where))
            content_where = where if isinstance(item.get("content"), str) and where == (
                "input",) else where + ("content",)
            messages.append(Message(role, self._parts(item.get("content"), content_where,
                                                      ("input_text", "output_text", "text")),
                                    span=self._span(where)))
        elif kind == "function_call":
            call = ToolCall(id=str(item.get("call_id", item.get("id", ""))),
                            name=str(item.get("name", "")),
                            arguments=self._arguments(item.get("arguments")),
                            origin=self._origin(where))
            previous = messages[-1] if messages else None
            # Consecutive calls are one assistant turn, as Chat Completions needs them.
            if previous is not None and previous.role == "assistant" and previous.omitted is None:
                previous.tool_calls.append(call)
                span = self._span(where)
                if previous.span and span:
                    previous.span = LineSpan(self.path, previous.span.start_line, span.end_line)
            else:
                messages.append(Message("assistant", [], tool_calls=[call], span=self._span(where)))
        elif kind == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):
                segments = self._parts(output, where + ("output",), ("input_text", "output_text"))
            else:
                segments = [Segment(self._text(output, where + ("output",), "output"),
                                    self._origin(where + ("output",)))]
            messages.append(Message("tool", [s for s in segments if s.text],
                                    tool_call_id=str(item.get("call_id", "")),
                                    span=self._span(where)))
        else:
            self._warn(f"a {kind or 'typeless'} input item is not shown", where)
