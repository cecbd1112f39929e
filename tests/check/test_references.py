"""Exact references and notions in the engine: applicability through Setting.covers, each notion's
(eps, delta) reading, and the notion fields the comparisons read (resolution, sign)."""

from __future__ import annotations

import math

import pytest
import sympy as sp

import theorems
from verify.check import references as refs
from verify.check.notions import eps_at_delta
from verify.check.soundness import bound_ratio, violates
from verify.errors import InputError
from verify.instances import FAMILIES
from verify.privacy.gaussian import gdp_eps
from verify.setting import Setting
from verify.theorem import Source, Theorem, sym

MU = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)


def _phi(x):
    return sp.erfc(-x / sp.sqrt(2)) / 2  # erfc: no cancellation in the far left tail


def _theorem(notion: str, bound, **setting) -> Theorem:
    return Theorem(id=f"test/{notion}", title="GD composition", source=Source("test", "none"), notion=notion,
                   kind="upper", bound=bound, setting=Setting(**setting))


POINT = {"n": 100.0, "T": 16.0, "Delta": 2.0, "sigma": 0.05}  # mu = 1.6


def test_the_fdp_reading_inverts_delta_of_eps_to_the_gaussian_closed_form():
    # the G_mu curve written as an f-DP bound; its eps(delta) is the GDP closed form (Dong et al. 2022, Cor. 2.13)
    curve = _phi(-sym.eps / MU + MU / 2) - sp.exp(sym.eps) * _phi(-sym.eps / MU - MU / 2)
    fdp = _theorem("fdp", curve)
    for delta in (1e-2, 1e-5, 1e-9):
        eps = eps_at_delta(fdp, POINT, delta)
        truth = float(gdp_eps(1.6, delta))
        assert eps == pytest.approx(truth, rel=1e-11)


def test_the_readings_of_gdp_and_rdp_guarantees():
    gdp = _theorem("gdp", MU)
    assert eps_at_delta(gdp, {**POINT, "alpha": 3.0}, 1e-5) == pytest.approx(float(gdp_eps(1.6, 1e-5)), rel=1e-12)
    rdp = _theorem("rdp", sym.alpha * MU**2 / 2)  # the RDP curve of G_mu: converting loses a little
    eps = eps_at_delta(rdp, POINT, 1e-5)
    assert float(gdp_eps(1.6, 1e-5)) < eps < 1.3 * float(gdp_eps(1.6, 1e-5))


def test_a_notion_without_an_eps_reading_says_so():
    utility = _theorem("utility", sym.eta * sym.sigma**2)
    with pytest.raises(InputError, match="no \\(eps, delta\\) reading"):
        eps_at_delta(utility, {"eta": 0.1, "sigma": 1.0}, 1e-5)


def test_a_noisy_gd_theorem_covers_the_exact_dpsgd_instance():
    # one rule for check, simulate and account: a DP-SGD run (clipping the identity) is a noisy-GD run;
    # before, the engine alone refused it and missed the instance on which the moments accountant is tight
    instance = FAMILIES["dpsgd_worst_step"].build(n=20, b=2, eta=1.0, sigma=1.0, T=3, Delta=1.0)
    assert refs.why_not_applicable(theorems.get("baselines/moments-accountant/rdp"), instance) is None


def test_applicability_reasons_from_the_setting_and_the_parameters():
    instance = FAMILIES["quadratic_chain"].build(n=10, eta=0.1, sigma=1.0, T=5, m=1.0, M=1.0, Delta=1.0)
    cyclic = _theorem("gdp", MU, batches="cyclic")
    assert refs.why_not_applicable(cyclic, instance) == "batches full is not cyclic"
    needs_z = _theorem("gdp", sym.z * MU)
    assert refs.why_not_applicable(needs_z, instance) == "instance does not define z"
    assert refs.why_not_applicable(_theorem("gdp", MU), instance) is None


def test_comparisons_read_the_resolution_of_the_notion():
    fdp = _theorem("fdp", sym.eps * 0 + 1e-14 * MU)
    tiny = refs.Comparison(exact=5e-13, bound=1e-14, at=1.0, tolerance=1e-9)
    assert math.isnan(bound_ratio(fdp, tiny))  # both below 1e-12: no information either way
    assert not violates(fdp, tiny, {**POINT, "eps": 1.0})
    gdp = _theorem("gdp", MU * sp.Rational(1, 16) * sp.Float("1e-13"))  # 1e-14 at POINT (mu = 1.6)
    clear = refs.Comparison(exact=5e-13, bound=1e-14, at=None, tolerance=1e-9)  # the bound, certified again
    assert bound_ratio(gdp, clear) == pytest.approx(50.0)
    assert violates(gdp, clear, POINT)


def test_only_eps_may_be_negative():
    from verify.check.symbolic import well_formed

    negative = sym.Delta / (sym.n * sym.sigma) - 10
    assert well_formed(_theorem("eps_delta", negative + 0 * sym.delta)).status == "passed"
    assert well_formed(_theorem("gdp", negative)).status == "failed"
