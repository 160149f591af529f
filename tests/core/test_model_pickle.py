"""Renders cross the bounded worker's pipe and go into the render cache pickled: every field of
every model class comes back, including those left out of equality (options, raw)."""

from __future__ import annotations

import copy
import pickle

from inspector.core.model import (
    Diagnostic,
    GraderPrompt,
    LineSpan,
    Media,
    Message,
    Origin,
    OriginKind,
    OutputSchema,
    RenderedCase,
    RenderedDocument,
    Segment,
    ToolCall,
    ToolSpec,
)


def _document() -> RenderedDocument:
    span = LineSpan("evals/a.yaml", 3, 9)
    origin = Origin(OriginKind.FILE, "guides/g.md", 1, 4, via=span)
    image = Media("image", "image/png", data="aGk=", detail="low")
    message = Message(
        "user",
        [
            Segment("hello", origin, options={"cache_control": {"type": "ephemeral"}}),
            Segment("", origin, media=image),
            Segment("", Origin(OriginKind.CASE_TEXT), raw={"type": "thinking"}),
        ],
        name="ann",
        tool_calls=[ToolCall("c1", "look", "{}", origin, {"extra": 1})],
        tool_call_id="t",
        span=span,
        omitted=None,
        blocks=True,
        options={"k": [1]},
    )
    case = RenderedCase(
        "case-1",
        [message, Message("system", omitted="left out")],
        [Diagnostic("careful", "evals/a.yaml", 3, 2)],
        span,
        "skipped because",
        {"outcome": "x"},
        [ToolSpec("look", "Looks", {"type": "object"}, True, {"o": 1}, {"type": "web_search"})],
        OutputSchema("out", {"type": "object"}, False, "d"),
        [GraderPrompt("judge", [Message("user", [Segment("q", origin)])])],
    )
    return RenderedDocument(
        "evals/a.yaml",
        "agentv",
        [case, copy.deepcopy(case)],
        [Diagnostic("file level", severity="error")],
        {"x.yaml": "a: 1"},
        "agentv-4",
        "chosen",
    )


def _fields(value: object) -> object:
    """Every field, recursively, including those equality leaves out."""
    names = getattr(value, "__dataclass_fields__", None) or getattr(value, "__struct_fields__", None)
    if names is not None and not isinstance(value, type):
        return (type(value).__name__, {name: _fields(getattr(value, name)) for name in names})
    if isinstance(value, list):
        return [_fields(item) for item in value]
    if isinstance(value, dict):
        return {key: _fields(item) for key, item in value.items()}
    return value


def test_a_document_comes_back_from_pickle_field_for_field():
    document = _document()
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(document, protocol))  # noqa: S301 - our own bytes
        assert back == document
        assert _fields(back) == _fields(document)
        assert type(back.cases[0].messages[0].segments[0].origin.kind) is OriginKind


def test_every_model_class_is_compared_field_for_field():
    """_fields must reach every class, or a field equality leaves out would go unchecked."""
    document = _document()
    message = document.cases[0].messages[0]
    for value in (
        document,
        document.cases[0],
        message,
        message.segments[0],
        message.segments[0].origin,
        message.segments[1].media,
        message.tool_calls[0],
        message.span,
        document.cases[0].tools[0],
        document.cases[0].graders[0],
    ):
        assert isinstance(_fields(value), tuple), type(value).__name__


def test_segments_equal_whatever_their_options_and_raw_blocks():
    origin = Origin(OriginKind.CASE_TEXT, "a.json", 1, 1)
    plain = Segment("hello", origin)
    annotated = Segment(
        "hello", origin, options={"cache_control": {"type": "ephemeral"}}, raw={"type": "text"}
    )
    assert plain == annotated
    assert not plain != annotated  # noqa: SIM202 - != is a method of its own, checked too
    assert hash(plain) == hash(annotated)
    assert plain != Segment("hello!", origin)
    assert plain != Segment("hello", origin, media=Media("image", "image/png", data="aGk="))


def test_segments_and_origins_cannot_be_changed():
    segment = Segment("hello", Origin(OriginKind.CASE_TEXT))
    for value, name in ((segment, "text"), (segment.origin, "path")):
        try:
            setattr(value, name, "changed")
        except AttributeError:
            continue
        raise AssertionError(f"{type(value).__name__}.{name} could be changed")


def test_copies_keep_every_field():
    document = _document()
    assert _fields(copy.deepcopy(document)) == _fields(document)
    shallow = copy.copy(document.cases[0])
    assert shallow.messages is document.cases[0].messages
    assert _fields(shallow) == _fields(document.cases[0])
