"""Per-theorem plots: drawn at the paper's parameters, exact values as curves, lower bounds apart, PLD on CLT plots.

Reference values are the papers' printed numbers and the paper notes' (docs/papers/bok2024.md) independent computations
(docs/papers/bok2024.md D.1, docs/papers/bu2020.md), never the plotted functions themselves.
"""

from __future__ import annotations

import math
import re

import pytest

import theorems
from verify.report import build, figures


def _section(theorem_id: str, verdict: dict | None = None) -> tuple[dict, build.Figures]:
    f = build.Figures()
    return build.theorem_section(theorems.get(theorem_id), verdict or {}, theorems.get, build.Options(), f), f


def _series(section: dict, kind: str) -> list[dict]:
    return [s for s in section["curve"]["series"] if s["kind"] == kind]


def _at(section: dict, series: dict, x: float) -> float:
    return series["y"][section["curve"]["xs"].index(x)]


def test_bok_thm42_is_drawn_at_figure_1_with_the_exact_value_as_a_curve():
    section, _ = _section("bok2024/thm4.2")
    assert "Fig. 1" in section["point_origin"]
    # Bok et al. Fig. 1: m = 1, M = 10, eta = 0.05, L/(n sigma) = 0.1, T = 160
    assert section["point"] == {"n": 10.0, "T": 160.0, "eta": 0.05, "sigma": 1.0, "Delta": 1.0, "m": 1.0, "M": 10.0}
    exact = _series(section, "exact")
    assert len(exact) == 1 and sum(v is not None for v in exact[0]["y"]) >= 8  # a curve, not a cross
    # docs/papers/bok2024.md: eps (f-DP, Thm 4.2 exact for quadratics) at T = 160 is 2.557, composition 5.759
    assert abs(_at(section, exact[0], 160.0) - 2.557) <= 0.0005 + 2e-3 * 2.557
    composition = _series(section, "composition")[0]
    assert abs(_at(section, composition, 160.0) - 5.759) <= 0.0005 + 2e-3 * 5.759


def test_lower_bounds_are_drawn_apart_from_upper_bounds():
    section, _ = _section("chourasia2021/thm3")
    kinds = [s["kind"] for s in section["curve"]["series"]]
    assert kinds[0] == "lower" and "upper" not in kinds
    assert section["curve"]["series"][0]["label"].startswith("lower bound")
    # the figure of a lower bound differs from the same data drawn as an upper bound (style and legend)
    data = [0.1, 0.2, 0.3]
    as_lower = figures.line_plot("t", "T", "eps", [1, 2, 3], [{"label": "a", "y": data, "kind": "lower"}])
    as_upper = figures.line_plot("t", "T", "eps", [1, 2, 3], [{"label": "a", "y": data}])
    assert as_lower != as_upper
    assert figures.ROLE_STYLES["lower"]["linestyle"] != "-"


def test_rdp_theorems_are_plotted_over_T_at_the_papers_order():
    section, _ = _section("chourasia2021/cor2")
    assert section["notion_at"] == {"alpha": 10.0}
    assert section["curve"]["alpha"] == 10.0
    exact = _series(section, "exact")[0]
    # docs/papers/chourasia2021.md: R_alpha = alpha S^2 (2-eta)/(4 sigma_C^2 n^2) (1-q^K)/(1+q^K), q = 1 - eta
    q, sigma_c = 0.98, 0.02
    for k in (1.0, 100.0):
        want = 10 * 16 * 1.98 / (4 * sigma_c**2 * 5000**2) * (1 - q**k) / (1 + q**k)
        assert math.isclose(_at(section, exact, k), want, rel_tol=1e-6)


@pytest.mark.parametrize("theorem_id, x, printed", [
    # docs/papers/bu2020.md MNIST-1 (q = 256/60000, sigma = 1.3, 15 epochs): exact eps (PLD) 0.865
    ("bu2020/eq3.1/eps", 15.0, 0.865),
    ("bu2020/eq3.1", 3516.0, 0.865),
])
def test_clt_plots_carry_the_exact_pld_curve(theorem_id, x, printed):
    section, f = _section(theorem_id)
    pld = _series(section, "pld")
    assert len(pld) == 1 and all(v is not None for v in pld[0]["y"])
    assert abs(_at(section, pld[0], x) - printed) <= 0.005 + 2e-3 * printed
    assert _series(section, "approximation")
    assert any(file.endswith("-eps.svg") for file in section["figures"])
    # the composition baseline is the moments accountant at the same run: Table 1's MA eps 1.19 at 15 epochs
    [composition] = _series(section, "composition")
    assert abs(_at(section, composition, x) - 1.19) <= 0.005 + 2e-3 * 1.19


def test_no_raw_error_text_and_no_empty_point_in_sections():
    # Thm 4.6 at Fig. 9's parameters and Thm 4.3 at Fig. 7's: curves partly outside the theorems' ranges
    for theorem_id in ("bok2024/thm4.6", "bok2024/thm4.3", "altschuler2022/thm4.1"):
        section, f = _section(theorem_id)
        texts = [*section["gaps"], *section["omitted"], *f.captions.values(), section["point_origin"]]
        for text in texts:
            assert not re.search(r"\b\w*Error\b", text), text
        if section["figures"]:
            assert section["point"] and section["point_origin"]
