"""Assembling the report: verdicts (from the cross-check engine), per-theorem plots, errata, reproduction.

The report is one JSON-ready dict plus a set of SVG figures; ``verify.report.render`` turns it into
Markdown and HTML.  Everything here is deterministic for a given seed and profile: no timestamps, no timing,
sorted keys when serialised, fixed parameter grids.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from verify.report import figures as fig
from verify.report.reproduce import convert, figure_series, reproduce_table, theorem_params
from verify.theorem import Theorem

DELTA = 1e-5
ALPHAS = tuple(float(a) for a in np.round(np.geomspace(1.25, 256.0, 20), 6))
ALPHA_GRID = np.linspace(0.0, 1.0, 201)


@dataclass(frozen=True)
class Options:
    profile: str = "quick"
    seed: int = 0

    @property
    def full(self) -> bool:
        return self.profile == "full"


def slug(text: str) -> str:
    """A file- and anchor-safe name: ``bok2024/thm4.2`` -> ``bok2024-thm4-2``."""
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


class Figures:
    """The SVG figures of one report, by file name (``figures/NAME.svg``)."""

    def __init__(self) -> None:
        self.svg: dict[str, str] = {}
        self.captions: dict[str, str] = {}

    def add(self, name: str, svg: str | None, caption: str) -> str | None:
        if svg is None:
            return None
        file = f"figures/{name}.svg"
        self.svg[file] = svg
        self.captions[file] = caption
        return file

    def update(self, svg: Mapping[str, str], captions: Mapping[str, str]) -> None:
        self.svg.update(svg)
        self.captions.update(captions)

    def index(self) -> list[dict]:
        """File, caption and SHA-256 of every figure (so report.json pins the SVG bytes too)."""
        return [{"file": f, "caption": self.captions[f], "sha256": hashlib.sha256(s.encode()).hexdigest()}
                for f, s in sorted(self.svg.items())]


# ---------------------------------------------------------------------------------------------------
# per theorem
# ---------------------------------------------------------------------------------------------------


def composition_baseline(theorem: Theorem) -> str | None:
    """The registry id of the composition bound a theorem is compared with (by its setting)."""
    s = theorem.setting
    if s.algorithm not in ("noisy_gd", "dp_sgd"):
        return None
    if s.batches == "full":
        return "baselines/noisy-gd/gdp"
    if s.batches == "cyclic":
        return "bok2024/thm4.4"
    if s.batches == "poisson":
        return "bu2020/appB.3" if "z" in theorem.parameters else "baselines/moments-accountant/eps-improved"
    return None  # uniform / shuffle: the exact composition (Thm 4.8) is too heavy for a plot grid


def _obligation(verdict: Mapping, name: str) -> dict | None:
    return next((o for o in verdict.get("obligations", []) if o["name"] == name), None)


def representative_point(theorem: Theorem, verdict: Mapping, seed: int) -> tuple[dict[str, float], str]:
    """Parameters to draw the theorem's curves at.

    Candidates, in order: the worst instance of the tightness check (its exact value can be marked), the
    instance of the simulation audit (its audited lower bound can be marked), the paper's own parameter
    sets, sampled admissible points.  The first whose epsilon at delta = 1e-5 is
    informative (between 0.05 and 50) is chosen; otherwise the first candidate.
    """
    own = [p for p in theorem.parameters if p != theorem.notion_record.parameter]
    candidates: list[tuple[dict[str, float], str]] = []
    tight = _obligation(verdict, "tightness") or {}
    worst = (tight.get("data") or {}).get("worst") or {}
    params = worst.get("parameters") or {}
    if own and all(isinstance(params.get(p), (int, float)) for p in own):
        candidates.append(({p: float(params[p]) for p in own}, "the worst instance of the tightness check"))
    audit = (_obligation(verdict, "audit") or {}).get("data") or {}
    constants = audit.get("constants") or {}
    if own and all(isinstance(constants.get(p), (int, float)) for p in own):
        candidates.append(({p: float(constants[p]) for p in own}, "the instance of the simulation audit"))
    for example in theorem.examples:
        if all(p in example for p in own):
            candidates.append(({p: float(example[p]) for p in own}, "the paper's own parameter set"))
    try:
        from verify.check.domain import admissible_points

        points = admissible_points(theorem, 3, seed)
    except Exception:  # noqa: BLE001 - no point is a gap, reported by the caller
        points = []
    for point in points:
        if all(p in point for p in own):
            candidates.append(({p: float(point[p]) for p in own}, "a sampled admissible point"))
    if not candidates:
        return {}, ""
    if theorem.notion in ("gdp", "rdp", "eps_delta") and not _heavy(theorem):
        for point, origin in candidates:
            value = _eps(theorem, point)
            if value is not None and 0.05 <= value <= 50:
                return point, origin
    return candidates[0]


def _x_variable(theorem: Theorem) -> str | None:
    for name in ("T", "E"):
        if name in theorem.parameters:
            return name
    return None


def _x_grid(x0: float) -> list[float]:
    top = max(64.0, 8.0 * x0)
    grid = {float(v) for v in np.unique(np.round(np.geomspace(1.0, top, 9)))}
    grid.add(float(round(x0)))
    return sorted(grid)


def _baseline_params(baseline: Theorem, theorem: Theorem, point: Mapping[str, float]) -> dict[str, float]:
    params = dict(point)
    if "Delta" not in params and "L" in params:
        params["Delta"] = 2.0 * params["L"]  # replace-one adjacency: Delta <= 2L (DESIGN.md §3)
    if "n" in params and "b" in params and "q" not in params:
        params["q"] = params["b"] / params["n"]
    if "b" not in params and "n" in params and "q" in params:
        params["b"] = params["q"] * params["n"]
    if baseline.setting.batches == "cyclic" and "E" not in params and "T" in params and "l" in params:
        params["E"] = params["T"] / params["l"]
    return params


def _eps(theorem: Theorem, params: Mapping[str, float]) -> float | None:
    try:
        value = convert(theorem, params, "eps_at_delta", DELTA)
    except Exception:  # noqa: BLE001 - outside the theorem's range: a gap in the curve
        return None
    return value if math.isfinite(value) else None


def _heavy(theorem: Theorem) -> bool:
    """Bounds whose every evaluation is a numerical composition or an optimisation over operators."""
    return theorem.notion == "fdp" or bool(theorem.free and theorem.operators)


def beats_summary(x: str, xs: list[float], own: list[float | None], base: list[float | None]) -> str:
    """Where the bound is below the composition baseline, in words (``T >= 40``, ``nowhere``, ...)."""
    pairs = [(v, a, b) for v, a, b in zip(xs, own, base) if a is not None and b is not None]
    if not pairs:
        return "not compared"
    wins = [v for v, a, b in pairs if a < b * (1 - 1e-9)]
    lo, hi = f"{pairs[0][0]:g}", f"{pairs[-1][0]:g}"
    if not wins:
        return f"nowhere on {x} in [{lo}, {hi}]"
    if len(wins) == len(pairs):
        return f"everywhere on {x} in [{lo}, {hi}]"
    first = wins[0]
    if all(v in wins for v, _, _ in pairs if v >= first):
        return f"{x} >= {first:g} (checked up to {hi})"
    return f"{x} in {{{', '.join(f'{v:g}' for v in wins)}}}"


def theorem_section(theorem: Theorem, verdict: Mapping, lookup: Callable[[str], Theorem], options: Options,
                    figures: Figures, curves: bool = True) -> dict:
    """One theorem's section: record, verdict, representative curves and their figures (``curves=False``:
    the record and verdict only)."""
    record = theorem.to_json()
    name = slug(theorem.id)
    point, origin = representative_point(theorem, verdict, options.seed) if curves else ({}, "")
    section: dict = {
        "id": theorem.id, "anchor": f"thm-{name}", "title": theorem.title,
        "paper": theorem.source.paper, "statement": theorem.source.statement, "notion": theorem.notion,
        "kind": theorem.kind, "setting": record["setting"], "bound": record["bound"],
        "paper_form": theorem.paper_form, "assumptions": record["assumptions"], "errata": record["errata"],
        "printed_of": theorem.printed_of, "variants": record["variants"], "notes": theorem.notes,
        "verdict": dict(verdict), "point": point, "point_origin": origin, "figures": [], "gaps": [],
        "beats_baseline": "not compared",
    }
    if not curves:
        return section
    if theorem.notion == "utility":
        section["gaps"].append("utility bound: no privacy curves")
        return section
    if not point:
        section["gaps"].append("no admissible parameter point to draw curves at")
        return section
    tight = (_obligation(verdict, "tightness") or {}).get("data") or {}
    worst = tight.get("worst") or {}
    at_worst = origin.startswith("the worst")
    baseline_id = composition_baseline(theorem)
    baseline = None
    if baseline_id:
        try:
            baseline = lookup(baseline_id)
        except KeyError:
            section["gaps"].append(f"composition baseline {baseline_id} is not in the registry")
    heavy = _heavy(theorem) and not options.full
    # epsilon at delta = 1e-5 against T (or E)
    x = _x_variable(theorem)
    if x and point.get(x) and not heavy and theorem.notion != "fdp":
        xs = _x_grid(point[x])
        own = [_eps(theorem, {**point, x: v}) for v in xs]
        series = [{"label": f"bound ({theorem.id})", "y": own}]
        base: list[float | None] = []
        if baseline is not None and baseline.id != theorem.id:
            bx = x if x in baseline.parameters else ("T" if x == "E" else "E")
            bparams = _baseline_params(baseline, theorem, point)
            base = []
            for v in xs:
                p = {**bparams, x: v}
                if bx != x:
                    p[bx] = v * point.get("l", 1.0) if bx == "T" else v / point.get("l", 1.0)
                base.append(_eps(baseline, p))
            series.append({"label": f"composition ({baseline.id})", "y": base})
            section["beats_baseline"] = beats_summary(x, xs, own, base)
        elif baseline is not None:
            section["beats_baseline"] = "is the composition baseline"
        exact_curve = _exact_curve(theorem, worst, point, x, xs)
        if exact_curve is not None:
            series.append({"label": f"exact ({worst.get('family', 'instance')} family)", "y": exact_curve})
        points = []
        if at_worst and "exact" in worst:
            exact_eps = _exact_eps(theorem, worst)
            if exact_eps is not None:
                points.append({"label": "exact (worst instance)", "x": point[x], "y": exact_eps, "marker": "x"})
        audit = (_obligation(verdict, "audit") or {}).get("data") or {}
        lower = _audit_eps(theorem, audit)
        if origin.startswith("the instance of the simulation audit") and lower is not None:
            points.append({"label": f"audited lower bound ({audit.get('confidence', '')} confidence)",
                           "x": point[x], "y": lower, "marker": "v"})
        elif audit:
            section["audit"] = {k: audit.get(k) for k in ("instance", "lower", "bound", "at", "confidence", "runs")}
        else:
            section["gaps"].append("no audited lower bound (no simulation audit for this theorem)")
        section["curve"] = {"x": x, "xs": xs, "series": series, "points": points, "delta": DELTA}
        file = figures.add(f"{name}-eps", fig.line_plot(f"{theorem.id}: epsilon at delta=1e-5", x, "epsilon",
                                                          xs, series, points), f"{theorem.id}: epsilon at "
                           f"delta = 1e-5 against {x} at {origin}")
        if file:
            section["figures"].append(file)
        elif not any(v is not None for v in own):
            section["gaps"].append(f"the bound cannot be evaluated on the {x} grid at {origin}")
    elif heavy:
        section["gaps"].append("curves of a numerical-composition bound are drawn in the full profile only")
    # the RDP curve
    if theorem.notion == "rdp":
        _rdp_curve(theorem, point, worst if at_worst else {}, baseline, lookup, section, figures, name, origin)
    # tradeoff curves
    if theorem.notion == "gdp":
        _tradeoff(theorem, point, worst if at_worst else {}, baseline, section, figures, name, origin)
    if theorem.notion == "fdp" and not heavy:
        _privacy_curve(theorem, point, section, figures, name, origin)
    # the signed error map of an approximation
    approx = (_obligation(verdict, "approximation") or {}).get("data") or {}
    if approx.get("rows"):
        file = figures.add(f"{name}-error", fig.error_map(f"{theorem.id}: signed error against exact composition",
                                                         approx["rows"]),
                           f"{theorem.id}: signed relative error of the approximation (below 0: under-states)")
        if file:
            section["figures"].append(file)
    return section


def _exact_curve(theorem: Theorem, worst: Mapping, point: Mapping[str, float], x: str,
                 xs: list[float]) -> list[float | None] | None:
    """Exact epsilon at delta = 1e-5 of the tightness check's worst family, built at ``point`` as ``x`` varies
    (GDP and (eps, delta) theorems), from the engine's exact references.

    A value is kept only when the instance's own constants equal the theorem's parameters at that point (so
    exact and bound describe the same run); grid-based families only up to 60 steps (their cost)."""
    if theorem.notion not in ("gdp", "eps_delta"):
        return None
    try:
        from verify.check import references as refs
        from verify.privacy.gaussian import gdp_eps

        family = refs.families().get(str(worst.get("family", "")))
    except ImportError:
        return None
    if family is None or not worst.get("parameters"):
        return None
    base = {**worst["parameters"], **point}
    grid = str(worst.get("family")) in refs.GRID_FAMILIES
    out: list[float | None] = []
    for v in xs:
        point = {**base, x: v}
        if x == "E" and "l" in base:
            point["T"] = v * base["l"]
        elif x == "T" and "l" in base and "E" in base:
            point["E"] = v / base["l"]
        if grid and point.get("T", 0) > 60:
            out.append(None)
            continue
        try:
            instance = refs.build(family, point, theorem)
            own = instance.params()
            same = all(p in own and math.isclose(float(own[p]), float(point[p]), rel_tol=1e-9)
                       for p in theorem.parameters if p != theorem.notion_record.parameter)
            if not same or refs.why_not_applicable(theorem, instance) is not None:
                out.append(None)
                continue
            profile = instance.profile()
            if theorem.notion == "gdp":
                value = float(gdp_eps(refs.effective_mu(profile), DELTA))
            else:
                value = float(refs.exact_value(theorem, profile, DELTA))
            out.append(value if math.isfinite(value) else None)
        except Exception:  # noqa: BLE001 - outside the family's range: a gap in the curve
            out.append(None)
    return out if any(v is not None for v in out) else None


def _audit_eps(theorem: Theorem, audit: Mapping) -> float | None:
    """The audited lower bound as epsilon at delta = 1e-5 (GDP: exact conversion of the audited mu)."""
    lower = audit.get("lower")
    if not isinstance(lower, (int, float)) or not math.isfinite(lower):
        return None
    if theorem.notion == "gdp":
        from verify.privacy.gaussian import gdp_eps

        return float(gdp_eps(max(float(lower), 0.0), DELTA))
    if theorem.notion == "eps_delta" and isinstance(audit.get("at"), (int, float)) and math.isclose(audit["at"], DELTA):
        return float(lower)
    return None


def _exact_eps(theorem: Theorem, worst: Mapping) -> float | None:
    exact = worst.get("exact")
    if not isinstance(exact, (int, float)):
        return None
    if theorem.notion == "gdp":
        from verify.privacy.gaussian import gdp_eps

        return float(gdp_eps(float(exact), DELTA))
    if theorem.notion == "eps_delta" and isinstance(worst.get("delta"), (int, float)) \
            and math.isclose(worst["delta"], DELTA):
        return float(exact)
    return None


def _rdp_curve(theorem, point, worst, baseline, lookup, section, figures, name, origin) -> None:
    def curve(t: Theorem, params) -> list[float | None]:
        out = []
        for a in ALPHAS:
            try:
                v = float(t.evaluate(**{**theorem_params(t, params), "alpha": a}))
                out.append(v if math.isfinite(v) else None)
            except Exception:  # noqa: BLE001
                out.append(None)
        return out

    series = [{"label": f"bound ({theorem.id})", "y": curve(theorem, point)}]
    rdp_base = {"baselines/noisy-gd/gdp": "baselines/noisy-gd/rdp"}.get(baseline.id if baseline else "")
    if rdp_base and rdp_base != theorem.id:
        try:
            b = lookup(rdp_base)
            series.append({"label": f"composition ({b.id})", "y": curve(b, _baseline_params(b, theorem, point))})
        except KeyError:
            pass
    points = []
    if isinstance(worst.get("exact"), (int, float)) and isinstance(worst.get("alpha"), (int, float)):
        points.append({"label": "exact (worst instance)", "x": float(worst["alpha"]), "y": float(worst["exact"])})
    section["rdp_curve"] = {"alphas": list(ALPHAS), "series": series, "points": points}
    file = figures.add(f"{name}-rdp", fig.line_plot(f"{theorem.id}: RDP curve", "Rényi order alpha", "RDP epsilon",
                                                    ALPHAS, series, points, logy=True),
                       f"{theorem.id}: RDP epsilon against alpha at {origin}")
    if file:
        section["figures"].append(file)


def _tradeoff(theorem, point, worst, baseline, section, figures, name, origin) -> None:
    from verify.privacy.gaussian import tradeoff_gaussian

    mus = []
    try:
        mus.append((f"bound ({theorem.id})", float(theorem.evaluate(**theorem_params(theorem, point)))))
    except Exception as exc:  # noqa: BLE001
        section["gaps"].append(f"tradeoff curve: {type(exc).__name__}: {exc}".splitlines()[0][:200])
        return
    if baseline is not None and baseline.notion == "gdp" and baseline.id != theorem.id:
        try:
            mus.append((f"composition ({baseline.id})",
                        float(baseline.evaluate(**theorem_params(baseline, _baseline_params(baseline, theorem,
                                                                                            point))))))
        except Exception:  # noqa: BLE001
            pass
    if isinstance(worst.get("exact"), (int, float)):
        mus.append(("exact (worst instance)", float(worst["exact"])))
    curves = []
    for label, mu in mus:
        if not math.isfinite(mu):
            continue
        beta = np.asarray(tradeoff_gaussian(ALPHA_GRID, max(mu, 0.0)), dtype=float)
        curves.append({"label": f"{label}: G_{mu:.3g}", "alpha": ALPHA_GRID.tolist(), "beta": beta.tolist()})
    section["tradeoff_mu"] = {label: mu for label, mu in mus}
    file = figures.add(f"{name}-tradeoff", fig.tradeoff_plot(f"{theorem.id}: tradeoff curves", curves),
                       f"{theorem.id}: tradeoff curves at {origin}")
    if file:
        section["figures"].append(file)


def _privacy_curve(theorem, point, section, figures, name, origin) -> None:
    eps_grid = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
    ys = []
    for e in eps_grid:
        try:
            ys.append(float(theorem.evaluate(**theorem_params(theorem, point), eps=e)))
        except Exception:  # noqa: BLE001
            ys.append(None)
    section["privacy_curve"] = {"eps": eps_grid, "delta": ys}
    file = figures.add(f"{name}-delta", fig.line_plot(f"{theorem.id}: delta(eps)", "eps", "delta", eps_grid,
                                                      [{"label": f"bound ({theorem.id})", "y": ys}], logx=False,
                                                      logy=True),
                       f"{theorem.id}: delta(eps) at {origin}")
    if file:
        section["figures"].append(file)


# ---------------------------------------------------------------------------------------------------
# errata and reproduction
# ---------------------------------------------------------------------------------------------------


def errata_section(records: list[Theorem], verdicts: Mapping[str, Mapping], tables: list[dict]) -> list[dict]:
    """Every erratum of the selected theorems with its evidence: the "as printed" variant's failed checks
    (scaling check, counterexample) and the printed tables that do not come out."""
    mismatches_by_theorem: dict[str, list[dict]] = {}
    for t in tables:
        columns = {c["key"]: c for c in t["columns"]}
        for row in t["rows"]:
            for key, cell in row["cells"].items():
                if cell["status"] == "mismatch":
                    theorem_id = columns[key].get("erratum") or columns[key]["theorem"]
                    mismatches_by_theorem.setdefault(theorem_id, []).append(
                        {"table": t["id"], "label": t["label"], "row": row["label"], "column": columns[key]["label"],
                         "printed": cell["printed"], "computed": cell["computed"]})
    out = []
    for theorem in records:
        for e in theorem.errata:
            evidence = []
            if e.variant and e.variant in verdicts:
                v = verdicts[e.variant]
                failed = [o for o in v.get("obligations", []) if o["status"] == "failed"]
                for o in failed:
                    kind = "failed scaling check" if o["name"] == "scaling" else f"failed {o['name']}"
                    evidence.append({"kind": kind, "detail": o["detail"]})
                if v.get("counterexample"):
                    evidence.append({"kind": "counterexample", "detail": v["counterexample"]})
                if not failed:
                    evidence.append({"kind": "variant not caught", "detail": f"{e.variant}: verdict {v['verdict']}"})
            elif e.variant:
                evidence.append({"kind": "variant not checked", "detail": f"{e.variant} is not in this run"})
            related = {theorem.id, *(v.id for v in theorem.variants)}
            if theorem.printed_of:
                related.add(theorem.printed_of)
            for tid in sorted(related):
                for m in mismatches_by_theorem.get(tid, []):
                    evidence.append({"kind": "table mismatch", "detail": m})
            if e.evidence:
                evidence.append({"kind": "source", "detail": e.evidence})
            out.append({"theorem": theorem.id, "text": e.text, "variant": e.variant, "evidence": evidence})
    explained = {e["theorem"] for e in out} | {t.printed_of for t in records if t.printed_of}
    mism = [dict(m, theorem=tid) for tid, ms in sorted(mismatches_by_theorem.items()) for m in ms
            if tid not in explained]
    if mism:
        out.append({"theorem": None, "text": "Printed table values that the registry does not reproduce (no recorded erratum "
                    "among the selected theorems explains them)",
                    "variant": None, "evidence": [{"kind": "table mismatch", "detail": m} for m in mism]})
    return out


def reproduction(options: Options, figures: Figures, progress: Callable[[], None] | None = None,
                 papers: set[str] | None = None) -> dict:
    """Every printed table (printed vs computed) and every figure parameter set replotted."""
    try:
        from theorems.tables import FIGURES, TABLES
    except ImportError as exc:  # the tables module is part of this feature; report its absence, never crash
        return {"tables": [], "figures": [], "gap": f"theorems.tables unavailable: {exc}"}
    tables = []
    for table in TABLES:
        if papers is not None and table.paper not in papers:
            continue
        tables.append(reproduce_table(table, heavy=options.full))
        if progress:
            progress()
    plots = []
    for spec in FIGURES:
        if papers is not None and spec.paper not in papers:
            continue
        data = figure_series(spec)
        series = [{"label": s["label"] + (f", delta={s['delta']:g}" if s["delta"] else ""), "y": s["y"]}
                  for s in data["series"]]
        ylabel = data["ylabel"] if spec.quantity == "value" else "epsilon"
        file = figures.add(f"repro-{slug(spec.id)}", fig.line_plot(f"{spec.paper} {spec.label} (replotted)", spec.x,
                                                                    ylabel, spec.xs, series),
                           f"{spec.paper} {spec.label}: {spec.caption}")
        data["figure"] = file
        plots.append(data)
        if progress:
            progress()
    return {"tables": tables, "figures": plots}


def reproduction_steps(papers: set[str] | None = None) -> int:
    try:
        from theorems.tables import FIGURES, TABLES
    except ImportError:
        return 0
    return sum(1 for t in (*TABLES, *FIGURES) if papers is None or t.paper in papers)


def summary_rows(sections: list[dict]) -> list[dict]:
    rows = []
    for s in sections:
        v = s["verdict"]
        tight = (_obligation(v, "tightness") or {}).get("data") or {}
        ratio = tight.get("max_ratio", v.get("max_ratio"))
        rows.append({"id": s["id"], "anchor": s["anchor"], "paper": s["paper"], "notion": s["notion"],
                     "kind": s["kind"], "verdict": v.get("verdict", "missing"), "expected": v.get("expected"),
                     "printed_of": s["printed_of"],
                     "worst_ratio": ratio if isinstance(ratio, (int, float)) and math.isfinite(ratio) else None,
                     "median_ratio": tight.get("median_ratio"), "beats_baseline": s["beats_baseline"]})
    return rows


__all__ = ["Figures", "Options", "beats_summary", "composition_baseline", "errata_section", "representative_point",
           "reproduction", "reproduction_steps", "slug", "summary_rows", "theorem_section"]
