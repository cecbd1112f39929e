"""The papers' printed tables and figure parameter sets, and the composition baselines, as data.

Each :class:`PrintedTable` records what a paper printed (verbatim from ``catalogue/*.md``) and, for every
column that the registry can compute, which theorem id and which conversion produce it.  The report
(``verify.report.reproduce``) computes those columns and shows printed against computed; nothing here
computes anything.

Conversions (interpreted by ``verify.report.reproduce``):

* ``value``: ``theorem.evaluate(**params)`` (mu for a GDP theorem, the RDP epsilon at ``alpha``, ...);
* ``eps_at_delta``: :func:`verify.check.notions.eps_at_delta` at the column's (or row's) ``delta``;
* ``crossing``: the smallest integer ``var`` at which theorem ``against`` (a composition bound, increasing in
  ``var``) reaches the column theorem's value: the ``t*`` / ``E*`` columns of Bok et al. Tables 8, 10-12.

Parameters are in the canonical vocabulary (DESIGN.md §3); a row carries a superset of what each column's
theorem needs, and a column may override or add parameters (``Column.params``) or take a parameter from
another column's computed value (``Column.inputs``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Mapping

Conversion = Literal["value", "eps_at_delta", "crossing"]


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


@dataclass(frozen=True)
class Row:
    label: str
    params: Mapping[str, float] = field(default_factory=dict)
    printed: Mapping[str, object] = field(default_factory=dict)  # column key -> printed value (None: "—")


@dataclass(frozen=True)
class PrintedTable:
    """A printed table (or a figure's parameter set with the values the catalogue derives for it)."""

    id: str
    paper: str
    label: str
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    kind: Literal["table", "figure"] = "table"
    source: str = ""  # where in the catalogue the numbers are
    note: str = ""


@dataclass(frozen=True)
class Curve:
    theorem: str
    label: str
    params: Mapping[str, float] = field(default_factory=dict)
    x_param: str | None = None  # the theorem's own variable, when it is not the figure's x (epochs -> steps)
    x_scale: float = 1.0  # x_param = ceil(x * x_scale)


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
# Bok, Su, Altschuler 2024 (catalogue/bok2024.md §8)
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
    source="catalogue/bok2024.md §8, D.2 Table 1",
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
    source="catalogue/bok2024.md §8, D.2 Table 3",
)

BOK_TABLE_4 = PrintedTable(
    id="bok2024/table4", paper="bok2024", label="Table 4",
    caption="Epsilon at delta = 1e-5 on MNIST: composition (NoisyCGD; NoisySGD by numerical composition), "
            "RDP [YS22], ours (Thm 4.5).",
    columns=(
        Column("comp_cgd", "Comp. NoisyCGD", "bok2024/thm4.4", "eps_at_delta", delta=1e-5, digits=2),
        Column("comp_sgd", "Comp. NoisySGD", "bok2024/thm4.8", "eps_at_delta", delta=1e-5, digits=2, heavy=True,
               note="exact composition of C_p(G_mu)^T (PRV/PLD); printed by the PRV accountant"),
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
    source="catalogue/bok2024.md §8, D.2 Table 4",
)

_ACCURACY_NOTE = "accuracies are experimental results: printed only"
BOK_TABLE_2 = PrintedTable(
    id="bok2024/table2", paper="bok2024", label="Table 2",
    caption="NoisyCGD on MNIST (lambda = 0.002): accuracy (%), mean ± sd over 10 runs.",
    columns=(Column("train", "Training"), Column("test", "Test")),
    rows=(Row("E = 50", printed={"train": "89.36 ± 0.03", "test": "90.12 ± 0.04"}),
          Row("E = 100", printed={"train": "90.24 ± 0.03", "test": "90.94 ± 0.07"}),
          Row("E = 200", printed={"train": "90.85 ± 0.02", "test": "91.37 ± 0.08"})),
    source="catalogue/bok2024.md §8, D.2 Table 2", note=_ACCURACY_NOTE,
)

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
    source="catalogue/bok2024.md §8, D.3.1 Table 7",
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
    source="catalogue/bok2024.md §8, D.3.1 Table 8",
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
    source="catalogue/bok2024.md §8, D.3.2 Table 9",
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
        source="catalogue/bok2024.md §8, D.3.2 Tables 10/11/12",
    )


BOK_TABLE_10 = _cgd_constrained_table(10, 10)
BOK_TABLE_11 = _cgd_constrained_table(11, 20)
BOK_TABLE_12 = _cgd_constrained_table(12, 40)

# D.1 Figure 1: m = 1, M = 10, eta = 0.05 (c = 0.95), L/(n sigma) = 0.1, delta = 1e-5; values derived by the
# catalogue (the paper prints no numbers for this figure).
_FIG1 = _p(m=1, M=10, eta=0.05, n=10, sigma=1, Delta=1)
BOK_FIGURE_1 = PrintedTable(
    id="bok2024/figure1", paper="bok2024", label="Figure 1 (D.1)", kind="figure",
    caption="NoisyGD, strongly convex (c = 0.95, L/(n sigma) = 0.1, delta = 1e-5): mu of Thm 4.2 and epsilon "
            "from f-DP, from our RDP (Lemma A.4) and from composition (Thm 4.1).",
    columns=(
        Column("mu", "mu (Thm 4.2)", "bok2024/thm4.2", digits=4),
        Column("eps_fdp", "eps f-DP", "bok2024/thm4.2", "eps_at_delta", delta=1e-5),
        Column("eps_rdp", "eps our RDP", "bok2024/lemmaA.4", "eps_at_delta", inputs={"mu": "mu"}, delta=1e-5),
        Column("eps_prior", "eps prior RDP [YS22]", digits=3,
               note="[YS22, Thm D.6] with c~ = 1 - eta m / 2 is not in the registry: printed only"),
        Column("eps_comp", "eps composition", "bok2024/thm4.1", "eps_at_delta", delta=1e-5),
    ),
    rows=tuple(Row(f"T = {t}", {**_FIG1, "T": t}, dict(zip(("mu", "eps_fdp", "eps_rdp", "eps_prior", "eps_comp"), v)))
               for t, v in ((10, (0.3129, 1.185, 1.293, 1.775, 1.199)), (20, (0.4291, 1.681, 1.829, 2.440, 1.760)),
                            (40, (0.5488, 2.212, 2.402, 3.177, 2.594)), (80, (0.6143, 2.510, 2.723, 3.785, 3.849)),
                            (160, (0.6243, 2.557, 2.773, 4.061, 5.759)))),
    source="catalogue/bok2024.md §8, D.1 (computed, not printed, values)",
    note="values derived by the catalogue from the figure's parameters; the paper plots them without numbers",
)

# ---------------------------------------------------------------------------------------------------
# Bu, Dong, Long, Su 2020 (catalogue/bu2020.md §5-§6): q = B/n, z = sigma, T = ceil(epochs n / B)
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
    source="catalogue/bu2020.md §5 Table 1, §6 (parameters)",
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
        rows=tuple(rows), source=f"catalogue/bu2020.md §5 Table {number}, §6 (parameters)",
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
    source="catalogue/bu2020.md §5 (other reported numbers), §6 Fig4 rows",
)

# ---------------------------------------------------------------------------------------------------
# Chourasia, Ye, Shokri 2021 (catalogue/chourasia2021.md Figure 1): sigma_C = 0.02 -> sigma = 0.2
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
    source="catalogue/chourasia2021.md Figure 1 (derived values at alpha = 10)",
    note="values derived by the catalogue from the caption's formulas; the paper plots them without numbers",
)

# ---------------------------------------------------------------------------------------------------
# Altschuler & Talwar 2022 (catalogue/altschuler2022.md §8): no printed numbers; Appendix B's (B.1)
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
                    note="the paper prints no numbers; the row values are the catalogue's derived plateau"),),
    rows=tuple(Row(", ".join(f"{k}={v:g}" for k, v in r.items() if k not in ("T", "M")), r,
                   {"eps": round(_at22_plateau(r["alpha"], r["D"], r["L"], r["n"], r["eta"], r["sigma"]), 6)})
               for r in _AT22_ROWS),
    source="catalogue/altschuler2022.md §8 (B.1) plateau [DERIVED]",
    note="no printed tables or numeric figures in this paper (catalogue §9(a))",
)

TABLES: tuple[PrintedTable, ...] = (
    BOK_TABLE_1, BOK_TABLE_2, BOK_TABLE_3, BOK_TABLE_4, BOK_TABLE_7, BOK_TABLE_8, BOK_TABLE_9,
    BOK_TABLE_10, BOK_TABLE_11, BOK_TABLE_12, BOK_FIGURE_1,
    BU_TABLE_1, BU_TABLE_2, BU_TABLE_3, BU_TABLE_4, BU_FIGURE_4,
    CHOURASIA_FIGURE_1, ALTSCHULER_APPENDIX_B,
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
        + (Curve("chourasia2021/baseline", "composition"),)),
    FigureSpec(
        id="bok2024/figure1", paper="bok2024", label="Figure 1",
        caption="NoisyGD, strongly convex (c = 0.95, L/(n sigma) = 0.1): epsilon at delta = 1e-5.",
        x="T", xs=(10, 20, 40, 80, 160), params=_FIG1,
        curves=(Curve("bok2024/thm4.2", "ours (Thm 4.2, f-DP)"), Curve("bok2024/thm4.1", "composition (Thm 4.1)"))),
    FigureSpec(
        id="bok2024/figure6", paper="bok2024", label="Figure 6",
        caption="NoisyGD, strongly convex (c = 0.99, L/(n sigma) = 0.1): epsilon at delta = 1e-3 and 1e-5.",
        x="T", xs=(10, 20, 40, 80, 160, 320, 640), params=_p(m=1, M=1, eta=0.01, n=10, sigma=1, Delta=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.2", "ours (Thm 4.2)"), Curve("bok2024/thm4.1", "composition (Thm 4.1)"))),
    FigureSpec(
        id="bok2024/figure7", paper="bok2024", label="Figure 7",
        caption="NoisyGD, constrained (sigma = 8, D = 1, eta = 0.1, L/n = 0.5): epsilon at delta = 1e-3 and 1e-5.",
        x="T", xs=(10, 20, 40, 80, 160, 320, 640), params=_p(n=1, Delta=0.5, eta=0.1, sigma=8, D=1, M=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.3", "ours (Thm 4.3)"), Curve("bok2024/thm4.1", "composition (Thm 4.1)")),
        note="Thm 4.3 needs T >= ceil(Dn/(L eta)) = 20; points outside its range are gaps"),
    FigureSpec(
        id="bok2024/figure8", paper="bok2024", label="Figure 8",
        caption="NoisyCGD, strongly convex (L/(b sigma) = 0.2, c = 0.99, l = 20): epsilon at delta = 1e-3 and 1e-5.",
        x="E", xs=(5, 10, 20, 40, 80, 160, 320), params=_p(b=1, sigma=5, Delta=1, l=20, eta=0.01, m=1, M=1),
        deltas=(1e-3, 1e-5),
        curves=(Curve("bok2024/thm4.5", "ours (Thm 4.5)"), Curve("bok2024/thm4.4", "composition (Thm 4.4)"))),
    FigureSpec(
        id="bok2024/figure9", paper="bok2024", label="Figure 9",
        caption="NoisyCGD, constrained (sigma = 3, D = 1, eta = 0.02, L/b = 0.5, l = 20): epsilon at delta = 1e-5.",
        x="E", xs=(5, 10, 25, 50, 100, 200), params=_p(b=1, Delta=0.5, eta=0.02, sigma=3, D=1, M=1, l=20),
        curves=(Curve("bok2024/tables10-12", "ours (min of Thm 4.6, Thm 4.4)"),
                Curve("bok2024/thm4.4", "composition (Thm 4.4)"))),
    FigureSpec(
        id="bu2020/figure4", paper="bu2020", label="Figure 4",
        caption="MNIST (p = 256/60000): epsilon at delta = 1e-5 over epochs, CLT at sigma~ vs moments accountant "
                "at sigma (top: 1.06 vs 1.3).",
        x="E", xs=(1, 2, 5, 10, 15, 20), params=_p(q=_Q_MNIST),
        curves=(Curve("bu2020/eq3.1/eps", "CLT, sigma~ = 1.06", _p(z=1.06)),
                Curve("bu2020/appB.3", "moments accountant, sigma = 1.3", _p(z=1.3), x_param="T",
                      x_scale=1 / _Q_MNIST))),
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


def get(table_id: str) -> PrintedTable:
    for t in TABLES:
        if t.id == table_id:
            return t
    raise KeyError(f"unknown table id {table_id!r}")


__all__ = ["Baseline", "COMPOSITIONS", "COMPOSITION_BASELINES", "Column", "Curve", "FIGURES", "FigureSpec",
           "PrintedTable", "Row", "TABLES", "get"]
