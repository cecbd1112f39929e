"""The papers' printed tables and figure parameter sets, and the composition baselines, as data.

Each :class:`PrintedTable` records what a paper printed (as printed, docs/papers/*.md) and, for every
column that the registry can compute, which theorem id and which conversion produce it.  The report
(``verify.report.reproduce``) computes those columns and shows printed against computed; nothing here
computes anything.

Conversions (interpreted by ``verify.report.reproduce``):

* ``value``: ``theorem.evaluate(**params)`` (mu for a GDP theorem, the RDP epsilon at ``alpha``, ...);
* ``eps_at_delta``: :func:`verify.check.notions.eps_at_delta` at the column's (or row's) ``delta``;
* ``crossing``: the smallest integer ``var`` at which theorem ``against`` (a composition bound, increasing in
  ``var``) reaches the column theorem's value: the ``t*`` / ``E*`` columns of Bok et al. Tables 8, 10-12;
* ``exact``: a quantity of the exact privacy profile of an instance family (``Column.family``), not of a
  theorem: ``renyi`` (the Rényi divergence at ``alpha``), ``event`` / ``event_prime`` (the probability of
  the family's test event under D / D').  The papers' own exact computations (Altschuler-Talwar's density
  evolution of the Thm 4.1 construction) are reproduced this way.

Parameters are in the canonical vocabulary (docs/conventions.md); a row carries a superset of what each column's
theorem needs, and a column may override or add parameters (``Column.params``) or take a parameter from
another column's computed value (``Column.inputs``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Mapping

Conversion = Literal["value", "eps_at_delta", "crossing", "exact"]


@dataclass(frozen=True)
class Column:
    """One column of a printed table."""

    key: str
    label: str
    theorem: str | None = None  # registry id computing it; None for a printed-only column (accuracy, ...)
    conversion: Conversion = "value"
    params: Mapping[str, float] = field(default_factory=dict)
    inputs: Mapping[str, str] = field(default_factory=dict)  # parameter name -> key of the column giving it
    delta: float | None = None
    var: str | None = None  # crossing: the integer variable
    against: str | None = None  # crossing: the theorem that grows with ``var``
    digits: int = 3  # printed decimals: agreement means |printed - computed| <= 0.5 * 10**-digits (+ rtol)
    heavy: bool = False  # exact compositions: computed in the full profile only
    extra: bool = False  # not in the paper: a column the report adds (e.g. the exact epsilon)
    erratum: str | None = None  # theorem id whose recorded erratum explains a mismatch in this column
    note: str = ""
    rename: Mapping[str, str] = field(default_factory=dict)  # theorem parameter -> row parameter giving it
    family: str | None = None  # conversion "exact": the instance family
    quantity: str = "renyi"  # conversion "exact": renyi | event | event_prime


@dataclass(frozen=True)
class Row:
    label: str
    params: Mapping[str, float] = field(default_factory=dict)
    printed: Mapping[str, object] = field(default_factory=dict)  # column key -> printed value (None: "—")


@dataclass(frozen=True)
class PrintedTable:
    """A printed table (or a figure's parameter set with the values the paper notes derives for it)."""

    id: str
    paper: str
    label: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    kind: Literal["table", "figure"] = "table"
    source: str = ""  # where in the paper notes the numbers are
    note: str = ""


@dataclass(frozen=True)
class Curve:
    theorem: str
    label: str
    params: Mapping[str, float] = field(default_factory=dict)
    x_param: str | None = None  # the theorem's own variable, when it is not the figure's x (epochs -> steps)
    x_scale: float = 1.0  # x_param = ceil(x * x_scale)
    #: parameters taken from another theorem's value at the same point (parameter -> theorem id)
    inputs: Mapping[str, str] = field(default_factory=dict)
    #: the paper plots min(this theorem, ``min_with``) (Bok et al. Figs 7 and 9: the bound is used only where it
    #: beats composition); where this theorem is outside its range the other one alone is drawn
    min_with: str | None = None
    #: parameters that change with x (a quantity the registry does not hold, derived here from the paper notes)
    by_x: Mapping[float, Mapping[str, float]] = field(default_factory=dict)
    kind: str = "upper"  # upper | lower | exact | composition: how the curve is drawn
    heavy: bool = False  # a numerical composition minimised over a window: drawn in the full profile only


@dataclass(frozen=True)
class FigureSpec:
    """A paper figure's parameter set, replotted: curves of a quantity against ``x``."""

    id: str
    paper: str
    label: str
    caption: str
    x: str  # the canonical parameter on the horizontal axis
    xs: tuple[float, ...]
    curves: tuple[Curve, ...]
    params: Mapping[str, float] = field(default_factory=dict)
    quantity: Literal["value", "eps_at_delta"] = "eps_at_delta"
    deltas: tuple[float, ...] = (1e-5,)
    ylabel: str = "epsilon"
    note: str = ""


def _p(**kw: float) -> dict[str, float]:
    return {k: float(v) for k, v in kw.items()}


# ---------------------------------------------------------------------------------------------------
# Bok, Su, Altschuler 2024 (docs/papers/bok2024.md)
# ---------------------------------------------------------------------------------------------------

# §D.2 MNIST: b = 1500, l = 40, eta = 0.05, sigma = 0.01, gradient sensitivity 10 (L/(b sigma) = 2/3);
# lambda = m = M (the regulariser), so c = 1 - eta*lambda.
_MNIST = _p(n=60000, b=1500, l=40, eta=0.05, sigma=0.01, Delta=10)
_L002 = _p(m=0.002, M=0.002)
_L004 = _p(m=0.004, M=0.004)
_MNIST_ROWS = (50, 100, 200)

BOK_TABLE_1 = PrintedTable(
    id="bok2024/table1", paper="bok2024", label="Table 1",
    caption="NoisyCGD on MNIST (lambda = 0.002): epsilon at delta = 1e-5.",
    columns=(
        Column("comp", "GDP Composition", "bok2024/thm4.4", "eps_at_delta", delta=1e-5, digits=2),
        Column("rdp", "RDP", "bok2024/ys22/eps", "eps_at_delta", params=_L002, delta=1e-5, digits=2),
        Column("ours", "Our Bounds", "bok2024/thm4.5", "eps_at_delta", params=_L002, delta=1e-5, digits=2),
    ),
    rows=tuple(Row(f"E = {e}", {**_MNIST, "E": e}, dict(zip(("comp", "rdp", "ours"), v)))
               for e, v in zip(_MNIST_ROWS, ((30.51, 5.82, 4.34), (49.88, 7.61, 5.60), (83.83, 9.88, 7.58)))),
    source="docs/papers/bok2024.md, D.2 Table 1",
)

BOK_TABLE_3 = PrintedTable(
    id="bok2024/table3", paper="bok2024", label="Table 3",
    caption="GDP mu on MNIST: composition for NoisyCGD and NoisySGD (CLT, p = 0.025, T = 40E), ours (Thm 4.5).",
    columns=(
        Column("comp_cgd", "Comp. NoisyCGD", "bok2024/thm4.4", digits=2),
        Column("comp_sgd", "Comp. NoisySGD", "bok2024/lemmaA.5", digits=2,
               note="CLT approximation of Thm 4.8 (Lemma A.5)"),
        Column("ours_002", "Ours NoisyCGD lambda=0.002", "bok2024/thm4.5", params=_L002, digits=2),
        Column("ours_004", "Ours NoisyCGD lambda=0.004", "bok2024/thm4.5", params=_L004, digits=2),
    ),
    rows=tuple(Row(f"E = {e}", {**_MNIST, "E": e, "T": 40 * e},
                   dict(zip(("comp_cgd", "comp_sgd", "ours_002", "ours_004"), v)))
               for e, v in zip(_MNIST_ROWS, ((4.71, 1.03, 0.99, 0.99), (6.67, 1.45, 1.24, 1.22),
                                             (9.43, 2.05, 1.59, 1.51)))),
    source="docs/papers/bok2024.md, D.2 Table 3",
)

BOK_TABLE_4 = PrintedTable(
    id="bok2024/table4", paper="bok2024", label="Table 4",
    caption="Epsilon at delta = 1e-5 on MNIST: composition (NoisyCGD; NoisySGD by numerical composition), "
            "RDP [YS22], ours (Thm 4.5).",
    columns=(
        Column("comp_cgd", "Comp. NoisyCGD", "bok2024/thm4.4", "eps_at_delta", delta=1e-5, digits=2),
        Column("comp_sgd", "Comp. NoisySGD", "bok2024/thm4.8", "eps_at_delta", delta=1e-5, digits=2,
               note="exact composition of C_p(G_mu)^T (PLD, dp_accounting; the paper used the PRV accountant)"),
        Column("rdp_002", "RDP lambda=0.002", "bok2024/ys22/eps", "eps_at_delta", params=_L002, delta=1e-5,
               digits=2),
        Column("rdp_004", "RDP lambda=0.004", "bok2024/ys22/eps", "eps_at_delta", params=_L004, delta=1e-5,
               digits=2),
        Column("ours_002", "Ours lambda=0.002", "bok2024/thm4.5", "eps_at_delta", params=_L002, delta=1e-5,
               digits=2),
        Column("ours_004", "Ours lambda=0.004", "bok2024/thm4.5", "eps_at_delta", params=_L004, delta=1e-5,
               digits=2),
    ),
    rows=tuple(Row(f"E = {e}", {**_MNIST, "E": e, "T": 40 * e},
                   dict(zip(("comp_cgd", "comp_sgd", "rdp_002", "rdp_004", "ours_002", "ours_004"), v)))
               for e, v in zip(_MNIST_ROWS, ((30.51, 4.44, 5.82, 5.61, 4.34, 4.32),
                                             (49.88, 6.65, 7.61, 7.00, 5.60, 5.51),
                                             (83.83, 10.11, 9.88, 8.38, 7.58, 7.09)))),
    source="docs/papers/bok2024.md, D.2 Table 4",
)

_ACCURACY_NOTE = "accuracies are experimental results: printed only"
BOK_TABLE_2 = PrintedTable(
    id="bok2024/table2", paper="bok2024", label="Table 2",
    caption="NoisyCGD on MNIST (lambda = 0.002): accuracy (%), mean ± sd over 10 runs.",
    columns=(Column("train", "Training"), Column("test", "Test")),
    rows=(Row("E = 50", printed={"train": "89.36 ± 0.03", "test": "90.12 ± 0.04"}),
          Row("E = 100", printed={"train": "90.24 ± 0.03", "test": "90.94 ± 0.07"}),
          Row("E = 200", printed={"train": "90.85 ± 0.02", "test": "91.37 ± 0.08"})),
    source="docs/papers/bok2024.md, D.2 Table 2", note=_ACCURACY_NOTE,
)


def _accuracy_table(number: int, what: str, rows: tuple) -> PrintedTable:
    keys = ("cgd_002", "cgd_004", "sgd_002", "sgd_004")
    return PrintedTable(
        id=f"bok2024/table{number}", paper="bok2024", label=f"Table {number}",
        caption=f"MNIST logistic regression: {what} accuracy (%), mean ± sd over 10 runs (column labels as printed).",
        columns=tuple(Column(k, label) for k, label in zip(keys, ("NoisyCGD lambda=0.002", "NoisyCGD lambda=0.004",
                                                                  "NoisySGD lambda=0.002", "NoisySGD lambda=0.004"))),
        rows=tuple(Row(f"E = {e}", printed=dict(zip(keys, v))) for e, v in zip(_MNIST_ROWS, rows)),
        source=f"docs/papers/bok2024.md, D.2 Table {number}", note=_ACCURACY_NOTE,
    )


BOK_TABLE_5 = _accuracy_table(5, "training", (("89.36 ± 0.03", "89.23 ± 0.02", "89.36 ± 0.04", "89.22 ± 0.04"),
                                              ("90.24 ± 0.03", "90.00 ± 0.03", "90.25 ± 0.02", "89.99 ± 0.03"),
                                              ("90.85 ± 0.02", "90.39 ± 0.04", "90.84 ± 0.03", "90.37 ± 0.02")))
BOK_TABLE_6 = _accuracy_table(6, "test", (("90.12 ± 0.04", "90.03 ± 0.07", "90.12 ± 0.08", "90.00 ± 0.06"),
                                          ("90.94 ± 0.07", "90.70 ± 0.05", "90.97 ± 0.04", "90.75 ± 0.03"),
                                          ("91.37 ± 0.08", "91.02 ± 0.07", "91.40 ± 0.07", "91.01 ± 0.04")))

# Table 7: L/(n sigma) = 0.1 (n = 10, sigma = 1, Delta = 1); c = 1 - eta*m with m = M = 1, eta = 1 - c.
_T7_C = (0.92, 0.96, 0.98, 0.99, 0.995)
BOK_TABLE_7 = PrintedTable(
    id="bok2024/table7", paper="bok2024", label="Table 7",
    caption="NoisyGD, strongly convex: GDP mu, L/(n sigma) = 0.1; composition (Thm 4.1) and Thm 4.2 at contraction c.",
    columns=(Column("comp", "GDP Comp.", "bok2024/thm4.1"),)
    + tuple(Column(f"c{c}", f"c={c}", "bok2024/thm4.2", params=_p(eta=round(1 - c, 10), m=1, M=1))
            for c in _T7_C),
    rows=tuple(Row(f"T = {t}", _p(n=10, sigma=1, Delta=1, T=t), dict(zip(["comp"] + [f"c{c}" for c in _T7_C], v)))
               for t, v in ((10, (0.316, 0.308, 0.314, 0.316, 0.316, 0.316)),
                            (100, (1.000, 0.490, 0.688, 0.871, 0.961, 0.990)),
                            (1000, (3.162, 0.490, 0.700, 0.995, 1.411, 1.984)))),
    source="docs/papers/bok2024.md, D.3.1 Table 7",
)

# Table 8: sigma = 8, D = 1; rows L/n, columns eta; (t*, mu*). n = 1 so Delta = L/n; M = 1 (eta <= 2/M).
_T8 = {(0.25, 0.2): (80, 0.280), (0.25, 0.1): (160, 0.395), (0.25, 0.05): (320, 0.559),
       (0.5, 0.2): (40, 0.395), (0.5, 0.1): (80, 0.559), (0.5, 0.05): (160, 0.791),
       (1.0, 0.2): (20, 0.559), (1.0, 0.1): (40, 0.791), (1.0, 0.05): (80, 1.118)}
BOK_TABLE_8 = PrintedTable(
    id="bok2024/table8", paper="bok2024", label="Table 8",
    caption="NoisyGD, constrained convex (sigma = 8, D = 1): (t*, mu*) per L/n and eta; mu* = Thm 4.3, "
            "t* = first T at which composition (Thm 4.1) reaches mu*.",
    columns=(
        Column("t_star", "t*", "bok2024/thm4.3", "crossing", var="T", against="bok2024/thm4.1", digits=0),
        Column("mu_star", "mu*", "bok2024/thm4.3"),
    ),
    rows=tuple(Row(f"L/n = {ln}, eta = {eta}", _p(n=1, Delta=ln, eta=eta, sigma=8, D=1, M=1, T=100000),
                   {"t_star": v[0], "mu_star": v[1]}) for (ln, eta), v in _T8.items()),
    source="docs/papers/bok2024.md, D.3.1 Table 8",
)

# Table 9: L/(b sigma) = 0.2 (b = 1, sigma = 5, Delta = 1); c = 1 - eta with m = M = 1.
_T9_COLS = tuple((l, c) for l in (10, 20, 40) for c in (0.98, 0.99, 0.995))
_T9_ROWS = {5: (0.447, 0.229, 0.233, 0.235, 0.211, 0.215, 0.217, 0.202, 0.205, 0.208),
            50: (1.414, 0.270, 0.334, 0.410, 0.216, 0.237, 0.275, 0.203, 0.208, 0.219),
            500: (4.472, 0.270, 0.336, 0.439, 0.216, 0.237, 0.276, 0.203, 0.208, 0.219)}
BOK_TABLE_9 = PrintedTable(
    id="bok2024/table9", paper="bok2024", label="Table 9",
    caption="NoisyCGD, strongly convex: GDP mu, L/(b sigma) = 0.2; composition (Thm 4.4) and Thm 4.5 per l and c.",
    columns=(Column("comp", "GDP Comp.", "bok2024/thm4.4"),)
    + tuple(Column(f"l{l}_c{c}", f"l={l}: c={c}", "bok2024/thm4.5", params=_p(l=l, eta=round(1 - c, 10), m=1, M=1))
            for l, c in _T9_COLS),
    rows=tuple(Row(f"E = {e}", _p(b=1, sigma=5, Delta=1, E=e),
                   dict(zip(["comp"] + [f"l{l}_c{c}" for l, c in _T9_COLS], v))) for e, v in _T9_ROWS.items()),
    source="docs/papers/bok2024.md, D.3.2 Table 9",
)

# Tables 10/11/12: sigma = 3, D = 1, rows L/b, columns eta, l = 10/20/40; (E*, mu*). b = 1 so Delta = L/b.
_T10_12 = {
    10: {(0.25, 0.04): (31, 0.534), (0.25, 0.02): (62, 0.750), (0.25, 0.01): (123, 1.057),
         (0.5, 0.04): (17, 0.764), (0.5, 0.02): (33, 1.067), (0.5, 0.01): (65, 1.500),
         (1.0, 0.04): (10, 1.106), (1.0, 0.02): (20, 1.528), (1.0, 0.01): (40, 2.134)},
    20: {(0.25, 0.04): (16, 0.382), (0.25, 0.02): (31, 0.534), (0.25, 0.01): (62, 0.750),
         (0.5, 0.04): (9, 0.553), (0.5, 0.02): (17, 0.764), (0.5, 0.01): (33, 1.067),
         (1.0, 0.04): (5, 0.816), (1.0, 0.02): (10, 1.106), (1.0, 0.01): (20, 1.528)},
    40: {(0.25, 0.04): (8, 0.276), (0.25, 0.02): (16, 0.382), (0.25, 0.01): (31, 0.534),
         (0.5, 0.04): (5, 0.408), (0.5, 0.02): (9, 0.553), (0.5, 0.01): (17, 0.764),
         (1.0, 0.04): (3, 0.624), (1.0, 0.02): (5, 0.816), (1.0, 0.01): (10, 1.106)},
}


def _cgd_constrained_table(number: int, l: int) -> PrintedTable:
    return PrintedTable(
        id=f"bok2024/table{number}", paper="bok2024", label=f"Table {number}",
        caption=f"NoisyCGD, constrained convex (sigma = 3, D = 1, l = {l}): (E*, mu*) per L/b and eta; "
                "mu* = Thm 4.6, E* = first E at which composition (Thm 4.4) reaches mu*.",
        columns=(
            Column("e_star", "E*", "bok2024/thm4.6", "crossing", var="E", against="bok2024/thm4.4", digits=0,
                   erratum="bok2024/tables10-12", note="the printed E* come from a code expression with (L/b)^4 (erratum)"),
            Column("mu_star", "mu*", "bok2024/thm4.6"),
        ),
        rows=tuple(Row(f"L/b = {lb}, eta = {eta}", _p(b=1, l=l, Delta=lb, eta=eta, sigma=3, D=1, M=1, E=100000),
                       {"e_star": v[0], "mu_star": v[1]}) for (lb, eta), v in _T10_12[l].items()),
        source="docs/papers/bok2024.md, D.3.2 Tables 10/11/12",
    )


BOK_TABLE_10 = _cgd_constrained_table(10, 10)
BOK_TABLE_11 = _cgd_constrained_table(11, 20)
BOK_TABLE_12 = _cgd_constrained_table(12, 40)

# D.1 Figure 1: m = 1, M = 10, eta = 0.05 (c = 0.95), L/(n sigma) = 0.1, delta = 1e-5; values derived by the
# the paper notes (docs/papers; the paper prints no numbers for this figure).
_FIG1 = _p(m=1, M=10, eta=0.05, n=10, sigma=1, Delta=1)


def _ys22_d6_mu(T: float, ln_sigma: float = 0.1, c: float = 0.95, c_tilde: float = 0.975) -> float:
    """The GDP-equivalent of the prior RDP bound of Bok et al. Fig. 1 ("prior RDP", [YS22, Thm D.6]).

    docs/papers/bok2024.md D.1: the figure implements [YS22, Thm D.6] as the RDP curve ``alpha * rho`` with
    ``rho = (L/(n sigma))^2 (1+c)/(1-c) (1 - c~^T)``, ``c~ = 1 - eta m / 2``; that is the RDP of ``mu``-GDP
    through Lemma A.4 (``alpha mu^2 / 2``) with ``mu = sqrt(2 rho)``, so the registry's Lemma A.4 and the
    paper's own RDP -> (eps, delta) conversion turn it into the figure's epsilon.  The bound is not a registry
    theorem (the paper only plots it); this is its one place.
    """
    rho = ln_sigma**2 * (1 + c) / (1 - c) * (1 - c_tilde**T)
    return math.sqrt(2 * rho)


_FIG1_T = (10, 20, 40, 80, 160)
BOK_FIGURE_1 = PrintedTable(
    id="bok2024/figure1", paper="bok2024", label="Figure 1 (D.1)", kind="figure",
    caption="NoisyGD, strongly convex (c = 0.95, L/(n sigma) = 0.1, delta = 1e-5): mu of Thm 4.2 and epsilon "
            "from f-DP, from our RDP (Lemma A.4) and from composition (Thm 4.1).",
    columns=(
        Column("mu", "mu (Thm 4.2)", "bok2024/thm4.2", digits=4),
        Column("eps_fdp", "eps f-DP", "bok2024/thm4.2", "eps_at_delta", delta=1e-5),
        Column("eps_rdp", "eps our RDP", "bok2024/lemmaA.4", "eps_at_delta", inputs={"mu": "mu"}, delta=1e-5),
        Column("eps_prior", "eps prior RDP [YS22]", "bok2024/lemmaA.4", "eps_at_delta", delta=1e-5,
               rename={"mu": "mu_ys22"},
               note="[YS22, Thm D.6] as the figure plots it (alpha rho, c~ = 1 - eta m / 2): Lemma A.4 at "
                    "mu = sqrt(2 rho)"),
        Column("eps_comp", "eps composition", "bok2024/thm4.1", "eps_at_delta", delta=1e-5),
    ),
    rows=tuple(Row(f"T = {t}", {**_FIG1, "T": t, "mu_ys22": _ys22_d6_mu(t)},
                   dict(zip(("mu", "eps_fdp", "eps_rdp", "eps_prior", "eps_comp"), v)))
               for t, v in ((10, (0.3129, 1.185, 1.293, 1.775, 1.199)), (20, (0.4291, 1.681, 1.829, 2.440, 1.760)),
                            (40, (0.5488, 2.212, 2.402, 3.177, 2.594)), (80, (0.6143, 2.510, 2.723, 3.785, 3.849)),
                            (160, (0.6243, 2.557, 2.773, 4.061, 5.759)))),
    source="docs/papers/bok2024.md, D.1 (computed, not printed, values)",
    note="values derived by the paper notes from the figure's parameters; the paper plots them without numbers",
)

# ---------------------------------------------------------------------------------------------------
# Bu, Dong, Long, Su 2020 (docs/papers/bu2020.md-§6): q = B/n, z = sigma, T = ceil(epochs n / B)
# ---------------------------------------------------------------------------------------------------


def _bu(q: float, z: float, epochs: float) -> dict[str, float]:
    return {"q": q, "z": z, "E": float(epochs), "T": float(math.ceil(epochs / q - 1e-9))}


def _bu_columns(delta: float) -> tuple[Column, ...]:
    return (
        Column("mu", "CLT mu", "bu2020/eq3.1/epochs", digits=2),
        Column("eps_clt", "CLT eps", "bu2020/eq3.1/eps", "eps_at_delta", delta=delta, digits=2),
        Column("eps_ma", "MA eps", "bu2020/appB.3", "eps_at_delta", delta=delta, digits=2,
               note="moments accountant with the classical conversion (TF orders, T = ceil(epochs/q))"),
        Column("eps_exact", "exact eps (PLD)", "bu2020/thm3/eps", "eps_at_delta", delta=delta, digits=2,
               extra=True, note="not in the paper: exact composition (Theorem 3)"),
    )


_Q_MNIST = 256 / 60000
BU_TABLE_1 = PrintedTable(
    id="bu2020/table1", paper="bu2020", label="Table 1",
    caption="NoisySGD on MNIST (p = 256/60000, delta = 1e-5): CLT mu by (3.1), its epsilon by (3.2), moments "
            "accountant epsilon.",
    columns=(Column("acc", "Test accuracy (%)"),) + _bu_columns(1e-5),
    rows=tuple(Row(f"eta={eta}, R={r}, sigma={z}, {ep} epochs", _bu(_Q_MNIST, z, ep),
                   {"acc": acc, "mu": mu, "eps_clt": e1, "eps_ma": e2})
               for eta, r, z, ep, acc, mu, e1, e2 in (
                   (0.25, 1.5, 1.3, 15, 95.0, 0.23, 0.83, 1.19), (0.15, 1.0, 1.1, 60, 96.6, 0.57, 2.32, 3.01),
                   (0.25, 1.5, 0.7, 45, 97.0, 1.13, 5.07, 7.10), (0.25, 1.5, 0.6, 62, 97.6, 2.00, 9.98, 13.27),
                   (0.25, 1.5, 0.55, 68, 97.8, 2.76, 14.98, 18.72), (0.25, 1.5, 0.5, 100, 98.0, 4.78, 31.12, 32.40))),
    source="docs/papers/bu2020.md Table 1, §6 (parameters)",
)


def _bu_models_table(number: int, caption: str, metric: str, private: tuple, others: tuple, delta: float,
                     q: float, z: float) -> PrintedTable:
    name, epochs, score, mu, e1, e2 = private
    rows = [Row(f"{name} ({epochs} epochs)", _bu(q, z, epochs),
                {"epochs": epochs, "metric": score, "mu": mu, "eps_clt": e1, "eps_ma": e2})]
    rows += [Row(o[0], {}, {"epochs": o[1], "metric": o[2], "mu": None, "eps_clt": None, "eps_ma": None})
             for o in others]
    return PrintedTable(
        id=f"bu2020/table{number}", paper="bu2020", label=f"Table {number}", caption=caption,
        columns=(Column("epochs", "Epochs", digits=0), Column("metric", metric)) + _bu_columns(delta),
        rows=tuple(rows), source=f"docs/papers/bu2020.md Table {number}, §6 (parameters)",
    )


BU_TABLE_2 = _bu_models_table(
    2, "NoisySGD on Adult (sigma = 0.55, p = 256/29305, delta = 1e-5).", "Test accuracy (%)",
    ("private networks", 18, 84.0, 2.03, 10.20, 14.70),
    (("non-private networks", 20, 84.5), ("kNN", None, 79.7), ("naive Bayes", None, 83.9), ("voted ID3", None, 84.4),
     ("C4.5", None, 84.5)), 1e-5, 256 / 29305, 0.55)
BU_TABLE_3 = _bu_models_table(
    3, "NoisyAdam on IMDB (sigma = 0.56, p = 512/25000, delta = 1e-5).", "Test accuracy (%)",
    ("private networks", 9, 83.8, 2.07, 10.43, 15.24),
    (("non-private networks", 20, 84.7), ("LSTM-RNN", 10, 85.4)), 1e-5, 512 / 25000, 0.56)
BU_TABLE_4 = _bu_models_table(
    4, "NoisyAdam on MovieLens 1M (sigma = 0.6, p = 10000/800167, delta = 1e-6); metric RMSE.", "RMSE",
    ("private networks", 20, 0.915, 1.94, 10.61, 15.39),
    (("non-private networks", 20, 0.893), ("SVD", None, 0.873), ("NMF", None, 0.916),
     ("user-based CF", None, 0.923), ("global average", None, 1.117)), 1e-6, 10000 / 800167, 0.6)

BU_FIGURE_4 = PrintedTable(
    id="bu2020/figure4", paper="bu2020", label="Figure 4", kind="figure",
    caption="MNIST (p = 256/60000, delta = 1e-5): sigma and the recalibrated sigma~ give the same epsilon "
            "(moments accountant for sigma, CLT for sigma~).",
    columns=_bu_columns(1e-5),
    rows=(Row("top, sigma = 1.3, 20 epochs", _bu(_Q_MNIST, 1.3, 20), {"eps_ma": 1.34}),
          Row("top, sigma~ = 1.06, 20 epochs", _bu(_Q_MNIST, 1.06, 20), {"mu": 0.35, "eps_clt": 1.34}),
          Row("bottom, sigma = 0.7, 70 epochs", _bu(_Q_MNIST, 0.7, 70), {"eps_ma": 8.68}),
          Row("bottom, sigma~ = 0.638, 70 epochs", _bu(_Q_MNIST, 0.638, 70), {"mu": 1.78, "eps_clt": 8.68})),
    source="docs/papers/bu2020.md (other reported numbers), §6 Fig4 rows",
)

# ---------------------------------------------------------------------------------------------------
# Chourasia, Ye, Shokri 2021 (docs/papers/chourasia2021.md Figure 1): sigma_C = 0.02 -> sigma = 0.2
# ---------------------------------------------------------------------------------------------------

_CH_FIG1 = _p(alpha=10, M=4, Delta=4, n=5000, eta=0.02, sigma=0.2)
CHOURASIA_FIGURE_1 = PrintedTable(
    id="chourasia2021/figure1", paper="chourasia2021", label="Figure 1", kind="figure",
    caption="Rényi privacy loss of noisy GD over K iterations (alpha = 10, beta = 4, S_g = 4, n = 5000, "
            "eta = 0.02, sigma = 0.02): Corollary 1 at lambda = 1, 2, 4 and the composition baseline.",
    columns=tuple(Column(f"lam{lam}", f"lambda={lam}", "chourasia2021/cor1", params=_p(m=lam), digits=6)
                  for lam in (1, 2, 4))
    + (Column("baseline", "baseline", "chourasia2021/baseline", digits=6),),
    rows=tuple(Row(f"K = {k}", {**_CH_FIG1, "T": k}, dict(zip(("lam1", "lam2", "lam4", "baseline"), v)))
               for k, v in ((10, (0.001523, 0.001450, 0.001319, 0.0008)),
                            (100, (0.010114, 0.006917, 0.003927, 0.008)),
                            (1000, (0.015999, 0.008000, 0.004000, 0.08)))),
    source="docs/papers/chourasia2021.md Figure 1 (derived values at alpha = 10)",
    note="values derived by the paper notes from the caption's formulas; the paper plots them without numbers",
)

# ---------------------------------------------------------------------------------------------------
# Altschuler & Talwar 2022 (docs/papers/altschuler2022.md): no printed numbers; Appendix B's (B.1)
# plateau eps_inf = 4 alpha D~ L / (n eta sigma^2), D~ = D + 2 eta L / n, is the value the bound reaches.
# ---------------------------------------------------------------------------------------------------


def _at22_plateau(alpha: float, D: float, L: float, n: float, eta: float, sigma: float) -> float:
    dt = D + 2 * eta * L / n
    return 4 * alpha * dt * L / (n * eta * sigma**2)


_AT22_ROWS = (_p(alpha=2, D=1, L=1, n=100, eta=0.1, sigma=1, M=1, T=100000),
              _p(alpha=10, D=2, L=1, n=1000, eta=0.05, sigma=0.5, M=1, T=100000))
ALTSCHULER_APPENDIX_B = PrintedTable(
    id="altschuler2022/appendixB", paper="altschuler2022", label="Appendix B (B.1)", kind="figure",
    caption="Full-batch noisy GD, (B.1): RDP bound after many steps equals the plateau 4 alpha D~ L/(n eta sigma^2).",
    columns=(Column("eps", "eps (B.1), T large", "altschuler2022/b.1", digits=3,
                    note="the paper prints no numbers; the row values are the paper notes' derived plateau"),),
    rows=tuple(Row(", ".join(f"{k}={v:g}" for k, v in r.items() if k not in ("T", "M")), r,
                   {"eps": round(_at22_plateau(r["alpha"], r["D"], r["L"], r["n"], r["eta"], r["sigma"]), 6)})
               for r in _AT22_ROWS),
    source="docs/papers/altschuler2022.md (B.1) plateau [DERIVED]",
    note="no printed tables or numeric figures in this paper (docs/papers)",
)

# docs/papers/altschuler2022.md: the paper notes' reference values of (B.2) and (B.3) at alpha = 2, L = 1,
# D = 2, eta = 0.1, sigma = 3, n = 20, b = 1 (B.3 with kappa = 10: m = 20/11, M = 200/11, eta not tied to them).
_B2 = _p(alpha=2, L=1, D=2, eta=0.1, sigma=3, n=20, b=1, M=1)
ALTSCHULER_B2 = PrintedTable(
    id="altschuler2022/b2-values", paper="altschuler2022", label="(B.2)/(B.3) reference values", kind="figure",
    caption="Noisy-SGD (alpha = 2, L = 1, D = 2, eta = 0.1, sigma = 3, n = 20, b = 1): (B.2) against the "
            "composition T S_alpha(b/n, b sigma/(2L)), and (B.3) at kappa = 10; RDP epsilon.",
    columns=(
        Column("b2", "(B.2)", "altschuler2022/b.2", digits=5),
        Column("comp", "composition T S_alpha", "altschuler2022/eq1.1/sgm", digits=5),
        Column("b3", "(B.3), kappa = 10", "altschuler2022/b.3", params=_p(m=20 / 11, M=200 / 11), digits=5),
    ),
    rows=tuple(Row(f"T = {t}", {**_B2, "T": t}, dict(zip(("b2", "comp", "b3"), v)))
               for t, v in ((10, (0.01285, 0.01285, 0.01285)), (100, (0.12854, 0.12854, 0.04317)),
                            (400, (0.51414, 0.51414, None)), (1000, (1.01134, 1.28536, None)),
                            (10000, (1.01134, 12.85, 0.04317)))),
    source="docs/papers/altschuler2022.md ((B.2) and (B.3) table) [the paper notes' values, not the paper's]",
    note="the paper prints no numbers; these are the paper notes' grid-search values (optimal sigma_1 about 2.02)",
)

ALTSCHULER_THM31 = PrintedTable(
    id="altschuler2022/thm3.1-value", paper="altschuler2022", label="Theorem 3.1 explicit constants", kind="figure",
    caption="Theorem 3.1 with explicit constants (Lemma 2.12 and sigma_1 = sigma_2 = sigma/sqrt 2 in (3.7)) "
            "after T = 10^6 steps: the plateau 8 alpha D L/(n eta sigma^2) + 32 alpha L^2/(n^2 sigma^2).",
    columns=(Column("eps", "RDP epsilon", "altschuler2022/thm3.1", digits=8),),
    rows=(Row("alpha = 2, L = 1, D = 1, eta = 0.1, sigma = 20, n = 1000, T = 1e6",
              _p(alpha=2, L=1, D=1, eta=0.1, sigma=20, n=1000, b=1, M=1, T=10**6), {"eps": 4.0008e-4}),),
    source="docs/papers/altschuler2022.md (explicit Theorem 3.1 corollary) [DERIVED]",
)

# docs/papers/altschuler2022.md: exact density evolution of the Thm 4.1 construction (n = 20, b = 1, L = 1,
# eta = 0.1, D = 2, sigma = 3, alpha = 2) shows the plateau of D_2 in T.
_AT22_D2 = _p(n=20, b=1, Delta=1, L=1, eta=0.1, D=2, sigma=3, alpha=2)
ALTSCHULER_D2_PLATEAU = PrintedTable(
    id="altschuler2022/d2-plateau", paper="altschuler2022", label="Thm 4.1 construction: D_2 plateau", kind="figure",
    caption="Exact Rényi divergence D_2 of the Theorem 4.1 construction (projected 1-D walks on [-D/2, D/2], "
            "n = 20, b = 1, L = 1, eta = 0.1, D = 2, sigma = 3) by density evolution, against the linear "
            "composition 2 alpha T L^2/(n^2 sigma^2).",
    columns=(
        Column("exact", "exact D_2 (density evolution)", conversion="exact", family="at22_thm41", quantity="renyi",
               digits=5),
        Column("linear", "composition (1.1)", "altschuler2022/eq1.1", digits=5),
    ),
    rows=tuple(Row(f"T = {t}", {**_AT22_D2, "T": t}, {"exact": v}) for t, v in
               ((1, 2.9e-4), (50, 5.46e-3), (100, 5.61e-3), (200, 5.61e-3))),
    source="docs/papers/altschuler2022.md (numerical verification of 4.1, exact density evolution)",
    note="the paper notes gives 5.61e-3 for all T >= 100: the divergence stops growing after about Dn/(L eta)",
)

# docs/papers/altschuler2022.md: the construction at constants meeting the theorem's conditions; the paper notes'
# Monte Carlo (2e4 paths) gives P[omega_T >= 0] = 0.503 under D and 1.000 under D'.
_AT22_MC = _p(n=10, b=1, Delta=1, L=1, eta=1, D=1000, T=7500, sigma=math.sqrt(1e-3 * 1000**2 / 7500))
ALTSCHULER_THM41_TEST = PrintedTable(
    id="altschuler2022/thm4.1-test", paper="altschuler2022", label="Thm 4.1 construction: positivity test",
    kind="figure",
    caption="The positivity test 1[omega_T >= 0] of the Theorem 4.1 proof (n = 10, b = 1, L = eta = 1, D = 1000, "
            "T = Tbar = 7500, sigma = sqrt(c_sigma D^2/(eta^2 Tbar)) = 0.3651): its probability under D and D', "
            "exact by density evolution, against the paper notes' Monte Carlo.",
    columns=(
        Column("p", "P[omega_T >= 0] under D", conversion="exact", family="at22_thm41", quantity="event",
               params=_p(event=0.0), digits=2, note="Monte Carlo with 2e4 paths: standard error 0.0035"),
        Column("p_prime", "P[omega'_T >= 0] under D'", conversion="exact", family="at22_thm41",
               quantity="event_prime", params=_p(event=0.0), digits=3),
    ),
    rows=(Row("Tbar = 7500", _AT22_MC, {"p": 0.503, "p_prime": 1.000}),),
    source="docs/papers/altschuler2022.md (numerical verification of 4.1, Monte Carlo)",
)

# docs/papers/chourasia2021.md Figure 2: squared loss (lambda = beta = 1), sigma_C = 0.02 (sigma = 0.2),
# eta = 0.02, n = 5000, S_g = 4; the paper notes' asymptotes per unit alpha (Cor. 2 8.0808e-4, exact 7.92e-4,
# Thm 3 4.0e-4), read here at alpha = 10 (alpha is not given for Fig. 2; Fig. 1 uses 10, 20, 30).
_CH_FIG2 = _p(alpha=10, m=1, M=1, Delta=4, n=5000, eta=0.02, sigma=0.2)
CHOURASIA_FIGURE_2 = PrintedTable(
    id="chourasia2021/figure2", paper="chourasia2021", label="Figure 2", kind="figure",
    caption="Tightness on the squared loss (lambda = beta = 1, sigma = 0.02, eta = 0.02, n = 5000, S_g = 4), "
            "alpha = 10: Corollary 2 (upper), the exact Rényi divergence, Theorem 3 (lower), as K grows.",
    columns=(Column("cor2", "Cor. 2 (upper)", "chourasia2021/cor2", digits=7),
             Column("exact", "exact", "chourasia2021/thm3/exact", digits=5),
             Column("thm3", "Thm 3 (lower)", "chourasia2021/thm3", digits=5),
             Column("baseline", "composition", "chourasia2021/baseline", digits=5)),
    rows=(Row("K = 100000 (the asymptote)", {**_CH_FIG2, "T": 100000},
              {"cor2": 0.0080808, "exact": 0.00792, "thm3": 0.0040, "baseline": None}),),
    source="docs/papers/chourasia2021.md Figure 2 (asymptotes per unit alpha [DERIVED], times alpha = 10)",
    note="the paper plots the curves without numbers; 'upper roughly two times the lower bound': 8.08 vs 4.0",
)

TABLES: tuple[PrintedTable, ...] = (
    BOK_TABLE_1, BOK_TABLE_2, BOK_TABLE_3, BOK_TABLE_4, BOK_TABLE_5, BOK_TABLE_6, BOK_TABLE_7, BOK_TABLE_8,
    BOK_TABLE_9, BOK_TABLE_10, BOK_TABLE_11, BOK_TABLE_12, BOK_FIGURE_1,
    BU_TABLE_1, BU_TABLE_2, BU_TABLE_3, BU_TABLE_4, BU_FIGURE_4,
    CHOURASIA_FIGURE_1, CHOURASIA_FIGURE_2,
    ALTSCHULER_APPENDIX_B, ALTSCHULER_B2, ALTSCHULER_THM31, ALTSCHULER_D2_PLATEAU, ALTSCHULER_THM41_TEST,
)

# ---------------------------------------------------------------------------------------------------
# Figure parameter sets, replotted (epsilon against T or E)
# ---------------------------------------------------------------------------------------------------

FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        id="chourasia2021/figure1", paper="chourasia2021", label="Figure 1",
        caption="Rényi privacy loss (alpha = 10) of noisy GD over K iterations: Corollary 1 and composition.",
        x="T", xs=(1, 5, 10, 25, 50, 100, 200, 400, 700, 1000), quantity="value", ylabel="RDP epsilon (alpha = 10)",
        params=_CH_FIG1,
        curves=tuple(Curve("chourasia2021/cor1", f"Cor. 1, lambda={lam}", _p(m=lam)) for lam in (1, 2, 4))
        + (Curve("chourasia2021/baseline", "composition", kind="composition"),)),
    FigureSpec(
        id="bok2024/figure1", paper="bok2024", label="Figure 1",
        caption="NoisyGD, strongly convex (c = 0.95, L/(n sigma) = 0.1): epsilon at delta = 1e-5.",
        x="T", xs=_FIG1_T, params=_FIG1,
        curves=(Curve("bok2024/thm4.2", "ours (Thm 4.2, f-DP)"),
                Curve("bok2024/lemmaA.4", "our RDP (Thm 4.2 by Lemma A.4)", inputs={"mu": "bok2024/thm4.2"}),
                Curve("bok2024/lemmaA.4", "prior RDP [YS22, Thm D.6]",
                      by_x={t: {"mu": _ys22_d6_mu(t)} for t in _FIG1_T}),
                Curve("bok2024/thm4.1", "composition (Thm 4.1)", kind="composition"))),
    FigureSpec(
        id="bok2024/figure6", paper="bok2024", label="Figure 6",
        caption="NoisyGD, strongly convex (c = 0.99, L/(n sigma) = 0.1): epsilon at delta = 1e-3 and 1e-5.",
        x="T", xs=(10, 20, 40, 80, 160, 320, 640), params=_p(m=1, M=1, eta=0.01, n=10, sigma=1, Delta=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.2", "ours (Thm 4.2)"),
                Curve("bok2024/thm4.1", "composition (Thm 4.1)", kind="composition"))),
    FigureSpec(
        id="bok2024/figure7", paper="bok2024", label="Figure 7",
        caption="NoisyGD, constrained (sigma = 8, D = 1, eta = 0.1, L/n = 0.5): epsilon at delta = 1e-3 and 1e-5.",
        x="T", xs=(10, 20, 40, 80, 160, 320, 640), params=_p(n=1, Delta=0.5, eta=0.1, sigma=8, D=1, M=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.3", "ours: min(Thm 4.3, Thm 4.1)", min_with="bok2024/thm4.1"),
                Curve("bok2024/thm4.1", "composition (Thm 4.1)", kind="composition")),
        note="plotted as min(Thm 4.3, Thm 4.1) as in the paper; Thm 4.3 itself holds from T = ceil(Dn/(L eta)) = 20"),
    FigureSpec(
        id="bok2024/figure8", paper="bok2024", label="Figure 8",
        caption="NoisyCGD, strongly convex (L/(b sigma) = 0.2, c = 0.99, l = 20): epsilon at delta = 1e-3 and 1e-5.",
        x="E", xs=(5, 10, 20, 40, 80, 160, 320), params=_p(b=1, sigma=5, Delta=1, l=20, eta=0.01, m=1, M=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.5", "ours (Thm 4.5)"),
                Curve("bok2024/thm4.4", "composition (Thm 4.4)", kind="composition"))),
    FigureSpec(
        id="bok2024/figure9", paper="bok2024", label="Figure 9",
        caption="NoisyCGD, constrained (sigma = 3, D = 1, eta = 0.02, L/b = 0.5, l = 20): epsilon at delta = 1e-5.",
        x="E", xs=(5, 10, 25, 50, 100, 200), params=_p(b=1, Delta=0.5, eta=0.02, sigma=3, D=1, M=1, l=20),
        curves=(Curve("bok2024/tables10-12", "ours (min of Thm 4.6, Thm 4.4)"),
                Curve("bok2024/thm4.4", "composition (Thm 4.4)", kind="composition"))),
    FigureSpec(
        id="bok2024/figure10", paper="bok2024", label="Figure 10",
        caption="NoisySGD, constrained (b/n = 0.01, L/b = 0.5, D = 1, sigma = 3): epsilon at delta = 1e-5, "
                "Thm 4.10 at eta = 0.2, 0.1, 0.05 and the composition of Thm 4.8, at the figure's T.",
        x="T", xs=(5000, 20000, 80000), params=_p(n=100, b=1, Delta=0.5, D=1, sigma=3, M=1),
        curves=tuple(Curve("bok2024/thm4.10", f"ours (Thm 4.10), eta={eta}", _p(eta=eta), heavy=True)
                     for eta in (0.2, 0.1, 0.05))
        + (Curve("bok2024/thm4.8", "composition (Thm 4.8, exact PLD)", kind="composition"),),
        note="one panel of the 5 x 5 grid (rows b/n, columns L/b); the paper draws tradeoff curves and the CLT "
             "of the bound with a noise split gamma = 1/10, the tool the bound itself (exact PLD, minimised over "
             "the window)"),
    FigureSpec(
        id="chourasia2021/figure2", paper="chourasia2021", label="Figure 2",
        caption="Tightness on the squared loss (lambda = beta = 1, sigma = 0.02, eta = 0.02, n = 5000, S_g = 4): "
                "Rényi privacy loss at alpha = 10 over K iterations.",
        x="T", xs=(1, 10, 25, 50, 80, 100, 200, 400, 1000, 5000), quantity="value",
        ylabel="RDP epsilon (alpha = 10)", params=_CH_FIG2,
        curves=(Curve("chourasia2021/cor2", "Cor. 2 (upper bound)"),
                Curve("chourasia2021/thm3/exact", "exact (squared loss)", kind="exact"),
                Curve("chourasia2021/thm3", "Thm 3 (lower bound)", kind="lower"),
                Curve("chourasia2021/baseline", "composition", kind="composition")),
        note="alpha is not given for Fig. 2 (the paper notes: probably as Fig. 1); every curve is linear in alpha"),
    FigureSpec(
        id="bu2020/figure4", paper="bu2020", label="Figure 4",
        caption="MNIST (p = 256/60000): epsilon at delta = 1e-5 over epochs, CLT at sigma~ vs moments accountant "
                "at sigma (top: 1.06 vs 1.3).",
        x="E", xs=(1, 2, 5, 10, 15, 20), params=_p(q=_Q_MNIST),
        curves=(Curve("bu2020/eq3.1/eps", "CLT, sigma~ = 1.06", _p(z=1.06), kind="approximation"),
                Curve("bu2020/appB.3", "moments accountant, sigma = 1.3", _p(z=1.3), x_param="T",
                      x_scale=1 / _Q_MNIST),
                Curve("bu2020/thm3/eps", "exact composition (PLD), sigma~ = 1.06", _p(z=1.06), x_param="T",
                      x_scale=1 / _Q_MNIST, kind="pld")),
        note="the exact composition at sigma~ is not in the paper: it shows the CLT's under-statement"),
)


# ---------------------------------------------------------------------------------------------------
# Composition baselines: the bound every other theorem of a setting is compared with
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """The composition bound (every iterate released) that a theorem of a batch scheme is compared with.

    ``needs``: the baseline is chosen only for theorems that take this parameter (Bu et al.'s DP-SGD
    bounds speak ``z``); ``rdp``: the same composition as an RDP curve, for RDP theorems.
    """

    batches: str
    theorem: str
    needs: str | None = None
    rdp: str | None = None


#: in order of preference; uniform and shuffled batches have none (the exact composition of Bok et al.
#: Theorem 4.8 is too costly for a plot grid)
COMPOSITION_BASELINES: tuple[Baseline, ...] = (
    Baseline("full", "baselines/noisy-gd/gdp", rdp="baselines/noisy-gd/rdp"),
    Baseline("cyclic", "bok2024/thm4.4"),
    Baseline("poisson", "bu2020/appB.3", needs="z"),
    Baseline("poisson", "baselines/moments-accountant/eps-improved"),
)

#: composition bounds whose record says ``release="last"``: Bok et al. state them for the last iterate,
#: but they are the plain composition of every step (their Table 1 column "GDP Composition")
COMPOSITIONS: frozenset[str] = frozenset({"bok2024/thm4.1", "bok2024/thm4.4", "bok2024/thm4.8"})


# ---------------------------------------------------------------------------------------------------
# The paper's own parameters for each theorem's plot
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperPoint:
    """Where a paper evaluates (or plots) a theorem: the report draws the theorem's curves there."""

    params: Mapping[str, float]
    source: str  # the paper's table or figure, e.g. "Bok et al. Fig. 1"


_MNIST_CGD = {**_MNIST, **_L002, "E": 50.0, "T": 2000.0}  # Table 1, first row (l = 40: T = 40 E)
_MNIST_SGD = {**_MNIST, "T": 2000.0}  # Tables 3-4, NoisySGD column: p = b/n = 0.025, T = 40 E
_FIG7 = _p(n=1, Delta=0.5, eta=0.1, sigma=8, D=1, M=1, T=80)  # the figure's "t >= 80" curve
_FIG9 = _p(b=1, n=20, l=20, Delta=0.5, eta=0.02, sigma=3, D=1, M=1, E=25, T=500)  # the figure's "E >= 25" curve
_BU_MNIST1 = {**_bu(_Q_MNIST, 1.3, 15), "delta": 1e-5}  # Table 1, first row
_CH_FIG1_L1 = {**_CH_FIG1, "m": 1.0, "T": 100.0}
_CH_FIG2_K = {**_CH_FIG2, "T": 100.0}

#: theorem id -> the paper's parameters its plot is drawn at (its provenance in ``source``)
PAPER_POINTS: dict[str, PaperPoint] = {
    **{tid: PaperPoint({**_FIG1, "T": 160.0}, "Bok et al. Fig. 1 (c = 0.95, L/(n sigma) = 0.1, T = 160)")
       for tid in ("bok2024/thm4.1", "bok2024/thm4.2")},
    **{tid: PaperPoint(_FIG7, "Bok et al. Fig. 7 (sigma = 8, D = 1, eta = 0.1, L/n = 0.5, T = 80)")
       for tid in ("bok2024/thm4.3", "bok2024/thmC.7", "bok2024/thmC.16a")},
    **{tid: PaperPoint(_MNIST_CGD, "Bok et al. Table 1 (MNIST, lambda = 0.002, E = 50)")
       for tid in ("bok2024/thm4.4", "bok2024/thm4.5", "bok2024/ys22", "bok2024/ys22/eps", "bok2024/thmC.17")},
    **{tid: PaperPoint(_FIG9, "Bok et al. Fig. 9 (sigma = 3, D = 1, eta = 0.02, L/b = 0.5, l = 20, E = 25)")
       for tid in ("bok2024/tables10-12", "bok2024/tables10-12/as-printed")},
    # Thm 4.6 alone holds from E = 1 + ceil(Db/(L eta)) = 101 at Fig. 9's parameters (the lower bound C.16(b)
    # from T = D b l/(eta L) = 2000): drawn at the figure's last E
    **{tid: PaperPoint({**_FIG9, "E": 200.0, "T": 4000.0}, "Bok et al. Fig. 9 (sigma = 3, D = 1, eta = 0.02, "
                       "L/b = 0.5, l = 20, E = 200)")
       for tid in ("bok2024/thm4.6", "bok2024/thm4.6/window", "bok2024/thmC.16b")},
    **{tid: PaperPoint(_MNIST_SGD, "Bok et al. Tables 3-4 (MNIST NoisySGD, p = 0.025, E = 50)")
       for tid in ("bok2024/lemmaA.5", "bok2024/thm4.8")},
    "bok2024/thm4.10": PaperPoint(_p(n=100, b=1, Delta=0.5, D=1, sigma=3, M=1, eta=0.1, T=20000),
                                  "Bok et al. Fig. 10 (b/n = 0.01, L/b = 0.5, eta = 0.1, T = 20000)"),
    **{tid: PaperPoint(_BU_MNIST1, "Bu et al. Table 1, first row (MNIST, sigma = 1.3, 15 epochs)")
       for tid in ("bu2020/eq3.1", "bu2020/eq3.1/epochs", "bu2020/eq3.1/eps", "bu2020/thm5", "bu2020/thm5/as-printed",
                   "bu2020/thm3/eps", "bu2020/appB.3", "bu2020/appB.3/rdp", "baselines/moments-accountant/rdp",
                   "baselines/moments-accountant/eps-classical", "baselines/moments-accountant/eps-improved")},
    "bu2020/uniform-clt": PaperPoint({**_BU_MNIST1, "n": 60000.0, "b": 256.0, "Delta": 1.0, "sigma": 1.3 / 256},
                                     "Bu et al. Table 1, first row, with uniform batches"),
    **{tid: PaperPoint(_CH_FIG1_L1, "Chourasia et al. Fig. 1 (alpha = 10, lambda = 1, beta = 4)")
       for tid in ("chourasia2021/cor1", "chourasia2021/thm1", "chourasia2021/baseline")},
    **{tid: PaperPoint(_CH_FIG2_K, "Chourasia et al. Fig. 2 (squared loss, alpha = 10)")
       for tid in ("chourasia2021/cor2", "chourasia2021/thm3", "chourasia2021/thm3/exact",
                   "chourasia2021/thm3/as-printed")},
    **{tid: PaperPoint({**_B2, "T": 1000.0}, "Altschuler-Talwar (B.2) reference point (docs/papers)")
       for tid in ("altschuler2022/b.2", "altschuler2022/b.2/both-directions", "altschuler2022/eq1.1/sgm",
                   "altschuler2022/eq1.1/sgm/both-directions", "altschuler2022/eq3.7",
                   "altschuler2022/eq3.7/both-directions")},
    **{tid: PaperPoint({**_AT22_D2, "M": 1.0, "T": 100.0}, "Altschuler-Talwar Thm 4.1 construction (docs/papers)")
       for tid in ("altschuler2022/b.1", "altschuler2022/eq1.1")},
}

#: a DP-SGD theorem -> the exact composition of its run (dp_accounting PLD), drawn with it: the value a CLT
#: approximation approximates, and the exact privacy of the worst-case step a moments-accountant bound bounds
EXACT_COMPOSITION: dict[str, str] = {
    **{tid: "bu2020/thm3/eps" for tid in ("bu2020/eq3.1", "bu2020/eq3.1/epochs", "bu2020/eq3.1/eps", "bu2020/thm5",
                                           "bu2020/thm5/as-printed", "bu2020/appB.3")},
    "bu2020/uniform-clt": "bok2024/thm4.8",
    "bok2024/lemmaA.5": "bok2024/thm4.8",
}


# ---------------------------------------------------------------------------------------------------
# Every printed table and figure of the four papers (docs/papers/*.md): reproduced, or why not
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrintedItem:
    """One table or figure a paper prints, and what reproduces it (ids of ``TABLES`` / ``FIGURES``).

    ``why``: why it is not reproduced, when nothing here can (experimental results, illustrations)."""

    paper: str
    item: str
    reproduced_by: tuple[str, ...] = ()
    why: str = ""


_TRAINING = "experimental accuracies of training runs (the tool computes privacy, not accuracy)"
CHECKLIST: tuple[PrintedItem, ...] = (
    PrintedItem("bok2024", "Figure 1", ("bok2024/figure1",)),
    PrintedItem("bok2024", "Figure 2", why="an illustration of tradeoff functions (G_0, G_0.5, G_1, G_5 and a "
                                           "piecewise-linear one): definitions, no theorem plotted"),
    PrintedItem("bok2024", "Figure 3", why="an illustration of the shifted interpolated process, no parameters"),
    PrintedItem("bok2024", "Figure 4", why="an illustration of the one-step optimality of C_p(G_mu) (p = 0.25, "
                                           "mu = 2.5) used in the proof, no bound plotted"),
    PrintedItem("bok2024", "Figure 5", why="an illustration of the NoisySGD coupling, no parameters"),
    PrintedItem("bok2024", "Table 1", ("bok2024/table1",)),
    PrintedItem("bok2024", "Table 2", why=_TRAINING),
    PrintedItem("bok2024", "Table 3", ("bok2024/table3",)),
    PrintedItem("bok2024", "Table 4", ("bok2024/table4",)),
    PrintedItem("bok2024", "Table 5", why=_TRAINING),
    PrintedItem("bok2024", "Table 6", why=_TRAINING),
    PrintedItem("bok2024", "Figure 6", ("bok2024/figure6",)),
    PrintedItem("bok2024", "Table 7", ("bok2024/table7",)),
    PrintedItem("bok2024", "Figure 7", ("bok2024/figure7",)),
    PrintedItem("bok2024", "Table 8", ("bok2024/table8",)),
    PrintedItem("bok2024", "Figure 8", ("bok2024/figure8",)),
    PrintedItem("bok2024", "Table 9", ("bok2024/table9",)),
    PrintedItem("bok2024", "Figure 9", ("bok2024/figure9",)),
    PrintedItem("bok2024", "Table 10", ("bok2024/table10",)),
    PrintedItem("bok2024", "Table 11", ("bok2024/table11",)),
    PrintedItem("bok2024", "Table 12", ("bok2024/table12",)),
    PrintedItem("bok2024", "Figure 10", ("bok2024/figure10",)),
    PrintedItem("bu2020", "Table 1", ("bu2020/table1",)),
    PrintedItem("bu2020", "Table 2", ("bu2020/table2",)),
    PrintedItem("bu2020", "Table 3", ("bu2020/table3",)),
    PrintedItem("bu2020", "Table 4", ("bu2020/table4",)),
    PrintedItem("bu2020", "Figure 2", why="the paper notes records only its parameters (sigma = 0.7, p = 256/60000, "
                                          "delta = 1e-5), not the plotted values"),
    PrintedItem("bu2020", "Figure 4", ("bu2020/figure4",)),
    PrintedItem("bu2020", "Figure 5", why="the exact tradeoff curve of the composition against G_mu (sigma = 1.1, "
                                          "T = 234): the report has no tradeoff-curve reproduction yet"),
    PrintedItem("chourasia2021", "Figure 1", ("chourasia2021/figure1",)),
    PrintedItem("chourasia2021", "Figure 2", ("chourasia2021/figure2",)),
    PrintedItem("chourasia2021", "Table 1", why="utility rates in O(.) with constants and log factors dropped: "
                                                "nothing numeric to compare"),
    PrintedItem("altschuler2022", "Figure 1", why="schematic (L = 1, constant alpha, log factors omitted): no "
                                                  "plotted numbers"),
    PrintedItem("altschuler2022", "Figure 2",
                why="schematic analog of Figure 1 for the extensions: no plotted numbers"),
    PrintedItem("altschuler2022", "Appendix B (B.1)", ("altschuler2022/appendixB",)),
    PrintedItem("altschuler2022", "(B.2)/(B.3) reference values", ("altschuler2022/b2-values",)),
    PrintedItem("altschuler2022", "Theorem 3.1 explicit constants", ("altschuler2022/thm3.1-value",)),
    PrintedItem("altschuler2022", "Thm 4.1 construction: D_2 plateau", ("altschuler2022/d2-plateau",)),
    PrintedItem("altschuler2022", "Thm 4.1 construction: positivity test", ("altschuler2022/thm4.1-test",)),
)


def get(table_id: str) -> PrintedTable:
    for t in TABLES:
        if t.id == table_id:
            return t
    raise KeyError(f"unknown table id {table_id!r}")


__all__ = ["Baseline", "CHECKLIST", "COMPOSITIONS", "COMPOSITION_BASELINES", "Column", "Curve", "EXACT_COMPOSITION",
           "FIGURES", "FigureSpec", "PAPER_POINTS", "PaperPoint", "PrintedItem", "PrintedTable", "Row", "TABLES", "get"]
