"""The bundle page's rows: one per case, summarised once per document (kept in its outline) and
linked per page."""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.cases.addresses import case_url
from inspector.core.model import RenderedCase
from inspector.core.tokens import TOKENS_PER_REPLY, message_token_counts


@dataclass
class CaseRow:
    id: str
    url: str
    messages: int
    omitted: int
    warnings: int
    skipped: str | None
    search: str  # lower-cased id and message text for the filter box
    tokens: int = 0


@dataclass
class DocumentSection:
    path: str
    kind: str
    cases: list[CaseRow]
    error: str | None
    warnings: list[str]
    # Converted forms of the file offered for download, as (file name, url).
    conversions: list[tuple[str, str]] = field(default_factory=list)
    profile: str | None = None  # agentv files: the profile that rendered them
    profile_reason: str | None = None
    anchor: str = ""  # the section's id on the bundle page
    batch_url: str = ""  # the file's batch JSONL with the page's settings
    # Paging: the rows shown are matching[first - 1:last]; links to the neighbouring pages.
    total: int = 0
    matching: int = 0
    first: int = 0
    last: int = 0
    previous_url: str | None = None
    next_url: str | None = None
    sort: str = ""  # "" (file order) or a key of ROW_SORTS
    sort_urls: dict[str, str] = field(default_factory=dict)

    @property
    def paged(self) -> bool:
        return self.previous_url is not None or self.next_url is not None


SEARCH_CHARS_PER_CASE = 4000


@dataclass(frozen=True)
class RowSummary:
    """A bundle-page row without its link: what the outline of a document keeps per case."""

    id: str
    messages: int
    omitted: int
    warnings: int
    skipped: str | None
    search: str  # lower-cased id and message text, for the filter
    tokens: int = 0  # the sent messages in o200k_base, every provider's encoding (exact or estimate)

    @classmethod
    def of(cls, case: RenderedCase, tokens: int) -> RowSummary:
        text = " ".join(message.content for message in case.messages)[:SEARCH_CHARS_PER_CASE]
        return cls(
            case.id,
            len(case.sent_messages),
            len(case.omitted_messages),
            len(case.warnings),
            case.skipped,
            f"{case.id} {text}".lower(),
            tokens,
        )

    def matches(self, words: list[str]) -> bool:
        return all(word in self.search for word in words)


def row_summaries(cases: list[RenderedCase]) -> tuple[RowSummary, ...]:
    """Every case's row, the sent messages of all of them counted in one batch: a call per case
    made a 14,000-case file's outline take seconds instead of a fraction of one."""
    sent = [case.sent_messages for case in cases]
    counts = iter(message_token_counts([message for messages in sent for message in messages]))
    return tuple(
        RowSummary.of(case, sum(next(counts) for _ in messages) + TOKENS_PER_REPLY)
        for case, messages in zip(cases, sent, strict=True)
    )


# The bundle table's sorts (largest first), over every row of a document, not one page of it.
ROW_SORTS = {
    "tokens": lambda row: -row.tokens,
    "warnings": lambda row: -row.warnings,
}


def case_row(bundle_id: str, document: str, row: RowSummary, query: str) -> CaseRow:
    return CaseRow(
        id=row.id,
        url=case_url(bundle_id, document, row.id, query),
        messages=row.messages,
        omitted=row.omitted,
        warnings=row.warnings,
        skipped=row.skipped,
        search=row.search,
        tokens=row.tokens,
    )
