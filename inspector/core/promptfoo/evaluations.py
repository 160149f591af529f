"""A promptfoo config as its evaluations: every test (scenarios after the tests) times each
combination of its list vars, times each provider it runs on, times each prompt that provider runs
(the evaluator's buildRunEvalOptions), numbered as promptfoo numbers them (`testIdx` per var
combination, `promptIdx` per provider × prompt column).

Each evaluation is the request body promptfoo sends, read back as a case of that API (so the
exporters give that body again), its messages' text traced to where the prompt and vars are
written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from ..agentv.pieces import Piece, segments
from ..bundle import Bundle
from ..conversations import anthropic, gemini, openai_chat, read_with, responses
from ..conversations import bedrock as bedrock_converse
from ..model import (
    Diagnostic,
    GraderPrompt,
    InputError,
    LineSpan,
    RenderedCase,
    RenderedDocument,
    Segment,
)
from ..options import RenderOptions
from ..yaml_lines import Node
from . import bedrock
from .conversation import Conversations
from .graders import Judge, JudgeNotBuilt, judges, resolve_grading_references, select_best
from .prompts import Prompt, read_prompts
from .providers import ANTHROPIC, BEDROCK_CONVERSE, BEDROCK_INVOKE, Provider, body_for, read_providers
from .render import PromptRenderer, render_prompt
from .source import FILE_PREFIX, Source, glob_paths
from .testcases import TestCase, merge_default, read_default_test, read_tests, scenario_tests
from .variables import Variables, load_files, prepare

KIND = "promptfoo"


def render_promptfoo_file(bundle: Bundle, path: str, _options: RenderOptions) -> RenderedDocument:
    # The render settings are agentv's and gambit's (profiles, guideline patterns, a deck's
    # context): a promptfoo config has its own in the file.
    source = Source(bundle, path)
    text = source.read_text(path)
    if text is None:
        raise InputError("no such file", path)
    root = source.tree(path, text)
    if root is None or not isinstance(root.value, dict):
        raise InputError("a promptfoo config is a YAML or JSON object", path, 1)
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
            choices: list = _file_choices(source, value)
        elif isinstance(value, list) and value and isinstance(value[0], str):
            choices = value
        else:
            choices = [value]
        combinations = [{**combination, name: choice} for combination in combinations for choice in choices]
    return combinations


def _file_choices(source: Source, value: str) -> list[str]:
    pattern = value[len(FILE_PREFIX) :]
    full = source.resolve(pattern)
    if full is None:
        return [value]
    paths = glob_paths(source.bundle, full)
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
        run.conversations.record(key, prompt_text)
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
    _add_judges(source, case, test, variables.values, prompt_text, run)
    return case


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
    # Anthropic and Bedrock parse the rendered text themselves.
    if not isinstance(rendered.messages, list) and provider.api not in (
        ANTHROPIC,
        BEDROCK_CONVERSE,
        BEDROCK_INVOKE,
    ):
        raise InputError(
            f"the rendered prompt is JSON but not a list of messages: promptfoo "
            f"would send it as `messages` itself ({type(rendered.messages).__name__}"
            f"), a request the API refuses"
        )
    config = {**provider.config, **(prompt.config or {})}
    case, body = request_case(
        provider.api or "",
        provider.model,
        rendered.messages,
        rendered.text or "",
        config,
        renderer.env,
        source.path,
    )
    api = case.metadata["format"]
    if api in (ANTHROPIC, BEDROCK_CONVERSE) and _repeats_role(body.get("messages")):
        warnings.append(
            Diagnostic(
                "promptfoo sends consecutive turns of the same role here; the "
                "export merges them into one turn, as the API reads them",
                test.path,
                test.line,
            )
        )
    _trace(case, rendered.pieces, api)
    return case, rendered.text or ""


def request_case(
    api: str, model: str, messages: object, text: str, config: dict, env: dict, path: str
) -> tuple[RenderedCase, dict]:
    """The body promptfoo sends to `api`, read back as a case of that API (and the body of the
    request read: an InvokeModel body, one shape per model family, is read as the request of the
    API its messages are closest to, and kept whole in the case as the payload)."""
    body = body_for(api, model, messages, text, config, env)
    if api != BEDROCK_INVOKE:
        return read_request(body, api, path), body
    neutral_api, neutral = bedrock.neutral_request(model, text, body, config)
    case = read_request(neutral, neutral_api, path)
    case.metadata[bedrock.SENT_BODY] = body
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
    source: Source, case: RenderedCase, test: TestCase, values: dict, prompt_text: str, run: Run
) -> None:
    def warn(message: str, assertion: dict) -> None:
        case.warnings.append(Diagnostic(message, assertion.get("__path"), assertion.get("__line")))

    case.metadata["promptfoo"]["graders"] = []
    for judge in judges(test.asserts, values, test.options, prompt_text, warn, frozenset(run.called)):
        _attach(source, case, test, judge, run.env)


# The APIs promptfoo's requests are sent in here, read by their own readers: the format registry
# registers promptfoo, so reading through it would make the two import each other.
_REQUEST_APIS = {
    module.FORMAT.name: module.FORMAT
    for module in (openai_chat, responses, anthropic, gemini, bedrock_converse)
}


def read_request(body: dict, api: str, path: str) -> RenderedCase:
    """A request body promptfoo sends, read as a raw request of its API would be."""
    request = _REQUEST_APIS.get(api)
    if request is None:
        raise InputError(f"promptfoo request in an API this reader does not know: {api!r}", path)
    return read_with(request, body, path)


def _attach(source: Source, case: RenderedCase, test: TestCase, judge: Judge, env: dict) -> None:
    judge_case, _body = request_case(
        judge.api, judge.model, judge.messages, judge.text, judge.config, env, source.path
    )
    line = judge.line or test.line
    case.graders.append(
        GraderPrompt(judge.name, list(judge_case.messages), span=LineSpan(test.path, line, line))
    )
    # What the judge's request keeps beside its messages (its API, its fields, how its input is
    # shaped), for the exporters to give that request back.
    case.metadata["promptfoo"]["graders"].append({"name": judge.name, "metadata": judge_case.metadata})


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
            judge = select_best(assertion, values, test.options, len(rendered))
        except JudgeNotBuilt as error:
            rendered[-1].warnings.append(
                Diagnostic(
                    f"the `select-best` assertion's judge is not rendered: {error}",
                    assertion.get("__path"),
                    assertion.get("__line"),
                )
            )
            continue
        _attach(source, rendered[-1], test, judge, env)
