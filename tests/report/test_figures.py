"""Deterministic SVG figures."""

from __future__ import annotations

import re

from verify.report import figures


def _plot():
    return figures.line_plot("t", "T", "eps", [1, 2, 4], [{"label": "a", "y": [0.1, 0.2, None]},
                                                          {"label": "b", "y": [0.3, 0.1, 0.2]}],
                             [{"label": "p", "x": 2, "y": 0.15}])


def test_same_data_gives_identical_svg_without_date():
    one, two = _plot(), _plot()
    assert one == two
    assert one.startswith("<svg")
    assert "<dc:date>" not in one
    # only XML namespace names (never fetched) may look like addresses
    without_namespaces = re.sub(r'xmlns(:\w+)?="[^"]*"', "", one)
    assert "http" not in without_namespaces


def test_nothing_to_draw_gives_none():
    assert figures.line_plot("t", "x", "y", [1, 2], [{"label": "a", "y": [None, None]}]) is None
    assert figures.error_map("t", [{"parameters": {}, "error": "no reference"}]) is None


def test_error_map_marks_understatement():
    svg = figures.error_map("t", [{"eps_exact": 1.0, "relative_error": -0.1},
                                  {"eps_exact": 2.0, "relative_error": 0.05}])
    assert svg is not None and "under-states privacy loss" in svg


def test_math_texts_parsed_once_for_every_figure_give_the_same_svg(monkeypatch):
    """The log axes' tick labels are parsed once per process (``figures._share_math_parses``), not once per
    renderer: the SVG is byte-for-byte what matplotlib's own per-parser cache gives."""
    import functools

    import matplotlib.mathtext

    from verify.report import figures

    series = [{"label": "bound", "y": [0.5, 2.0, 30.0, 400.0], "kind": "upper"},
              {"label": "exact", "y": [0.2, 1.0, 10.0, 90.0], "kind": "exact"}]
    draw = lambda: figures.line_plot("t", "T", "eps", [1, 10, 100, 1000], series, logy=True)  # noqa: E731
    shared = draw()
    assert getattr(matplotlib.mathtext.MathTextParser._parse_cached, "_shared", False)
    original = matplotlib.mathtext.MathTextParser._parse_cached.__wrapped__  # matplotlib's, without a cache
    monkeypatch.setattr(matplotlib.mathtext.MathTextParser, "_parse_cached", functools.lru_cache(50)(original))
    assert draw() == shared
