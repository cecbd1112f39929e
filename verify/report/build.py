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

from theorems.tables import CHECKLIST, COMPOSITION_BASELINES, EXACT_COMPOSITION, FIGURES, PAPER_POINTS, TABLES, Baseline
from verify.check import references as refs
from verify.check.domain import admissible_points
from verify.check.evidence import ApproximationError, ApproximationRow, AuditEvidence, Tightness, Witness
from verify.check.verdict import Obligation
from verify.instances import FAMILIES, Family
from verify.privacy.gaussian import tradeoff_gaussian
from verify.privacy.notions import Notion, notion
from verify.report import figures as fig
from verify.report.frontpage import errata_rows, ratio_reading, verdict_status
from verify.report.reproduce import checklist, convert, figure_series, human_reason, reproduce_table, theorem_params
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

    The paper's own parameters come first: those of the table or figure where the paper evaluates the theorem
    (``theorems.tables.PAPER_POINTS``, with its source), taken as they are.  Otherwise, in order: the theorem's
    recorded parameter sets (``Theorem.examples``), the worst instance of the tightness check, the instance of
    the simulation audit, sampled admissible points; the first whose epsilon at delta = 1e-5 is informative
    (between 0.05 and 50) is chosen, else the first candidate.  The search's worst instance belongs in the
    verdict's text; it is drawn at only when nothing else is known.
    """
    own = [p for p in theorem.parameters if p != theorem.notion_record.parameter]
    paper = PAPER_POINTS.get(theorem.id)
    if paper is not None and own and all(isinstance(paper.params.get(p), numbers.Real) for p in own):
        return {p: float(paper.params[p]) for p in own}, f"the paper's parameters ({paper.source})"
    sources = [(example, "the paper's own parameter set") for example in theorem.examples]
    if seen.worst is not None:
        sources.append((seen.worst.parameters, "the worst instance of the tightness check"))
    if seen.audit is not None:
        sources.append((seen.audit.constants, "the instance of the simulation audit"))
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


def notion_at(theorem: Theorem, seen: Seen) -> float | None:
    """The value of the notion parameter the curves over T are drawn at: the Rényi order of the paper's table
    or figure (or of the theorem's first recorded parameter set), else of the worst instance, else 2; None for
    notions whose curves over T need no parameter (their reading is epsilon at delta = 1e-5)."""
    record = theorem.notion_record
    if record.parameter != "alpha":
        return None
    paper = PAPER_POINTS.get(theorem.id)
    for params in ([paper.params] if paper else []) + list(theorem.examples):
        if isinstance(params.get("alpha"), numbers.Real):
            return float(params["alpha"])
    if seen.worst is not None and seen.worst.at is not None and math.isfinite(seen.worst.at):
        return float(seen.worst.at)
    return 2.0


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


def series_kind(theorem: Theorem) -> str:
    """How the theorem's own curve is drawn (``verify.report.figures.ROLE_STYLES``): lower bounds apart."""
    return {"lower": "lower", "exact": "exact", "approximation": "approximation"}.get(theorem.kind, "upper")


def bound_label(theorem: Theorem) -> str:
    word = {"lower": "lower bound", "exact": "exact value", "approximation": "approximation"}.get(theorem.kind, "bound")
    return f"{word} ({theorem.id})"


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
    at: float | None = None  # the notion parameter of the curves over T (the paper's Rényi order)
    exact_family: Family | None = None  # the family whose exact values are drawn (the worst one, or a fallback)

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

    def omit(self, what: str, why: str) -> None:
        """A curve that cannot be drawn: said in words in the section (never an exception's text)."""
        self.section["omitted"].append(f"{what}: {why}")


def _record_section(theorem: Theorem, verdict: Mapping, point: dict[str, float], origin: str) -> dict:
    """The section's record part: what the theorem says, and its verdict."""
    record = theorem.to_json()
    return {
        "id": theorem.id, "anchor": f"thm-{slug(theorem.id)}", "title": theorem.title,
        "paper": theorem.source.paper, "statement": theorem.source.statement, "notion": theorem.notion,
        "kind": theorem.kind, "setting": record["setting"], "bound": record["bound"],
        "paper_form": theorem.paper_form, "assumptions": record["assumptions"], "errata": record["errata"],
        "printed_of": theorem.printed_of, "variants": record["variants"], "notes": theorem.notes,
        "verdict": dict(verdict), "point": point, "point_origin": origin, "figures": [], "gaps": [], "omitted": [],
        "beats_baseline": "not compared",
    }


def theorem_section(theorem: Theorem, verdict: Mapping, lookup: Callable[[str], Theorem], options: Options,
                    figures: Figures, curves: bool = True) -> dict:
    """One theorem's section: record, verdict, representative curves and their figures (``curves=False``:
    the record and verdict only).

    The main plot, over T (or E) at the paper's parameters, carries the bound (a lower bound drawn apart), the
    exact value of the worst known instance as a curve, the composition baseline and, for a CLT
    approximation, the exact composition (PLD) it approximates: epsilon at delta = 1e-5, or for an RDP
    theorem the RDP epsilon at the paper's Rényi order.  The notion's own picture (RDP curve in alpha,
    tradeoff curves, delta(eps)) follows.  A curve that cannot be drawn is listed in ``omitted`` with the
    reason in words."""
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
                       lookup, at=notion_at(theorem, seen))
    if drawing.at is not None:
        section["notion_at"] = {theorem.notion_record.parameter: drawing.at}
    heavy = _heavy(theorem) and not options.full
    x = _x_variable(theorem)
    if x and point.get(x) and not heavy and not _inverts_a_curve(theorem):
        if theorem.notion_record.parameter == "alpha":
            _rdp_over_x(drawing, x)
        else:
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
    the worst family as a curve, the exact composition (PLD) for a CLT approximation, the audited point."""
    theorem, point, section = d.theorem, d.point, d.section
    xs = _x_grid(point[x])
    own = [_eps(theorem, {**point, x: v}) for v in xs]
    series = [{"label": bound_label(theorem), "y": own, "kind": series_kind(theorem)}]
    if d.baseline is not None and d.baseline.id != theorem.id:
        base = _baseline_eps(d.baseline, theorem, point, x, xs)
        series.append({"label": f"composition ({d.baseline.id})", "y": base, "kind": "composition"})
        section["beats_baseline"] = beats_summary(x, xs, own, base)
    elif d.baseline is not None:
        section["beats_baseline"] = "is the composition baseline"
    pld = _pld_series(d, x, xs)
    if pld is not None:
        series.append(pld)  # the exact value of the composition the CLT approximates: no other exact curve
    exact_curve = None if pld is not None else _exact_curve(d, x, xs, lambda profile: _EPS_DELTA.exact(profile, DELTA))
    if exact_curve is not None:
        series.append(exact_curve)
    points = _marked_points(d, x)
    section["curve"] = {"x": x, "xs": xs, "series": series, "points": points, "delta": DELTA}
    svg = fig.line_plot(f"{theorem.id}: epsilon at delta=1e-5", x, "epsilon", xs, series, points)
    file = d.add_figure("eps", svg, f"{theorem.id}: epsilon at delta = 1e-5 against {x} at {d.origin}"
                        + _omitted_note(d))
    if not file and not any(v is not None for v in own):
        section["gaps"].append(f"the bound cannot be evaluated on the {x} grid at {d.origin}")


def _rdp_over_x(d: _Drawing, x: str) -> None:
    """An RDP theorem over T (or E) at the paper's Rényi order, as the papers plot it (Chourasia et al. Figs
    1-2, Altschuler-Talwar's plateau): the bound, the RDP composition baseline, the exact Rényi divergence of
    the worst family as a curve."""
    theorem, point, section, alpha = d.theorem, d.point, d.section, d.at
    xs = _x_grid(point[x])

    def values(t: Theorem, params: Mapping[str, float]) -> list[float | None]:
        return [_value(t, {**params, x: v, "alpha": alpha}) for v in xs]

    own = values(theorem, point)
    series = [{"label": bound_label(theorem), "y": own, "kind": series_kind(theorem)}]
    base = _rdp_baseline(d)
    if base is not None:
        bparams = _baseline_params(base, theorem, point)
        if x not in base.parameters:
            bx = "T" if x == "E" else "E"
            ys = [_value(base, {**bparams, bx: _convert_length(point, x, v), "alpha": alpha}) for v in xs]
        else:
            ys = values(base, bparams)
        series.append({"label": f"composition ({base.id})", "y": ys, "kind": "composition"})
        section["beats_baseline"] = beats_summary(x, xs, own, ys)
    exact_curve = _exact_curve(d, x, xs, lambda profile: _RDP.exact(profile, alpha))
    if exact_curve is not None:
        series.append(exact_curve)
    section["curve"] = {"x": x, "xs": xs, "series": series, "points": [], "alpha": alpha}
    svg = fig.line_plot(f"{theorem.id}: RDP epsilon at alpha={alpha:g}", x, f"RDP epsilon (alpha = {alpha:g})", xs,
                        series)
    file = d.add_figure("rdp-t", svg, f"{theorem.id}: RDP epsilon at alpha = {alpha:g} against {x} at {d.origin}"
                        + _omitted_note(d))
    if not file and not any(v is not None for v in own):
        section["gaps"].append(f"the bound cannot be evaluated on the {x} grid at {d.origin}")


def _rdp_baseline(d: _Drawing) -> Theorem | None:
    """The RDP form of the composition baseline (None when the theorem is it, or there is none)."""
    if d.baseline_record is None:
        return None
    bid = d.baseline_record.rdp or (d.baseline_record.theorem if d.baseline is not None
                                    and d.baseline.notion_record.parameter == "alpha" else None)
    if not bid or bid == d.theorem.id:
        return None
    try:
        return d.lookup(bid)
    except KeyError:
        return None


def _value(theorem: Theorem, params: Mapping[str, float]) -> float | None:
    try:
        value = convert(theorem, params, "value")
    except Exception:  # noqa: BLE001 - outside the theorem's range: a gap in the curve
        return None
    return value if math.isfinite(value) else None


def _omitted_note(d: _Drawing) -> str:
    return "" if not d.section["omitted"] else " (" + "; ".join(d.section["omitted"]) + ")"


def _pld_series(d: _Drawing, x: str, xs: list[float]) -> dict | None:
    """For a DP-SGD theorem: the exact composition of its run (dp_accounting PLD, the registry's theorem named by
    ``theorems.tables.EXACT_COMPOSITION``) along ``x``: where a CLT approximation under-states epsilon, how far
    a moments-accountant bound is from the exact value."""
    ref_id = EXACT_COMPOSITION.get(d.theorem.id)
    if ref_id is None:
        return None
    try:
        ref = d.lookup(ref_id)
    except KeyError:
        d.omit("exact composition (PLD)", f"{ref_id} is not in the registry")
        return None
    params = _reference_params(ref, d.theorem, d.point)
    ys = []
    for v in xs:
        p = _along(params, x, v)
        if x == "E" and "T" in ref.parameters:
            p["T"] = _convert_length(params, "E", v)
        ys.append(_eps(ref, p))
    if not any(v is not None for v in ys):
        d.omit("exact composition (PLD)", f"{ref_id} cannot be evaluated at these parameters")
        return None
    return {"label": f"exact composition, PLD ({ref_id})", "y": ys, "kind": "pld"}


def _reference_params(ref: Theorem, theorem: Theorem, point: Mapping[str, float]) -> dict[str, float]:
    """The point in the reference's own parameters: DP-SGD's (q, z) and the canonical (n, b, sigma, Delta)
    name the same run (q = b/n, z = b sigma/Delta)."""
    params = dict(point)
    paper = PAPER_POINTS.get(theorem.id)
    if paper is not None:
        params = {**paper.params, **params}
    if "n" in params and "b" in params and "q" not in params:
        params["q"] = params["b"] / params["n"]
    if all(k in params for k in ("b", "sigma", "Delta")) and "z" not in params:
        params["z"] = params["b"] * params["sigma"] / params["Delta"]
    if "T" not in params and "E" in params and "q" in params:
        params["T"] = float(math.ceil(params["E"] / params["q"] - 1e-9))
    return params


def _baseline_eps(baseline: Theorem, theorem: Theorem, point: Mapping[str, float], x: str,
                  xs: list[float]) -> list[float | None]:
    """The composition baseline's epsilon along ``x`` (its own length variable follows: T = l*E)."""
    bx = x if x in baseline.parameters else ("T" if x == "E" else "E")
    bparams = _baseline_params(baseline, theorem, point)
    out = []
    for v in xs:
        p = {**bparams, x: v}
        if bx != x:
            p[bx] = _convert_length(point, x, v)
        out.append(_eps(baseline, p))
    return out


def _convert_length(point: Mapping[str, float], x: str, v: float) -> float:
    """``x = v`` epochs (``x = "E"``) as steps, or steps as epochs: T = l E for cyclic batches, T = ceil(E/q)
    for Poisson sampling (Bu et al.: epochs = q T), T = E when neither is known."""
    if "l" in point:
        return v * point["l"] if x == "E" else v / point["l"]
    if "q" in point and 0 < point["q"] <= 1:
        return float(math.ceil(v / point["q"] - 1e-9)) if x == "E" else v * point["q"]
    return v


def _marked_points(d: _Drawing, x: str) -> list[dict]:
    """The audited lower bound where the curves pass (the exact value is a curve, see :func:`_exact_curve`)."""
    record = d.theorem.notion_record
    points = []
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


_EPS_DELTA = notion("eps_delta")
_RDP = notion("rdp")
#: the longest run of a grid family drawn as a curve (its cost grows with T)
GRID_STEPS = 200


def _exact_curve(d: _Drawing, x: str, xs: list[float], reading: Callable) -> dict | None:
    """The exact value (``reading(profile)``) of the worst known instance, built at the drawing's point as
    ``x`` varies: the tightness check's worst family, else the first closed-form family that is the
    theorem's run at this point (from the engine's exact references).

    A value is kept only when the instance's own constants equal the theorem's parameters at that point (so
    exact and bound describe the same run); grid families only up to :data:`GRID_STEPS` steps (their cost).
    When no family gives a value, the reason goes to the section's ``omitted`` list."""
    theorem = d.theorem
    if theorem.kind == "exact":
        return None  # the theorem's own curve is the exact value
    worst = d.seen.worst
    names = [worst.family] if worst is not None and worst.family in FAMILIES else []
    names += [n for n, f in FAMILIES.items() if n not in names and not refs.is_grid(f)]
    base = _exact_base(d)
    steps_at_point = _along(base, x, d.point[x]).get("T", 0)
    skipped_grid = None
    for name in names:
        family = FAMILIES[name]
        if refs.is_grid(family) and steps_at_point > GRID_STEPS:
            skipped_grid = name  # a grid curve would stop far below the drawn point: not worth its cost
            continue
        if _exact_at(theorem, family, _along(base, x, xs[0]), reading) is None:  # the cheapest run: T smallest
            continue
        ys = [_exact_at(theorem, family, _along(base, x, v), reading) for v in xs]
        d.exact_family = family
        label = f"exact ({name} family)" + (", the worst known instance" if worst is not None
                                             and name == worst.family else "")
        return {"label": label, "y": ys, "kind": "exact"}
    if skipped_grid is not None:
        d.omit("exact value", f"the worst family ({skipped_grid}) is a grid computation, drawn up to T = {GRID_STEPS}; "
                              f"the plotted point has T = {steps_at_point:g}")
    elif worst is None:
        d.omit("exact value", "no tightness check found a worst instance for this theorem")
    else:
        d.omit("exact value", f"no exact reference (the worst family, {worst.family}, included) is this theorem's "
                              "run at these parameters")
    return None


def _exact_base(d: _Drawing) -> dict[str, float]:
    """The run the exact references are built at: the paper's (every constant of its table or figure), then
    the worst instance's constants for what it leaves open, the drawing's point over both."""
    paper = PAPER_POINTS.get(d.theorem.id)
    worst = d.seen.worst
    return {**(worst.parameters if worst is not None else {}), **(paper.params if paper else {}), **d.point}


def _along(base: Mapping[str, float], x: str, v: float) -> dict[str, float]:
    """``base`` with ``x = v``, its length variables kept consistent (T = l*E)."""
    point = {**base, x: v}
    if x == "E" and "l" in base:
        point["T"] = v * base["l"]
    elif x == "T" and "l" in base and "E" in base:
        point["E"] = v / base["l"]
    return point


def _exact_at(theorem: Theorem, family: Family, point: Mapping[str, float], reading: Callable) -> float | None:
    """``reading`` of the exact profile of ``family``'s instance at ``point`` (None when the instance is not
    the theorem's run at ``point``, or is out of the family's range)."""
    record = theorem.notion_record
    if refs.is_grid(family) and point.get("T", 0) > GRID_STEPS:
        return None
    try:
        instance = refs.build(family, point, theorem)
        own = refs.instance_params(instance, point)
        same = all(p in own and math.isclose(float(own[p]), float(point[p]), rel_tol=1e-9)
                   for p in theorem.parameters if p != record.parameter)
        if not same or refs.why_not_applicable(theorem, instance) is not None:
            return None
        value = float(reading(instance.profile()))
    except Exception:  # noqa: BLE001 - outside the family's range: a gap in the curve
        return None
    return value if math.isfinite(value) else None


def _rdp_curve(d: _Drawing) -> None:
    """The RDP curve against alpha, with the RDP form of the composition baseline and the exact curve."""
    def curve(t: Theorem, params) -> list[float | None]:
        return [_value(t, {**theorem_params(t, params), "alpha": a}) for a in ALPHAS]

    theorem = d.theorem
    series = [{"label": bound_label(theorem), "y": curve(theorem, d.point), "kind": series_kind(theorem)}]
    b = _rdp_baseline(d)
    if b is not None:
        series.append({"label": f"composition ({b.id})", "y": curve(b, _baseline_params(b, theorem, d.point)),
                       "kind": "composition"})
    family = d.exact_family
    if family is not None and not refs.is_grid(family):
        base = _exact_base(d)
        try:
            profile = refs.build(family, base, theorem).profile()
            ys = [_finite_or_none(lambda: _RDP.exact(profile, a)) for a in ALPHAS]
            if any(v is not None for v in ys):
                series.append({"label": f"exact ({family.name} instance)", "y": ys, "kind": "exact"})
        except Exception:  # noqa: BLE001 - no exact curve: the bound and the baseline remain
            pass
    d.section["rdp_curve"] = {"alphas": list(ALPHAS), "series": series, "points": []}
    d.add_figure("rdp", fig.line_plot(f"{theorem.id}: RDP curve", "Rényi order alpha", "RDP epsilon", ALPHAS,
                                      series, logy=True),
                 f"{theorem.id}: RDP epsilon against alpha at {d.origin}")


def _finite_or_none(compute: Callable[[], float]) -> float | None:
    try:
        value = float(compute())
    except Exception:  # noqa: BLE001 - outside the reference's range: a gap in the curve
        return None
    return value if math.isfinite(value) else None


def _tradeoff(d: _Drawing) -> None:
    """Tradeoff curves G_mu of the bound, of the composition baseline and of the exact instance at the point."""
    theorem = d.theorem
    mus = []
    try:
        mus.append((bound_label(theorem), float(theorem.evaluate(**theorem_params(theorem, d.point)))))
    except Exception as exc:  # noqa: BLE001
        d.omit("tradeoff curve", human_reason(exc))
        return
    baseline = d.baseline
    if baseline is not None and baseline.notion == theorem.notion and baseline.id != theorem.id:
        try:
            params = theorem_params(baseline, _baseline_params(baseline, theorem, d.point))
            mus.append((f"composition ({baseline.id})", float(baseline.evaluate(**params))))
        except Exception:  # noqa: BLE001
            pass
    if d.exact_family is not None:
        mu = _exact_at(theorem, d.exact_family, _exact_base(d), lambda profile: theorem.notion_record.exact(profile, None))
        if mu is not None:
            mus.append((f"exact ({d.exact_family.name} instance)", mu))
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
    ys = [_finite_or_none(lambda e=e: theorem.evaluate(**theorem_params(theorem, d.point), eps=e)) for e in eps_grid]
    d.section["privacy_curve"] = {"eps": eps_grid, "delta": ys}
    d.add_figure("delta", fig.line_plot(f"{theorem.id}: delta(eps)", "eps", "delta", eps_grid,
                                        [{"label": bound_label(theorem), "y": ys, "kind": series_kind(theorem)}],
                                        logx=False, logy=True),
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
    """The errata table (:func:`verify.report.frontpage.errata_rows`): every distinct erratum of the selected
    theorems with where, as printed, corrected, how detected, the numbers and replay lines; then the
    software's own findings (printed cells that do not reproduce, approximations that under-state)."""
    return errata_rows(records, verdicts, tables)


def reproduction(options: Options, figures: Figures, progress: Callable[[], None] | None = None,
                 papers: set[str] | None = None) -> dict:
    """Every printed table (printed vs computed), every figure parameter set replotted, and the checklist of
    every printed table and figure of the papers (``checklist``: reproduced, or not and why, with the anchor
    of its reproduction; ``theorems.tables.CHECKLIST``)."""
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
        data = figure_series(spec, heavy=options.full)
        series = [{"label": s["label"] + (f", delta={s['delta']:g}" if s["delta"] else ""), "y": s["y"],
                   "kind": s["kind"]} for s in data["series"]]
        ylabel = data["ylabel"] if spec.quantity == "value" else "epsilon"
        omitted = [f"{s['label']} {s['gap']}" for s in data["series"] if s["gap"]]
        file = figures.add(f"repro-{slug(spec.id)}", fig.line_plot(f"{spec.paper} {spec.label} (replotted)", spec.x,
                                                                    ylabel, spec.xs, series),
                           f"{spec.paper} {spec.label}: {spec.caption}"
                           + (f" ({'; '.join(omitted)})" if omitted else ""))
        data["figure"] = file
        plots.append(data)
        if progress:
            progress()
    items = [i for i in CHECKLIST if papers is None or i.paper in papers]
    return {"tables": tables, "figures": plots, "checklist": checklist(items, tables, plots)}


def summary_rows(sections: list[dict]) -> list[dict]:
    """One row per theorem; ``ratio``/``ratio_label`` say the tightness in exact/bound (an upper bound's largest,
    a lower bound's largest: its loosest instance) and ``status`` the verdict in words (a wrong printed table
    whose guarantee held is not an unsound guarantee)."""
    rows = []
    for s in sections:
        v = s["verdict"]
        tight = Seen.of(v).tightness
        ratio = tight.max_ratio if tight is not None else v.get("max_ratio")
        worst = ratio if isinstance(ratio, (int, float)) and math.isfinite(ratio) else None
        reading = ratio_reading(s["kind"], worst)
        rows.append({"id": s["id"], "anchor": s["anchor"], "paper": s["paper"], "notion": s["notion"],
                     "kind": s["kind"], "verdict": v.get("verdict", "missing"), "expected": v.get("expected"),
                     "printed_of": s["printed_of"], "status": verdict_status(s),
                     "worst_ratio": worst, "ratio": reading["value"], "ratio_label": reading["label"],
                     "median_ratio": None if tight is None else tight.median_ratio,
                     "beats_baseline": s["beats_baseline"]})
    return rows


__all__ = ["Figures", "Options", "beats_summary", "composition_baseline", "errata_section", "representative_point",
           "reproduction", "slug", "summary_rows", "theorem_section"]
