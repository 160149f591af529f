"""The console commands that read files on disk through the core alone: `render` (the CLI
contract), `check` (`check_evals`), `ledger` and `diff`. No Django: `prompt-inspector` runs them
without loading it (cli.py), and `manage.py render|check_evals|ledger|diff` are thin wrappers
(management/commands/) that add the same arguments and call the same `run`.

Each command is an `add_arguments(parser)` for an argparse parser (Django's CommandParser is one)
and a `run(options, output, policy)` returning the exit code: 0 done, 1 failed (check: a problem
reached --fail-on; render, ledger: an internal error), 2 unusable input or misuse. Renders run in
the bounded worker under `policy` (untrusted.py). What one command alone needs (prices, the diff,
the contract's serializer) is imported by that command, so the others start without it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from inspector.core.bundle import DirectoryBundle
from inspector.core.export import FORMATS as EXPORT_FORMATS
from inspector.core.export import PROVIDERS as EXPORT_PROVIDERS
from inspector.core.export import ExportSettings
from inspector.core.formats import INPUT_FORMATS
from inspector.core.model import Diagnostic, InputError, RenderedCase, RenderedDocument
from inspector.core.options import PROFILES, RenderOptions
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.untrusted import RenderPolicy, list_untrusted, render_untrusted


class UsageError(Exception):
    pass


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


class Output:
    """Where a command writes: whole lines, each ended once (as Django's command output does)."""

    def __init__(self, stdout: Writable, stderr: Writable):
        self.stdout, self.stderr = stdout, stderr

    def out(self, text: str) -> None:
        self.stdout.write(text if text.endswith("\n") else text + "\n")

    def err(self, text: str) -> None:
        self.stderr.write(text if text.endswith("\n") else text + "\n")


Options = dict[str, Any]


@dataclass(frozen=True)
class ConsoleCommand:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[Options, Output, RenderPolicy], int]


# Shared by the commands --------------------------------------------------------------------------

def default_root(path: Path) -> Path:
    """Nearest folder holding .git or .agentv, from the path itself when it is a folder, else the
    path's own folder."""
    resolved = path.resolve()
    start = resolved if resolved.is_dir() else resolved.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / ".agentv").exists():
            return folder
    return start


def add_gambit_core_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gambit-core", metavar="DIR",
                        help="gambit decks: an installed gambit-core folder (the one holding "
                             "snippets/), whose snippets gambit://snippets/ embeds are read from "
                             "(default: the GAMBIT_CORE_DIR environment variable)")


def gambit_core_folder(raw: str | None) -> str | None:
    """--gambit-core's folder, refused when it is not gambit-core's (no snippets/ in it)."""
    if not raw:
        return None
    from inspector.core.decks.gambit_core_files import InstalledGambitCore

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


def cli_render_options(options: Options) -> RenderOptions:
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


def _contract_run(action: Callable[[Options, Output, RenderPolicy], str], what: str
                  ) -> Callable[[Options, Output, RenderPolicy], int]:
    """A command whose contract is JSON on stdout, one `error:` line and exit 2 for unusable
    input, and never a traceback (exit 1 naming the file for anything unforeseen)."""

    def run(options: Options, output: Output, policy: RenderPolicy) -> int:
        try:
            text = action(options, output, policy)
        except (InputError, UsageError) as error:
            output.err(f"error: {error}")
            return 2
        except Exception as error:  # noqa: BLE001 - the contract promises no traceback, ever
            output.err(f"error: {options['path']}: {what}: {type(error).__name__}: {error}")
            return 1
        output.out(text)
        return 0

    return run


# render -------------------------------------------------------------------------------------------

def add_render_arguments(parser: argparse.ArgumentParser) -> None:
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


def _guidelines(bundle: DirectoryBundle, path: str, case: RenderedCase,
                patterns: tuple[str, ...] | None) -> dict:
    """`guidelines`: why each guideline file is one (agentv files that send any)."""
    from inspector.core.agentv.guideline_reason import case_guidelines

    found = case_guidelines(bundle, path, case, patterns)
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

        chosen = ({"profile": document.profile, "profile_reason": document.profile_reason}
                  if document.profile else {})
        if document.kind == "promptfoo":
            from inspector.core.promptfoo.contract import evaluation_contract

            return json.dumps([case_contract(case) | evaluation_contract(case) for case in cases],
                              indent=2, ensure_ascii=False)
        return json.dumps([case_contract(case) | chosen
                           | _guidelines(bundle, relative, case, render_options.guideline_patterns)
                           | ({"graders": graders_contract(case)} if options["graders"] else {})
                           for case in cases], indent=2, ensure_ascii=False)
    return _export(cases, options, document.cases, output)


def cached_exports(cases: list[RenderedCase], all_cases: list[RenderedCase],
                   settings: ExportSettings, provider: str) -> list:
    """Exports of `cases` with cache breakpoints where the whole file's cache map says."""
    from inspector.core.export import provider_spec
    from inspector.core.ledger import build_ledger, cache_marks

    mark = provider_spec(provider).export_with_breakpoints
    assert mark is not None  # the command takes the option only with such a provider
    ledger = build_ledger(all_cases, provider, settings)
    position = {id(case): number for number, case in enumerate(all_cases)}
    return [mark(case, settings, cache_marks(ledger, position[id(case)])) for case in cases]


def _export(cases: list[RenderedCase], options: Options, all_cases: list[RenderedCase],
            output: Output) -> str:
    from inspector.core.export import batch_export, export_case, render_codes, with_cache_breakpoints

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
            output.err(f"note: {note}")
        return batch.jsonl
    exported = [(case, export_case(case, provider, settings)) for case in cases]
    if options["format"] == "json":
        return json.dumps([result.as_contract(case.id) for case, result in exported], indent=2,
                          ensure_ascii=False)
    return render_codes([result for _, result in exported], options["format"])


RENDER = ConsoleCommand(
    "Render an eval file, sample deck or conversation to the messages a model receives.",
    add_render_arguments, _contract_run(_render, "internal error while rendering"))


# check --------------------------------------------------------------------------------------------

SEVERITY_RANK = {"warning": 1, "error": 2}


@dataclass(frozen=True)
class Target:
    """One document to check: the bundle it is read in (its root bounds what it may read)."""

    bundle: DirectoryBundle
    path: str


def targets(paths: list[Path], policy: RenderPolicy) -> Iterator[Target]:
    bundles: dict[Path, DirectoryBundle] = {}
    listed: dict[Path, list[str]] = {}
    seen: set[tuple[Path, str]] = set()
    for path in paths:
        root = default_root(path)
        bundle = bundles.setdefault(root, DirectoryBundle(root))
        if path.is_file():
            relative = bundle.relative(path)
            candidates = [relative] if relative is not None else []
        else:
            if root not in listed:
                listed[root] = list_untrusted(bundle, policy)
            prefix = path.resolve().relative_to(root).as_posix()
            inside = "" if prefix == "." else prefix + "/"
            candidates = [doc for doc in listed[root] if doc.startswith(inside)]
        for candidate in candidates:
            if (root, candidate) not in seen:
                seen.add((root, candidate))
                yield Target(bundle, candidate)


def problems(target: Target, options: RenderOptions, policy: RenderPolicy) -> list[Diagnostic]:
    try:
        document = render_untrusted(target.bundle, target.path, options, policy)
    except InputError as error:
        return [error.diagnostic]
    found = list(document.warnings)
    for case in document.cases:
        found.extend(case.warnings)
    return found


def display_path(bundle: DirectoryBundle, path: str | None, fallback: str) -> str:
    """Paths as the user typed them would find them: relative to the current folder."""
    absolute = bundle.root / (path or fallback)
    try:
        return os.path.relpath(absolute)
    except ValueError:  # another drive on Windows
        return str(absolute)


def line_for(diagnostic: Diagnostic, target: Target) -> str:
    where = display_path(target.bundle, diagnostic.path, target.path)
    if diagnostic.line is not None:
        where += f":{diagnostic.line}"
        if diagnostic.column is not None:
            where += f":{diagnostic.column}"
    return f"{where}: {diagnostic.severity}: {diagnostic.message}"


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument("--fail-on", default="error", choices=tuple(SEVERITY_RANK),
                        help="the least severe problem that fails the check (default: error)")
    add_gambit_core_argument(parser)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def run_check(options: Options, output: Output, policy: RenderPolicy) -> int:
    paths = [Path(raw) for raw in options["paths"]]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        output.err(f"error: no such file or folder: {', '.join(missing)}")
        return 2
    try:
        render_options = parse_render_options({"profile": options["profile"]})
        folder = gambit_core_folder(options["gambit_core"])
    except (SettingsError, UsageError) as error:
        output.err(f"error: {error}")
        return 2
    if folder is not None:
        render_options = replace(render_options, gambit_core=folder)
    threshold = SEVERITY_RANK[options["fail_on"]]
    checked = failing = 0
    counts = dict.fromkeys(SEVERITY_RANK, 0)
    for target in targets(paths, policy):
        checked += 1
        found = problems(target, render_options, policy)
        for diagnostic in found:
            counts[diagnostic.severity] = counts.get(diagnostic.severity, 0) + 1
            output.out(line_for(diagnostic, target))
        if any(SEVERITY_RANK.get(d.severity, 2) >= threshold for d in found):
            failing += 1
    if not checked:
        # A mistyped path in CI would otherwise pass with nothing checked.
        output.err(f"error: no eval files, decks or requests found under {', '.join(map(str, paths))}")
        return 2
    output.err(f"checked {_plural(checked, 'file')}: {_plural(counts['error'], 'error')}, "
               f"{_plural(counts['warning'], 'warning')}")
    return 1 if failing else 0


CHECK = ConsoleCommand(
    "Render every eval file, deck and request under PATHs; print file:line: severity: "
    "message per problem; exit 1 when any reaches --fail-on.", add_check_arguments, run_check)


# ledger -------------------------------------------------------------------------------------------

def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path")
    parser.add_argument("--root", help="bundle root (default: nearest folder with .git or .agentv)")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument("--patterns", nargs="+", metavar="GLOB",
                        help="guideline patterns (default: from .agentv/config.yaml)")
    parser.add_argument("--system-prompt", help="configured default system prompt")
    parser.add_argument("--max-tokens", type=int, help="token budget: drop the oldest messages")
    parser.add_argument("--input-format", default="auto", choices=INPUT_FORMATS)
    parser.add_argument("--provider", default="openai-chat", choices=EXPORT_PROVIDERS)
    parser.add_argument("--model", help="the model priced (default: the provider's)")
    parser.add_argument("--max-output-tokens", type=int,
                        help="prices each case's output at this many tokens, an upper bound")


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
    return json.dumps(build_ledger(document, options["provider"], export).as_dict(), indent=2,
                      ensure_ascii=False)


LEDGER = ConsoleCommand(
    "Tokens per source file and per case, the cost of one run, and the prompt-cache map.",
    add_ledger_arguments, _contract_run(_ledger, "internal error"))


# diff ---------------------------------------------------------------------------------------------

def add_diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--root-old", help="the old file's bundle root (default: nearest .git or .agentv)")
    parser.add_argument("--root-new", help="the new file's bundle root (default: nearest .git or .agentv)")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument("--provider", default="openai-chat", choices=EXPORT_PROVIDERS,
                        help="whose tokenizer counts the token delta")


def _text_reader(files: DirectoryBundle) -> Callable[[str], str | None]:
    def text(path: str) -> str | None:
        decoded = files.text(path)
        return decoded.text if decoded is not None else None

    return text


def _diff(options: Options, policy: RenderPolicy) -> str:
    from inspector.core.diff import FileChanges, diff_documents

    old_files, old_path = file_in_root(options["old"], options["root_old"], "--root-old")
    new_files, new_path = file_in_root(options["new"], options["root_new"], "--root-new")
    render_options = parse_render_options({"profile": options["profile"]})
    old: RenderedDocument = render_untrusted(old_files, old_path, render_options, policy,
                                             distinct_ids=True)
    new: RenderedDocument = render_untrusted(new_files, new_path, render_options, policy,
                                             distinct_ids=True)
    # Compared as one document, whatever each file is called.
    result = diff_documents({new_path: old}, {new_path: new},
                            FileChanges(_text_reader(old_files), _text_reader(new_files)),
                            options["provider"])
    return json.dumps(result.as_contract(with_documents=False), indent=2, ensure_ascii=False)


def run_diff(options: Options, output: Output, policy: RenderPolicy) -> int:
    try:
        text = _diff(options, policy)
    except (InputError, UsageError, SettingsError) as error:
        output.err(f"error: {error}")
        return 2
    output.out(text)
    return 0


DIFF = ConsoleCommand("Compare the messages two eval files (or decks, or requests) render to.",
                      add_diff_arguments, run_diff)


def _run_check(options: Options, output: Output, policy: RenderPolicy) -> int:
    from inspector.runs.command import run_check  # the run readers load only for this command

    return run_check(options, output, policy)


def _add_run_check_arguments(parser: argparse.ArgumentParser) -> None:
    from inspector.runs.command import add_arguments

    add_arguments(parser)


RUN_CHECK = ConsoleCommand(
    "Compare what a run sent (agentv results, an Inspect AI log) with what the eval files render "
    "now; exit 1 when any case differs.", _add_run_check_arguments, _run_check)

# `prompt-inspector NAME` -> command; `check` is `manage.py check_evals` (`check` is Django's).
COMMANDS = {"render": RENDER, "check": CHECK, "ledger": LEDGER, "diff": DIFF, "run-check": RUN_CHECK}


def main(name: str, argv: list[str], output: Output | None = None,
         policy: RenderPolicy | None = None) -> int:
    """`prompt-inspector NAME ARGS...`: the exit code."""
    command = COMMANDS[name]
    parser = argparse.ArgumentParser(prog=f"prompt-inspector {name}", description=command.help)
    command.add_arguments(parser)
    options = vars(parser.parse_args(argv))
    return command.run(options, output or Output(sys.stdout, sys.stderr),
                       policy or RenderPolicy.from_environment())
