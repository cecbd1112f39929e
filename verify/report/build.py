"""Assembling the report: verdicts (from the cross-check engine), per-theorem plots, errata, reproduction.

The report is one JSON-ready dict plus a set of SVG figures; ``verify.report.render`` turns it into
Markdown and HTML.  Everything here is deterministic for a given seed and profile: no timestamps, no timing,
sorted keys when serialised, fixed parameter grids.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import numbers
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from theorems.tables import COMPOSITION_BASELINES, FIGURES, TABLES, Baseline
from verify.check import references as refs
from verify.check.domain import admissible_points
from verify.check.evidence import ApproximationError, ApproximationRow, AuditEvidence, Tightness, Witness
from verify.check.verdict import Obligation
from verify.instances import FAMILIES, Family
from verify.privacy.gaussian import tradeoff_gaussian
from verify.privacy.notions import Notion
from verify.report import figures as fig
from verify.report.reproduce import convert, figure_series, reproduce_table, theorem_params
from verify.setting import ALGORITHM_IMPLIES
from verify.theorem import Theorem
from verify.vocabulary import derive, sensitivity_of_lipschitz

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
# what the engine saw (typed evidence of verify.check.evidence)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """The evidence of one verdict the report draws on: the tightness check's worst instance, the
    simulation audit, the approximation's compared rows (each None when the verdict has none)."""

    tightness: Tightness | None = None
    audit: AuditEvidence | None = None
    approximation: ApproximationError | None = None

    @classmethod
    def of(cls, verdict: Mapping) -> "Seen":
        """From a verdict's JSON (``Verdict.to_json``): the first obligation of each name."""
        found: dict[str, object] = {}
        for o in verdict.get("obligations", ()):
            if o["name"] in ("tightness", "audit", "approximation") and o["name"] not in found:
                found[o["name"]] = Obligation.from_json(o).data
        return cls(**found)

    @property
    def worst(self) -> Witness | None:
        return None if self.tightness is None else self.tightness.worst


def one_value_reading(record: Notion) -> bool:
    """Whether one value of the notion is an (eps, delta) reading by itself: a mu (no parameter), or an
    eps at a delta.  An exact value or an audited lower bound can then be drawn on the eps axis; an RDP
    or f-DP value is one point of a curve that the reading needs whole."""
    return record.to_eps is not None and record.parameter in (None, "delta")


def value_as_eps(record: Notion, value: float, at: float | None) -> float | None:
    """A single value of the notion, taken at its parameter ``at``, as epsilon at delta = ``DELTA``
    (None when it has no such reading)."""
    if not one_value_reading(record) or not math.isfinite(value):
        return None
    if record.parameter is not None and not (at is not None and math.isclose(at, DELTA)):
        return None
    return float(record.to_eps(lambda _: max(value, 0.0), DELTA))


# ---------------------------------------------------------------------------------------------------
# per theorem
# ---------------------------------------------------------------------------------------------------


def composition_baseline(theorem: Theorem) -> Baseline | None:
    """The composition bound a theorem is compared with (``theorems.tables.COMPOSITION_BASELINES``, by
    batch scheme); None for theorems not about the noisy gradient iteration."""
    if theorem.setting.algorithm not in ALGORITHM_IMPLIES["dp_sgd"]:
        return None
    return next((b for b in COMPOSITION_BASELINES if b.batches == theorem.setting.batches
                 and (b.needs is None or b.needs in theorem.parameters)), None)


def representative_point(theorem: Theorem, seen: Seen, seed: int) -> tuple[dict[str, float], str]:
    """Parameters to draw the theorem's curves at.

    Candidates, in order: the worst instance of the tightness check (its exact value can be marked), the
    instance of the simulation audit (its audited lower bound can be marked), the paper's own parameter
    sets, sampled admissible points.  The first whose epsilon at delta = 1e-5 is
    informative (between 0.05 and 50) is chosen; otherwise the first candidate.
    """
    own = [p for p in theorem.parameters if p != theorem.notion_record.parameter]
    sources = []
    if seen.worst is not None:
        sources.append((seen.worst.parameters, "the worst instance of the tightness check"))
    if seen.audit is not None:
        sources.append((seen.audit.constants, "the instance of the simulation audit"))
    sources += [(example, "the paper's own parameter set") for example in theorem.examples]
    try:
        sampled = admissible_points(theorem, 3, seed)
    except Exception:  # noqa: BLE001 - no sampled point: the other candidates remain, or the caller's gap
        sampled = []
    sources += [(point, "a sampled admissible point") for point in sampled]
    candidates = [({p: float(values[p]) for p in own}, origin) for values, origin in sources
                  if own and all(isinstance(values.get(p), numbers.Real) for p in own)]
    if not candidates:
        return {}, ""
    if theorem.notion_record.to_eps is not None and not _heavy(theorem):
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
        params["Delta"] = sensitivity_of_lipschitz(params["L"], "replace")  # the baselines are replace-one
    params = {**derive({k: params[k] for k in ("n", "b") if k in params}), **params}  # q = b/n
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


def _inverts_a_curve(theorem: Theorem) -> bool:
    """Whether the theorem's eps reading inverts a delta(eps) curve (its value at eps is delta): each
    reading costs dozens of evaluations."""
    return theorem.notion_record.inverted


def _heavy(theorem: Theorem) -> bool:
    """Bounds whose every evaluation is a numerical composition or an optimisation over operators."""
    return _inverts_a_curve(theorem) or bool(theorem.free and theorem.operators)


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


@dataclass
class _Drawing:
    """What the curves of one section are drawn from (shared by the plot helpers)."""

    theorem: Theorem
    point: dict[str, float]
    origin: str
    seen: Seen
    baseline: Theorem | None
    baseline_record: Baseline | None
    section: dict
    figures: Figures
    name: str
    lookup: Callable[[str], Theorem]

    @property
    def at_worst(self) -> bool:
        return self.origin.startswith("the worst")

    @property
    def worst(self) -> Witness | None:
        """The tightness check's worst instance, when the curves are drawn at it."""
        return self.seen.worst if self.at_worst else None

    def add_figure(self, suffix: str, svg: str | None, caption: str) -> str | None:
        file = self.figures.add(f"{self.name}-{suffix}", svg, caption)
        if file:
            self.section["figures"].append(file)
        return file


def _record_section(theorem: Theorem, verdict: Mapping, point: dict[str, float], origin: str) -> dict:
    """The section's record part: what the theorem says, and its verdict."""
    record = theorem.to_json()
    return {
        "id": theorem.id, "anchor": f"thm-{slug(theorem.id)}", "title": theorem.title,
        "paper": theorem.source.paper, "statement": theorem.source.statement, "notion": theorem.notion,
        "kind": theorem.kind, "setting": record["setting"], "bound": record["bound"],
        "paper_form": theorem.paper_form, "assumptions": record["assumptions"], "errata": record["errata"],
        "printed_of": theorem.printed_of, "variants": record["variants"], "notes": theorem.notes,
        "verdict": dict(verdict), "point": point, "point_origin": origin, "figures": [], "gaps": [],
        "beats_baseline": "not compared",
    }


def theorem_section(theorem: Theorem, verdict: Mapping, lookup: Callable[[str], Theorem], options: Options,
                    figures: Figures, curves: bool = True) -> dict:
    """One theorem's section: record, verdict, representative curves and their figures (``curves=False``:
    the record and verdict only)."""
    seen = Seen.of(verdict)
    point, origin = representative_point(theorem, seen, options.seed) if curves else ({}, "")
    section = _record_section(theorem, verdict, point, origin)
    if not curves:
        return section
    if not theorem.notion_record.privacy:
        section["gaps"].append(f"{theorem.notion} bound: no privacy curves")
        return section
    if not point:
        section["gaps"].append("no admissible parameter point to draw curves at")
        return section
    baseline_record = composition_baseline(theorem)
    baseline = None
    if baseline_record is not None:
        try:
            baseline = lookup(baseline_record.theorem)
        except KeyError:
            section["gaps"].append(f"composition baseline {baseline_record.theorem} is not in the registry")
    drawing = _Drawing(theorem, point, origin, seen, baseline, baseline_record, section, figures, slug(theorem.id),
                       lookup)
    heavy = _heavy(theorem) and not options.full
    x = _x_variable(theorem)
    if x and point.get(x) and not heavy and not _inverts_a_curve(theorem):
        _eps_curve(drawing, x)
    elif heavy:
        section["gaps"].append("curves of a numerical-composition bound are drawn in the full profile only")
    own_curve = NOTION_CURVES.get(theorem.notion)
    if own_curve is not None and not (heavy and _inverts_a_curve(theorem)):
        own_curve(drawing)
    _error_map(drawing)
    return section


def _eps_curve(d: _Drawing, x: str) -> None:
    """epsilon at delta = 1e-5 against T (or E): the bound, the composition baseline, the exact value of
    the worst family, and the marked exact or audited points."""
    theorem, point, section = d.theorem, d.point, d.section
    xs = _x_grid(point[x])
    own = [_eps(theorem, {**point, x: v}) for v in xs]
    series = [{"label": f"bound ({theorem.id})", "y": own}]
    if d.baseline is not None and d.baseline.id != theorem.id:
        base = _baseline_eps(d.baseline, theorem, point, x, xs)
        series.append({"label": f"composition ({d.baseline.id})", "y": base})
        section["beats_baseline"] = beats_summary(x, xs, own, base)
    elif d.baseline is not None:
        section["beats_baseline"] = "is the composition baseline"
    worst = d.seen.worst
    exact_curve = _exact_curve(theorem, worst, point, x, xs)
    if exact_curve is not None:
        series.append({"label": f"exact ({worst.family or 'instance'} family)", "y": exact_curve})
    points = _marked_points(d, x)
    section["curve"] = {"x": x, "xs": xs, "series": series, "points": points, "delta": DELTA}
    svg = fig.line_plot(f"{theorem.id}: epsilon at delta=1e-5", x, "epsilon", xs, series, points)
    file = d.add_figure("eps", svg, f"{theorem.id}: epsilon at delta = 1e-5 against {x} at {d.origin}")
    if not file and not any(v is not None for v in own):
        section["gaps"].append(f"the bound cannot be evaluated on the {x} grid at {d.origin}")


def _baseline_eps(baseline: Theorem, theorem: Theorem, point: Mapping[str, float], x: str,
                  xs: list[float]) -> list[float | None]:
    """The composition baseline's epsilon along ``x`` (its own length variable follows: T = l*E)."""
    bx = x if x in baseline.parameters else ("T" if x == "E" else "E")
    bparams = _baseline_params(baseline, theorem, point)
    out = []
    for v in xs:
        p = {**bparams, x: v}
        if bx != x:
            p[bx] = v * point.get("l", 1.0) if bx == "T" else v / point.get("l", 1.0)
        out.append(_eps(baseline, p))
    return out


def _marked_points(d: _Drawing, x: str) -> list[dict]:
    """The exact value of the worst instance and the audited lower bound, where the curves pass."""
    record = d.theorem.notion_record
    points = []
    worst = d.worst
    if worst is not None:
        exact_eps = value_as_eps(record, worst.exact, worst.at)
        if exact_eps is not None:
            points.append({"label": "exact (worst instance)", "x": d.point[x], "y": exact_eps, "marker": "x"})
    audit = d.seen.audit
    lower = None
    if audit is not None and not isinstance(audit.lower, list) and audit.at is None:
        lower = value_as_eps(record, audit.lower, None)
    if d.origin.startswith("the instance of the simulation audit") and lower is not None:
        points.append({"label": f"audited lower bound ({audit.to_json()['confidence']} confidence)",
                       "x": d.point[x], "y": lower, "marker": "v"})
    elif audit is not None:
        data = audit.to_json()
        d.section["audit"] = {k: data[k] for k in ("instance", "lower", "bound", "at", "confidence", "runs")}
    else:
        d.section["gaps"].append("no audited lower bound (no simulation audit for this theorem)")
    return points


def _exact_curve(theorem: Theorem, worst: Witness | None, point: Mapping[str, float], x: str,
                 xs: list[float]) -> list[float | None] | None:
    """Exact epsilon at delta = 1e-5 of the tightness check's worst family, built at ``point`` as ``x`` varies
    (notions with a one-value eps reading), from the engine's exact references.

    A value is kept only when the instance's own constants equal the theorem's parameters at that point (so
    exact and bound describe the same run); grid-cost families only up to 60 steps (their cost)."""
    record = theorem.notion_record
    if not one_value_reading(record) or worst is None or not worst.parameters:
        return None
    family = FAMILIES.get(worst.family)
    if family is None:
        return None
    base = {**worst.parameters, **point}
    out = [_exact_eps_at(theorem, family, _along(base, x, v)) for v in xs]
    return out if any(v is not None for v in out) else None


def _along(base: Mapping[str, float], x: str, v: float) -> dict[str, float]:
    """``base`` with ``x = v``, its length variables kept consistent (T = l*E)."""
    point = {**base, x: v}
    if x == "E" and "l" in base:
        point["T"] = v * base["l"]
    elif x == "T" and "l" in base and "E" in base:
        point["E"] = v / base["l"]
    return point


def _exact_eps_at(theorem: Theorem, family: Family, point: Mapping[str, float]) -> float | None:
    """The exact epsilon at delta = 1e-5 of ``family``'s instance at ``point`` (None when the instance
    is not the theorem's run at ``point``, or is out of the family's range)."""
    record = theorem.notion_record
    if refs.is_grid(family) and point.get("T", 0) > 60:
        return None
    try:
        instance = refs.build(family, point, theorem)
        own = instance.params()
        same = all(p in own and math.isclose(float(own[p]), float(point[p]), rel_tol=1e-9)
                   for p in theorem.parameters if p != record.parameter)
        if not same or refs.why_not_applicable(theorem, instance) is not None:
            return None
        profile = instance.profile()
        value = float(record.to_eps(lambda at: record.exact(profile, at), DELTA))
    except Exception:  # noqa: BLE001 - outside the family's range: a gap in the curve
        return None
    return value if math.isfinite(value) else None


def _rdp_curve(d: _Drawing) -> None:
    """The RDP curve against alpha, with the RDP form of the composition baseline and the exact point."""
    def curve(t: Theorem, params) -> list[float | None]:
        out = []
        for a in ALPHAS:
            try:
                v = float(t.evaluate(**{**theorem_params(t, params), "alpha": a}))
                out.append(v if math.isfinite(v) else None)
            except Exception:  # noqa: BLE001
                out.append(None)
        return out

    theorem = d.theorem
    series = [{"label": f"bound ({theorem.id})", "y": curve(theorem, d.point)}]
    rdp_base = d.baseline_record.rdp if d.baseline is not None and d.baseline_record is not None else None
    if rdp_base and rdp_base != theorem.id:
        try:
            b = d.lookup(rdp_base)
        except KeyError:
            b = None
        if b is not None:
            series.append({"label": f"composition ({b.id})", "y": curve(b, _baseline_params(b, theorem, d.point))})
    points = []
    worst = d.worst
    if worst is not None and worst.at is not None and math.isfinite(worst.exact):
        points.append({"label": "exact (worst instance)", "x": float(worst.at), "y": float(worst.exact)})
    d.section["rdp_curve"] = {"alphas": list(ALPHAS), "series": series, "points": points}
    d.add_figure("rdp", fig.line_plot(f"{theorem.id}: RDP curve", "Rényi order alpha", "RDP epsilon", ALPHAS,
                                      series, points, logy=True),
                 f"{theorem.id}: RDP epsilon against alpha at {d.origin}")


def _tradeoff(d: _Drawing) -> None:
    """Tradeoff curves G_mu of the bound, of the composition baseline and of the worst instance."""
    theorem = d.theorem
    mus = []
    try:
        mus.append((f"bound ({theorem.id})", float(theorem.evaluate(**theorem_params(theorem, d.point)))))
    except Exception as exc:  # noqa: BLE001
        d.section["gaps"].append(f"tradeoff curve: {type(exc).__name__}: {exc}".splitlines()[0][:200])
        return
    baseline = d.baseline
    if baseline is not None and baseline.notion == theorem.notion and baseline.id != theorem.id:
        try:
            params = theorem_params(baseline, _baseline_params(baseline, theorem, d.point))
            mus.append((f"composition ({baseline.id})", float(baseline.evaluate(**params))))
        except Exception:  # noqa: BLE001
            pass
    if d.worst is not None:
        mus.append(("exact (worst instance)", float(d.worst.exact)))
    curves = []
    for label, mu in mus:
        if not math.isfinite(mu):
            continue
        beta = np.asarray(tradeoff_gaussian(ALPHA_GRID, max(mu, 0.0)), dtype=float)
        curves.append({"label": f"{label}: G_{mu:.3g}", "alpha": ALPHA_GRID.tolist(), "beta": beta.tolist()})
    d.section["tradeoff_mu"] = {label: mu for label, mu in mus}
    d.add_figure("tradeoff", fig.tradeoff_plot(f"{theorem.id}: tradeoff curves", curves),
                 f"{theorem.id}: tradeoff curves at {d.origin}")


def _privacy_curve(d: _Drawing) -> None:
    """The bound's delta(eps) curve."""
    theorem = d.theorem
    eps_grid = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0]
    ys = []
    for e in eps_grid:
        try:
            ys.append(float(theorem.evaluate(**theorem_params(theorem, d.point), eps=e)))
        except Exception:  # noqa: BLE001
            ys.append(None)
    d.section["privacy_curve"] = {"eps": eps_grid, "delta": ys}
    d.add_figure("delta", fig.line_plot(f"{theorem.id}: delta(eps)", "eps", "delta", eps_grid,
                                        [{"label": f"bound ({theorem.id})", "y": ys}], logx=False, logy=True),
                 f"{theorem.id}: delta(eps) at {d.origin}")


def _error_map(d: _Drawing) -> None:
    """The signed error map of an approximation against exact composition."""
    approx = d.seen.approximation
    rows = [dataclasses.asdict(r) for r in approx.rows if isinstance(r, ApproximationRow)] if approx else []
    if rows:
        d.add_figure("error", fig.error_map(f"{d.theorem.id}: signed error against exact composition", rows),
                     f"{d.theorem.id}: signed relative error of the approximation (below 0: under-states)")


#: the picture of a guarantee in its own notion, by notion name (a notion without one gets the eps
#: curve only): the RDP curve in alpha, the tradeoff curve G_mu, the delta(eps) curve
NOTION_CURVES: dict[str, Callable[[_Drawing], None]] = {"rdp": _rdp_curve, "gdp": _tradeoff, "fdp": _privacy_curve}


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
    return sum(1 for t in (*TABLES, *FIGURES) if papers is None or t.paper in papers)


def summary_rows(sections: list[dict]) -> list[dict]:
    rows = []
    for s in sections:
        v = s["verdict"]
        tight = Seen.of(v).tightness
        ratio = tight.max_ratio if tight is not None else v.get("max_ratio")
        rows.append({"id": s["id"], "anchor": s["anchor"], "paper": s["paper"], "notion": s["notion"],
                     "kind": s["kind"], "verdict": v.get("verdict", "missing"), "expected": v.get("expected"),
                     "printed_of": s["printed_of"],
                     "worst_ratio": ratio if isinstance(ratio, (int, float)) and math.isfinite(ratio) else None,
                     "median_ratio": None if tight is None else tight.median_ratio,
                     "beats_baseline": s["beats_baseline"]})
    return rows


__all__ = ["Figures", "Options", "beats_summary", "composition_baseline", "errata_section", "representative_point",
           "reproduction", "reproduction_steps", "slug", "summary_rows", "theorem_section"]
