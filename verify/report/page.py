"""The report's section model: typed blocks that say what a section holds, and the two writers that lay
them out, as Markdown (``report.md``) and as one self-contained HTML page (``report.html``).

A section is built once (:mod:`verify.report.render`) as a list of blocks; each writer renders every block
kind, so a section never has a Markdown twin and an HTML twin that drift apart.  Inline text is a sequence
of :class:`Span` (plain strings are spans too): code, emphasis, strong text, links, line breaks, and a
class that colours a status in HTML (Markdown shows the words alone).
"""

from __future__ import annotations

import hashlib
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
    """A table cell; ``fold``: in HTML, text longer than this many characters is folded (its start shown, the
    rest one click away)."""

    text: Text
    cls: str = ""
    title: str = ""
    fold: int = 0


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
    parts = [f' class="{_e(cls)}"' if cls else "", f' id="{_e(anchor)}"' if anchor else "",
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


def _cell_html(cell: Cell) -> str:
    """A cell's HTML, folded in a ``<details>`` when it is long (its first words as the summary)."""
    body = html_inline(cell.text)
    plain = "".join(s if isinstance(s, str) else s.text for s in cell.text)
    if not cell.fold or len(plain) <= cell.fold:
        return body
    return f"<details><summary>{_e(plain[:cell.fold // 2].rsplit(' ', 1)[0])} …</summary>{body}</details>"


def html_blocks(blocks: Sequence[Block], svgs: Mapping[str, str], formulas: Mapping[str, str]) -> str:
    """The blocks as HTML: figures inline as compact scoped SVG (each glyph defined once on the page), formulas
    as MathML (no script, no external URL)."""
    out: list[str] = []
    glyphs: dict[str, tuple[str, str]] = {}
    for block in blocks:
        _html_block(block, svgs, formulas, out, glyphs)
    sheet = glyph_sheet(glyphs)
    return "\n".join([sheet, *out] if sheet else out)


def _html_block(block: Block, svgs: Mapping[str, str], formulas: Mapping[str, str], out: list[str],
                glyphs: dict[str, tuple[str, str]]) -> None:
    if isinstance(block, Group):
        out.append(f"<{block.tag}{_attrs(block.cls, block.anchor, data=block.data)}>")
        for inner in block.blocks:
            _html_block(inner, svgs, formulas, out, glyphs)
        out.append(f"</{block.tag}>")
    elif isinstance(block, Heading):
        out.append(f"<h{block.level}{_attrs(anchor=block.anchor)}>{html_inline(block.text)}</h{block.level}>")
    elif isinstance(block, Paragraph):
        if block.only != "md":
            body = html_inline(block.text)
            out.append(f"<p{_attrs(block.cls)}>{f'<small>{body}</small>' if block.small else body}</p>")
    elif isinstance(block, Table):
        head = "".join(f"<th{_attrs(title=c.title)}>{html_inline(c.text)}</th>" for c in block.header)
        rows = "".join("<tr>" + "".join(f"<td{_attrs(c.cls, title=c.title)}>{_cell_html(c)}</td>" for c in row)
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
        body = scoped_svg(svgs[block.name], "f-" + block.name.rsplit("/", 1)[-1].removesuffix(".svg"), glyphs)
        out.append(f'<figure data-figure="{_e(block.name)}">{body}<figcaption>{_e(block.caption)}</figcaption>'
                   "</figure>")
    else:  # pragma: no cover - every block kind is laid out above
        raise TypeError(f"not a report block: {block!r}")


#: matplotlib's glyph ids (text drawn as paths): the same id is the same glyph in every figure
_GLYPH = re.compile(r"DejaVu[\w-]*")


def scoped_svg(svg: str, prefix: str, glyphs: dict[str, tuple[str, str]] | None = None) -> str:
    """``svg`` made compact for a page of many figures: ids that nothing references dropped, the others scoped
    by a short digest of ``prefix`` so inline SVGs never share one (matplotlib derives clip-path ids from a fixed
    salt), numbers to a tenth of a point, whitespace, attribute-less groups and repeated line-to commands removed,
    a glyph's translation written as its position.  Glyphs are shared: their definitions (matplotlib's glyph ids
    are the same glyph in every figure) leave the figure for ``glyphs`` (the page's: id -> (short name,
    element)), which :func:`glyph_sheet` defines once at the top of the page."""
    scope = "f" + hashlib.sha1(prefix.encode()).hexdigest()[:6] + "-"
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)  # matplotlib's comments quote mathtext source ($10^{0}$)
    glyphs = {} if glyphs is None else glyphs

    def glyph(m: re.Match) -> str:
        if m.group(1) not in glyphs:
            short = f"g{len(glyphs)}"
            glyphs[m.group(1)] = (short, _compact(f'<path id="{short}"{m.group(2)}/>'))
        return ""

    svg = re.sub(r'<path id="(DejaVu[\w-]*)"([^>]*?)/>\s*', glyph, svg, flags=re.S)
    used = set(re.findall(r"url\(#([^)]+)\)", svg)) | set(re.findall(r'href="#([^"]+)"', svg))
    names = {old: f"{scope}{i}" for i, old in enumerate(sorted(u for u in used if not _GLYPH.fullmatch(u)))}
    names.update({u: glyphs[u][0] if u in glyphs else u for u in used if _GLYPH.fullmatch(u)})
    svg = re.sub(r'\sid="([^"]+)"', lambda m: f' id="{names[m.group(1)]}"' if m.group(1) in names else "", svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{names[m.group(1)]})", svg)
    svg = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{names[m.group(1)]}"', svg)
    return _bare_groups(_compact(svg))


def glyph_sheet(glyphs: dict[str, tuple[str, str]]) -> str:
    """One hidden SVG defining every glyph the page's figures use (empty when none)."""
    if not glyphs:
        return ""
    return ('<svg class="glyphs" width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
            + "".join(element for _, element in glyphs.values()) + "</defs></svg>")


def _compact(svg: str) -> str:
    """Numbers to a tenth of a point, compact paths and styles, SVG 2 links, glyph positions as x and y."""
    svg = re.sub(r"(?<![\w#.-])-?\d+\.\d{2,}(?![\w.])", _short_number, svg)
    svg = re.sub(r' d="([^"]*)"', lambda m: f' d="{_compact_path(m.group(1))}"', svg)
    svg = re.sub(r' style="([^"]*)"', lambda m: ' style="' + re.sub(r"\s*([:;])\s*", r"\1", m.group(1)) + '"', svg)
    svg = svg.replace(" xlink:href=", " href=")  # SVG 2
    svg = re.sub(r'(<use href="#[^"]+") transform="translate\((\S+) (\S+)\)"',
                 lambda m: m.group(1) + f' x="{m.group(2)}"' + ("" if m.group(3) == "0" else f' y="{m.group(3)}"'), svg)
    return re.sub(r"\s*\n\s*", " ", re.sub(r">\s+<", "><", svg))


def _bare_groups(svg: str) -> str:
    """``svg`` without the ``<g>`` elements that carry no attribute (once their ids are gone they group nothing
    a renderer sees): each such opening tag and its matching closing tag removed."""
    out, kept, at = [], [], 0
    for m in re.finditer(r"<g(\s[^>]*)?>|</g>", svg):
        out.append(svg[at:m.start()])
        at = m.end()
        if m.group(0) == "</g>":
            if kept.pop():
                out.append("</g>")
        else:
            kept.append(bool(m.group(1) and m.group(1).strip()))
            if kept[-1]:
                out.append(m.group(0))
    out.append(svg[at:])
    return "".join(out)


def _short_number(m: re.Match) -> str:
    """A coordinate to a tenth of a point from 1 up, three significant digits under 1 (glyph scales)."""
    x = float(m.group(0))
    text = f"{x:.1f}" if abs(x) >= 1 else f"{x:.3g}"
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return text if len(text) < len(m.group(0)) else m.group(0)


def _compact_path(d: str) -> str:
    """A path's data without spaces around commands and without a line-to letter where it is implied (after a
    move-to or a line-to; after a curve the letter stays: the next pair would extend the curve)."""
    out, last = [], ""
    for token in re.findall(r"[A-Za-z]|[^\sA-Za-z]+", d):
        if token.isalpha():
            if token == "L" and last in ("M", "L"):
                last = "L"
                continue
            last = token
            out.append(token)
        else:
            out.append(("" if not out or out[-1].isalpha() else " ") + token)
    return "".join(out)


__all__ = ["BR", "Block", "Bullets", "Cell", "Figure", "Formula", "Group", "Heading", "Item", "Paragraph", "Span",
           "Table", "code", "coloured", "em", "html_blocks", "html_inline", "link", "markdown", "md_inline",
           "scoped_svg", "strong"]
