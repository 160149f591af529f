"""`diff`: what changed in the messages between two eval files (or one file under two roots), as JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from inspector.cli.console import ConsoleCommand, Options, Output, UsageError, file_in_root
from inspector.core.bundle import DirectoryBundle
from inspector.core.export import PROVIDERS as EXPORT_PROVIDERS
from inspector.core.model import InputError, RenderedDocument
from inspector.core.options import PROFILES
from inspector.core.render_settings import SettingsError, parse_render_options
from inspector.rendering.untrusted import RenderPolicy, render_untrusted


def add_diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--root-old", help="the old file's bundle root (default: nearest .git or .agentv)")
    parser.add_argument("--root-new", help="the new file's bundle root (default: nearest .git or .agentv)")
    parser.add_argument("--profile", default="auto", choices=PROFILES)
    parser.add_argument(
        "--provider",
        default="openai-chat",
        choices=EXPORT_PROVIDERS,
        help="whose tokenizer counts the token delta",
    )


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
    old: RenderedDocument = render_untrusted(old_files, old_path, render_options, policy, distinct_ids=True)
    new: RenderedDocument = render_untrusted(new_files, new_path, render_options, policy, distinct_ids=True)
    # Compared as one document, whatever each file is called.
    result = diff_documents(
        {new_path: old},
        {new_path: new},
        FileChanges(_text_reader(old_files), _text_reader(new_files)),
        options["provider"],
    )
    return json.dumps(result.as_contract(with_documents=False), indent=2, ensure_ascii=False)


def run_diff(options: Options, output: Output, policy: RenderPolicy) -> int:
    try:
        text = _diff(options, policy)
    except (InputError, UsageError, SettingsError) as error:
        output.err(f"error: {error}")
        return 2
    output.out(text)
    return 0


DIFF = ConsoleCommand(
    "Compare the messages two eval files (or decks, or requests) render to.", add_diff_arguments, run_diff
)
