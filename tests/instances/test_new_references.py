"""The exact references of the structural axes, each against an independent computation: non-convex chains
(closed forms by hand), transcripts (composition), shuffled mixtures (mpmath quadrature, and the dense grid's
shuffled engine), the Lipschitz non-convex walk (its linear limit), decaying steps on the interval walk."""

import math

import mpmath as mp
import numpy as np
import pytest

from verify.errors import InputError
from verify.instances import FAMILIES


def _gdp_of_shift(shift, var):
    return shift / math.sqrt(var)


@pytest.mark.parametrize("T, eta, rho", [(1, 0.5, 1.0), (7, 0.3, 0.5), (40, 0.1, 2.0)])
def test_nonconvex_chain_is_the_expanding_gaussian_chain(T, eta, rho):
    n, sigma, Delta = 5, 1.3, 0.7
    inst = FAMILIES["nonconvex_chain"].build(n=n, eta=eta, sigma=sigma, T=T, rho=rho, Delta=Delta)
    a = 1 + eta * rho  # every step multiplies the iterate by a; the record shifts every step by eta Delta / n
    shift = sum(eta * Delta / n * a ** k for k in range(T))
    var = sum((eta * sigma) ** 2 * a ** (2 * k) for k in range(T))
    assert inst.profile().mu == pytest.approx(_gdp_of_shift(shift, var), rel=1e-12)
    assert {"nonconvex", "weakly_convex", "smooth"} <= inst.loss_classes and "convex" not in inst.loss_classes
    assert inst.params()["rho"] == rho and "m" not in inst.params()


def test_the_last_iterate_of_an_expanding_chain_keeps_the_first_record():
    """One pass, the record in the first batch: the convex (linear) last iterate forgets it like 1/sqrt(T), the
    expanding one keeps mu^2 -> (Delta/(b sigma))^2 (1 - a^-2)."""
    kw = dict(n=200, b=1, batches="cyclic", position=0, eta=0.5, sigma=1.0, T=200, Delta=1.0)
    linear = FAMILIES["linear_chain"].build(**kw).profile().mu
    expanding = FAMILIES["nonconvex_chain"].build(rho=1.0, **kw).profile().mu
    assert linear == pytest.approx(1 / math.sqrt(200), rel=1e-12)
    assert expanding == pytest.approx(math.sqrt(1 - 1.5 ** -2), rel=1e-9)


@pytest.mark.parametrize("family, extra", [("linear_chain", {}), ("quadratic_chain", {"m": 0.5, "M": 1.0}),
                                           ("nonconvex_chain", {"rho": 0.5})])
def test_transcripts_of_gaussian_chains_are_compositions(family, extra):
    kw = dict(n=6, b=2, batches="cyclic", position=1, eta=0.4, sigma=0.9, T=8, Delta=1.1, **extra)
    inst = FAMILIES[family].build(release="all", **kw)
    uses = len([k for k in range(8) if k % 3 == 1])  # l = 3 batches, the record in batch 1
    assert inst.profile().mu == pytest.approx(math.sqrt(uses) * 1.1 / (2 * 0.9), rel=1e-14)
    assert inst.setting.release == "all"


def test_the_transcript_of_subsampled_steps_adds_renyi_divergences():
    kw = dict(n=4, b=1, batches="uniform", eta=1.0, sigma=1.0, Delta=2.0, offset=1.0)
    one = FAMILIES["subsampled_linear"].build(T=1, **kw).profile()
    many = FAMILIES["subsampled_linear"].build(T=25, release="all", **kw)
    for alpha in (1.5, 2.0, 8.0):
        assert many.profile().renyi(alpha) == pytest.approx(25 * one.renyi(alpha), rel=1e-14)
    with pytest.raises(InputError, match="Rényi DP only"):
        many.profile().delta(1.0)


def _mixture_renyi(alpha, p, q, lo=-40.0, hi=40.0):
    mp.mp.dps = 30
    forward = mp.quad(lambda x: p(x) ** alpha * q(x) ** (1 - alpha), [lo, 0, hi])
    backward = mp.quad(lambda x: q(x) ** alpha * p(x) ** (1 - alpha), [lo, 0, hi])
    return float(max(mp.log(forward), mp.log(backward)) / (alpha - 1))


def test_shuffled_chain_is_the_mixture_over_orders():
    """Two batches, one epoch, eta m = 1 (each step forgets): the last iterate is N(0, 1) against the mixture
    N(0, 1)/2 + N(2, 1)/2 (the record in the last step with probability 1/2)."""
    inst = FAMILIES["shuffled_chain"].build(n=2, b=1, eta=1.0, sigma=1.0, T=2, Delta=2.0, m=1.0, curvature_sign=1)
    p = lambda x: mp.npdf(x, 0, 1)  # noqa: E731
    q = lambda x: (mp.npdf(x, 0, 1) + mp.npdf(x, 2, 1)) / 2  # noqa: E731
    assert inst.profile().renyi(2.0) == pytest.approx(_mixture_renyi(2, p, q), rel=1e-4)
    assert inst.setting.batches == "shuffle" and "tpos" not in inst.params()


def test_two_shuffled_engines_agree():
    """The mixture over orders (shuffled_chain) and the dense grid's shuffled kernel (projected_quadratic on an
    interval far wider than the runs reach) are two computations of the same laws.  (D = 20 is as wide as D = 40
    for these runs: with cells of the same width, 1024 of them, the Rényi divergences are the same to 1e-14, at
    a twentieth of the dense kernel's cost.)"""
    kw = dict(n=6, b=2, eta=0.4, sigma=1.0, T=7, Delta=1.5)
    mixture = FAMILIES["shuffled_chain"].build(m=0.8, curvature_sign=1, **kw).profile()
    grid = FAMILIES["projected_quadratic"].build(batches="shuffle", m=0.8, D=20.0, cells=1024, **kw).profile()
    for alpha in (2.0, 4.0):
        assert mixture.renyi(alpha) == pytest.approx(grid.renyi(alpha), rel=2e-3)
    linear = FAMILIES["shuffled_chain"].build(m=0.0, curvature_sign=0, **kw).profile()
    walk = FAMILIES["subsampled_linear"].build(batches="shuffle", **kw).profile()
    assert linear.renyi(2.0) == pytest.approx(walk.renyi(2.0), rel=1e-4)
    assert linear.eps(1e-5) == pytest.approx(walk.eps(1e-5), rel=1e-4)


def test_tanh_walk_is_linear_as_rho_vanishes_and_lipschitz():
    inst = FAMILIES["tanh_walk"].build(n=4, eta=0.5, sigma=1.0, T=10, Delta=1.0, rho=1e-6)
    exact = 2 * (math.sqrt(10) / 4) ** 2 / 2  # full batch, linear: mu = sqrt(T) Delta/(n sigma), RDP alpha mu^2/2
    assert abs(inst.profile().renyi(2.0) - exact) <= 4 * inst.profile().error_of("renyi", 2.0)
    curved = FAMILIES["tanh_walk"].build(n=4, eta=0.5, sigma=1.0, T=10, Delta=1.0, rho=0.5)
    assert {"lipschitz", "nonconvex", "smooth"} <= curved.loss_classes
    assert curved.params()["L"] == pytest.approx(0.5 * 10 * 0.5 + 1.0)  # rho c + |g'|, c = 10 eta sigma


def test_decaying_steps_on_the_interval_walk():
    kw = dict(n=4, b=1, batches="uniform", eta=0.5, sigma=1.0, T=20, Delta=1.0, D=3.0)
    constant = FAMILIES["interval_walk"].build(**kw).profile().renyi(2.0)
    assert FAMILIES["interval_walk"].build(p_decay=0.0, **kw).profile().renyi(2.0) == pytest.approx(constant,
                                                                                                   rel=1e-12)
    decaying = FAMILIES["interval_walk"].build(p_decay=0.5, **kw)
    assert decaying.params()["p_decay"] == 0.5 and decaying.profile().renyi(2.0) != pytest.approx(constant)


@pytest.mark.parametrize("builder, extra", [("interval_walk", {}), ("projected_quadratic", {"m": 0.1})])
def test_decaying_steps_are_built_with_the_reference_not_the_instance(monkeypatch, builder, extra):
    """A build is what the search's admissibility checks read (constants only): a run of 10^5 decaying steps
    builds its T per-step laws only when its reference is asked for."""
    from verify.instances import walks

    def refuse(*args, **kwargs):
        raise AssertionError("per-step laws built with the instance")

    monkeypatch.setattr(walks, "_decaying", refuse)
    instance = getattr(walks, builder)(n=4, eta=0.5, sigma=1.0, T=100_000, Delta=1.0, D=2.0, b=1,
                                          batches="uniform", p_decay=0.5, **extra)
    assert instance.params()["p_decay"] == 0.5 and instance.params()["T"] == 100_000
    with pytest.raises(AssertionError, match="per-step laws"):
        instance.profile()
