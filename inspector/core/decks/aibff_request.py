"""A grader deck's case as aibff's calibrate sent it to the grader in August 2025 (see
aibff_contexts and docs/aibff-grader-decks.md): the deck's system message, then for each declared
context with a value its question and String(value). The sample's messages reach the grader only
as the `fullConversation` context, so `[object Object],...` when a deck declares it, and not at
all when it does not."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..bundle import Bundle
from ..js import js_string
from ..model import (
    Diagnostic,
    LineSpan,
    Message,
    Origin,
    OriginKind,
    RenderedCase,
    RenderedDocument,
    Segment,
    ToolSpec,
)
from .aibff_contexts import DeckTool, Question, parse_declarations
from .embeds import Expansion
from .samples import Sample, SampleFile

ERA = (
    "aibff as of August 2025 (bolt-foundry/bolt-foundry e8937c2a: calibrate.ts, render.ts "
    "renderDeck, packages/bolt-foundry/deck.ts render)"
)


_ARRAY_HEADER = re.compile(r"^[ \t]*\[\[([^\]]+)\]\]")
_TABLE_HEADER = re.compile(r"^[ \t]*\[([^\[\]]+)\]")


def _key(header: str) -> str:
    return ".".join(part.strip().strip('"') for part in header.split("."))


def late_super_table(text: str) -> tuple[str, int] | None:
    """The first `[a.b]` header after a `[[a.b.c]]` header: @std/toml 1.0.8 fails on it ("key
    length is not a positive number") where TOML 1.0 allows it."""
    arrays: set[str] = set()
    for number, line in enumerate(text.split("\n"), start=1):
        found = _ARRAY_HEADER.match(line)
        if found:
            key = _key(found[1])
            parts = key.split(".")
            arrays.update(".".join(parts[:end]) for end in range(1, len(parts)))
            continue
        found = _TABLE_HEADER.match(line)
        if found and _key(found[1]) in arrays:
            return _key(found[1]), number
    return None


@dataclass(slots=True)
class AibffRequest:
    deck: str
    questions: list[Question]
    tools: list[DeckTool]
    defaults: dict[str, tuple[Any, str, int | None]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        bundle: Bundle,
        deck: str,
        expansion: Expansion,
        loaded: dict[str, SampleFile],
        document: RenderedDocument,
    ) -> AibffRequest | None:
        refusal = cls._refusal(bundle, deck, expansion, loaded)
        if refusal is not None:
            message, where, line = refusal
            document.warnings.append(
                Diagnostic(
                    f"aibff's calibrate (August 2025) stops on this deck: {message}. Shown instead in "
                    "seed 004's reading (the deck's text, then each sample's messages)",
                    where,
                    line,
                    severity="error",
                )
            )
            return None
        questions: dict[str, Question] = {}
        tools: list[DeckTool] = []
        for embed in expansion.toml_embeds:
            decoded = bundle.text(embed.path)
            if decoded is None:
                continue
            found, found_tools = parse_declarations(decoded.text, embed.path)
            for question in found:
                questions[question.name] = question  # Object.assign: a redefinition keeps its place
            tools.extend(found_tools)
        request = cls(deck, list(questions.values()), tools)
        # calibrate takes `default` values from the TOML the deck itself embeds (a real parse).
        for embed in expansion.toml_embeds:
            sample_file = loaded.get(embed.path)
            if embed.from_path != deck or sample_file is None:
                continue
            for name, definition in sample_file.contexts.items():
                if "default" in definition and name not in request.defaults:
                    span = sample_file.context_spans.get(name)
                    request.defaults[name] = (definition["default"], embed.path, span[0] if span else None)
        return request

    @staticmethod
    def _refusal(
        bundle: Bundle, deck: str, expansion: Expansion, loaded: dict[str, SampleFile]
    ) -> tuple[str, str, int] | None:
        """What calibrate's extractContextFromMarkdown throws on, reading the deck's own embeds:
        a `#fragment` is part of the file name it looks for, and every context needs a question."""
        if expansion.fragment_embeds:
            where, line, target = expansion.fragment_embeds[0]
            return f"File not found: {target} (a #fragment, the June 2025 form)", where, line
        for embed in expansion.toml_embeds:
            sample_file = loaded.get(embed.path)
            if embed.from_path != deck or sample_file is None:
                continue
            decoded = bundle.text(embed.path)
            late = late_super_table(decoded.text) if decoded is not None else None
            if late is not None:
                table, line = late
                return (
                    (
                        f"Invalid TOML in file {embed.path}: the [{table}] table (line {line}) "
                        f"comes after an array of tables inside it, which TOML allows and the "
                        "@std/toml aibff used (1.0.8) refuses"
                    ),
                    embed.from_path,
                    embed.line,
                )
            for name, definition in sample_file.contexts.items():
                if not isinstance(definition.get("assistantQuestion"), str):
                    return (
                        (
                            f"Context variable '{name}' in file {embed.path} is missing required "
                            "'assistantQuestion' field"
                        ),
                        embed.from_path,
                        embed.line,
                    )
        return None

    def apply(self, case: RenderedCase, sample: Sample, sample_path: str) -> None:
        system = case.messages[:1]
        values = dict(self.defaults)
        if not (self.defaults.get("fullConversation") or (None,))[0]:
            values["fullConversation"] = (
                [{"role": m.role, "content": m.content} for m in sample.messages],
                sample_path,
                sample.span[0] if sample.span else None,
            )
        messages = list(system)
        sent = []
        for question in self.questions:
            if question.name not in values:
                continue
            value, path, line = values[question.name]
            sent.append(question.name)
            messages.append(
                Message(
                    "assistant",
                    [
                        Segment(
                            question.text,
                            Origin(OriginKind.DECK, question.path, question.line, question.line),
                        )
                    ],
                )
            )
            end = sample.span[1] if sample.span and question.name == "fullConversation" else line
            messages.append(
                Message(
                    "user",
                    [Segment(js_string(value), Origin(OriginKind.CASE_TEXT, path, line, end))],
                    span=LineSpan(path, line, end or line) if line else None,
                )
            )
        case.messages = messages
        case.tools = [
            ToolSpec(tool.name, tool.description, {"type": "object", "properties": {}}) for tool in self.tools
        ]
        case.metadata["aibff"] = {"era": ERA, "contexts_sent": sent}
        case.warnings.append(Diagnostic(self._explain(sent), self.deck))

    def _explain(self, sent: list[str]) -> str:
        declared = ", ".join(q.name for q in self.questions) or "none"
        if "fullConversation" in sent:
            what = (
                "the sample's messages went as the fullConversation context, which aibff "
                "writes with JavaScript's String(): an array of message objects becomes "
                "'[object Object],[object Object]', so the grader never saw the conversation"
            )
        else:
            what = (
                "the sample's messages were passed as a fullConversation context the deck does "
                f"not declare (it declares: {declared}), so aibff sent the grader none of them"
            )
        return (
            f"shown as {ERA} sent it: the deck's text, then each declared context that has a "
            f"value as a question and String(value); {what}. Profile spec shows seed 004's "
            "reading (the deck's text, then the sample's messages)"
        )
