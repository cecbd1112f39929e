"""The report's section model: typed blocks that say what a section holds, and the two writers that lay
them out, as Markdown (``report.md``) and as one self-contained HTML page (``report.html``).

A section is built once (:mod:`verify.report.render`) as a list of blocks; each writer renders every block
kind, so a section never has a Markdown twin and an HTML twin that drift apart.  Inline text is a sequence
of :class:`Span` (plain strings are spans too): code, emphasis, strong text, links, line breaks, and a
class that colours a status in HTML (Markdown shows the words alone).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence, Union


@dataclass(frozen=True)
class Span:
    """Inline text: ``style`` is "" (plain), "code", "em", "strong" or "br" (a line break); ``cls`` an HTML
    class (a status colour); ``href`` makes it a link."""

    text: str = ""
    style: str = ""
    cls: str = ""
    href: str = ""


Inline = Union[str, Span]
Text = Sequence[Inline]


def code(text: str, cls: str = "") -> Span:
    return Span(str(text), "code", cls)


def em(text: str) -> Span:
    return Span(str(text), "em")


def strong(text: str, cls: str = "") -> Span:
    return Span(str(text), "strong", cls)


def coloured(text: str, cls: str) -> Span:
    return Span(str(text), "", cls)


def link(text: str, anchor: str) -> Span:
    return Span(str(text), "", "", "#" + anchor)


BR = Span(style="br")


@dataclass(frozen=True)
class Heading:
    level: int
    text: Text
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: Text
    cls: str = ""
    small: bool = False
    only: str = ""  # "md" or "html": a line one format needs and the other does not


@dataclass(frozen=True)
class Cell:
    text: Text
    cls: str = ""
    title: str = ""


@dataclass(frozen=True)
class Table:
    header: Sequence[Cell]
    rows: Sequence[Sequence[Cell]]
    cls: str = ""


@dataclass(frozen=True)
class Item:
    text: Text
    cls: str = ""


@dataclass(frozen=True)
class Bullets:
    items: Sequence[Item]


@dataclass(frozen=True)
class Formula:
    """A display formula: LaTeX for Markdown, the MathML of ``key`` for HTML (``missing``: what HTML says
    when there is none)."""

    latex: str
    key: str
    missing: str = ""


@dataclass(frozen=True)
class Figure:
    name: str
    caption: str


@dataclass(frozen=True)
class Group:
    """Blocks that belong together: an HTML ``<section>`` or ``<div>`` (with an anchor, a class and data
    attributes); Markdown lays out the blocks alone."""

    blocks: Sequence["Block"]
    tag: str = "div"
    cls: str = ""
    anchor: str = ""
    data: Mapping[str, str] = field(default_factory=dict)


Block = Union[Heading, Paragraph, Table, Bullets, Formula, Figure, Group]


# ---------------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_inline(text: Text) -> str:
    out = []
    for span in text:
        if isinstance(span, str):
            out.append(_md_escape(span))
        elif span.style == "br":
            out.append("<br>")
        else:
            body = f"`{_md_escape(span.text)}`" if span.style == "code" else _md_escape(span.text)
            body = {"em": f"*{body}*", "strong": f"**{body}**"}.get(span.style, body)
            out.append(f"[{body}]({span.href})" if span.href else body)
    return "".join(out)


def markdown(blocks: Sequence[Block]) -> str:
    """The blocks as Markdown (GitHub's: ``$$`` math, tables, ``<a id>`` anchors)."""
    out: list[str] = []
    for block in blocks:
        _md_block(block, out)
    return "\n".join(out) + "\n"


def _md_block(block: Block, out: list[str]) -> None:
    if isinstance(block, Group):
        if block.anchor:
            out += [f'<a id="{block.anchor}"></a>', ""]
        for inner in block.blocks:
            _md_block(inner, out)
        return
    if isinstance(block, Heading):
        if block.anchor and block.level > 2:
            out += [f'<a id="{block.anchor}"></a>', ""]
        out += ["#" * block.level + " " + md_inline(block.text), ""]
    elif isinstance(block, Paragraph):
        if block.only != "html":
            out += [md_inline(block.text), ""]
    elif isinstance(block, Table):
        out.append("| " + " | ".join(md_inline(c.text) for c in block.header) + " |")
        out.append("|" + "---|" * len(block.header))
        out += ["| " + " | ".join(md_inline(c.text) for c in row) + " |" for row in block.rows]
        out.append("")
    elif isinstance(block, Bullets):
        out += [f"- {md_inline(item.text)}" for item in block.items] + [""]
    elif isinstance(block, Formula):
        out += [f"$$ {block.latex} $$", ""]
    elif isinstance(block, Figure):
        out += [f"![{_md_escape(block.caption)}]({block.name})", ""]
    else:  # pragma: no cover - every block kind is laid out above
        raise TypeError(f"not a report block: {block!r}")


# ---------------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------------


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _attrs(cls: str = "", anchor: str = "", title: str = "", data: Mapping[str, str] | None = None) -> str:
    parts = [f' id="{_e(anchor)}"' if anchor else "", f' class="{_e(cls)}"' if cls else "",
             f' title="{_e(title)}"' if title else ""]
    parts += [f' data-{k}="{_e(v)}"' for k, v in (data or {}).items()]
    return "".join(parts)


def html_inline(text: Text) -> str:
    out = []
    for span in text:
        if isinstance(span, str):
            out.append(_e(span))
            continue
        if span.style == "br":
            out.append("<br>")
            continue
        tag = {"code": "code", "em": "em", "strong": "strong"}.get(span.style, "span" if span.cls else "")
        body = f"<{tag}{_attrs(span.cls)}>{_e(span.text)}</{tag}>" if tag else _e(span.text)
        out.append(f'<a href="{_e(span.href)}">{body}</a>' if span.href else body)
    return "".join(out)


def html_blocks(blocks: Sequence[Block], svgs: Mapping[str, str], formulas: Mapping[str, str]) -> str:
    """The blocks as HTML: figures inline as scoped SVG, formulas as MathML (no script, no external URL)."""
    out: list[str] = []
    for block in blocks:
        _html_block(block, svgs, formulas, out)
    return "\n".join(out)


def _html_block(block: Block, svgs: Mapping[str, str], formulas: Mapping[str, str], out: list[str]) -> None:
    if isinstance(block, Group):
        out.append(f"<{block.tag}{_attrs(block.cls, block.anchor, data=block.data)}>")
        for inner in block.blocks:
            _html_block(inner, svgs, formulas, out)
        out.append(f"</{block.tag}>")
    elif isinstance(block, Heading):
        out.append(f"<h{block.level}{_attrs(anchor=block.anchor)}>{html_inline(block.text)}</h{block.level}>")
    elif isinstance(block, Paragraph):
        if block.only != "md":
            body = html_inline(block.text)
            out.append(f"<p{_attrs(block.cls)}>{f'<small>{body}</small>' if block.small else body}</p>")
    elif isinstance(block, Table):
        head = "".join(f"<th{_attrs(title=c.title)}>{html_inline(c.text)}</th>" for c in block.header)
        rows = "".join("<tr>" + "".join(f"<td{_attrs(c.cls, title=c.title)}>{html_inline(c.text)}</td>" for c in row)
                       + "</tr>" for row in block.rows)
        out.append(f"<table{_attrs(block.cls)}><tr>{head}</tr>{rows}</table>")
    elif isinstance(block, Bullets):
        out.append("<ul>" + "".join(f"<li{_attrs(i.cls)}>{html_inline(i.text)}</li>" for i in block.items) + "</ul>")
    elif isinstance(block, Formula):
        mathml = formulas.get(block.key)
        if mathml:
            out.append(f'<div class="formula">{mathml}</div>')
        elif block.missing:
            out.append(f'<p class="gap">{_e(block.missing)}</p>')
    elif isinstance(block, Figure):
        body = scoped_svg(svgs[block.name], "f-" + block.name.rsplit("/", 1)[-1].removesuffix(".svg"))
        out.append(f'<figure data-figure="{_e(block.name)}">{body}<figcaption>{_e(block.caption)}</figcaption>'
                   "</figure>")
    else:  # pragma: no cover - every block kind is laid out above
        raise TypeError(f"not a report block: {block!r}")


def scoped_svg(svg: str, prefix: str) -> str:
    """``svg`` with every id (and every reference to one) prefixed, so inline SVGs sharing a page never
    share an id (matplotlib derives clip-path and glyph ids from a fixed salt)."""
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", prefix)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)  # matplotlib's comments quote mathtext source ($10^{0}$)
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', svg)


__all__ = ["BR", "Block", "Bullets", "Cell", "Figure", "Formula", "Group", "Heading", "Item", "Paragraph", "Span",
           "Table", "code", "coloured", "em", "html_blocks", "html_inline", "link", "markdown", "md_inline",
           "scoped_svg", "strong"]
