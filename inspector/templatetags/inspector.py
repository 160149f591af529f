"""Template helpers for the hot loops: a case can hold thousands of segments and source lines, and
building them with format_html in Python is several times faster than nested template loops."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from inspector.cases.message_cards import MessageCard, SegmentView
from inspector.cases.source_view import SourcePane

register = template.Library()


@register.simple_tag
def segments(card: MessageCard) -> SafeString:
    """The message content as one <span> per segment, marked by origin. No whitespace is added
    between spans: the content is shown pre-wrapped and must read byte for byte as sent."""
    parts = []
    for segment in card.segments:
        if segment.media is not None:
            parts.append(_media(segment))
        elif segment.thinking is not None:
            parts.append(_thinking(segment))
        elif segment.path:
            via = segment.via
            via_attributes = (
                format_html(
                    ' data-via-path="{}" data-via-from="{}" data-via-to="{}"',
                    via.path,
                    via.start_line,
                    via.end_line,
                )
                if via
                else ""
            )
            parts.append(
                format_html(
                    '<span class="seg k-{}" title="{}" data-src="{}" data-path="{}" data-from="{}" '
                    'data-to="{}"{}{} tabindex="0">{}</span>',
                    segment.kind,
                    segment.title,
                    segment.url,
                    segment.path,
                    segment.start or "",
                    segment.end or segment.start or "",
                    via_attributes,
                    mark_safe(' data-by-line=""') if segment.by_line else "",
                    segment.text,
                )
            )
        else:
            parts.append(
                format_html(
                    '<span class="seg k-{}" title="{}">{}</span>', segment.kind, segment.title, segment.text
                )
            )
    return mark_safe("".join(parts))


def _thinking(segment: SegmentView) -> SafeString:
    """The model's reasoning as a labelled block of its own: it is no text of the message."""
    thinking = segment.thinking
    assert thinking is not None
    attributes = (
        format_html(
            ' data-src="{}" data-path="{}" data-from="{}" data-to="{}"',
            segment.url,
            segment.path,
            segment.start or "",
            segment.end or segment.start or "",
        )
        if segment.path
        else ""
    )
    return format_html(
        '<span class="seg thinking k-thinking" title="{}"{} tabindex="0">'
        '<span class="thinking-label">{}</span>{}</span>',
        segment.title,
        attributes,
        thinking.label,
        thinking.text,
    )


def _media(segment: SegmentView) -> SafeString:
    """An image as a thumbnail of its own data, a remote one as a link, a file as its label."""
    media = segment.media
    assert media is not None
    if media.thumbnail is not None:
        inner = format_html(
            '<img class="thumb" src="{}" alt="{}" loading="lazy">', media.thumbnail, media.label
        )
    elif media.link is not None:
        inner = format_html(
            '<a class="media-link" href="{}" rel="noopener noreferrer nofollow" target="_blank">{}</a>',
            media.link,
            media.label,
        )
    else:
        inner = format_html("{}", media.label)
    attributes = (
        format_html(
            ' data-src="{}" data-path="{}" data-from="{}" data-to="{}" tabindex="0"',
            segment.url,
            segment.path,
            segment.start or "",
            segment.end or segment.start or "",
        )
        if segment.path
        else ""
    )
    return format_html(
        '<span class="seg media m-{}" title="{}"{}>{}</span>', media.kind, segment.title, attributes, inner
    )


@register.simple_tag
def source_lines(pane: SourcePane) -> SafeString:
    start, end = pane.highlight or (0, -1)
    return format_html_join(
        "",
        '<div class="line{}" id="L{}" data-line="{}"><a class="num" href="#L{}">{}</a>'
        '<span class="text">{}</span></div>',
        (
            (
                " hl" if start <= line.number <= end else "",
                line.number,
                line.number,
                line.number,
                line.number,
                line.html,
            )
            for line in pane.lines
        ),
    )
