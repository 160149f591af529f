"""promptfoo results (`promptfoo eval -o results.json`, results version 3, as promptfoo 0.123.1
writes them): `results.results[]`, one per evaluation, with promptfoo's `testIdx`, `promptIdx` and
`provider` (`id`, `label`); `prompt.raw` is the rendered prompt (a chat prompt as its JSON array
of messages, else the text promptfoo's chat providers send as one user message);
`response.output` the candidate's answer; each model-graded assertion's judge prompt, rendered
after the run with the real output, is `gradingResult.componentResults[].metadata.
renderedGradingPrompt` (again a JSON array of messages, or text). No request body is kept.
`metadata.promptfooVersion` names the version."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from inspector.core.promptfoo.detect import CONFIG_NAMES
from inspector.core.runs.model import RecordedCase, RecordedJudge, Run, RunError, RunFiles, SentMessage


def is_promptfoo_results(head: bytes) -> bool:
    text = head.decode("utf-8", "replace")
    return '"evalId"' in text and '"results"' in text


def prompt_messages(raw: Any) -> list[SentMessage]:
    if not isinstance(raw, str):
        return []
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and all(isinstance(item, dict) and "role" in item for item in parsed):
        return [SentMessage(str(item["role"]), _content(item.get("content"))) for item in parsed]
    return [SentMessage("user", raw)]


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return json.dumps(content)


def case_id(result: dict[str, Any]) -> str:
    """promptfoo's own indices, as the inspector names a promptfoo config's evaluations."""
    provider = result.get("provider") or {}
    key = provider.get("label") or provider.get("id") if isinstance(provider, dict) else provider
    return f"test {result.get('testIdx')} · prompt {result.get('promptIdx')} · {key}"


def _judges(grading: Any) -> list[RecordedJudge]:
    found = []
    for component in (grading or {}).get("componentResults") or []:
        rendered = (component.get("metadata") or {}).get("renderedGradingPrompt")
        if isinstance(rendered, str):
            assertion = component.get("assertion") or {}
            found.append(
                RecordedJudge(
                    str(assertion.get("metric") or assertion.get("type") or "judge"),
                    prompt_messages(rendered),
                )
            )
    return found


def case_of(result: dict[str, Any]) -> RecordedCase:
    response = result.get("response") or {}
    output = response.get("output")
    case = RecordedCase(
        case_id(result),
        messages=prompt_messages((result.get("prompt") or {}).get("raw")),
        judges=_judges(result.get("gradingResult")),
        source="results.json",
        answer=output if isinstance(output, str) or output is None else json.dumps(output),
    )
    if result.get("error"):
        case.error = str(result["error"])
    return case


def read_promptfoo(files: RunFiles, path: str) -> Run:
    try:
        document = json.loads(files.read(path) or b"")
    except ValueError as error:
        raise RunError(f"{path}: not JSON ({error})") from None
    table = document.get("results") if isinstance(document, dict) else None
    if not isinstance(table, dict) or not isinstance(table.get("results"), list):
        raise RunError(f"{path}: no promptfoo results in it")
    version = (document.get("metadata") or {}).get("promptfooVersion")
    return Run(
        "promptfoo",
        version,
        None,
        [case_of(item) for item in table["results"] if isinstance(item, dict)],
        notes=[f"{path}: promptfoo keeps the rendered prompts and judge prompts, not the request bodies"],
    )


def config_in(paths: Iterable[str]) -> str | None:
    """The promptfoo config among a project's top-level files, as promptfoo looks for it."""
    present = set(paths)
    return next((name for name in CONFIG_NAMES if name in present), None)


def with_config(run: Run, paths: Iterable[str], where: str) -> Run:
    """The run's evaluations named as made from the promptfoo config among `paths`, the files of
    `where` (results.json does not say which config made it: promptfoo reads `promptfooconfig.*`
    from where it runs)."""
    config = config_in(paths)
    if config is None:
        raise RunError(f"{where}: no promptfoo config ({', '.join(CONFIG_NAMES)}) to compare the run with")
    return replace(run, cases=[replace(case, eval_path=config) for case in run.cases])
