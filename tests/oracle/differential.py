"""Line up what agentv 4.42.4 sent with what the inspector's `agentv-4` profile renders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.core.agentv.profiles.agentv_4 import UNREPRODUCIBLE
from inspector.core.bundle import DirectoryBundle
from inspector.core.documents import render_document
from inspector.core.model import InputError
from inspector.core.options import RenderOptions
from inspector.core.serialize import chat_message

from .agentv import Oracle, outcome

REFUSED = "agentv refuses the whole file"


def ours(
    root: Path, eval_file: Path, profile: str = "agentv-4"
) -> tuple[list[tuple[str, list[dict[str, Any]], Any]] | None, str]:
    """The inspector's sent cases in file order as (id, messages, case), or None and the error."""
    bundle = DirectoryBundle(root)
    path = eval_file.relative_to(root).as_posix()
    try:
        document = render_document(bundle, path, RenderOptions(profile=profile, input_format="agentv"))
    except InputError as error:
        return None, str(error)
    refusals = [case.skipped for case in document.cases if case.skipped and case.skipped.startswith(REFUSED)]
    if refusals:
        return None, refusals[0]
    return [
        (case.id, [chat_message(m) for m in case.sent_messages], case)
        for case in document.cases
        if not case.skipped
    ], ""


def differences(oracle: Oracle, root: Path, eval_file: Path) -> list[str]:
    """Every way the two disagree on one eval file; empty when they agree."""
    return compare(oracle.run(eval_file, root), root, eval_file)


def compare(result: dict[str, Any], root: Path, eval_file: Path, profile: str = "agentv-4") -> list[str]:
    """Every way agentv's recorded `result` and the inspector's rendering of the file disagree."""
    theirs = outcome(result)
    mine, error = ours(root, eval_file, profile)
    if theirs.error is not None or mine is None:
        if theirs.error is not None and mine is None:
            return []
        if theirs.error is not None:
            return [f"agentv refuses the file ({theirs.error}); the inspector renders it"]
        return [f"the inspector refuses the file ({error}); agentv runs it"]
    problems = []
    # Ids are unique here (agentv refuses repeats); `depends_on` changes only the order it runs in.
    sent = {case["id"]: theirs.cases.get(case["id"]) for case in result["cases"]}
    rendered = {case_id: (messages, case) for case_id, messages, case in mine}
    if sorted(sent) != sorted(rendered):
        problems.append(f"cases sent: agentv {sorted(sent)}, inspector {sorted(rendered)}")
        return problems
    for case_id, messages in sent.items():
        my_messages, case = rendered[case_id]
        # The one known gap, declared on the message: agentv's JSON holds absolute paths.
        if messages is not None and any(m.omitted == UNREPRODUCIBLE for m in case.messages):
            messages = [m for m in messages if '"resolvedPath":' not in str(m.get("content"))]
        if messages is None:
            problems.append(f"{case_id}: agentv sent nothing ({theirs.failed.get(case_id)})")
        elif messages != my_messages:
            problems.append(
                f"{case_id}: messages differ\n  agentv:    {json.dumps(messages)}\n"
                f"  inspector: {json.dumps(my_messages)}"
            )
    return problems
