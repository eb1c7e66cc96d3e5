"""The one escaping layer: every string from data or a user passes here before it reaches Markdown or HTML."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import quote

# line breaks of every kind (CR, LF, VT, FF, NEL, U+2028/9) and the other control characters
_BREAKS = re.compile(r"[\r\n\x0b\x0c\x85\u2028\u2029\t]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
# characters that start Markdown syntax anywhere in a line: code, tables, links and images, headings, emphasis,
# strike-through, math, escapes; `<` `>` `&` become entities so no HTML tag or entity survives
_INLINE = {c: "\\" + c for c in "\\`*[]#|~$"}
_INLINE.update({"<": "&lt;", ">": "&gt;", "&": "&amp;"})
_UNDERSCORE_EDGE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_SIGN_START = re.compile(r"^([-+=])")
_NUMBERED = re.compile(r"^(\d+)([.)])(?=\s|$)")
_PLAIN_CODE = re.compile(r"[A-Za-z0-9._:@/+=-]*")


def one_line(value: Any) -> str:
    """`value` as text on one line: line breaks and tabs become one space, other control characters go."""
    return _CONTROLS.sub("", _BREAKS.sub(" ", str(value))).strip()


def markdown_cell(value: Any) -> str:
    """`value` as literal text inside a line or a table cell: no cell break, code, link, image, emphasis or HTML."""
    text = "".join(_INLINE.get(c, c) for c in one_line(value))
    return _UNDERSCORE_EDGE.sub(r"\\_", text)


def markdown_text(value: Any) -> str:
    """`value` as literal Markdown text that may start a line: also no list item, quote or heading underline."""
    return _NUMBERED.sub(r"\1\\\2", _SIGN_START.sub(r"\\\1", markdown_cell(value)))


def markdown_code(value: Any) -> str:
    """`value` as inline code when it is a plain token (a hash, an id, a version), else as escaped text."""
    text = one_line(value)
    return f"`{text}`" if text and _PLAIN_CODE.fullmatch(text) else markdown_cell(text)


def markdown_link_target(name: str) -> str:
    """A relative file name as a link target: percent-encoded, so it cannot close the link or add a title."""
    return quote(name, safe="._-")


def html_text(value: Any) -> str:
    """`value` as HTML element text (tags and entities shown literally)."""
    return html.escape(str(value), quote=True)


def html_attr(value: Any) -> str:
    """`value` as a quoted HTML attribute value (quotes, backticks and line breaks cannot end it)."""
    return html.escape(str(value), quote=True).replace("`", "&#96;").replace("\n", "&#10;").replace("\r", "&#13;")


LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def latex_text(value: Any) -> str:
    """`value` as literal LaTeX text on one line: every special character escaped, control characters gone."""
    return "".join(LATEX_SPECIALS.get(char, char) for char in " ".join(one_line(value).split()))
