"""Every registry upper bound that applies to a simulated non-Gaussian instance lies above the audit."""

from __future__ import annotations

import dp_accounting
import pytest

import theorems
from verify.simulate import applies, audit, compare_with_theorem, logistic_ball


@pytest.fixture(scope="module")
def logistic_audit():
    # logistic regression, d = 10, projection onto a ball, Poisson batches, add/remove
    sim = logistic_ball(d=10, n=100, b=10, T=20, eta=0.5, sigma=0.2, radius=1.0, batches="poisson",
                        adjacency="add_remove")
    return sim, audit(sim, runs=40_000, seed=11, delta=1e-5)


def test_the_audit_finds_something(logistic_audit):
    _, result = logistic_audit
    assert result.eps_lower > 0.02 and result.mu_lower > 0.02


def test_every_applicable_registry_upper_bound_is_above_the_audit(logistic_audit):
    sim, result = logistic_audit
    constants = sim.constants()
    verdicts = [compare_with_theorem(result, t, constants) for t in theorems.all(printed=False) if applies(t, sim)]
    verdicts = [v for v in verdicts if v is not None]
    bad = [v for v in verdicts if not v.ok]
    assert not bad, bad
    if not verdicts:
        pytest.skip("no registry theorem covers this setting yet")


def test_an_independent_accountant_bound_is_above_the_audit(logistic_audit):
    # dp_accounting's PLD accountant for T Poisson-subsampled Gaussian steps (all iterates released,
    # so also valid for the last one): noise multiplier z = b sigma / L with L = 1 (|x| <= 1)
    sim, result = logistic_audit
    c = sim.constants()
    assert c["L"] == pytest.approx(1.0)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(c["q"], dp_accounting.GaussianDpEvent(c["b"] * c["sigma"] / c["L"])),
        int(c["T"]))
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(event)
    assert accountant.get_epsilon(1e-5) >= result.eps_lower
    for eps in (0.0, 0.05, 0.1):
        assert accountant.get_delta(eps) >= result.delta_lower(eps)


def test_a_too_small_bound_is_caught(logistic_audit):
    # the comparison is not vacuous: a "theorem" claiming half the audited mu is flagged
    import sympy as sp

    from verify.theorem import Setting, Source, Theorem, sym

    sim, result = logistic_audit
    fake = Theorem(id="test/too-small", title="too small", source=Source("test", "none"), notion="gdp",
                   kind="upper", bound=sp.Float(result.mu_lower / 2) * sym.sigma / sym.sigma,
                   setting=Setting(batches="poisson", adjacency="add_remove", constraint="bounded"))
    assert applies(fake, sim)
    verdict = compare_with_theorem(result, fake, sim.constants())
    assert verdict is not None and not verdict.ok
