"""`render`: the CLI contract, one file's cases as JSON or as provider requests (`manage.py render`)."""

from __future__ import annotations

import argparse
import json

from inspector.cli.console import (
    ConsoleCommand,
    Options,
    Output,
    UsageError,
    add_gambit_core_argument,
    cli_render_options,
    contract_run,
    file_in_root,
)
from inspector.core.bundle import DirectoryBundle
from inspector.core.export import FORMATS as EXPORT_FORMATS
from inspector.core.export import PROVIDERS as EXPORT_PROVIDERS
from inspector.core.export import ExportSettings
from inspector.core.formats import INPUT_FORMATS
from inspector.core.model import RenderedCase
from inspector.core.options import PROFILES
from inspector.rendering.untrusted import RenderPolicy, render_untrusted


def add_render_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--root", help="bundle root (default: nearest folder with .git or .agentv)")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument("--case", dest="case_id", help="render only the case or sample with this id")
    parser.add_argument(
        "--patterns", nargs="+", metavar="GLOB", help="guideline patterns (default: from .agentv/config.yaml)"
    )
    parser.add_argument("--system-prompt", help="configured default system prompt")
    parser.add_argument("--max-tokens", type=int, help="token budget: drop the oldest messages")
    parser.add_argument("--input-format", default="auto", choices=INPUT_FORMATS)
    parser.add_argument(
        "--grader-provider",
        choices=["agentv"],
        help="as agentv's --grader-provider agentv: the run's judge is agentv's own agent, asked "
        "with a system and a user prompt (agentv-5-next-58f316c profile)",
    )
    parser.add_argument(
        "--graders",
        action="store_true",
        help='add "graders": [{"name", "messages"}] to each case: what '
        "agentv 4's LLM graders send (agentv-4 profile)",
    )
    parser.add_argument(
        "--context",
        dest="gambit_context",
        help="gambit decks: the context input (JSON or text), as gambit run's",
    )
    parser.add_argument(
        "--context-sample",
        dest="gambit_context_sample",
        metavar="NAME",
        help="gambit decks: the context input from the deck's samples/ "
        'folder, by file name (as --context "$(cat samples/NAME.json)")',
    )
    parser.add_argument(
        "--message", dest="gambit_message", help="gambit decks: the first user message, as gambit run's"
    )
    add_gambit_core_argument(parser)
    parser.add_argument(
        "--conversation",
        dest="gambit_conversation",
        help="gambit grader decks: the conversation to grade (JSON array of {role, content})",
    )
    parser.add_argument(
        "--conversation-sample",
        dest="gambit_conversation_sample",
        metavar="NAME",
        help="gambit grader and scenario decks: the "
        "conversation from a JSON file of the deck's samples/ by name, or "
        "from a JSON file of the bundle by its path (a saved state.json)",
    )
    parser.add_argument("--to", choices=EXPORT_PROVIDERS, help="export a provider request")
    parser.add_argument("--format", default="json", choices=EXPORT_FORMATS)
    parser.add_argument("--batch", action="store_true", help="with --to: one batch JSONL line per case")
    parser.add_argument("--model", help="with --to: the model name (default: per provider)")
    parser.add_argument("--max-output-tokens", type=int, help="with --to: max_tokens in the request")
    parser.add_argument("--temperature", type=float, help="with --to: sampling temperature")
    parser.add_argument(
        "--cache-breakpoints",
        action="store_true",
        help="with --to anthropic: cache_control where the file's cache map "
        "finds a shared prefix (at most four)",
    )


def _guidelines(
    bundle: DirectoryBundle, path: str, case: RenderedCase, patterns: tuple[str, ...] | None
) -> dict:
    """`guidelines`: why each guideline file is one and the lines of it sent, one span per line when
    the text is its lines verbatim (agentv files that send any)."""
    from inspector.core.agentv.guideline_reason import traced_guidelines

    found = traced_guidelines(bundle, path, case, patterns)
    return {"guidelines": found} if found else {}


def _render(options: Options, output: Output, policy: RenderPolicy) -> str:
    bundle, relative = file_in_root(options["path"], options["root"])
    render_options = cli_render_options(options)
    # In a bounded worker: a file that crashes the parser or exhausts the limits is exit 2.
    document = render_untrusted(bundle, relative, render_options, policy)
    cases = document.cases
    if options["case_id"] is not None:
        cases = [case for case in cases if case.id == options["case_id"]]
        if not cases:
            known = ", ".join(case.id for case in document.cases[:20])
            raise UsageError(f"{relative}: no case with id {options['case_id']!r} (ids: {known})")
    for warning in document.warnings:
        output.err(f"warning: {warning.located()}")
    if options["to"] is None:
        from inspector.core.serialize import case_contract, graders_contract

        chosen = (
            {"profile": document.profile, "profile_reason": document.profile_reason}
            if document.profile
            else {}
        )
        if document.kind == "promptfoo":
            from inspector.core.promptfoo.contract import evaluation_contract

            return json.dumps(
                [case_contract(case) | evaluation_contract(case) for case in cases],
                indent=2,
                ensure_ascii=False,
            )
        return json.dumps(
            [
                case_contract(case)
                | chosen
                | _guidelines(bundle, relative, case, render_options.guideline_patterns)
                | ({"graders": graders_contract(case)} if options["graders"] else {})
                for case in cases
            ],
            indent=2,
            ensure_ascii=False,
        )
    return _export(cases, options, document.cases, output)


def cached_exports(
    cases: list[RenderedCase], all_cases: list[RenderedCase], settings: ExportSettings, provider: str
) -> list:
    """Exports of `cases` with cache breakpoints where the whole file's cache map says."""
    from inspector.core.export import provider_spec
    from inspector.core.ledger import build_ledger, cache_marks

    mark = provider_spec(provider).export_with_breakpoints
    assert mark is not None  # the command takes the option only with such a provider
    ledger = build_ledger(all_cases, provider, settings)
    position = {id(case): number for number, case in enumerate(all_cases)}
    return [mark(case, settings, cache_marks(ledger, position[id(case)])) for case in cases]


def _export(
    cases: list[RenderedCase], options: Options, all_cases: list[RenderedCase], output: Output
) -> str:
    from inspector.core.export import batch_export, export_case, render_codes, with_cache_breakpoints

    settings = ExportSettings(
        model=options["model"], max_tokens=options["max_output_tokens"], temperature=options["temperature"]
    )
    provider = options["to"]
    if options["cache_breakpoints"]:
        if provider not in with_cache_breakpoints() or options["batch"]:
            raise UsageError(
                f"--cache-breakpoints goes with --to {' or '.join(with_cache_breakpoints())}, without --batch"
            )
        results = cached_exports(cases, all_cases, settings, provider)
        if options["format"] == "json":
            return json.dumps(
                [result.as_contract(result.case_id or "") for result in results], indent=2, ensure_ascii=False
            )
        return render_codes(results, options["format"])
    if options["batch"]:
        batch = batch_export(cases, provider, settings)
        for note in batch.notes:  # e.g. a case id the provider's custom-id rules changed
            output.err(f"note: {note}")
        return batch.jsonl
    exported = [(case, export_case(case, provider, settings)) for case in cases]
    if options["format"] == "json":
        return json.dumps(
            [result.as_contract(case.id) for case, result in exported], indent=2, ensure_ascii=False
        )
    return render_codes([result for _, result in exported], options["format"])


RENDER = ConsoleCommand(
    "Render an eval file, sample deck or conversation to the messages a model receives.",
    add_render_arguments,
    contract_run(_render, "internal error while rendering"),
)
