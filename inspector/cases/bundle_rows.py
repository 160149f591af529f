"""The bundle page's rows: one per case, summarised once per document (kept in its outline) and
linked per page."""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.cases.addresses import case_url
from inspector.cases.files_panel import document_anchor
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
    matrix: MatrixKey | None = None


@dataclass(frozen=True)
class MatrixKey:
    """Where a promptfoo evaluation sits in its config's matrix: promptfoo's own test and prompt
    indices and the provider's id (its label when it has one), as the case's metadata gives them."""

    test: int
    prompt: int
    provider: str
    prompt_label: str = ""
    description: str = ""

    @classmethod
    def of(cls, case: RenderedCase) -> MatrixKey | None:
        found = case.metadata.get("promptfoo")
        if not isinstance(found, dict):
            return None
        test, prompt, provider = found.get("test_idx"), found.get("prompt_idx"), found.get("provider")
        if not (isinstance(test, int) and isinstance(prompt, int) and isinstance(provider, str)):
            return None
        return cls(
            test, prompt, provider, str(found.get("prompt") or ""), str(found.get("description") or "")
        )


@dataclass(frozen=True)
class MatrixColumn:
    prompt: int
    provider: str
    prompt_label: str


@dataclass
class MatrixRow:
    test: int
    description: str
    cells: list[CaseRow | None]  # one per column; None where the config makes no such evaluation


@dataclass
class Matrix:
    """A promptfoo config's evaluations as promptfoo lays them out: a row per test, a column per
    prompt × provider, each cell the evaluation's case."""

    columns: list[MatrixColumn]
    rows: list[MatrixRow]


def matrix_of(cases: list[CaseRow]) -> Matrix | None:
    """The matrix of a page of rows, when every one is a promptfoo evaluation; else None."""
    if not cases or any(row.matrix is None for row in cases):
        return None
    columns: dict[tuple[int, str], MatrixColumn] = {}
    by_test: dict[int, dict[tuple[int, str], CaseRow]] = {}
    descriptions: dict[int, str] = {}
    for row in cases:
        key = row.matrix
        assert key is not None
        column = (key.prompt, key.provider)
        columns.setdefault(column, MatrixColumn(key.prompt, key.provider, key.prompt_label))
        by_test.setdefault(key.test, {})[column] = row
        descriptions.setdefault(key.test, key.description)
    order = sorted(columns)
    return Matrix(
        [columns[column] for column in order],
        [
            MatrixRow(test, descriptions[test], [cells.get(column) for column in order])
            for test, cells in sorted(by_test.items())
        ],
    )


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
    matrix: Matrix | None = None  # a promptfoo config's prompt × provider matrix of the rows shown
    read_by: str | None = None  # the suite that reads this file as its cases (core/readers.py)

    @property
    def paged(self) -> bool:
        return self.previous_url is not None or self.next_url is not None

    @property
    def reader_anchor(self) -> str:
        return document_anchor(self.read_by) if self.read_by else ""


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
    matrix: MatrixKey | None = None  # a promptfoo evaluation's place in its config's matrix

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
            MatrixKey.of(case),
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
        matrix=row.matrix,
    )
