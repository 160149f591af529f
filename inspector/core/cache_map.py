"""The prompt-cache map of a document: its cases' requests compared as prefixes, in the order the
provider reads (and caches) a request.

Each case becomes a list of pieces — the tool definitions, the system text when the provider sends it
first, then each message — and the cases form a trie of pieces. The shared prefix is the one held by
the largest group of cases that still reaches the provider's minimum cacheable length (or, when none
does, by the largest group at all). For providers that cache any prefix (OpenAI, Gemini) it runs on
into the first piece the group does not share whole, as far as their texts agree; Anthropic caches
only up to a block marked with `cache_control`, so its prefix ends at a piece. Every other case's
break is traced through the provenance of the text where it first differs: message, file and line.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from .model import Origin, RenderedCase


@dataclass(frozen=True, slots=True)
class Piece:
    kind: str  # "tools", "system" (the system messages sent first, joined) or "message"
    key: int  # equal keys: equal pieces
    text: str
    tokens: int
    messages: tuple[int, ...]  # indexes into case.messages whose content the text joins
    joiner: str = ""
    head: str = ""  # what the request holds before the text (the role, a name): equal to share a part


@dataclass(frozen=True, slots=True)
class Break:
    case: str
    message: int | None  # index into case.messages; None: the tool definitions, or a case too short
    path: str | None
    line: int | None
    detail: str
    position: int = -1  # the case's place in the document (ids may repeat across a bundle)

    def as_dict(self) -> dict[str, object]:
        return {
            "case": self.case,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "detail": self.detail,
        }


@dataclass(slots=True)
class _Node:
    parent: int
    depth: int  # pieces from the start
    count: int
    tokens: int


@dataclass(slots=True)
class CacheMap:
    minimum: int
    minimum_known: bool  # False: the model is not in the provider's table, the largest minimum assumed
    mode: str
    increment: int
    shared_prefix_tokens: int = 0
    group: list[int] = field(default_factory=list)  # positions of the cases sharing the prefix
    breaks: list[Break] = field(default_factory=list)
    prefix_pieces: int = 0  # whole pieces in the shared prefix
    partial: str = ""  # the shared start of the next piece (automatic caching only)
    pieces: list[list[Piece]] = field(default_factory=list, repr=False)
    _nodes: list[_Node] = field(default_factory=list, repr=False)
    _leaves: list[int] = field(default_factory=list, repr=False)

    @property
    def cacheable(self) -> bool:
        return len(self.group) > 1 and self.shared_prefix_tokens >= self.minimum

    @property
    def cached_tokens(self) -> int:
        """What each reuse of the prefix bills as cached: nothing below the minimum, else the
        prefix in whole steps of the provider's increment."""
        if not self.cacheable:
            return 0
        return self.shared_prefix_tokens // self.increment * self.increment

    def cached_chars(self, position: int, case: RenderedCase) -> dict[int, int]:
        """For a case in the group: message index -> how many characters of its content lie in the
        shared prefix (only messages that have any)."""
        if position not in self.group:
            return {}
        pieces = self.pieces[position]
        covered: dict[int, int] = {}
        for piece in pieces[: self.prefix_pieces]:
            for index in piece.messages:
                covered[index] = len(case.messages[index].content)
        if self.partial and self.prefix_pieces < len(pieces):
            piece = pieces[self.prefix_pieces]
            start = 0
            for number, index in enumerate(piece.messages):
                start += len(piece.joiner) if number else 0
                length = len(case.messages[index].content)
                share = min(length, len(self.partial) - start)
                if share > 0:
                    covered[index] = share
                start += length
        return covered

    def breakpoints(self, position: int, limit: int = 4) -> list[tuple[int, int, int]]:
        """Where cache_control marks pay off for this case: (pieces before the mark, cases sharing
        that prefix, its tokens), at most `limit`, those saving the most tokens chosen."""
        if not self._leaves:
            return []
        chain: list[_Node] = []
        node_id = self._leaves[position]
        while node_id > 0:
            chain.append(self._nodes[node_id])
            node_id = self._nodes[node_id].parent
        chosen = []
        for number, node in enumerate(chain):
            # Only the deepest mark of a group: past it fewer cases share the prefix.
            deepest = number == 0 or chain[number - 1].count < node.count
            if deepest and node.count > 1 and node.tokens >= self.minimum:
                chosen.append(((node.count - 1) * node.tokens, node.depth, node.count, node.tokens))
        chosen.sort(reverse=True)
        return sorted((depth, count, tokens) for _, depth, count, tokens in chosen[:limit])

    def as_dict(self) -> dict[str, object]:
        return {
            "shared_prefix_tokens": self.shared_prefix_tokens,
            "cacheable": self.cacheable,
            "cases_sharing": len(self.group),
            "minimum_tokens": self.minimum,
            "minimum_known": self.minimum_known,
            "mode": self.mode,
            "cached_tokens_per_reuse": self.cached_tokens,
            "breaks": [item.as_dict() for item in self.breaks],
        }


def build(
    cases: Sequence[RenderedCase],
    pieces: list[list[Piece]],
    minimum: int,
    minimum_known: bool,
    mode: str,
    increment: int,
    count: Callable[[str], int],
) -> CacheMap:
    result = CacheMap(minimum, minimum_known, mode, increment, pieces=pieces)
    if len(cases) < 2:
        return result
    nodes = [_Node(-1, 0, len(cases), 0)]
    leaves = [0] * len(cases)
    best: tuple[tuple[bool, bool, int, int], int, list[int], str] | None = None
    stack: list[tuple[int, list[int]]] = [(0, list(range(len(cases))))]
    while stack:
        node_id, members = stack.pop()
        node = nodes[node_id]
        groups, ended = _next_pieces(node_id, node.depth, members, pieces, leaves)
        if _may_be_best(members, groups, ended, best):
            partial = _partial(mode, ended, [pieces[group[0]][node.depth] for group in groups.values()])
            tokens = node.tokens + (count(partial) if partial else 0)
            # A prefix of no tokens is shared by nothing: the whole suite at the root (cases of
            # several files) must not outrank a group of one file's cases that shares text.
            score = (tokens >= minimum, tokens > 0, len(members), tokens)
            if best is None or score > best[0]:
                best = (score, node_id, members, partial)
        for group in groups.values():
            piece = pieces[group[0]][node.depth]
            nodes.append(_Node(node_id, node.depth + 1, len(group), node.tokens + piece.tokens))
            stack.append((len(nodes) - 1, group))
    result._nodes, result._leaves = nodes, leaves
    if best is None or best[0][3] == 0:
        return result  # no two cases share a single token
    (_, _, _, tokens), node_id, members, partial = best
    result.shared_prefix_tokens = tokens
    result.group = sorted(members)
    result.prefix_pieces = nodes[node_id].depth
    result.partial = partial
    result.breaks = _breaks(cases, pieces, result.group, result.prefix_pieces)
    return result


def _breaks(
    cases: Sequence[RenderedCase], pieces: list[list[Piece]], group: list[int], depth: int
) -> list[Break]:
    """Where each case outside the group leaves the shared prefix."""
    outside = sorted(set(range(len(cases))) - set(group))
    reference = pieces[group[0]]
    return [
        replace(_break(cases[position], pieces[position], reference, depth), position=position)
        for position in outside
    ]


def _may_be_best(
    members: list[int],
    groups: dict[int, list[int]],
    ended: bool,
    best: tuple[tuple[bool, bool, int, int], int, list[int], str] | None,
) -> bool:
    """A node where several cases part ways may hold the best prefix; a smaller group cannot
    beat a cacheable best, so its partial text is not counted."""
    beaten = best is not None and best[0][0] and len(members) < best[0][2]
    return len(members) > 1 and (ended or len(groups) != 1) and not beaten


def _next_pieces(
    node_id: int, depth: int, members: list[int], pieces: list[list[Piece]], leaves: list[int]
) -> tuple[dict[int, list[int]], bool]:
    """The node's cases grouped by their next piece; a case that ends here is a leaf of it
    (and the second value says some case ended)."""
    groups: dict[int, list[int]] = {}
    ended = False
    for position in members:
        case_pieces = pieces[position]
        if depth < len(case_pieces):
            groups.setdefault(case_pieces[depth].key, []).append(position)
        else:
            ended = True
            leaves[position] = node_id
    return groups, ended


def _partial(mode: str, ended: bool, nexts: list[Piece]) -> str:
    """With automatic caching, the text the differing next pieces still share (same head)."""
    if mode != "automatic" or ended or len({piece.head for piece in nexts}) != 1:
        return ""
    texts = [piece.text for piece in nexts]
    first = min(texts)
    return first[: common_prefix_length(first, max(texts))]


def common_prefix_length(first: str, second: str) -> int:
    """How many leading characters two texts share, found by halving: each step compares a slice
    in C, where os.path.commonprefix walked a long shared prompt character by character."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[low:middle] == second[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _break(case: RenderedCase, case_pieces: list[Piece], reference: list[Piece], depth: int) -> Break:
    for index in range(depth):
        if index >= len(case_pieces):
            return Break(case.id, None, None, None, "the case ends before the shared prefix does")
        piece, expected = case_pieces[index], reference[index]
        if piece.key == expected.key:
            continue
        if piece.kind == "tools" or expected.kind == "tools":
            return Break(case.id, None, None, None, "its tool definitions differ")
        if piece.text == expected.text:
            first = piece.messages[0] if piece.messages else None
            return Break(case.id, first, None, None, "its role, name or tool calls differ")
        return _located(case, piece, common_prefix_length(piece.text, expected.text))
    return Break(case.id, None, None, None, "shares the prefix")  # not reached for cases outside


def _located(case: RenderedCase, piece: Piece, offset: int) -> Break:
    """The message, file and line of the character at `offset` in the piece's text."""
    starts: list[int] = []
    where: list[tuple[int, Origin, str]] = []
    position = 0
    for number, index in enumerate(piece.messages):
        if number:
            position += len(piece.joiner)
        for segment in case.messages[index].segments:
            starts.append(position)
            where.append((index, segment.origin, segment.text))
            position += len(segment.text)
    if not where:
        first = piece.messages[0] if piece.messages else None
        return Break(case.id, first, None, None, "its text differs")
    slot = max(0, bisect.bisect_right(starts, offset) - 1)
    index, origin, text = where[slot]
    line = None
    if origin.start_line is not None:
        line = origin.start_line + text[: max(0, offset - starts[slot])].count("\n")
        if origin.end_line is not None:
            line = min(line, origin.end_line)
    role = case.messages[index].role
    if offset < len(piece.text):
        detail = f"the {role} message #{index} differs from the shared prefix here"
    else:
        detail = f"the {role} message #{index} stops where the shared prefix goes on"
    return Break(case.id, index, origin.path, line, detail)
