"""Tightness reports: markdown / html / json writers and figures (docs/architecture.md).

``verify report --out DIR`` (:mod:`verify.commands.report`) runs :mod:`~verify.report.generate`; the
pieces: :mod:`~verify.report.reproduce` (the papers' tables, printed vs computed),
:mod:`~verify.report.build` (per-theorem sections from the engine's typed evidence, errata),
:mod:`~verify.report.figures` (deterministic SVG), :mod:`~verify.report.frontpage` (roll-up, errata table,
violations), :mod:`~verify.report.mathml` (formulas), :mod:`~verify.report.render` (Markdown, HTML),
:mod:`~verify.report.incremental` (cached results of unchanged theorems) and :mod:`~verify.report.browser`
(screenshots).
Which theorem a section is compared with is data (``theorems.tables.COMPOSITION_BASELINES``).
"""
