"""`manage.py render`: the inspector's command-line contract for scripts and CI.

Prints a JSON array, one object per case (or sample) in file order. Exit 0 when it rendered, even
with warnings; exit 2 with one line on stderr naming the file and line when the input is unusable.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from inspector import services
from inspector.core.bundle import DirectoryBundle
from inspector.core.decks.gambit_core_files import InstalledGambitCore
from inspector.core.export import FORMATS as EXPORT_FORMATS
from inspector.core.export import PROVIDERS as EXPORT_PROVIDERS
from inspector.core.formats import INPUT_FORMATS
from inspector.core.model import InputError
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.core.serialize import case_contract, graders_contract


def cached_exports(cases, all_cases, settings, provider):
    """Exports of `cases` with cache breakpoints where the whole file's cache map says."""
    from inspector.core.export import provider_spec
    from inspector.core.ledger import build_ledger, cache_marks

    mark = provider_spec(provider).export_with_breakpoints
    assert mark is not None  # the command offers the option only with such a provider
    ledger = build_ledger(all_cases, provider, settings)
    position = {id(case): number for number, case in enumerate(all_cases)}
    return [mark(case, settings, cache_marks(ledger, position[id(case)])) for case in cases]


def default_root(path: Path) -> Path:
    """Nearest folder holding .git or .agentv, from the path itself when it is a folder, else the
    path's own folder."""
    resolved = path.resolve()
    start = resolved if resolved.is_dir() else resolved.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / ".agentv").exists():
            return folder
    return start


class UsageError(Exception):
    pass


def add_gambit_core_argument(parser: CommandParser) -> None:
    parser.add_argument("--gambit-core", metavar="DIR",
                        help="gambit decks: an installed gambit-core folder (the one holding "
                             "snippets/), whose snippets gambit://snippets/ embeds are read from "
                             "(default: the GAMBIT_CORE_DIR environment variable)")


def gambit_core_folder(raw: str | None) -> str | None:
    """--gambit-core's folder, refused when it is not gambit-core's (no snippets/ in it)."""
    if not raw:
        return None
    if not InstalledGambitCore(raw).usable:
        raise UsageError(f"{raw} has no snippets/ folder: name gambit-core's own folder (the one "
                         "holding snippets/ and src/) with --gambit-core")
    return str(Path(raw).resolve())


def file_in_root(raw_path: str, raw_root: str | None, flag: str = "--root"
                 ) -> tuple[DirectoryBundle, str]:
    """The bundle a command reads a file in (`flag`'s folder, or the nearest .git/.agentv folder)
    and the file's path inside it; UsageError when either is wrong."""
    path = Path(raw_path)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    root = Path(raw_root) if raw_root else default_root(path)
    if not root.is_dir():
        raise UsageError(f"{root}: {flag} is not a folder")
    bundle = DirectoryBundle(root)
    relative = bundle.relative(path)
    if relative is None:
        raise UsageError(f"{path}: the file is not inside {flag} {root}")
    return bundle, relative


RENDER_SETTING_OPTIONS = ("profile", "system_prompt", "max_tokens", "input_format",
                          "gambit_context", "gambit_context_sample", "gambit_message",
                          "gambit_conversation", "gambit_conversation_sample")


def cli_render_options(options: dict) -> RenderOptions:
    """A command's render settings through the one parser (the page's and API's limits too);
    a command offers those of RENDER_SETTING_OPTIONS it declares."""
    settings = {name: options[name] for name in RENDER_SETTING_OPTIONS
                if options.get(name) is not None}
    if options.get("patterns"):
        settings["patterns"] = options["patterns"]
    try:
        parsed = parse_render_options(settings)
    except SettingsError as error:
        raise UsageError(str(error)) from None
    # Not a page or API setting: a folder of this machine, named only on its command line.
    folder = gambit_core_folder(options.get("gambit_core"))
    return parsed if folder is None else replace(parsed, gambit_core=folder)


class Command(BaseCommand):
    help = "Render an eval file, sample deck or conversation to the messages a model receives."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--root", help="bundle root (default: nearest folder with .git or .agentv)")
        parser.add_argument("--profile", default="auto", choices=PROFILES)
        parser.add_argument("--case", dest="case_id", help="render only the case or sample with this id")
        parser.add_argument("--patterns", nargs="+", metavar="GLOB",
                            help="guideline patterns (default: from .agentv/config.yaml)")
        parser.add_argument("--system-prompt", help="configured default system prompt")
        parser.add_argument("--max-tokens", type=int, help="token budget: drop the oldest messages")
        parser.add_argument("--input-format", default="auto", choices=INPUT_FORMATS)
        parser.add_argument("--graders", action="store_true",
                            help='add "graders": [{"name", "messages"}] to each case: what '
                                 "agentv 4's LLM graders send (agentv-4 profile)")
        parser.add_argument("--context", dest="gambit_context",
                            help="gambit decks: the context input (JSON or text), as gambit run's")
        parser.add_argument("--context-sample", dest="gambit_context_sample", metavar="NAME",
                            help="gambit decks: the context input from the deck's samples/ "
                                 "folder, by file name (as --context \"$(cat samples/NAME.json)\")")
        parser.add_argument("--message", dest="gambit_message",
                            help="gambit decks: the first user message, as gambit run's")
        add_gambit_core_argument(parser)
        parser.add_argument("--conversation", dest="gambit_conversation",
                            help="gambit grader decks: the conversation to grade (JSON array of "
                                 "{role, content})")
        parser.add_argument("--conversation-sample", dest="gambit_conversation_sample",
                            metavar="NAME", help="gambit grader and scenario decks: the "
                            "conversation from a JSON file of the deck's samples/ by name, or "
                            "from a JSON file of the bundle by its path (a saved state.json)")
        parser.add_argument("--to", choices=EXPORT_PROVIDERS, help="export a provider request")
        parser.add_argument("--format", default="json", choices=EXPORT_FORMATS)
        parser.add_argument("--batch", action="store_true", help="with --to: one batch JSONL line per case")
        parser.add_argument("--model", help="with --to: the model name (default: per provider)")
        parser.add_argument("--max-output-tokens", type=int, help="with --to: max_tokens in the request")
        parser.add_argument("--temperature", type=float, help="with --to: sampling temperature")
        parser.add_argument("--cache-breakpoints", action="store_true",
                            help="with --to anthropic: cache_control where the file's cache map "
                                 "finds a shared prefix (at most four)")

    def handle(self, *args, **options) -> None:
        try:
            output = self._render(options)
        except (InputError, UsageError) as error:
            self.stderr.write(f"error: {error}")
            sys.exit(2)
        except Exception as error:  # noqa: BLE001 - the contract promises no traceback, ever
            self.stderr.write(f"error: {options['path']}: internal error while rendering: "
                              f"{type(error).__name__}: {error}")
            sys.exit(1)
        self.stdout.write(output)

    def _render(self, options: dict) -> str:
        bundle, relative = file_in_root(options["path"], options["root"])
        render_options = cli_render_options(options)
        # In a bounded worker: a file that crashes the parser or exhausts the limits is exit 2.
        document = services.render_untrusted(bundle, relative, render_options)
        cases = document.cases
        if options["case_id"] is not None:
            cases = [case for case in cases if case.id == options["case_id"]]
            if not cases:
                known = ", ".join(case.id for case in document.cases[:20])
                raise UsageError(f"{relative}: no case with id {options['case_id']!r} (ids: {known})")
        for warning in document.warnings:
            self.stderr.write(f"warning: {warning.located()}")

        if options["to"] is None:
            chosen = ({"profile": document.profile, "profile_reason": document.profile_reason}
                      if document.profile else {})
            return json.dumps([case_contract(case) | chosen
                               | ({"graders": graders_contract(case)} if options["graders"] else {})
                               for case in cases], indent=2, ensure_ascii=False)
        return self._export(cases, options, document.cases)

    def _export(self, cases, options: dict, all_cases) -> str:
        from inspector.core.export import (
            ExportSettings,
            batch_export,
            export_case,
            render_codes,
            with_cache_breakpoints,
        )

        settings = ExportSettings(model=options["model"], max_tokens=options["max_output_tokens"],
                                  temperature=options["temperature"])
        provider = options["to"]
        if options["cache_breakpoints"]:
            if provider not in with_cache_breakpoints() or options["batch"]:
                raise UsageError(f"--cache-breakpoints goes with --to "
                                 f"{' or '.join(with_cache_breakpoints())}, without --batch")
            results = cached_exports(cases, all_cases, settings, provider)
            if options["format"] == "json":
                return json.dumps([result.as_contract(result.case_id or "") for result in results],
                                  indent=2, ensure_ascii=False)
            return render_codes(results, options["format"])
        if options["batch"]:
            batch = batch_export(cases, provider, settings)
            for note in batch.notes:  # e.g. a case id the provider's custom-id rules changed
                self.stderr.write(f"note: {note}")
            return batch.jsonl
        results = [(case, export_case(case, provider, settings)) for case in cases]
        if options["format"] == "json":
            return json.dumps([result.as_contract(case.id) for case, result in results], indent=2,
                              ensure_ascii=False)
        return render_codes([result for _, result in results], options["format"])
