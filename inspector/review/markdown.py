"""Comment bodies as Markdown, rendered safely: raw HTML is escaped (html=False), images are off (a
comment must not load anything), and markdown-it's link check refuses javascript:, vbscript:,
file: and data: links. Links open without a referrer or an opener."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).disable("image")


def _link_open(self, tokens, index, options, env):
    tokens[index].attrSet("rel", "nofollow noopener noreferrer")
    tokens[index].attrSet("target", "_blank")
    return self.renderToken(tokens, index, options, env)


_MD.add_render_rule("link_open", _link_open)


def render_markdown(text: str) -> SafeString:
    return mark_safe(_MD.render(text))  # noqa: S308 - markdown-it escapes all text; raw HTML is off
