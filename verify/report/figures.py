"""Deterministic SVG figures for the report (matplotlib, SVG backend).

Same data -> byte-identical SVG: the SVG hash salt is fixed, the ``Date`` metadata dropped, and no
random element is used (``svg.hashsalt`` seeds the ids matplotlib gives clip paths and glyphs).
"""

from __future__ import annotations

import io
import math
import re
from typing import Sequence

import matplotlib

matplotlib.use("svg")
import matplotlib.mathtext  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

RC = {
    "svg.hashsalt": "verify-report",
    "svg.fonttype": "path",
    "figure.figsize": (6.0, 3.6),
    "figure.dpi": 72,
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.6,
    "path.simplify": False,
}
STYLES = ("-", "--", "-.", ":")
#: how a series is drawn by its role (``kind``): upper bounds in solid colours, lower bounds dashed red with
#: downward triangles, exact values black with crosses, compositions grey dotted, approximations dash-dotted,
#: the exact PLD composition green; so an upper and a lower bound never look alike, whatever their order
ROLE_STYLES = {
    "lower": {"linestyle": "--", "color": "tab:red", "marker": "v"},
    "exact": {"linestyle": "-", "color": "black", "marker": "x", "linewidth": 1.0},
    "composition": {"linestyle": ":", "color": "dimgray", "marker": "s"},
    "approximation": {"linestyle": "-.", "color": "tab:orange", "marker": "d"},
    "pld": {"linestyle": "-", "color": "tab:green", "marker": "+", "linewidth": 1.2},
}
#: what the legend adds to a series' label for its role (the label itself says which theorem)
ROLE_LEGEND = {"lower": " [lower bound]", "approximation": " [approximation]"}


#: the most parsed math texts :func:`_share_math_parses` keeps (a log axis' tick labels: a few dozen in a report)
MATH_PARSES = 1024


def _share_math_parses() -> None:
    """Parse each math text once for every figure, not once per renderer.

    matplotlib keeps what it parsed of a math text (the ``$10^{k}$`` tick labels of a log axis) per parser,
    and every renderer (three for a figure saved with a tight bounding box) has a parser of its own, so the
    same few labels were parsed again for each: a fifth of the report's drawing time.  The parse is a
    function of the text, the dpi, the font properties (copied by the caller), the antialiasing and the glyph
    flags and of the parser's output type, which make the key here: the SVG bytes are the same (tested).
    Left alone when this matplotlib has no such parser cache."""
    parser = getattr(matplotlib.mathtext, "MathTextParser", None)
    cached = getattr(parser, "_parse_cached", None)
    inner = getattr(cached, "__wrapped__", None)
    if inner is None or getattr(cached, "_shared", False):
        return
    kept: dict = {}

    def parse(self, s, dpi, prop, antialiased, load_glyph_flags):
        key = (getattr(self, "_output_type", None), s, dpi, prop, antialiased, load_glyph_flags)
        found = kept.get(key)
        if found is None:
            if len(kept) >= MATH_PARSES:
                kept.clear()
            found = kept[key] = inner(self, s, dpi, prop, antialiased, load_glyph_flags)
        return found

    parse._shared = True
    parse.__wrapped__ = inner  # matplotlib's own, uncached
    parser._parse_cached = parse


_share_math_parses()


def to_svg(fig) -> str:
    """The figure as SVG text, reproducibly (no date, fixed hash salt); closes the figure."""
    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text  # drop the XML prolog and DOCTYPE: the SVG is inlined
    # the RDF metadata block only names the creator (with its web address): not needed offline
    return re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.DOTALL)


def _new(title: str, xlabel: str, ylabel: str):
    with matplotlib.rc_context(RC):
        fig, ax = plt.subplots()
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig, ax


def _finite(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[list[float], list[float]]:
    pairs = [(x, y) for x, y in zip(xs, ys) if y is not None and math.isfinite(y)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def line_plot(title: str, xlabel: str, ylabel: str, xs: Sequence[float], series: Sequence[dict],
              points: Sequence[dict] = (), logx: bool = True, logy: bool = False) -> str | None:
    """Curves ``series`` (dicts with ``label``, ``y``, optional ``kind``: upper, lower, exact, composition,
    approximation, pld; see :data:`ROLE_STYLES`) and marked ``points`` (dicts with ``label``, ``x``, ``y``,
    ``marker``); ``None`` when there is nothing to draw."""
    drawn = 0
    with matplotlib.rc_context(RC):
        fig, ax = _new(title, xlabel, ylabel)
        upper = 0
        for s in series:
            x, y = _finite(xs, s["y"])
            if not x:
                continue
            kind = s.get("kind", "upper")
            style = dict(ROLE_STYLES.get(kind, {}))
            if not style:  # upper bounds (and unlabelled series): solid first, then the other line styles
                style = {"linestyle": STYLES[upper % len(STYLES)], "marker": "o"}
                upper += 1
            if len(x) >= 12:
                style["marker"] = None
            ax.plot(x, y, markersize=3 if style.get("marker") != "x" else 5,
                    label=s["label"] + ROLE_LEGEND.get(kind, ""), **style)
            drawn += 1
        for p in points:
            if p.get("y") is None or not math.isfinite(p["y"]):
                continue
            ax.plot([p["x"]], [p["y"]], p.get("marker", "x"), markersize=7, label=p["label"], color="black")
            drawn += 1
        if not drawn:
            plt.close(fig)
            return None
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.legend(fontsize=7, loc="best")
        return to_svg(fig)


def tradeoff_plot(title: str, curves: Sequence[dict]) -> str | None:
    """Tradeoff curves (type II error against type I error): dicts with ``label``, ``alpha``, ``beta``."""
    with matplotlib.rc_context(RC):
        fig, ax = _new(title, "type I error", "type II error")
        ax.plot([0, 1], [1, 0], color="grey", linewidth=0.8, label="Id (perfect privacy)")
        drawn = 0
        for i, c in enumerate(curves):
            a, b = _finite(c["alpha"], c["beta"])
            if a:
                ax.plot(a, b, STYLES[i % len(STYLES)], label=c["label"])
                drawn += 1
        if not drawn:
            plt.close(fig)
            return None
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.legend(fontsize=7, loc="upper right")
        return to_svg(fig)


def error_map(title: str, rows: Sequence[dict]) -> str | None:
    """Signed relative error of an approximation against the exact value, per compared point.

    Horizontal axis: the exact epsilon; vertical: (approx - exact) / exact.  Points below zero are where the
    approximation *under*-states the privacy loss (drawn as filled red triangles).
    """
    good = [r for r in rows if r.get("eps_exact") is not None and r.get("relative_error") is not None]
    if not good:
        return None
    with matplotlib.rc_context(RC):
        fig, ax = _new(title, "exact epsilon", "signed relative error (approx - exact)/exact")
        over = [r for r in good if r["relative_error"] >= 0]
        under = [r for r in good if r["relative_error"] < 0]
        if over:
            ax.plot([r["eps_exact"] for r in over], [r["relative_error"] for r in over], "o", color="tab:blue",
                    label="over-states (safe)")
        if under:
            ax.plot([r["eps_exact"] for r in under], [r["relative_error"] for r in under], "v", color="tab:red",
                    label="under-states privacy loss")
        ax.axhline(0.0, color="black", linewidth=0.8)
        positive = [r["eps_exact"] for r in good if r["eps_exact"] > 0]
        if positive and max(positive) / min(positive) > 20:
            ax.set_xscale("log")
        ax.legend(fontsize=7, loc="best")
        return to_svg(fig)


__all__ = ["error_map", "line_plot", "to_svg", "tradeoff_plot"]
