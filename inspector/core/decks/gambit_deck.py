"""A gambit 1.0 deck as gambit-core 1.0.0-rc.2's runtime sends it (`runLlmDeck`): the system
message, then, when a context input is given, an assistant `gambit_context` call and the tool
message holding the input as JSON, then the initial user message; the tools are the runtime's
built-in ones the deck's permissions allow, then its actions, then its external tools."""

from __future__ import annotations

import json
import posixpath
from typing import Any

from ..bundle import Bundle
from ..js import js_json
from ..model import (
    Diagnostic,
    InputError,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    RenderedDocument,
    Segment,
    ToolSpec,
)
from ..options import RenderOptions
from .gambit_conversation import Conversation, read_conversation
from .gambit_core_files import InstalledGambitCore
from .gambit_grade import context_messages, grader_mode, grading_cases
from .gambit_load import SCHEMAS, Loaded, Loader, Piece, Reference, flatten, key_line
from .gambit_samples import conversation_file, deck_samples, sample_text
from .gambit_scenario import scenario_cases
from .gambit_tools import BUILTIN_TOOLS, allowed_builtins, schema_parameters

# A conversation file holds what a paste may (render_settings.MAX_GAMBIT_INPUT characters), as
# UTF-8 at up to four bytes each.
MAX_CONVERSATION_BYTES = 4_000_000
_REMOVED_CONTROLS = (
    "Legacy synthetic response tools (gambit_respond, gambit_end) are removed. Remove "
    "`respond`/`allowEnd` from deck metadata and remove any `gambit://respond`, `gambit://end`, "
    "`gambit://snippets/respond.md`, or `gambit://snippets/end.md` embeds. Return normal "
    "assistant output that matches `responseSchema` instead of synthetic completion tools."
)
_NOTED_KEYS = {
    "startMode": "startMode is read by gambit's chat and simulator (who speaks first); the "
    "messages shown are what one run sends",
    "handlers": "handlers (onError, onBusy, onIdle) run other decks while the run goes on; "
    "what they send is not shown",
    "guardrails": "guardrails limit the run (depth, passes, time); they change nothing sent",
    "workloop": "workloop is read by gambit's workloop runner, not by the request shown",
}


def deck_id(path: str) -> str:
    name = posixpath.basename(path)
    if name == "PROMPT.md":
        return posixpath.basename(posixpath.dirname(path)) or "PROMPT"
    for suffix in (".deck.md", ".card.md", ".md"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def render_gambit_deck(bundle: Bundle, path: str, text: str, options: RenderOptions) -> RenderedDocument:
    loader = Loader(bundle, InstalledGambitCore(options.gambit_core) if options.gambit_core else None)
    attrs, body_start, front = loader.front_matter(path, text)
    if path.endswith(".card.md"):
        return _render_card(loader, path, text)
    meta = attrs["deck"] if isinstance(attrs.get("deck"), dict) else attrs
    _refuse_unsupported(meta, path, front)
    actions = loader.actions(meta.get("actions"), path, front, require_description=True)
    legacy_actions = loader.actions(meta.get("actionDecks"), path, front, False)
    _deprecations(loader, meta, path, front)
    scenarios = loader.references(meta.get("scenarios"), "scenario", path, front)
    graders = loader.references(meta.get("graders"), "grader", path, front)
    pieces, cards, respond, end = loader.expand(path, text, body_start, (path,))
    all_cards = flatten(cards)

    # A later declaration of an action's name replaces the earlier one.
    merged = {
        action.name: action
        for action in [a for card in all_cards for a in card.actions] + actions + legacy_actions
    }
    scenarios = _merge_refs(
        scenarios,
        loader.references(meta.get("testDecks"), "scenario", path, front),
        [r for card in all_cards for r in card.scenarios],
    )
    graders = _merge_refs(
        graders,
        loader.references(meta.get("graderDecks"), "grader", path, front),
        [r for card in all_cards for r in card.graders],
    )

    case = RenderedCase(id=deck_id(path), messages=[], span=LineSpan(path, 1, max(1, text.count("\n") + 1)))
    document = RenderedDocument(path=path, kind="deck", cases=[case])
    case.messages.append(_system_message(pieces, path, text))
    case.tools = _tools(loader, meta, path, front, list(merged.values()))
    _first_turn(case, meta, options, bundle, path, front, all_cards)
    _notes(case, meta, path, front, *_turn_tools(meta, all_cards, respond, end))
    case.metadata["gambit"] = _gambit_metadata(
        bundle, path, meta, all_cards, list(merged.values()), scenarios, graders
    )
    # gambit's runtime calls the model in the Responses form: the page's export starts there.
    case.metadata["preferred_provider"] = "openai-responses"
    defaults = export_defaults(meta.get("modelParams"))
    if defaults:
        case.metadata["export_defaults"] = defaults
    document.warnings.extend(loader.warnings)
    conversation = _given_conversation(bundle, path, options)
    if conversation is not None:
        document.cases = _graded(bundle, path, meta, case, conversation)
    return document


def _turn_tools(meta: dict[str, Any], all_cards: list[Loaded], respond: bool, end: bool) -> tuple[bool, bool]:
    """Whether the deck, its body or any card turns on gambit_respond, and gambit_end."""
    return (
        respond or any(c.respond for c in all_cards) or bool(meta.get("respond")),
        end or any(c.allow_end for c in all_cards) or bool(meta.get("allowEnd")),
    )


def _refuse_unsupported(meta: dict[str, Any], path: str, front: str) -> None:
    for key, message in (
        ("mcpServers", "Deck-level [[mcpServers]] is unsupported in this phase"),
        ("execute", "Top-level execute in PROMPT.md is unsupported"),
    ):
        if meta.get(key) is not None:
            raise InputError(f"{message} ({path})", path, key_line(front, key))


def _gambit_metadata(
    bundle: Bundle,
    path: str,
    meta: dict[str, Any],
    all_cards: list[Loaded],
    actions: list[Reference],
    scenarios: list[Reference],
    graders: list[Reference],
) -> dict[str, Any]:
    """What the page shows of the deck besides its messages."""
    samples = deck_samples(bundle, path)
    return {
        "deck": path,
        "label": meta.get("label") if isinstance(meta.get("label"), str) else None,
        "cards": [card.path for card in all_cards if not _placeholder(card)],
        "actions": [_reference_summary(a) for a in actions],
        "scenarios": [_reference_summary(r) for r in scenarios],
        "graders": [_reference_summary(r) for r in graders],
        "samples": [sample.name for sample in samples],
        "conversation_samples": [s.name for s in samples if s.file.endswith(".json")],
        "model_params": meta.get("modelParams") if isinstance(meta.get("modelParams"), dict) else None,
    }


def _given_conversation(bundle: Bundle, path: str, options: RenderOptions) -> Conversation | None:
    """The conversation to grade, from a sample file by name or as given; None without one."""
    if options.gambit_conversation_sample is not None:
        file, raw = conversation_file(
            bundle, path, options.gambit_conversation_sample, MAX_CONVERSATION_BYTES
        )
        return read_conversation(raw, path, file)
    if options.gambit_conversation is not None:
        return read_conversation(options.gambit_conversation, path)
    return None


def export_defaults(params: Any) -> dict[str, Any]:
    """[modelParams] as export settings: gambit's model (the first non-empty of a list, as
    mergeModelParams picks it), temperature and max_tokens."""
    if not isinstance(params, dict):
        return {}
    model = params.get("model")
    if isinstance(model, list):
        model = next((m for m in model if isinstance(m, str) and m.strip()), None)
    found: dict[str, Any] = {}
    if isinstance(model, str) and model.strip():
        found["model"] = model
    temperature = params.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        found["temperature"] = float(temperature)
    max_tokens = params.get("max_tokens")
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens > 0:
        found["max_tokens"] = max_tokens
    return found


def _graded(
    bundle: Bundle, path: str, meta: dict[str, Any], case: RenderedCase, messages: Conversation
) -> list[RenderedCase]:
    schema = meta.get("contextSchema", meta.get("inputSchema"))
    mode = grader_mode(bundle, path, schema)
    if mode is None:
        # Not a grader (no session to take): the deck plays the user, as a scenario deck does.
        lead = case.messages[:1]
        if len(case.messages) > 1 and case.messages[1].tool_calls:
            lead = case.messages[:3]  # the context turn, given with --context
        return scenario_cases(case, path, messages, lead)
    return grading_cases(case, path, messages, mode[0], mode[1], str(schema))


def _placeholder(card: Loaded) -> bool:
    return all(piece.placeholder for piece in card.pieces) and bool(card.pieces)


def _deprecations(loader: Loader, meta: dict[str, Any], path: str, front: str) -> None:
    for key, message in (
        ("actionDecks", f'deck at {path} uses deprecated "actionDecks"; use "[[actions]]" instead.'),
        ("testDecks", f'deck at {path} uses deprecated "testDecks"; use "[[scenarios]]" instead.'),
        ("graderDecks", f'deck at {path} uses deprecated "graderDecks"; use "[[graders]]" instead.'),
        ("inputSchema", f'deck at {path} uses deprecated "inputSchema"; rename to "contextSchema"'),
        ("outputSchema", f'deck at {path} uses deprecated "outputSchema"; rename to "responseSchema"'),
    ):
        if meta.get(key):
            loader.deprecated(path, key, message, key_line(front, key))


def _merge_refs(*lists: list[Reference]) -> list[Reference]:
    merged: dict[str, Reference] = {}
    for entries in lists:
        for entry in entries:
            merged.setdefault(entry.path or entry.target, entry)
    return list(merged.values())


def _reference_summary(reference: Reference) -> dict[str, Any]:
    return {
        "name": reference.name,
        "path": reference.path or reference.target,
        "description": reference.description,
        "declared_in": reference.declared_in,
        "line": reference.line,
    }


def _system_message(pieces: list[Piece], path: str, text: str) -> Message:
    segments = [
        Segment(
            piece.text,
            Origin(
                OriginKind.MARKER if piece.placeholder else OriginKind.DECK,
                piece.path,
                piece.first_line,
                piece.last_line,
            ),
        )
        for piece in pieces
    ]
    return Message("system", segments, span=LineSpan(path, 1, max(1, text.count("\n") + 1)))


def _tools(
    loader: Loader, meta: dict[str, Any], path: str, front: str, actions: list[Reference]
) -> list[ToolSpec]:
    tools = [
        ToolSpec(name, description, parameters)
        for name, description, parameters in allowed_builtins(meta.get("permissions"))
    ]
    builtin_names = {name for name, _, _ in BUILTIN_TOOLS}
    tools += _action_tools(loader, actions)
    names = {action.name for action in actions}
    declared = meta.get("tools")
    for entry in declared if isinstance(declared, list) else []:
        if not isinstance(entry, dict):
            continue
        tool = _external_tool(entry, path, front, builtin_names, loader.warnings)
        if tool.name in names:
            loader.warnings.append(
                Diagnostic(
                    f"tool {tool.name} is shadowed by an action in {path}", path, key_line(front, "tools")
                )
            )
            continue
        tools.append(tool)
    return tools


def _action_tools(loader: Loader, actions: list[Reference]) -> list[ToolSpec]:
    """Each action as the tool gambit offers for it, its parameters from the action deck's
    context schema."""
    builtin_names = {name for name, _, _ in BUILTIN_TOOLS}
    tools = []
    for action in actions:
        if action.name in builtin_names:
            raise InputError(
                f"Action name {action.name} conflicts with a built-in tool name",
                action.declared_in,
                action.line,
            )
        tools.append(ToolSpec(action.name, action.description, _action_parameters(loader, action)))
    return tools


def _card_actions(card: Loaded) -> list[Reference]:
    """loadMarkdownCard's `actions` of the card and of the cards it embeds, merged as a deck
    embedding it merges them: one per name, a later declaration replacing an earlier one."""
    merged = {action.name: action for each in flatten([card]) for action in each.actions}
    return list(merged.values())


def _external_tool(
    entry: dict[str, Any], path: str, front: str, builtin_names: set[str], warnings: list[Diagnostic]
) -> ToolSpec:
    line = key_line(front, "tools")
    name = str(entry.get("name") or "").strip()
    if not name:
        raise InputError(f"External tool must include a name ({path})", path, line)
    if name.startswith("gambit_"):
        raise InputError(f"External tool name {name} is reserved (prefix gambit_)", path, line)
    from .gambit_load import MAX_TOOL_NAME, TOOL_NAME

    if not TOOL_NAME.fullmatch(name) or len(name) > MAX_TOOL_NAME:
        raise InputError(
            f"External tool name {name} must match /^[A-Za-z_][A-Za-z0-9_]*$/ and "
            f"be <= {MAX_TOOL_NAME} characters",
            path,
            line,
        )
    if name in builtin_names:
        raise InputError(f"External tool name {name} conflicts with a built-in tool name", path, line)
    description = entry.get("description") if isinstance(entry.get("description"), str) else None
    schema = entry.get("inputSchema")
    parameters = (
        schema_parameters(schema, path, line, warnings)
        if isinstance(schema, str) and schema
        else {"type": "object", "additionalProperties": True}
    )
    return ToolSpec(name, description, parameters)


def _action_parameters(loader: Loader, action: Reference) -> dict[str, Any]:
    """The action's own contextSchema, else its child deck's (which gambit requires)."""
    if action.context_schema:
        return schema_parameters(action.context_schema, action.declared_in, action.line, loader.warnings)
    if action.path is None:
        return {"description": f"schema of {action.target} (a gambit deck the inspector cannot read)"}
    decoded = loader.bundle.text(action.path)
    if decoded is None:
        raise InputError(
            f"action {action.name}: deck not found: {action.target}", action.declared_in, action.line
        )
    if not action.path.endswith(".md"):
        return {"description": f"schema from {action.path} (a TypeScript deck, not run)"}
    attrs, _, front = loader.front_matter(action.path, decoded.text)
    meta = attrs["deck"] if isinstance(attrs.get("deck"), dict) else attrs
    context = meta.get("contextSchema", meta.get("inputSchema"))
    response = meta.get("responseSchema", meta.get("outputSchema"))
    if not context or not response:
        raise InputError(
            f"Deck {action.path} must declare contextSchema and responseSchema (non-root)",
            action.declared_in,
            action.line,
        )
    return schema_parameters(str(context), action.path, key_line(front, "contextSchema"), loader.warnings)


def cli_value(raw: str) -> Any:
    """gambit's CLI reading of --context and --message: JSON when it parses, else the text."""
    try:
        return json.loads(raw, parse_constant=_not_json)
    except ValueError:
        return raw


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")  # JSON.parse refuses NaN and Infinity


def _first_turn(
    case: RenderedCase,
    meta: dict[str, Any],
    options: RenderOptions,
    bundle: Bundle,
    path: str,
    front: str,
    cards: list[Loaded],
) -> None:
    given = Origin(OriginKind.CASE_TEXT)
    schema = meta.get("contextSchema", meta.get("inputSchema"))
    fragments = [c.attrs["contextFragment"] for c in cards if c.attrs.get("contextFragment")]
    if schema or fragments:
        case.warnings.append(
            Diagnostic(
                f"gambit validates the context input against {schema or fragments[0]} first (a Zod "
                "schema the inspector does not run): a run whose input (or lack of one) the schema "
                "refuses stops there, and keys it does not declare are dropped before the input is "
                "sent",
                path,
                key_line(front, "contextSchema"),
            )
        )
    if options.gambit_context_sample is not None:
        text, origin = sample_text(bundle, path, options.gambit_context_sample)
        case.messages.extend(context_messages(cli_value(text), origin))
        case.metadata["gambit_context_sample"] = origin.path
    elif options.gambit_context is not None:
        case.messages.extend(context_messages(cli_value(options.gambit_context), given))
    if options.gambit_message is not None:
        value = cli_value(options.gambit_message)
        text = value if isinstance(value, str) else js_json(value)
        case.messages.append(Message("user", [Segment(text, given)]))


def _notes(
    case: RenderedCase, meta: dict[str, Any], path: str, front: str, respond: bool, allow_end: bool
) -> None:
    params = meta.get("modelParams")
    has_params = isinstance(params, dict) and (params.get("model") or "temperature" in params)
    if not has_params:
        case.warnings.append(
            Diagnostic(
                f"Deck {path} has no model and no executor (add run or execute to the deck "
                "definition): gambit runs a markdown deck only when its [modelParams] names a model "
                "or a temperature",
                path,
                1,
                severity="error",
            )
        )
    if has_params and (respond or allow_end):
        enabled = ", ".join(name for name, on in (("respond", respond), ("allowEnd", allow_end)) if on)
        case.warnings.append(
            Diagnostic(
                f"[gambit] Deck {path} enables removed synthetic response controls ({enabled}). "
                f"{_REMOVED_CONTROLS} (gambit refuses to run this deck)",
                path,
                key_line(front, "respond") or key_line(front, "allowEnd"),
                severity="error",
            )
        )
    for key, note in _NOTED_KEYS.items():
        if meta.get(key) is not None:
            case.warnings.append(Diagnostic(note, path, key_line(front, key)))
    response = meta.get("responseSchema", meta.get("outputSchema"))
    if response:
        case.warnings.append(
            Diagnostic(
                f"gambit asks for structured output (text.format json_schema, strict) from "
                f"{response} when that Zod schema is an object; the inspector does not run it, so the "
                "export carries no response format",
                path,
                key_line(front, "responseSchema"),
            )
        )
    if isinstance(meta.get("permissions"), dict):
        case.warnings.append(
            Diagnostic(
                "permissions decide which of gambit's built-in tools (read_file, list_dir, "
                "grep_files, apply_patch, exec) the model is offered; the run's workspace and "
                "session permissions can narrow them further",
                path,
                key_line(front, "permissions"),
                severity="info",
            )
        )


def _render_card(loader: Loader, path: str, text: str) -> RenderedDocument:
    card = loader.card(path, text, (path,))
    case = RenderedCase(
        id=deck_id(path),
        messages=[_system_message(card.pieces, path, text)],
        span=LineSpan(path, 1, max(1, text.count("\n") + 1)),
        tools=_action_tools(loader, _card_actions(card)),
    )
    case.warnings.append(
        Diagnostic(
            "a card is never sent on its own: this is the text a deck that embeds it gets in its place, "
            "and its tools are the actions it gives that deck (which adds its own tools)",
            path,
        )
    )
    document = RenderedDocument(path=path, kind="deck", cases=[case])
    document.warnings.extend(loader.warnings)
    return document


__all__ = ["SCHEMAS", "deck_id", "render_gambit_deck"]
