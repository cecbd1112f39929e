"""Altschuler–Talwar 2022 records: Appendix B reference values and the constants of the paper notes
(docs/papers/altschuler2022.md), independent recomputations (mpmath quadrature, brute force), scope and scaling."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

import theorems
import theorems.altschuler2022 as module
from verify.theorem import VOCABULARY, theorems_in

get = theorems.get

# docs/papers/altschuler2022.md: alpha = 2, L = 1, D = 2, eta = 0.1, sigma = 3, n = 20, b = 1
B2 = dict(alpha=2.0, L=1.0, D=2.0, eta=0.1, sigma=3.0, n=20.0, b=1.0, M=1.0)
# (B.3) with kappa = 10 at eta = 0.1 = 2/(M+m): m = 20/11, M = 200/11, c = 9/11
B3 = dict(B2, m=20 / 11, M=200 / 11)


def S_mpmath(alpha: float, q: float, s: float) -> float:
    """Def. 2.10 by adaptive mpmath quadrature (an independent method)."""
    with mpmath.workdps(30):
        f = lambda x: mpmath.npdf(x, 0, s) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s * s))) ** (1 - alpha)  # noqa: E731
        pts = [-mpmath.inf, -12 * s, 0, 0.5, 1, 1 + 12 * s, mpmath.inf]
        return float(mpmath.log(mpmath.quad(f, pts)) / (alpha - 1))


# -- printed numbers ------------------------------------------------------------------------------


def test_sampled_gaussian_values():
    S = get("altschuler2022/def2.10")
    assert round(float(S.evaluate(alpha=2.0, q=0.05, z=1.5)), 7) == pytest.approx(1.2854e-3, abs=1e-12)
    assert round(float(S.evaluate(alpha=2.0, q=0.01, z=4.0)), 9) == pytest.approx(6.437e-6, abs=1e-13)
    assert float(get("altschuler2022/lemma2.12").evaluate(alpha=2.0, q=0.01, z=4.0)) == pytest.approx(2.5e-5)


@pytest.mark.parametrize("alpha, q, z", [(2.0, 0.05, 1.5), (3.5, 0.2, 0.8), (8.0, 0.01, 4.0), (2.0, 0.05, 0.3)])
def test_sampled_gaussian_against_quadrature(alpha, q, z):
    assert float(get("altschuler2022/def2.10").evaluate(alpha=alpha, q=q, z=z)) == pytest.approx(
        S_mpmath(alpha, q, z), rel=1e-7)


@pytest.mark.parametrize("q, z, alpha_star", [(0.01, 4, "14.34"), (0.1, 4, "6.007"), (0.01, 10, "50.5"),
                                              (0.05, 8, "18.5"), (0.19, 5, "4.99")])
def test_alpha_star_table(q, z, alpha_star):
    """Lemma 2.12's order range: alpha*(q, sigma) as printed in docs/papers/altschuler2022.md (truncated to the digits
    shown: alpha* lies in [printed, printed + one unit); "4.99" is printed as an approximation)."""
    lemma = get("altschuler2022/lemma2.12")
    unit = 10.0 ** -len(alpha_star.split(".")[1])
    inside, outside = float(alpha_star) - 1e-9, float(alpha_star) + unit + 1e-9
    if alpha_star == "4.99":
        inside, outside = 4.98, 5.0
    assert float(lemma.evaluate(alpha=inside, q=q, z=z)) == pytest.approx(2 * inside * q**2 / z**2)
    with pytest.raises(ValueError, match=r"alpha <= alpha\*"):
        lemma.evaluate(alpha=outside, q=q, z=z)


def test_b1_reference_value():
    p = dict(alpha=2.0, L=1.0, D=1.0, eta=0.1, sigma=1.0, n=100.0, M=1.0, T=10**5)
    assert round(float(get("altschuler2022/b.1").evaluate(**p)), 4) == pytest.approx(0.8016, abs=1e-12)
    plateau = 4 * 2.0 * (1.0 + 2 * 0.1 / 100) * 1.0 / (100 * 0.1 * 1.0)  # 4 alpha tilde D L/(n eta sigma^2)
    assert float(get("altschuler2022/b.1").evaluate(**p)) == pytest.approx(plateau, rel=1e-6)
    base = get("altschuler2022/eq1.1").evaluate(alpha=2.0, L=1.0, n=100.0, sigma=1.0, T=10**5)
    assert float(base) == pytest.approx(40.0)


def test_thm31_explicit_constant_reference_value():
    p = dict(alpha=2.0, L=1.0, D=1.0, eta=0.1, sigma=20.0, n=1000.0, T=10**6, b=1.0, M=1.0)
    assert round(float(get("altschuler2022/thm3.1").evaluate(**p)), 8) == pytest.approx(4.0008e-4, abs=1e-14)
    # 8 alpha D L/(n eta sigma^2) = 4e-4: the plateau's leading term
    assert float(get("altschuler2022/thm3.1").evaluate(**p)) == pytest.approx(4e-4, rel=1e-3)


@pytest.mark.parametrize("T, b2, composition", [(10, 0.01285, 0.01285), (100, 0.12854, 0.12854),
                                                (400, 0.51414, 0.51414), (1000, 1.01134, 1.28536),
                                                (10000, 1.01134, 12.85)])
def test_b2_table(T, b2, composition):
    digits = len(str(b2).split(".")[1])
    assert round(float(get("altschuler2022/b.2").evaluate(T=T, **B2)), digits) == pytest.approx(b2, abs=1e-12)
    sgm = get("altschuler2022/eq1.1/sgm").evaluate(T=T, alpha=2.0, L=1.0, sigma=3.0, n=20.0, b=1.0)
    digits = len(str(composition).split(".")[1])
    assert round(float(sgm), digits) == pytest.approx(composition, abs=1e-12)


@pytest.mark.parametrize("T, b3", [(10, 0.01285), (100, 0.04317), (10000, 0.04317)])
def test_b3_table_and_first_order_rule(T, b3):
    value = float(get("altschuler2022/b.3").evaluate(T=T, **B3))
    assert round(value, 5) == pytest.approx(b3, abs=1e-12)
    # the first-order tilde T with (1 - c^2) attains the grid minimum; the printed (1 - c)^2 does not
    assert float(get("altschuler2022/b.3/first-order").evaluate(T=T, **B3)) == pytest.approx(value, rel=1e-12)
    printed = float(get("altschuler2022/b.3/first-order/as-printed").evaluate(T=T, **B3))
    assert printed >= value * (1 - 1e-12)
    if T >= 100:
        assert printed > value * 1.2


def test_b3_first_order_matches_brute_force_over_tilde_T():
    alpha, D, eta, sigma, n, b, L = 2.0, 2.0, 0.1, 3.0, 20.0, 1.0, 1.0
    c = 9 / 11
    T = 500
    gamma = 0.3  # a fixed split: compare the tilde T rule with exhaustive search
    sigma1sq, s2 = gamma * sigma**2, b * sigma * math.sqrt(1 - gamma) / (2 * L)
    Q = S_mpmath(alpha, b / n, s2)
    k = np.arange(1, T)
    objective = (k + 1) * Q + alpha * D**2 * (1 - c**2) / (2 * eta**2 * sigma1sq * (c ** (-2.0 * k) - 1))
    beta = (1 - c**2) * alpha * D**2 * math.log(c) / (Q * eta**2 * sigma1sq)
    t_star = -math.log((2 - beta + math.sqrt((2 - beta) ** 2 - 4)) / 2) / (2 * math.log(c))
    assert int(np.argmin(objective)) + 1 in (math.floor(t_star), math.ceil(t_star))


def test_theorem41_constants():
    # Monte Carlo setting of docs/papers/altschuler2022.md: n = 10, b = 1, L = eta = 1, D = 1000, T = Tbar = 7500,
    # sigma^2 = c_sigma D^2/(eta^2 Tbar)
    p = dict(n=10.0, L=1.0, eta=1.0, D=1000.0, T=7500, sigma=math.sqrt(1e-3 * 1000.0**2 / 7500))
    assert float(get("altschuler2022/thm4.1").evaluate(alpha=100.0, **p)) == 0.005
    assert float(get("altschuler2022/thm4.1/dp").evaluate(delta=0.01, **p)) == 0.1
    # "for T >= Tbar the RHS of (4.1) is >= c_alpha alpha_bar (0.75)^2/c_sigma = 0.005625"
    assert round(float(get("altschuler2022/thm4.1/as-stated").evaluate(alpha=100.0, **p)), 6) == pytest.approx(
        0.005625, abs=1e-12)
    # (100, 0.005)-RDP => (0.0515, 0.01)-DP by Lemma 2.5, below 0.1
    converted = float(get("altschuler2022/lemma2.5").evaluate(alpha=100.0, eps_rdp=0.005, delta=0.01))
    assert round(converted, 4) == pytest.approx(0.0515, abs=1e-12) and converted < 0.1
    # the positivity test: e^{0.1}/2 + 0.01 = 0.56259; Phi(sqrt(10)) = 0.99922 (erratum of A.4)
    assert round(0.5 * math.exp(0.1) + 0.01, 5) == pytest.approx(0.56259)
    assert round(float(mpmath.ncdf(0.1 / math.sqrt(0.001))), 5) == pytest.approx(0.99922)


def test_lower_bound_scope():
    p = dict(n=10.0, L=1.0, eta=1.0, D=1000.0, T=7500, sigma=0.3)
    with pytest.raises(ValueError, match="T >= Tbar"):
        get("altschuler2022/thm4.1").evaluate(alpha=100.0, **dict(p, T=7499))
    with pytest.raises(ValueError, match="alpha >= alpha_bar"):
        get("altschuler2022/thm4.1").evaluate(alpha=50.0, **p)
    with pytest.raises(ValueError, match="c_D"):
        get("altschuler2022/thm4.1").evaluate(alpha=100.0, **dict(p, D=999.0))
    with pytest.raises(ValueError, match="c_sigma"):
        get("altschuler2022/thm4.1").evaluate(alpha=100.0, **dict(p, sigma=0.37))


def test_linear_baseline_at_the_density_evolution_example():
    # docs/papers/altschuler2022.md: n = 20, L = 1, sigma = 3, alpha = 2: the linear baseline grows to 3.33 at T = 3000
    value = float(get("altschuler2022/eq1.1").evaluate(alpha=2.0, T=3000, L=1.0, n=20.0, sigma=3.0))
    assert round(value, 2) == pytest.approx(3.33, abs=1e-12)
    # ... while the exact D_2 of the construction plateaus at 5.61e-3: every upper bound stays above it
    assert float(get("altschuler2022/b.2").evaluate(T=3000, **B2)) > 5.61e-3


# -- independent recomputations --------------------------------------------------------------------


def _brute_force_eq57(p_decay, T, alpha, L, D, eta, sigma, n, b):
    """(5.7) with eta_t = eta t^-p, every tau, the split optimised by a bounded scalar search."""
    steps = eta * np.arange(1, T + 1, dtype=float) ** -p_decay

    def value(gamma):
        Q = S_mpmath(alpha, b / n, b * sigma * math.sqrt(1 - gamma) / (2 * L))
        best = math.inf
        for tau in range(T - 1):
            total = steps[tau:T - 1].sum()  # eta_{tau+1} + ... + eta_{T-1}
            best = min(best, (T - tau) * Q + (T - tau - 1) * alpha * D**2 / (2 * gamma * sigma**2 * total**2))
        return best

    return minimize_scalar(value, bounds=(1e-3, 1 - 1e-3), method="bounded", options={"xatol": 1e-6}).fun


@pytest.mark.parametrize("p_decay", [0.0, 0.5, 1.0])
def test_eq57_against_brute_force(p_decay):
    p = dict(T=12, alpha=2.0, L=1.0, D=0.5, eta=0.1, sigma=3.0, n=20.0, b=1.0)
    got = float(get("altschuler2022/eq5.7").evaluate(p_decay=p_decay, M=1.0, **p))
    expected = _brute_force_eq57(p_decay, **p)
    assert expected * (1 - 1e-6) <= got <= expected * (1 + 1e-3)


def test_eq57_constant_steps_is_eq37():
    for T in (2, 30, 500):
        a = float(get("altschuler2022/eq5.7").evaluate(p_decay=0.0, T=T, **B2))
        b = float(get("altschuler2022/eq3.7").evaluate(T=T, **B2))
        assert a == pytest.approx(b, rel=1e-12)


def test_power_step_sum_large_range_uses_zeta():
    from verify.privacy.operators import PowerStepSum

    for p in (0.0, 0.3, 1.0):
        a, b = 7.0, 7.0 + 300_000
        expected = math.fsum(np.arange(a, b + 1) ** -p)  # direct summation (the operator uses Hurwitz zeta)
        assert float(PowerStepSum.numeric(np.array(p), np.array(a), np.array(b))) == pytest.approx(expected, rel=1e-10)


@settings(deadline=None, max_examples=25)
@given(q=st.floats(0.001, 0.19), z=st.floats(4.0, 30.0), frac=st.floats(0.05, 1.0))
def test_lemma212_dominates_S(q, z, frac):
    from verify.privacy.rdp import at22_alpha_star

    alpha = 1 + frac * (float(at22_alpha_star(q, z)) - 1)
    if alpha <= 1.0001:
        return
    bound = float(get("altschuler2022/lemma2.12").evaluate(alpha=alpha, q=q, z=z))
    assert S_mpmath(alpha, q, z) <= bound


def test_orderings_between_records():
    T = np.array([5, 50, 500])
    b2 = get("altschuler2022/b.2").evaluate(T=T, **B2)
    assert np.all(b2 <= get("altschuler2022/eq1.1/sgm").evaluate(
        T=T, alpha=2.0, L=1.0, sigma=3.0, n=20.0, b=1.0) * (1 + 1e-12))
    b3 = get("altschuler2022/b.3").evaluate(T=T, **B3)
    assert np.all(b3 <= get("altschuler2022/eq5.3").evaluate(T=T, **B3) * (1 + 1e-12))
    cyc = dict(alpha=2.0, L=1.0, eta=0.1, sigma=3.0, n=20.0, b=4.0, M=1.0)
    assert np.all(get("altschuler2022/thm5.6").evaluate(T=T, D=2.0, **cyc)
                  <= get("altschuler2022/eq5.4").evaluate(T=T, **cyc))


# -- scope -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("theorem_id, params, words", [
    ("altschuler2022/thm3.1", dict(alpha=2.0, L=1.0, D=1.0, eta=0.1, sigma=11.0, n=1000.0, T=10, b=1.0, M=1.0),
     "sigma > 8 sqrt(2) L/b"),
    ("altschuler2022/thm3.1", dict(alpha=2.0, L=1.0, D=1.0, eta=0.1, sigma=200.0, n=10.0, T=10, b=5.0, M=1.0),
     "b < n/5"),
    ("altschuler2022/eq3.7", dict(B2, T=1), "T >= 2"),
    ("altschuler2022/b.2", dict(B2, T=10, eta=3.0), "eta <= 2/M"),
    ("altschuler2022/b.3", dict(B3, T=10, m=0.0), "m-strongly convex"),
    ("altschuler2022/lemma2.12", dict(alpha=2.0, q=0.3, z=5.0), "q in (0, 1/5)"),
    ("altschuler2022/lemma2.12", dict(alpha=2.0, q=0.1, z=3.0), "sigma >= 4"),
    ("altschuler2022/eq5.7", dict(B2, T=10, p_decay=1.5), "p in [0, 1]"),
])
def test_assumption_violations_name_the_assumption(theorem_id, params, words):
    with pytest.raises(ValueError, match="assumption violated") as info:
        get(theorem_id).evaluate(**params)
    assert words in str(info.value)


# -- structure -------------------------------------------------------------------------------------

RECORDS = theorems_in(vars(module))

POINT = dict(alpha=2.5, L=0.8, D=1.5, eta=0.07, sigma=2.5, n=40.0, b=2.0, T=30, M=2.0, m=0.5, q=0.05, z=5.0,
             delta=1e-3, eps_rdp=0.3, p_decay=0.5)
LOWER_POINT = dict(alpha=100.0, n=10.0, L=1.0, eta=1.0, D=1000.0, T=7600, sigma=0.3, delta=0.01)
THM31_POINT = dict(POINT, sigma=40.0, b=4.0, n=100.0)


def test_registry_holds_every_record():
    ids = {t.id for t in RECORDS}
    assert len(ids) >= 18
    assert all(get(i).id == i for i in ids)
    parent = get("altschuler2022/b.3/first-order")
    assert [v.id for v in parent.variants] == ["altschuler2022/b.3/first-order/as-printed"]


@pytest.mark.parametrize("record", [t for t in RECORDS if t.paper_bound is not None], ids=lambda t: t.id)
def test_paper_form_translates_to_the_canonical_bound(record):
    difference = record.paper_bound.subs(record.translation, simultaneous=True) - record.bound
    assert sp.simplify(difference) == 0


@pytest.mark.parametrize("record", RECORDS, ids=lambda t: t.id)
def test_scaling_invariance(record):
    base = LOWER_POINT if record.id.startswith("altschuler2022/thm4.1") else \
        THM31_POINT if record.id in ("altschuler2022/thm3.1", "altschuler2022/ex5.8") else POINT
    params = {p: base[p] for p in record.parameters}
    value = float(record.evaluate(**params))
    c = 2.3
    moved = float(record.evaluate(**{p: v * c ** VOCABULARY[p].scale for p, v in params.items()}))
    assert np.isfinite(value) and value >= 0
    assert moved == pytest.approx(value, rel=1e-9)


# -- kept examples -----------------------------------------------------------------------------------


def test_direction_counterexample_text_matches_its_values():
    # the kept interval walk has record gradient 0 in D and -2 in D': L = 2, so the literal (1.1)/(B.2)
    # branch is T S_2(1/2, b sigma/(2L) = 1/4) = 0.658 (S_2(1/2, 1/2) = 0.4385 is another point)
    assert S_mpmath(2.0, 0.5, 0.25) == pytest.approx(0.658246, abs=1e-6)
    assert S_mpmath(2.0, 0.5, 0.5) == pytest.approx(0.438513, abs=1e-6)
    literal = get("altschuler2022/eq1.1/sgm")
    example = next(e for e in literal.examples if e.get("family") == "interval_walk")
    from verify.instances import FAMILIES
    inst = FAMILIES["interval_walk"].build(**{k: v for k, v in example.items() if k not in ("family", "M", "alpha")})
    assert inst.params()["L"] == 2.0
    assert float(literal.evaluate(alpha=2.0, T=1, L=2.0, n=2.0, b=1.0, sigma=1.0)) == pytest.approx(0.658246, abs=1e-6)
    assert "L=2" in module._EVIDENCE and "1/4) = 0.658" in module._EVIDENCE


def test_theorem41_scope_run_is_admissible_and_certified_by_the_positivity_test():
    # the kept scope run (n = 2, D = 1000, T = Tbar = 1500, sigma = 0.8) lies in every record's scope ...
    for rid, at in (("altschuler2022/thm4.1", dict(alpha=100.0)), ("altschuler2022/thm4.1/dp", dict(delta=0.01)),
                    ("altschuler2022/thm4.1/as-stated", dict(alpha=100.0))):
        record = get(rid)
        assert any(e.get("family") == "at22_thm41" and e.get("event") == 0.0 for e in record.examples)
        record.evaluate(**module._SCOPE, **at)  # no assumption violated
    # ... and the proof's chain of constants at it: P[omega'_T >= 0] >= 0.899 > e^{0.1}/2 + 0.01 needs
    # sigma^2 T eta^2 <= 0.001 D^2 (here 0.96 D^2 / 1000) and D >= 1000 eta L
    s = module._SCOPE
    assert s["sigma"] ** 2 * s["T"] * s["eta"] ** 2 <= 1e-3 * s["D"] ** 2
    assert s["T"] == 0.75 * s["D"] * s["n"] / (s["L"] * s["eta"])


def _projected_mixture_renyi(alpha, D, s, P, Q):
    """D_alpha of two Gaussian mixtures projected onto [-D/2, D/2] (atoms + density), mpmath quadrature."""
    with mpmath.workdps(30):
        def law(comps):
            lo = sum(w * mpmath.ncdf((-D / 2 - mu) / s) for w, mu in comps)
            hi = sum(w * (1 - mpmath.ncdf((D / 2 - mu) / s)) for w, mu in comps)
            return lo, hi, lambda x: sum(w * mpmath.npdf(x, mu, s) for w, mu in comps)

        (p_lo, p_hi, p), (q_lo, q_hi, q) = law(P), law(Q)
        inner = mpmath.quad(lambda x: p(x) ** alpha * q(x) ** (1 - alpha), mpmath.linspace(-D / 2, D / 2, 11))
        total = inner + p_lo ** alpha * q_lo ** (1 - alpha) + p_hi ** alpha * q_hi ** (1 - alpha)
        return float(mpmath.log(total) / (alpha - 1))


def test_strongly_convex_literal_readings_are_refuted_by_their_kept_runs():
    from verify.instances import FAMILIES
    for rid, both_id, example in (("altschuler2022/b.3", "altschuler2022/b.3/both-directions", module._STRONG_T1),
                                  ("altschuler2022/b.3/first-order", "altschuler2022/b.3/first-order/both-directions",
                                   module._STRONG_T1),
                                  ("altschuler2022/eq5.3", "altschuler2022/eq5.3/both-directions", module._STRONG_T8)):
        literal, both = get(rid), get(both_id)
        assert literal.printed_of == both_id and literal.expect_fail == ("soundness",) and example in literal.examples
        kwargs = {k: v for k, v in example.items() if k not in ("family", "alpha")}
        inst = FAMILIES[example["family"]].build(**kwargs)
        params = {p: inst.params()[p] for p in literal.parameters if p != "alpha"}
        exact = float(inst.profile().renyi(example["alpha"], "backward"))
        assert exact > float(literal.evaluate(alpha=example["alpha"], **params)) * 2
        assert exact < float(both.evaluate(alpha=example["alpha"], **params))
    # T = 1 from the centre: the curvature does not act yet; the projected mixture in closed form (mpmath)
    e = module._STRONG_T1
    reference = _projected_mixture_renyi(2.0, e["D"], e["eta"] * e["sigma"], [(0.5, 0.0), (0.5, e["eta"] * e["Delta"])],
                                         [(1.0, 0.0)])
    assert round(reference, 3) == pytest.approx(2.626, abs=1e-12)  # the value printed in the evidence
    assert float(FAMILIES["projected_quadratic"].build(**{k: v for k, v in e.items() if k not in ("family", "alpha")})
                 .profile().renyi(2.0, "backward")) == pytest.approx(reference, rel=1e-4)
    assert float(get("altschuler2022/b.3").evaluate(alpha=2.0, n=2, b=1, T=1, eta=1.0, sigma=1.0, L=2.5, D=10.0,
                                                    m=0.1, M=1.0)) == pytest.approx(0.6836, abs=1e-4)


def test_strongly_convex_counterexample_is_resolved_by_the_grid():
    # the T = 8 run of (5.3): the value at 512 cells (kept) agrees with 2048 cells far inside the violation
    from verify.instances import FAMILIES
    kwargs = {k: v for k, v in module._STRONG_T8.items() if k not in ("family", "alpha")}
    coarse = FAMILIES["projected_quadratic"].build(**kwargs).profile().renyi(8.0, "backward")
    fine = FAMILIES["projected_quadratic"].build(**dict(kwargs, cells=2048)).profile().renyi(8.0, "backward")
    assert coarse == pytest.approx(fine, rel=1e-5) and fine == pytest.approx(3.2222, abs=1e-4)


def test_both_directions_readings_bound_the_literal_ones():
    for rid in ("altschuler2022/eq3.7", "altschuler2022/eq5.3", "altschuler2022/b.3"):
        literal, both = get(rid), get(rid + "/both-directions")
        point = dict(B3, T=10.0) if "3.7" not in rid else dict(B2, T=10.0)
        params = {k: v for k, v in point.items() if k in literal.parameters}
        assert float(both.evaluate(**params)) >= float(literal.evaluate(**params)) * (1 - 1e-12)
    # (3.7) was not refuted by the search: its literal record stays a record of its own
    assert get("altschuler2022/eq3.7").printed_of is None


def test_example58_needs_theorem31_conditions_at_one_step():
    # T = 1 (one step, the step size cancels): one sampled Gaussian step with drift 2 eta L/b (replace
    # adjacency) w.p. q = b/n and noise eta sigma; the reverse direction has the closed form at integer alpha
    # (1/(alpha-1)) log sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^{(k^2-k)/(2 s^2)}, s = b sigma/(2L)
    def one_step(alpha, q, s):
        return math.log(sum(math.comb(alpha, k) * (1 - q) ** (alpha - k) * q ** k * math.exp((k * k - k) / (2 * s * s))
                            for k in range(alpha + 1))) / (alpha - 1)

    alpha, n, L = 2, 100.0, 1.0
    unit = lambda sigma: alpha * L**2 / (n**2 * sigma**2)  # noqa: E731  the statement's rate, constant 1
    # below Theorem 3.1's noise condition no universal constant holds: the ratio grows without bound
    ratios = [one_step(alpha, 1 / n, sigma / (2 * L)) / unit(sigma) for sigma in (10.0, 2.0, 1.0)]
    assert ratios[0] > 2 and ratios[2] > 10 * ratios[0] / 2
    # inside them (sigma > 8 sqrt(2) L/b) the record's explicit constant 16 holds at T = 1
    sigma = 20.0
    record = float(get("altschuler2022/ex5.8").evaluate(alpha=float(alpha), L=L, n=n, sigma=sigma, T=1, D=100.0,
                                                        eta=1.0, p_decay=0.5, M=1.0, b=1.0))
    assert record == pytest.approx(16 * unit(sigma)) and record >= one_step(alpha, 1 / n, sigma / (2 * L))
    with pytest.raises(ValueError, match="8 sqrt"):
        get("altschuler2022/ex5.8").evaluate(alpha=2.0, L=L, n=n, sigma=10.0, T=1, D=100.0, eta=1.0, p_decay=0.5,
                                             M=1.0, b=1.0)


# -- statements made up to a constant, and the registry's start-up ----------------------------------------


def test_lesssim_statements_are_flagged_up_to_a_constant():
    # the paper's "<~" with no constant of its own: (5.4), Thm 5.6, Ex. 5.8 (whose 16 is this tool's reading)
    for rid in ("altschuler2022/eq5.4", "altschuler2022/thm5.6", "altschuler2022/ex5.8"):
        assert get(rid).up_to_constant, rid
        assert r"\lesssim" in get(rid).paper_form
    # explicit constants the proofs give: (1.1) is the full-batch composition, Thm 3.1 its explicit corollary
    for rid in ("altschuler2022/eq1.1", "altschuler2022/thm3.1"):
        assert not get(rid).up_to_constant, rid
    # the former constant-1 encoding of Ex. 5.8 stays an "as printed" record expected to fail
    old = get("altschuler2022/ex5.8/constant-1")
    assert not old.up_to_constant and old.printed_of == "altschuler2022/ex5.8" and old.expect_fail == ("soundness",)


def test_theorem56_constant_one_is_exceeded_by_full_batch_linear_losses():
    # full batch (cyclic, l = 1), linear losses +-L (gradient difference 2L), n = b = 10, T = 20,
    # eta = sigma = L = 1, D = 60, alpha = 2.  Every iterate is Gaussian: mean gap 2 eta L T/n, variance
    # T eta^2 sigma^2, so D_alpha = alpha (2 L T/n)^2/(2 T sigma^2) = 2 alpha T L^2/(n^2 sigma^2) = 0.8
    alpha, n, T, L, sigma = 2.0, 10.0, 20.0, 1.0, 1.0
    exact = alpha * (2 * L * T / n) ** 2 / (2 * T * sigma**2)
    bound = float(get("altschuler2022/thm5.6").evaluate(alpha=alpha, L=L, sigma=sigma, b=n, n=n, T=T, D=60.0,
                                                         eta=1.0, M=1.0))
    assert exact == pytest.approx(0.8, rel=1e-15) and bound == pytest.approx(0.42, rel=1e-12)
    assert exact / bound == pytest.approx(2 * T / (T + 1), rel=1e-12)  # > 1: constant 1 does not hold
    # both records keep this instance, so the implied constant they report is at least 2T/(T+1)
    from verify.instances import FAMILIES

    for rid in ("altschuler2022/thm5.6", "altschuler2022/eq5.4"):
        (kept,) = [e for e in get(rid).examples if e.get("family") == "interval_walk"]
        assert kept is module._FULL_BATCH_PM_L
    words = {k: v for k, v in module._FULL_BATCH_PM_L.items() if k not in ("family", "M", "alpha")}
    instance = FAMILIES["interval_walk"].build(**words)
    assert instance.params()["L"] == L  # records at +-L: gradient difference 2L = Delta
    assert instance.profile().renyi(alpha) == pytest.approx(exact, rel=1e-3)  # walls > 6 sd away


def test_both_directions_rebuild_is_the_evaluated_replacement():
    """The import-time rebuild (Min/Max unevaluated) gives the very expression sympy's replace gives."""
    from verify.privacy.operators import AT22S, SampledGaussianRDPMax

    checked = 0
    for record in RECORDS:
        if not record.id.endswith("/both-directions"):
            continue
        literal = get(record.id.removesuffix("/both-directions"))
        evaluated = literal.bound.replace(AT22S, lambda a, q_, s_: SampledGaussianRDPMax(q_, s_, a, 1))
        assert record.bound == evaluated and sp.srepr(record.bound) == sp.srepr(evaluated), record.id
        assert not record.bound.has(AT22S)
        checked += 1
    assert checked == 7


def test_search_finds_the_S_alpha_counterexample_without_the_kept_example():
    """the literal (1.1)/(B.2) readings are refuted by the engine's own search, not only by the kept
    interval-walk instance (n = 2, b = 1, T = 1, L = 2: exact D_2 = 2.626 vs 0.658)."""
    import dataclasses

    from verify.check.engine import check_theorem, search_effort
    from verify.check.evidence import Witness

    for rid in ("altschuler2022/eq1.1/sgm", "altschuler2022/b.2"):
        literal = dataclasses.replace(get(rid), examples=())
        verdict = check_theorem(literal, get, search_effort("quick"), seed=0)
        assert verdict.verdict == "violated", (rid, verdict.reason)
        failed = [o.name for o in verdict.obligations if o.status == "failed"]
        assert "soundness" in failed, (rid, verdict.reason)
        cex = verdict.counterexample
        assert isinstance(cex, Witness) and cex.exact > cex.bound
