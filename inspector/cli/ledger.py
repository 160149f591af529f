"""`ledger`: what one run of a suite costs, per source file and per case, as JSON."""

from __future__ import annotations

import argparse
import json

from inspector.cli.console import (
    ConsoleCommand,
    Options,
    Output,
    UsageError,
    cli_render_options,
    contract_run,
    file_in_root,
)
from inspector.core.export import PROVIDERS as EXPORT_PROVIDERS
from inspector.core.export import ExportSettings
from inspector.core.formats import INPUT_FORMATS
from inspector.core.options import PROFILES
from inspector.core.render_settings import PRICINGS, parse_pricing
from inspector.rendering.untrusted import RenderPolicy, render_untrusted


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--root", help="bundle root (default: nearest folder with .git or .agentv)")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument(
        "--patterns", nargs="+", metavar="GLOB", help="guideline patterns (default: from .agentv/config.yaml)"
    )
    parser.add_argument("--system-prompt", help="configured default system prompt")
    parser.add_argument("--max-tokens", type=int, help="token budget: drop the oldest messages")
    parser.add_argument("--input-format", default="auto", choices=INPUT_FORMATS)
    parser.add_argument("--provider", default="openai-chat", choices=EXPORT_PROVIDERS)
    parser.add_argument("--model", help="the model priced (default: the provider's)")
    parser.add_argument(
        "--pricing",
        default="configured",
        choices=PRICINGS,
        help="configured: each case at the model its input names, the rest at --provider; "
        "picked: every request at --provider",
    )
    parser.add_argument(
        "--max-output-tokens", type=int, help="prices each case's output at this many tokens, an upper bound"
    )


def _ledger(options: Options, output: Output, policy: RenderPolicy) -> str:
    from inspector.core.ledger import build_ledger  # prices: a tenth of a second to import

    bundle, relative = file_in_root(options["path"], options["root"])
    max_output = options["max_output_tokens"]
    if max_output is not None and not 1 <= max_output <= 1_000_000:
        raise UsageError("--max-output-tokens must be between 1 and 1,000,000")
    render_options = cli_render_options(options)
    document = render_untrusted(bundle, relative, render_options, policy)
    for warning in document.warnings:
        output.err(f"warning: {warning.located()}")
    export = ExportSettings(model=options["model"], max_tokens=max_output)
    return json.dumps(
        build_ledger(document, options["provider"], export, parse_pricing(options["pricing"])).as_dict(),
        indent=2,
        ensure_ascii=False,
    )


LEDGER = ConsoleCommand(
    "Tokens per source file and per case, the cost of one run, and the prompt-cache map.",
    add_ledger_arguments,
    contract_run(_ledger, "internal error"),
)
