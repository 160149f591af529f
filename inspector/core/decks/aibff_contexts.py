"""What aibff's grader request holds after the system message, as its code of August 2025 built
it (bolt-foundry/bolt-foundry e8937c2a: `apps/aibff/commands/calibrate.ts` builds a context whose
`fullConversation` is the sample's messages; `renderDeck` in `apps/aibff/commands/render.ts`
calls `deck.render({context})` of `packages/bolt-foundry/deck.ts`, in place since 1f2cdcfe, July
19 2025). For each context the deck's TOML declares, in declaration order, that has a value: an
assistant message holding its `assistantQuestion` and a user message holding `String(value)`.

deck.ts reads the declarations with its own line-by-line parser (`parseToml`), not a TOML
library: a question counts only as a one-line `assistantQuestion = "..."`, kept as written
between the quotes (escapes undecoded). That parser is ported here as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..js import js_trim_bounds

_CONTEXT_HEADER = re.compile(r"\[contexts\.([A-Za-z0-9_]+)\]")
# JavaScript's `.` stops at \r, \u2028 and \u2029 as well as \n.
_QUESTION = re.compile(r'assistantQuestion\s*=\s*"([^\r\n\u2028\u2029]+)"')
_NAME = re.compile(r'name\s*=\s*"([^\r\n\u2028\u2029]+)"')
_DESCRIPTION = re.compile(r'description\s*=\s*"([^\r\n\u2028\u2029]+)"')


@dataclass(frozen=True, slots=True)
class Question:
    name: str
    text: str
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class DeckTool:
    name: str
    description: str


def _trim(text: str) -> str:
    start, end = js_trim_bounds(text)
    return text[start:end]


def parse_declarations(text: str, path: str) -> tuple[list[Question], list[DeckTool]]:
    """deck.ts's `parseToml`: the contexts with a question, and the `[[tools]]`, in file order."""
    questions: dict[str, Question] = {}
    tools: list[DeckTool] = []
    context = ""
    tool: dict[str, str] | None = None
    in_tools = False

    def close_tool() -> None:
        if tool is not None and tool.get("name") and tool.get("description"):
            tools.append(DeckTool(tool["name"], tool["description"]))

    for number, line in enumerate(text.split("\n"), start=1):
        trimmed = _trim(line)
        if trimmed == "[[tools]]":
            tool, in_tools, context = {}, True, ""
            continue
        header = _CONTEXT_HEADER.fullmatch(trimmed)
        if header:
            context, in_tools, tool = header[1], False, None
            continue
        if trimmed.startswith("[tools."):
            continue
        if in_tools and tool is not None:
            for key, pattern in (("name", _NAME), ("description", _DESCRIPTION)):
                found = pattern.fullmatch(trimmed)
                if found:
                    tool[key] = found[1]
            if (trimmed.startswith("[") and not trimmed.startswith("[tools.")) or trimmed == "":
                close_tool()
                tool, in_tools = None, False
        if context and not in_tools:
            found = _QUESTION.fullmatch(trimmed)
            if found:
                questions[context] = Question(context, found[1], path, number)
    close_tool()
    return list(questions.values()), tools
