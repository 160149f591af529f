"""A promptfoo config as its evaluations: every test (scenarios after the tests) times each
combination of its list vars, times each provider it runs on, times each prompt that provider runs
(the evaluator's buildRunEvalOptions), numbered as promptfoo numbers them (`testIdx` per var
combination, `promptIdx` per provider × prompt column).

Each evaluation is the request body promptfoo sends, read back as a case of that API (so the
exporters give that body again), its messages' text traced to where the prompt and vars are
written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec
import yaml

from ..agentv.nunjucks import Where
from ..agentv.pieces import Piece, segments
from ..bundle import Bundle
from ..conversations import anthropic, gemini, openai_chat, read_with, responses
from ..conversations import bedrock as bedrock_converse
from ..model import (
    Diagnostic,
    GraderPrompt,
    InputError,
    LineSpan,
    Origin,
    OriginKind,
    RenderedCase,
    RenderedDocument,
    Segment,
)
from ..options import RenderOptions
from ..yaml_lines import Node
from . import bedrock, vertex
from .conversation import Conversations
from .detect import claimed_by_keys
from .gemini import load_response_format, load_tools, prepare_instruction
from .gemini import merge_prompt_config as merge_gemini_prompt_config
from .gemini import prepare_config as prepare_gemini_config
from .graders import (
    CANDIDATE_PLACEHOLDER,
    STATEMENTS_PLACEHOLDER,
    STEPS_PLACEHOLDER,
    Judge,
    JudgeNotBuilt,
    judges,
    render_assertion_value,
    resolve_grading_references,
    select_best,
)
from .judge_trace import trace_messages
from .prompts import Prompt, read_prompts
from .providers import (
    ANTHROPIC,
    BEDROCK_CONVERSE,
    BEDROCK_INVOKE,
    ECHO,
    GEMINI_APIS,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    VERTEX_CLAUDE,
    VERTEX_GEMINI,
    VERTEX_LLAMA,
    VERTEX_PALM,
    Provider,
    body_for,
    read_providers,
)
from .render import PromptRenderer, Rendered, render_prompt
from .source import FILE_PREFIX, Source
from .testcases import TestCase, merge_default, read_default_test, read_tests, scenario_tests
from .variables import Variables, load_files, prepare

KIND = "promptfoo"
# The config key of the structured-output format each API's provider reads through
# maybeLoadResponseFormatFromExternalFile (a `file://` there is the format's file).
RESPONSE_FORMAT_KEYS = {
    OPENAI_CHAT: "response_format",
    OPENAI_RESPONSES: "response_format",
    ANTHROPIC: "output_format",
}
# The metadata key holding the body promptfoo sends, where the case does not give it back. It is
# defined here, where it is written, so that this module does not import the contract (which
# imports the exporters, which import the formats, which import this module).
SENT = "promptfoo_sent"
# Converse reads its tool choice under both names, the first given winning.
TOOL_CHOICE_KEYS = ("tool_choice", "toolChoice")


AGENTV_TOO = (
    "read as a promptfoo config: `auto` reads a file whose top-level keys are `prompts`, "
    "`providers` and `tests`, with none of agentv's keys or file names, as promptfoo's. agentv's newest "
    "commit reads this file too and sends other messages (its default system prompt first; a test "
    "without an `id` skipped): choose the input format `agentv` to see what agentv sends."
)


def _say_agentv_reads_it_too(source: Source, path: str, root: Node, options: RenderOptions) -> None:
    """When `auto` took the file for promptfoo's by its keys, the page says agentv reads it too."""
    if options.input_format == "auto" and claimed_by_keys(path):
        source.warn(AGENTV_TOO, path, root.start_line)


def render_promptfoo_file(bundle: Bundle, path: str, options: RenderOptions) -> RenderedDocument:
    # The render settings are agentv's and gambit's (profiles, guideline patterns, a deck's
    # context): a promptfoo config has its own in the file.
    source = Source(bundle, path)
    text = source.read_text(path)
    if text is None:
        raise InputError("no such file", path)
    root = source.tree(path, text)
    if root is None or not isinstance(root.value, dict):
        raise InputError("a promptfoo config is a YAML or JSON object", path, 1)
    _say_agentv_reads_it_too(source, path, root, options)
    prompts = read_prompts(source, root.get("prompts"))
    providers = read_providers(source, root.get("providers"))
    tests = [resolve_grading_references(test, providers) for test in _all_tests(source, root)]
    env_node = root.get("env")
    env = env_node.plain() if env_node is not None and isinstance(env_node.value, dict) else {}
    for key in ("nunjucksFilters", "extensions"):
        if root.get(key) is not None:
            source.warn(f"`{key}` is JavaScript the inspector does not run", path, root.value[key].start_line)
    columns = [
        (provider, [prompt for prompt in prompts if prompt_allowed(prompt, provider.prompts)])
        for provider in providers
    ]
    cases: list[RenderedCase] = []
    run = Run(env, Conversations())
    test_idx = 0
    for test in tests:
        for values in var_combinations(source, test):
            row = _evaluations(source, test, values, test_idx, columns, run)
            _add_select_best(source, test, values, row, env)
            cases.extend(row)
            test_idx += 1
    return RenderedDocument(path, KIND, cases, source.warnings)


def _all_tests(source: Source, root: Node) -> list[TestCase]:
    """The tests, then the scenarios' (buildTestsFromSuite); one empty test when there are
    neither."""
    default = read_default_test(source, root.get("defaultTest"))
    tests = [merge_default(test, default) for test in read_tests(source, root.get("tests"))]
    tests.extend(scenario_tests(source, root.get("scenarios"), default))
    if not tests and root.get("scenarios") is None:
        tests = [merge_default(TestCase({}, {}, source.path, 1), default)]
    return tests


def prompt_allowed(prompt: Prompt, allowed: list[str] | None) -> bool:
    """isPromptAllowed / doesPromptRefMatch: by label or id, `Group:*` and `Group` prefixes."""
    if allowed is None:
        return True
    return any(_prompt_ref_matches(str(ref), prompt) for ref in allowed)


def _prompt_ref_matches(ref: str, prompt: Prompt) -> bool:
    names = [name for name in (prompt.label, prompt.id) if name]
    if ref in names:
        return True
    if ref.endswith("*") and any(name.startswith(ref[:-1]) for name in names):
        return True
    return any(name.startswith(f"{ref}:") for name in names)


def provider_allowed(provider: Provider, allowed: list[str] | None) -> bool:
    if allowed is None:
        return True
    names = [name for name in (provider.label, provider.id) if name]
    return any(
        str(ref) in names
        or (str(ref).endswith("*") and any(name.startswith(str(ref)[:-1]) for name in names))
        for ref in allowed
    )


def var_combinations(source: Source, test: TestCase) -> list[dict]:
    """generateVarCombinations: a list of strings gives one combination per value, a `file://`
    glob one per file; any other list is one value."""
    combinations: list[dict] = [{}]
    for name, value in test.vars.items():
        if isinstance(value, str) and value.startswith(FILE_PREFIX):
            choices: list = _file_choices(source, value, test.origins.get(name))
        elif isinstance(value, list) and value and isinstance(value[0], str):
            choices = value
        else:
            choices = [value]
        combinations = [{**combination, name: choice} for combination in combinations for choice in choices]
    return combinations


def _file_choices(source: Source, value: str, where: Where | None) -> list[str]:
    pattern = value[len(FILE_PREFIX) :]
    full = source.resolve(pattern)
    if full is None:
        return [value]
    paths = source.glob(full, where.first_line if where else None, where.path if where else None)
    folder = source.folder
    if not paths:
        return [value]  # promptfoo stops here ("No files found for variable"); named when read
    return [FILE_PREFIX + (item[len(folder) + 1 :] if folder else item) for item in paths]


@dataclass
class Run:
    """What the evaluations of one config share: its `env`, and the conversations so far."""

    env: dict
    conversations: Conversations
    # The providers called so far, in promptfoo's order (a Bedrock provider makes its client then).
    called: set[str] = field(default_factory=set)


def _evaluations(
    source: Source,
    test: TestCase,
    values: dict,
    test_idx: int,
    columns: list[tuple[Provider, list[Prompt]]],
    run: Run,
) -> list[RenderedCase]:
    cases = []
    prompt_idx = 0
    for provider, prompts in columns:
        allowed = provider_allowed(provider, test.providers)
        for prompt in prompts:
            if allowed and prompt_allowed(prompt, test.prompts):
                cases.append(
                    _evaluation(source, test, dict(values), (test_idx, prompt_idx), provider, prompt, run)
                )
            prompt_idx += 1
    return cases


def _evaluation(
    source: Source,
    test: TestCase,
    values: dict,
    indices: tuple[int, int],
    provider: Provider,
    prompt: Prompt,
    run: Run,
) -> RenderedCase:
    test_idx, prompt_idx = indices
    span = LineSpan(test.path, test.line, test.line)
    metadata = {
        "promptfoo": {
            "test_idx": test_idx,
            "prompt_idx": prompt_idx,
            "provider": provider.key,
            "prompt": prompt.label,
            "description": test.description,
        }
    }
    case_id = f"test {test_idx} · prompt {prompt_idx} · {provider.key}"
    why = (
        prompt.unsupported
        or provider.unsupported
        or ("; ".join(test.unsupported) if test.unsupported else None)
    )
    if why:
        return RenderedCase(
            case_id, [], [Diagnostic(f"not rendered: {why}", test.path, test.line)], span, why, metadata
        )
    warnings: list[Diagnostic] = []
    variables = Variables(values, dict(test.origins))
    for problem in load_files(source, variables, test.line):
        warnings.append(Diagnostic(problem, test.path, test.line))
    prepare(variables)
    key = Conversations.key(provider, prompt, prompt_idx, test.conversation_id)
    run.conversations.attach(key, prompt, variables.values)
    renderer = PromptRenderer(variables.values, variables.origins, run.env)
    try:
        case, prompt_text = _request_case(source, test, provider, prompt, renderer, warnings)
        # The echo provider's answer is the prompt it was given: its judges are fully known.
        transformed = _answer_transformed(test, warnings)
        answer = _echoed(prompt_text) if provider.api == ECHO and not transformed else CANDIDATE_PLACEHOLDER
        run.conversations.record(key, prompt_text, answer)
    except InputError as error:
        why = error.diagnostic.message.replace(
            "agentv's nunjucks fails this file", "promptfoo fails this evaluation"
        )
        warnings.append(
            Diagnostic(
                f"not rendered: {why}", error.diagnostic.path or test.path, error.diagnostic.line or test.line
            )
        )
        return RenderedCase(case_id, [], warnings, span, why, metadata)
    # promptfoo calls the provider (a Bedrock one makes its client then) only once the prompt
    # has rendered.
    run.called.add(provider.key)
    case.id, case.span = case_id, span
    case.warnings = [*warnings, *renderer.warnings]
    case.metadata.update(metadata)
    case.metadata["promptfoo"]["answer"] = answer
    _add_judges(source, case, test, variables.values, (prompt_text, answer), run)
    return case


def _answer_transformed(test: TestCase, warnings: list[Diagnostic]) -> bool:
    """A test's `transform` (or `postprocess`) turns the answer into what its judges are given,
    after the request: the request is as rendered; the judges hold the placeholder."""
    if not (test.options.get("transform") or test.options.get("postprocess")):
        return False
    warnings.append(
        Diagnostic(
            "the answer passes through this test's transform (JavaScript or Python) before its "
            "assertions see it; the inspector does not run it, so its judges hold the placeholder",
            test.path,
            test.line,
        )
    )
    return True


def _request_case(
    source: Source,
    test: TestCase,
    provider: Provider,
    prompt: Prompt,
    renderer: PromptRenderer,
    warnings: list[Diagnostic],
) -> tuple[RenderedCase, str]:
    """The body the provider sends, read back as a case of its API, its text traced."""
    options = test.options
    rendered = render_prompt(
        prompt, renderer, source.path, str(options.get("prefix") or ""), str(options.get("suffix") or "")
    )
    if provider.api == ECHO:
        return _echo_case(rendered, source.path, test, warnings), rendered.text or ""
    wrapped = _wrapped_messages(rendered.messages, provider, test, warnings)
    config = _prepared_config(source, provider, prompt, renderer.values)
    case, body = _read_back(source, provider, rendered, config, wrapped, renderer.env)
    api = case.metadata["format"]  # an InvokeModel body is read as the API its messages are closest to
    if api in (ANTHROPIC, BEDROCK_CONVERSE) and _repeats_role(body.get("messages")):
        warnings.append(
            Diagnostic(
                "promptfoo sends consecutive turns of the same role here; the "
                "export merges them into one turn, as the API reads them",
                test.path,
                test.line,
            )
        )
    _warn_of_sampling(api, provider, body, test, warnings)
    _trace(case, rendered.pieces, api)
    return case, rendered.text or ""


# The sampling fields the Anthropic Messages API's current request types (the anthropic SDK 2.14)
# no longer have: promptfoo 0.123.1 still sends them to the models its Claude table does not cover.
ANTHROPIC_SAMPLING = ("temperature", "top_p", "top_k")


def _warn_of_sampling(
    api: str, provider: Provider, body: dict, test: TestCase, warnings: list[Diagnostic]
) -> None:
    sent = [name for name in ANTHROPIC_SAMPLING if name in body]
    if api == ANTHROPIC and provider.api == ANTHROPIC and sent:
        warnings.append(
            Diagnostic(
                f"promptfoo sends {', '.join(sent)} to {provider.model}; the Anthropic Messages API's "
                f"current request types (the anthropic SDK 2.14) have no sampling fields, so the API "
                f"may refuse this request: the payload is promptfoo's body as it sends it",
                test.path,
                test.line,
            )
        )


def _prepared_config(source: Source, provider: Provider, prompt: Prompt, values: dict) -> dict:
    """The provider's config with the prompt's over it, and what the provider's call does to it
    before building the body (Claude, Llama and PaLM on Vertex: their own config only): Gemini's merge, vars rendered and files read (Gemini's whole
    config, Claude on Vertex's systemInstruction, Bedrock Converse's tools)."""

    def read(reference: str) -> object:
        return _config_file(source, reference)

    if provider.api in GEMINI_APIS:
        merged = merge_gemini_prompt_config(provider.config, prompt.config or {})
        return prepare_gemini_config(merged, values, read, vertex=provider.api == VERTEX_GEMINI)
    if provider.api in (VERTEX_CLAUDE, VERTEX_LLAMA, VERTEX_PALM):
        # callClaudeApi, callLlamaApi and callPalm2Api read the provider's config, not the prompt's.
        config = dict(provider.config)
    else:
        config = {**provider.config, **(prompt.config or {})}
    if provider.api == VERTEX_CLAUDE:
        return prepare_instruction(config, values, read)
    if provider.api == BEDROCK_CONVERSE:
        return _converse_config(config, prompt.config or {}, values, read)
    key = RESPONSE_FORMAT_KEYS.get(provider.api or "")
    if key and config.get(key) is not None:
        config[key] = load_response_format(config[key], values, read)
    return config


def _converse_config(config: dict, prompt_config: dict, values: dict, read: Callable[[str], object]) -> dict:
    """buildToolConfig takes the prompt's tool choice, under either name, before the provider's
    (`tool_choice` before `toolChoice` in each), and renders and loads the tools."""
    if any(prompt_config.get(key) is not None for key in TOOL_CHOICE_KEYS):
        config = {key: value for key, value in config.items() if key not in TOOL_CHOICE_KEYS}
        config.update({key: prompt_config[key] for key in TOOL_CHOICE_KEYS if key in prompt_config})
    if config.get("tools") is not None:
        config["tools"] = load_tools(config["tools"], values, read, "Bedrock Converse")
    return config


def _read_back(
    source: Source, provider: Provider, rendered: Rendered, config: dict, wrapped: list | None, env: dict
) -> tuple[RenderedCase, dict]:
    """The body the provider sends, read as a case of its API (and the body read); a body whose
    `messages` is the object around the list is read with the list, and keeps the body it sends."""
    api, model, text = provider.api or "", provider.model, rendered.text or ""
    if wrapped is None:
        return request_case(api, model, rendered.messages, text, config, env, source.path)
    body = body_for(api, model, rendered.messages, text, config, env)
    case = read_request({**body, "messages": wrapped}, api, source.path)
    case.metadata[SENT] = body
    return case, body


def _config_file(source: Source, reference: str) -> object:
    """A `file://` value in a provider's config, as maybeLoadFromExternalFile reads it: JSON and
    YAML parsed, any other file its text."""
    path, text = source.require_text(reference, None)
    if path.endswith(".json"):
        return json.loads(text)
    if path.endswith((".yaml", ".yml")):
        return yaml.safe_load(text)
    return text


def _wrapped_messages(
    messages: object, provider: Provider, test: TestCase, warnings: list[Diagnostic]
) -> list | None:
    """A prompt that renders to a JSON object holding a `messages` list (a YAML prompt file
    written as `messages:`): promptfoo's OpenAI Chat provider sends the whole object as
    `messages`. The evaluation shows the inner list, and the body promptfoo sends (the contract's
    payload) keeps the object. Any other JSON that is not a list of messages is not rendered."""
    if isinstance(messages, list) or provider.api in (
        ANTHROPIC,
        BEDROCK_CONVERSE,
        BEDROCK_INVOKE,
        VERTEX_CLAUDE,
        VERTEX_PALM,
    ):
        return None  # Anthropic, Bedrock and PaLM parse the rendered text themselves
    inner = messages.get("messages") if isinstance(messages, dict) else None
    if provider.api == OPENAI_CHAT and isinstance(inner, list) and inner:
        warnings.append(
            Diagnostic(
                'promptfoo sends this prompt\'s object as `messages` (`"messages": {"messages": '
                "[...]}`), where OpenAI takes a list of messages: OpenAI refuses the request. The "
                "payload is promptfoo's body; the messages shown, and `--to` this API, are the list "
                "inside it, as OpenAI would take them",
                test.path,
                test.line,
            )
        )
        return inner
    raise InputError(
        f"the rendered prompt is JSON but not a list of messages: promptfoo "
        f"would send it as `messages` itself ({type(messages).__name__}"
        f"), a request the API refuses"
    )


def _echoed(prompt_text: str) -> object:
    """The echo provider's answer as promptfoo grades it: the prompt, read as JSON when it is JSON
    (its judges see a chat prompt's messages each as JSON, joined by commas, as promptfoo
    writes an array)."""
    try:
        return json.loads(prompt_text)
    except ValueError:
        return prompt_text


def _echo_case(rendered: Rendered, path: str, test: TestCase, warnings: list[Diagnostic]) -> RenderedCase:
    """The echo provider sends no request: the case is the prompt it is given (as chat messages
    when it is a chat prompt, else one user message), with no payload."""
    messages = rendered.messages
    if not (
        isinstance(messages, list)
        and messages
        and all(
            isinstance(item, dict)
            and isinstance(item.get("role"), str)
            and isinstance(item.get("content"), str)
            for item in messages
        )
    ):
        messages = [{"role": "user", "content": rendered.text or ""}]
        rendered.pieces = [None]
    case = read_request({"model": ECHO, "messages": messages}, OPENAI_CHAT, path)
    # Not a request of any API: no payload, nothing to export as the body it sends.
    case.metadata.pop("format", None)
    case.metadata.pop("request", None)
    warnings.append(
        Diagnostic(
            "the echo provider sends no request (no payload): it answers with the rendered prompt, "
            "which its judges are given as the candidate's answer",
            test.path,
            test.line,
        )
    )
    _trace(case, rendered.pieces, OPENAI_CHAT)
    return case


def request_case(
    api: str, model: str, messages: object, text: str, config: dict, env: dict, path: str
) -> tuple[RenderedCase, dict]:
    """The body promptfoo sends to `api`, read back as a case of that API (and the body of the
    request read: an InvokeModel body, one shape per model family, is read as the request of the
    API its messages are closest to, and kept whole in the case as the payload, as is PaLM's
    `:predict` body, read as OpenAI Chat)."""
    body = body_for(api, model, messages, text, config, env)
    if api == VERTEX_PALM:
        neutral_api, neutral = OPENAI_CHAT, vertex.palm_as_chat(model, body)
    elif api == BEDROCK_INVOKE:
        neutral_api, neutral = bedrock.neutral_request(model, text, body, config)
    else:
        return read_request(body, api, path, model), body
    case = read_request(neutral, neutral_api, path)
    case.metadata[SENT] = body
    return case, neutral


def _repeats_role(messages: object) -> bool:
    roles = (
        [item.get("role") for item in messages if isinstance(item, dict)]
        if isinstance(messages, list)
        else []
    )
    return any(first == second for first, second in zip(roles, roles[1:], strict=False))


def _trace(case: RenderedCase, pieces: list[list[Piece] | None], api: str | None) -> None:
    """Each message whose text is one rendered string gets that string's pieces as segments."""
    offset = 1 if api == "anthropic" and case.metadata.get("system_message") else 0
    for index, message_pieces in enumerate(pieces):
        position = index + offset
        if message_pieces is None or position >= len(case.messages):
            continue
        message = case.messages[position]
        text = "".join(piece.text for piece in message_pieces)
        if (
            len(message.segments) != 1
            or message.segments[0].text != text
            or message.segments[0].media is not None
        ):
            continue
        traced = segments(message_pieces)
        if message.blocks and len(traced) > 1:
            # Sent as one content block: one segment, pointing where the prompt's text starts.
            traced = [Segment(text, message_pieces[0].origin())]
        case.messages[position] = msgspec.structs.replace(message, segments=traced)


def _add_judges(
    source: Source,
    case: RenderedCase,
    test: TestCase,
    values: dict,
    asked: tuple[str, object],
    run: Run,
) -> None:
    """`asked`: the prompt the candidate is given and its answer (the placeholder unless known)."""

    def warn(message: str, assertion: dict) -> None:
        case.warnings.append(Diagnostic(message, assertion.get("__path"), assertion.get("__line")))

    case.metadata["promptfoo"]["graders"] = []
    prompt_text, answer = asked
    called = frozenset(run.called)
    for judge in judges(test.asserts, values, test.options, prompt_text, warn, answer, called):
        _attach(source, case, test, judge, run.env, _known_texts(case, test, judge, values))


# The APIs promptfoo's requests are sent in here, read by their own readers: the format registry
# registers promptfoo, so reading through it would make the two import each other.
_REQUEST_APIS = {
    module.FORMAT.name: module.FORMAT
    for module in (openai_chat, responses, anthropic, gemini, bedrock_converse)
}
# Bodies of those APIs sent to Vertex AI.
_REQUEST_APIS.update(
    {VERTEX_GEMINI: gemini.FORMAT, VERTEX_CLAUDE: anthropic.FORMAT, VERTEX_LLAMA: openai_chat.FORMAT}
)


def read_request(body: dict, api: str, path: str, model: str = "") -> RenderedCase:
    """A request body promptfoo sends, read as a raw request of its API would be. Claude on
    Vertex names its model in the URL: the case is read with it, and keeps the body as sent."""
    request = _REQUEST_APIS.get(api)
    if request is None:
        raise InputError(f"promptfoo request in an API this reader does not know: {api!r}", path)
    if api == VERTEX_CLAUDE:
        case = read_with(request, {"model": model, **body}, path)
        case.metadata[SENT] = body
        return case
    return read_with(request, body, path)


def _attach(
    source: Source,
    case: RenderedCase,
    test: TestCase,
    judge: Judge,
    env: dict,
    known: list[Segment] | None = None,
) -> None:
    path = judge.assertion.get("__path") or test.path
    line = judge.assertion.get("__line") or test.line
    try:
        judge_case, _body = request_case(
            judge.api, judge.model, judge.messages, judge.text, judge.config, env, source.path
        )
    except InputError as error:
        # A judge whose request cannot be built (its provider's config is refused) is named at
        # its assertion; the evaluation itself is still rendered.
        why = error.diagnostic.message
        case.warnings.append(
            Diagnostic(f"the `{judge.name}` assertion's judge is not rendered: {why}", path, line)
        )
        return
    # The template's own words: promptfoo's, or the config's rubricPrompt (at the assertion's line
    # when it is written there; defaultTest's and a test's options give no line of their own).
    rest = (
        Origin(OriginKind.CASE_TEXT, path, line, line)
        if judge.assertion.get("rubricPrompt")
        else Origin(OriginKind.DEFAULT_PROMPT)
    )
    messages = trace_messages(list(judge_case.messages), known or [], rest)
    asks = judge.model or None
    case.graders.append(GraderPrompt(judge.name, messages, span=LineSpan(path, line, line), judge=asks))
    # What the judge's request keeps beside its messages (its API, its fields, how its input is
    # shaped), for the exporters to give that request back.
    entry: dict = {"name": judge.name, "metadata": judge_case.metadata}
    if judge_case.tools:
        # A judge configured with tools (Bedrock Converse's) sends them: kept to export its request.
        entry["tools"] = [dataclasses.asdict(tool) for tool in judge_case.tools]
    case.metadata["promptfoo"]["graders"].append(entry)


def _known_texts(case: RenderedCase, test: TestCase, judge: Judge, values: dict) -> list[Segment]:
    """The texts a judge is given whose lines are known, most telling first: the placeholders for
    what only the run knows, the assertion's value as rendered, the candidate's traced segments
    (its prompt, as closed QA and factuality quote it), then each var's value."""
    known = [
        Segment(placeholder, Origin(OriginKind.MARKER))
        for placeholder in (CANDIDATE_PLACEHOLDER, STEPS_PLACEHOLDER, STATEMENTS_PLACEHOLDER)
    ]
    assertion = judge.assertion
    path, line = assertion.get("__path") or test.path, assertion.get("__line") or test.line
    value = assertion.get("value")
    if isinstance(value, str) and line is not None:
        written = Origin(OriginKind.CASE_TEXT, path, line, line)
        known.append(Segment(value, written))
        # A value promptfoo cannot render is reported where the judge is built.
        with contextlib.suppress(Exception):
            known.append(Segment(render_assertion_value(value, values), written))
    known.extend(segment for message in case.messages for segment in message.segments)
    for name, text in values.items():
        where = test.origins.get(name)
        if isinstance(text, str) and where is not None:
            known.append(
                Segment(text, Origin(where.kind, where.path, where.first_line, where.last_line, where.via))
            )
    return known


def _add_select_best(
    source: Source, test: TestCase, values: dict, row: list[RenderedCase], env: dict
) -> None:
    """select-best asks once per test row, after all its evaluations: shown with the last."""
    rendered = [case for case in row if not case.skipped]
    for assertion in test.asserts:
        if assertion.get("type") != "select-best":
            continue
        if len(rendered) < 2:
            for case in row:
                case.warnings.append(
                    Diagnostic(
                        "select-best needs at least two outputs to compare; promptfoo fails it here",
                        assertion.get("__path"),
                        assertion.get("__line"),
                    )
                )
            continue
        try:
            answers = [case.metadata["promptfoo"].get("answer", CANDIDATE_PLACEHOLDER) for case in rendered]
            judge = select_best(assertion, values, test.options, answers)
        except JudgeNotBuilt as error:
            rendered[-1].warnings.append(
                Diagnostic(
                    f"the `select-best` assertion's judge is not rendered: {error}",
                    assertion.get("__path"),
                    assertion.get("__line"),
                )
            )
            continue
        _attach(source, rendered[-1], test, judge, env, _known_texts(rendered[-1], test, judge, values))
