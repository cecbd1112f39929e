"""Altschuler & Talwar 2022 eq. (5.7) for step sizes that change across phases (verify/account/stepsizes.py),
and its use by the running accountant.

References: the exact laws of projected noisy SGD with decaying steps (``projected_quadratic(p_decay=...)``,
the grid engine, one kernel per step); eq. (5.7) written out term by term in this file (a loop over tau and
the noise split); the registry's sympy record ``altschuler2022/eq5.7/both-directions`` for the schedule
``eta t^(-p)`` it instantiates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import theorems
from verify.account import stepsizes
from verify.account.running import Accountant
from verify.account.stepsizes import at22_varying_eps, at22_varying_rdp, window_sums
from verify.errors import InputError
from verify.instances.families import projected_quadratic
from verify.privacy.rdp import rdp_to_dp_improved, sampled_gaussian_rdp

VERDICTS = {stepsizes.THEOREM: "verified", "bok2024/thm4.8": "verified"}


def test_window_sums_of_a_piecewise_schedule():
    # 3 steps of 1.0 then 2 of 0.5: the last nu steps sum to 0.5, 1.0, 2.0, 3.0, 4.0
    assert window_sums([1.0, 0.5], [3, 2], np.arange(1.0, 6.0)) == pytest.approx([0.5, 1.0, 2.0, 3.0, 4.0])


def _brute_force(alpha: float, etas: list[float], n: int, b: int, sigma: float, Delta: float, D: float) -> float:
    """eq. (5.7) term by term: every tau in {0..T-2}, the same split grid."""
    T = len(etas)
    best = math.inf
    for gamma in stepsizes.SPLITS:
        Q = float(sampled_gaussian_rdp(b / n, b * sigma * math.sqrt(1 - gamma) / Delta, alpha, direction="max"))
        for tau in range(T - 1):
            total = sum(etas[tau + 1:T])
            best = min(best, (T - tau) * Q + (T - tau - 1) * alpha * D**2 / (2 * gamma * sigma**2 * total**2))
    return best


def test_phases_match_the_statement_term_by_term():
    etas = [0.8] * 5 + [0.3] * 7 + [0.1] * 4
    got = at22_varying_rdp(np.array([2.0, 8.0]), [0.8, 0.3, 0.1], [5, 7, 4], n=10, b=2, sigma=1.5, Delta=1.0, D=0.7)
    want = [_brute_force(a, etas, 10, 2, 1.5, 1.0, 0.7) for a in (2.0, 8.0)]
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("p_decay, T", [(0.0, 30), (0.5, 20)])
def test_agrees_with_the_registry_record(p_decay, T):
    """On the record's own schedule eta max(t, 1)^(-p): the record's value (a finer split grid) up to the
    grid, never below it by more than rounding."""
    record = theorems.get(stepsizes.THEOREM)
    point = dict(n=20, b=2, T=T, eta=0.5, sigma=2.0, L=0.5, D=1.0, M=1.0, p_decay=p_decay)
    etas = list(0.5 * np.maximum(np.arange(T), 1.0) ** -p_decay)
    for alpha in (2.0, 8.0):
        want = float(record.evaluate(alpha=alpha, **point))
        got = float(at22_varying_rdp(np.array([alpha]), etas, [1] * T, n=20, b=2, sigma=2.0, Delta=1.0, D=1.0)[0])
        assert want * (1 - 1e-12) <= got <= want * 1.002


@pytest.mark.parametrize("p_decay, D", [(0.3, 0.2), (1.0, 1.0)])
def test_holds_on_exact_decaying_schedules(p_decay, D):
    """Exact Rényi divergence (both directions) of projected SGD with steps eta t^(-p) on a 1-D quadratic, at
    the closest of 72 scanned settings (exact/bound 0.14 at alpha = 2: the bound is loose at T = 8)."""
    n, b, T, eta, sigma, Delta, m = 2, 1, 8, 1.0, 2.0, 1.0, 0.5
    inst = projected_quadratic(n, eta, sigma, T, Delta, D, m, batches="uniform", b=b, p_decay=p_decay)
    profile = inst.profile()
    etas = list(eta * np.maximum(np.arange(T), 1.0) ** -p_decay)
    for alpha in (2.0, 4.0):
        exact = float(profile.renyi(alpha))
        bound = float(at22_varying_rdp(np.array([alpha]), etas, [1] * T, n=n, b=b, sigma=sigma, Delta=Delta, D=D)[0])
        assert exact <= bound, (alpha, exact, bound)


def test_bad_input_names_the_parameter():
    with pytest.raises(InputError, match="T >= 2"):
        at22_varying_rdp(np.array([2.0]), [0.1], [1], n=10, b=1, sigma=1.0, Delta=1.0, D=1.0)
    with pytest.raises(InputError, match="b < n"):
        at22_varying_rdp(np.array([2.0]), [0.1], [5], n=10, b=10, sigma=1.0, Delta=1.0, D=1.0)
    with pytest.raises(InputError, match="eta"):
        at22_varying_rdp(np.array([2.0]), [-0.1], [5], n=10, b=1, sigma=1.0, Delta=1.0, D=1.0)


def _two_phase(verdicts=VERDICTS) -> Accountant:
    acc = Accountant(verdicts=verdicts, n=100, D=0.2, M=1.0, L=0.5, loss="convex")
    acc.step(4.0, 0.1, batches="uniform", steps=5000, eta=0.5)
    acc.step(4.0, 0.1, batches="uniform", steps=20000, eta=0.1)
    return acc


def test_accountant_uses_eq57_for_a_changing_step_size():
    acc = _two_phase()
    answer = acc.epsilon(1e-5, bracket=False)
    assert answer.theorem == stepsizes.THEOREM and answer.verdict == "verified"
    # canonical units: sigma = z Cclip / b = 4/10, Delta = 2 L = 1 (replace-one)
    want = at22_varying_eps(1e-5, [0.5, 0.1], [5000, 20000], n=100, b=10, sigma=0.4, Delta=1.0, D=0.2)
    assert answer.eps == pytest.approx(want, rel=1e-12)
    composition = [c for c in answer.candidates if c.theorem == "bok2024/thm4.8"]
    assert composition and composition[0].value > 5 * answer.eps  # the last iterate pays off here
    rdp = at22_varying_rdp(stepsizes.ORDERS, [0.5, 0.1], [5000, 20000], n=100, b=10, sigma=0.4, Delta=1.0, D=0.2)
    assert float(rdp_to_dp_improved(stepsizes.ORDERS, rdp, 1e-5)) == pytest.approx(want)


def test_accountant_refuses_eq57_outside_its_assumptions():
    too_large = Accountant(verdicts=VERDICTS, n=100, D=0.2, M=1.0, L=0.5, loss="convex")
    too_large.step(4.0, 0.1, batches="uniform", steps=50, eta=2.5).step(4.0, 0.1, batches="uniform", steps=50,
                                                                        eta=0.1)
    assert "eta <= 2/M" in too_large._varying_refusal()
    assert all(c.theorem != stepsizes.THEOREM for c in too_large.epsilon(1e-5, bracket=False).candidates)
    unknown = Accountant(verdicts=VERDICTS, n=100)
    unknown.step(4.0, 0.1, batches="uniform", steps=50, eta=0.5).step(4.0, 0.1, batches="uniform", steps=50, eta=0.1)
    assert "D, M" in unknown._varying_refusal()
    unverified = _two_phase(verdicts={"bok2024/thm4.8": "verified"})
    assert "verdict" in unverified._varying_refusal()
    noise_changes = Accountant(verdicts=VERDICTS, n=100, D=0.2, M=1.0, L=0.5, loss="convex")
    noise_changes.step(4.0, 0.1, batches="uniform", steps=50, eta=0.5).step(3.0, 0.1, batches="uniform", steps=50,
                                                                            eta=0.1)
    assert "one noise multiplier" in noise_changes._varying_refusal()
