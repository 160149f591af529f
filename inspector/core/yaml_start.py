"""Where a YAML mistake likely starts, when libyaml notices it later.

An unclosed quote swallows every line up to the next quote character, so the parser complains
lines below, at whatever follows that quote. The quoted scalar just before the reported place,
when it runs over several lines, is where the author should look first."""

from __future__ import annotations

import yaml

from .model import InputError

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_QUOTED = ('"', "'")


def likely_start(text: str, error: yaml.MarkedYAMLError) -> int | None:
    """The 1-based line where the mistake behind `error` likely starts, when that is not the line
    reported: the open quote of a scalar that runs on to the reported place."""
    mark = error.problem_mark or error.context_mark
    if mark is None:
        return None
    if error.context and "quoted scalar" in error.context and error.context_mark is not None:
        started = error.context_mark.line + 1
        return started if started != mark.line + 1 else None
    quoted = _quoted_scalar_before(text, mark.index)
    if quoted is None:
        return None
    first, last = quoted
    return first if first != last else None


def _quoted_scalar_before(text: str, index: int) -> tuple[int, int] | None:
    """The lines (first, last) of the token that ends last at or before `index`, if it is a quoted
    scalar."""
    before = None
    try:
        for token in yaml.scan(text, Loader=_Loader):
            if token.end_mark.index > index:
                break
            before = token
    except yaml.YAMLError:
        pass  # the scan stops where the parse did: the tokens read so far are the ones that count
    if isinstance(before, yaml.ScalarToken) and before.style in _QUOTED:
        return before.start_mark.line + 1, before.end_mark.line + 1
    return None


def marked_error(text: str, path: str, error: yaml.MarkedYAMLError) -> InputError:
    """libyaml's complaint as an InputError at the place it names, with the context it gives (the
    line a construct started on) and where the mistake likely starts when that is elsewhere."""
    mark = error.problem_mark or error.context_mark
    problem = error.problem or "invalid YAML"
    if error.context:
        started = ""
        if error.context_mark is not None and mark is not None and error.context_mark.line != mark.line:
            started = f" started on line {error.context_mark.line + 1}"
        problem = f"{problem} ({error.context}{started})"
    start = likely_start(text, error)
    if start is not None and f"started on line {start}" not in problem:
        problem += f"; likely start: line {start}, where a quoted string opens and runs on to here"
    return InputError(
        f"invalid YAML: {problem}",
        path,
        mark.line + 1 if mark else None,
        mark.column + 1 if mark else None,
        likely_start=start,
    )
