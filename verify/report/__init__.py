"""Tightness reports: markdown / html / json writers and figures (DESIGN.md §2, issue 6).

``verify report --out DIR`` (:mod:`verify.report.command`); the pieces: :mod:`~verify.report.reproduce`
(the papers' tables, printed vs computed), :mod:`~verify.report.build` (per-theorem sections, errata),
:mod:`~verify.report.figures` (deterministic SVG) and :mod:`~verify.report.render` (Markdown, HTML).
"""
