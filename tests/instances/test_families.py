"""Families: derived constants, settings, invalid instances, and the composition references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.instances import FAMILIES, Instance, composition_reference
from verify.theorem import VOCABULARY

BASE = dict(n=10, eta=0.1, sigma=1.0, T=5)


def test_every_contract_family_is_registered():
    for name in ("quadratic_chain", "linear_chain", "bok_thm42", "bok_c17", "interval_walk", "bok_c16",
                 "at22_thm41", "chourasia_thm3", "subsampled_linear", "dpsgd_worst_step"):
        fam = FAMILIES[name]
        assert fam.name == name and fam.description


@pytest.mark.parametrize("name, kwargs", [
    ("quadratic_chain", dict(BASE, m=0.5, M=2.0, Delta=1.0)),
    ("linear_chain", dict(BASE, Delta=1.0)),
    ("bok_thm42", dict(BASE, m=0.5, M=2.0, Delta=1.0)),
    ("bok_c17", dict(n=10, b=5, eta=0.1, sigma=1.0, E=3, m=0.5, M=2.0, Delta=1.0)),
    ("chourasia_thm3", dict(BASE, Delta=1.0)),
    ("interval_walk", dict(BASE, Delta=1.0, D=2.0, cells=64)),
    ("bok_c16", dict(BASE, Delta=1.0, D=2.0, cells=64)),
    ("at22_thm41", dict(BASE, Delta=1.0, D=2.0, cells=64)),
    ("subsampled_linear", dict(BASE, Delta=1.0, b=2, cells=256)),
    ("dpsgd_worst_step", dict(BASE, Delta=1.0, b=2)),
])
def test_params_are_canonical_and_consistent(name, kwargs):
    inst = FAMILIES[name].build(**kwargs)
    assert isinstance(inst, Instance) and inst.family == name
    params = inst.params()
    assert set(params) <= set(VOCABULARY)
    for key in ("n", "T", "eta", "sigma", "Delta", "d"):
        assert key in params
    bounded = inst.setting.constraint == "bounded"
    assert ("D" in params) == bounded
    assert ("lipschitz" in inst.loss_classes) == ("L" in params)
    if "quadratic" in inst.loss_classes:
        assert params["m"] > 0 and params["M"] >= params["m"] and "L" not in params
    if "L" in params:
        assert params["Delta"] <= 2 * params["L"] + 1e-15  # replace-one: Delta <= 2L
    prof = inst.profile()
    assert prof is inst.profile()  # cached
    assert prof.delta(1.0) >= 0 and prof.error >= 0


def test_derived_constants_of_the_quadratic_chain():
    inst = FAMILIES["quadratic_chain"].build(n=12, eta=0.1, sigma=1.0, T=9, m=0.5, M=2.0, Delta=1.0, d=4,
                                             batches="cyclic", b=4, position=2)
    p = inst.params()
    assert (p["m"], p["M"], p["d"], p["b"], p["l"], p["E"], p["q"]) == (0.5, 2.0, 4, 4, 3, 3, 4 / 12)
    assert inst.setting.batches == "cyclic" and inst.setting.constraint == "none"
    assert inst.run.differing_index == 8
    np.testing.assert_allclose(inst.run.eigenvalues, [0.5, 1.0, 1.5, 2.0])
    assert FAMILIES["quadratic_chain"].build(n=2, eta=0.1, sigma=1.0, T=1, m=1.0, M=1.0, Delta=1.0).params()["d"] == 1


def test_c16_and_at22_runs_describe_the_constructions():
    c16 = FAMILIES["bok_c16"].build(n=10, eta=0.1, sigma=1.0, T=5, Delta=2.0, D=3.0, cells=64)
    assert c16.run.interval == (-1.5, 1.5) and c16.run.x0 == 0.0
    assert c16.run.record_gradient == 0.0 and c16.run.record_gradient_prime == -2.0
    at = FAMILIES["at22_thm41"].build(n=10, eta=0.1, sigma=1.0, T=5, Delta=2.0, D=3.0, b=2, cells=64)
    assert at.setting.batches == "uniform" and at.params()["q"] == 0.2 and at.params()["L"] == 2.0


@pytest.mark.parametrize("name, kwargs, match", [
    ("quadratic_chain", dict(BASE, Delta=1.0, H=[[1.0, 0.0], [0.0, -1.0]]), "positive definite"),
    ("quadratic_chain", dict(BASE, Delta=1.0, H=[[1.0, 2.0], [0.0, 1.0]]), "symmetric"),
    ("quadratic_chain", dict(BASE, Delta=1.0, eigenvalues=[0.0, 1.0]), "positive definite"),
    ("quadratic_chain", dict(BASE, m=-1.0, M=1.0, Delta=1.0), "m must be"),
    ("quadratic_chain", dict(BASE, m=2.0, M=1.0, Delta=1.0), "need M >= m"),
    ("quadratic_chain", dict(BASE, m=1.0, M=2.0, Delta=1.0, d=1), "d=1"),
    ("quadratic_chain", dict(n=10, eta=0.0, sigma=1.0, T=5, m=1.0, M=1.0, Delta=1.0), "eta"),
    ("quadratic_chain", dict(n=10, eta=-0.1, sigma=1.0, T=5, m=1.0, M=1.0, Delta=1.0), "eta"),
    ("quadratic_chain", dict(n=10, eta=3.0, sigma=1.0, T=5, m=1.0, M=1.0, Delta=1.0), "diverges"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=0.0), "equals the original"),
    ("quadratic_chain", dict(BASE, m=1.0, M=2.0, Delta=1.0, records=np.zeros((10, 3))), "mismatched"),
    ("quadratic_chain", dict(BASE, m=1.0, M=2.0, Delta=1.0, direction=[1.0, 0.0, 0.0]), "mismatched"),
    ("quadratic_chain", dict(BASE, Delta=1.0, H=np.eye(3), d=2), "mismatched"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, batches="cyclic", b=3), "divide"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, batches="cyclic", b=5, position=2), "position"),
    ("quadratic_chain", dict(BASE, m=1.0, M=1.0, Delta=1.0, batches="poisson", b=5), "batches"),
    ("quadratic_chain", dict(n=10, eta=0.1, sigma=1.0, T=0, m=1.0, M=1.0, Delta=1.0), "T must"),
    ("quadratic_chain", dict(n=10, eta=0.1, sigma=1.0, T=2.5, m=1.0, M=1.0, Delta=1.0), "T must"),
    ("linear_chain", dict(BASE, Delta=0.0), "equals the original"),
    ("bok_thm42", dict(n=10, eta=1.0, sigma=1.0, T=5, m=1.0, M=2.0, Delta=1.0), "2/M"),
    ("chourasia_thm3", dict(n=10, eta=1.5, sigma=1.0, T=5, Delta=1.0), "eta < 1"),
    ("interval_walk", dict(BASE, Delta=1.0, D=0.0), "empty"),
    ("interval_walk", dict(BASE, Delta=0.0, D=1.0), "equals the original"),
    ("interval_walk", dict(BASE, Delta=1.0, D=1.0, x0=2.0), "outside"),
    ("interval_walk", dict(BASE, Delta=1.0, D=1.0, sigma=0.0), "sigma"),
    ("interval_walk", dict(BASE, Delta=1.0, D=1.0, batches="poisson"), "needs the batch size"),
    ("interval_walk", dict(BASE, Delta=1.0, D=1.0, offset=1.0, adjacency="add_remove"), "offset"),
    ("subsampled_linear", dict(BASE, Delta=1.0, b=20), "b must be <= n"),
    ("dpsgd_worst_step", dict(BASE, Delta=-1.0, b=2), "Delta"),
    ("bok_c17", dict(n=10, b=3, eta=0.1, sigma=1.0, E=3, m=0.5, M=2.0, Delta=1.0), "divide"),
])
def test_invalid_instances_raise_value_error(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        FAMILIES[name].build(**kwargs)


def test_worst_step_composition_equals_grid_at_one_step():
    """T = 1: dp_accounting's PLD (composition) and the 1-D grid engine (last iterate) are the same pair."""
    comp = FAMILIES["dpsgd_worst_step"].build(n=20, b=1, eta=1.0, sigma=1.0, T=1, Delta=1.0).profile()
    grid = FAMILIES["subsampled_linear"].build(n=20, b=1, eta=1.0, sigma=1.0, T=1, Delta=1.0).profile()
    eps = np.array([0.0, 0.05, 0.1, 0.2])
    np.testing.assert_allclose(comp.delta(eps), grid.delta(eps), rtol=1e-4)
    assert comp.eps(1e-5) == pytest.approx(grid.eps(1e-5), rel=1e-4)
    for direction in ("forward", "backward"):
        np.testing.assert_allclose(comp.renyi([2.0, 4.0], direction), grid.renyi([2.0, 4.0], direction), rtol=1e-4)


def test_composition_reference_gaussian_limit():
    """p = 1: T subsampled steps are G_{sqrt(T) mu} exactly (Bu et al. 2020 footnote 4)."""
    from verify.privacy.gaussian import gdp_delta
    comp = composition_reference(1.0, 0.3, 16, adjacency="replace")
    np.testing.assert_allclose(comp.delta([0.5, 1.0]), gdp_delta(1.2, np.array([0.5, 1.0])), rtol=1e-3)
    assert comp.mu == pytest.approx(1.2)


@settings(deadline=None, max_examples=30)
@given(n=st.integers(2, 50), T=st.integers(1, 200), eta=st.floats(0.01, 1.0), sigma=st.floats(0.1, 10),
       Delta=st.floats(0.01, 10), c=st.floats(0.1, 10))
def test_scaling_invariance_of_the_chain(n, T, eta, sigma, Delta, c):
    """theta' = c theta (docs/conventions.md): Delta/c, m/c^2, M/c^2, eta c^2, sigma/c leave the privacy unchanged."""
    a = FAMILIES["bok_thm42"].build(n=n, eta=eta, sigma=sigma, T=T, m=0.5, M=0.9, Delta=Delta)
    b = FAMILIES["bok_thm42"].build(n=n, eta=eta * c * c, sigma=sigma / c, T=T, m=0.5 / c ** 2, M=0.9 / c ** 2,
                                    Delta=Delta / c)
    assert b.profile().mu == pytest.approx(a.profile().mu, rel=1e-10)


_junk = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.text(max_size=2),
                  st.just([1.0, 2.0]))


@settings(deadline=None, max_examples=60)
@given(name=st.sampled_from(sorted(FAMILIES)),
       key=st.sampled_from(["n", "eta", "sigma", "T", "Delta", "b", "m", "M", "D", "d", "position", "batches", "E",
                            "init"]),
       value=_junk)
def test_bad_parameters_never_raise_anything_but_value_error(name, key, value):
    """Corrupting one parameter of a valid call gives an instance or a ValueError, never another error."""
    kwargs = dict(FAMILIES[name].example, **{key: value})
    try:
        FAMILIES[name].build(**kwargs)
    except ValueError:
        pass


def test_uniform_subsampling_uses_replace_adjacency():
    inst = FAMILIES["subsampled_linear"].build(n=10, b=2, eta=0.1, sigma=1.0, T=2, Delta=1.0, batches="uniform",
                                               cells=256)
    assert inst.setting.adjacency == "replace" and inst.setting.batches == "uniform"
    with pytest.raises(ValueError, match="Poisson"):
        FAMILIES["interval_walk"].build(n=10, b=2, eta=0.1, sigma=1.0, T=2, Delta=1.0, D=1.0, batches="uniform",
                                        adjacency="add_remove")


def test_worst_step_composition_reproduces_bu_figure5_exact_tradeoff():
    """Bu et al. 2020 Fig. 5 setting (docs/papers/bu2020.md): sigma = 1.1, T = 234, p = (256/60000) sqrt(14062.5/234).
    The exact one-sided f = T(P^T, GM^T) of docs/papers/bu2020.md; the profile is the symmetrised curve (<= f)."""
    p = 256 / 60000 * math.sqrt(14062.5 / 234)
    n = 10 ** 6
    b = round(p * n)
    inst = FAMILIES["dpsgd_worst_step"].build(n=n, b=b, eta=1.0, sigma=1.1 / b, T=234, Delta=1.0)
    a = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.5])
    exact_f = np.array([0.9578, 0.8558, 0.7604, 0.6095, 0.4873, 0.2931])
    got = inst.profile().tradeoff(a)
    np.testing.assert_allclose(got[:5], exact_f[:5], atol=1e-3)
    assert np.all(got <= exact_f + 1e-3)


def test_gaussian_mechanism_is_exactly_gdp():
    """N(0, sigma^2) vs N(Delta/n, sigma^2): mu = Delta/(n sigma); delta from the public GDP vectors."""
    inst = FAMILIES["gaussian_mechanism"].build(n=4, sigma=0.5, Delta=2.0)  # mu = 1
    assert inst.profile().mu == pytest.approx(1.0, rel=1e-15)
    assert inst.params()["z"] == pytest.approx(1.0)
    assert float(inst.profile().delta(1.0)) == pytest.approx(0.12693674, rel=1e-7)  # gdp_vectors.json
    dp_sgd = FAMILIES["gaussian_mechanism"].build(z=2.0, Delta=3.0, n=5)
    assert dp_sgd.params()["mu"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="sigma"):
        FAMILIES["gaussian_mechanism"].build(sigma=-1.0, Delta=1.0)


def test_squared_loss_class_only_for_isotropic_quadratics():
    iso = FAMILIES["quadratic_chain"].build(n=3, eta=0.1, sigma=1.0, T=5, m=1.0, M=1.0, Delta=1.0)
    aniso = FAMILIES["quadratic_chain"].build(n=3, eta=0.1, sigma=1.0, T=5, m=0.5, M=1.0, Delta=1.0)
    assert "squared" in iso.loss_classes and "squared" not in aniso.loss_classes


def test_exponential_mechanism_and_langevin_closed_forms():
    """Cor 5.2 pair: mu = Delta/sqrt(m); LMC on quadratics: mean gap eta Delta sum c^k over the std
    sqrt(2 eta sum c^2k), c = 1 - eta m (geometric sums written out here, step by step)."""
    em = FAMILIES["bok_cor52"].build(m=0.25, Delta=1.5)
    assert em.profile().mu == pytest.approx(1.5 / 0.5, rel=1e-14)
    eta, T, m, Delta = 0.1, 30, 0.5, 1.5
    c = 1 - eta * m
    gap = sum(eta * Delta * c**k for k in range(T))
    var = sum(2 * eta * c ** (2 * k) for k in range(T))
    lmc = FAMILIES["langevin_quadratic"].build(eta=eta, T=T, m=m, M=1.0, Delta=Delta)
    assert lmc.profile().mu == pytest.approx(gap / math.sqrt(var), rel=1e-12)
    assert "sigma" not in lmc.params() and lmc.setting.algorithm == "langevin"


# -- the positivity test of Altschuler & Talwar 2022, App. A.4 (event profile) ------------------------


def _bernoulli_renyi(alpha, a, b):
    """D_alpha(Bern(a) || Bern(b)) with mpmath (closed form, an independent computation)."""
    import mpmath
    with mpmath.workdps(40):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        total = a ** alpha * b ** (1 - alpha) + (1 - a) ** alpha * (1 - b) ** (1 - alpha)
        return float(mpmath.log(total) / (alpha - 1))


def test_event_profile_at_one_step_is_the_closed_form():
    # T = 1 from omega_0 = 0 on [-D/2, D/2]: P[omega_1 >= 0] = 1/2 under D, and under D'
    # (1 - q)/2 + q Phi(eta L/(b eta sigma)) (the drift eta L/b is taken with probability q = b/n)
    from scipy.stats import norm
    n, b, eta, sigma, L, D = 4, 1, 0.5, 0.7, 1.0, 40.0
    inst = FAMILIES["at22_thm41"].build(n=n, b=b, eta=eta, sigma=sigma, T=1, Delta=L, D=D, cells=4096, event=0.0)
    prof = inst.profile()
    q = b / n
    p_d, p_dp = 0.5, (1 - q) * 0.5 + q * norm.cdf(L / (b * sigma))
    assert prof.p[1] == pytest.approx(p_d, abs=1e-9) and prof.q[1] == pytest.approx(p_dp, abs=1e-9)
    assert prof.renyi(3.0, "backward") == pytest.approx(_bernoulli_renyi(3, p_dp, p_d), rel=1e-6)
    # delta(eps) of two Bernoulli laws: the larger event difference
    assert prof.delta(0.1, "backward") == pytest.approx(p_dp - math.exp(0.1) * p_d, rel=1e-6)


def test_event_profile_lower_bounds_the_last_iterate():
    # data processing: the event's divergences never exceed the last iterate's (grid accurate here)
    inst = FAMILIES["at22_thm41"].build(n=2, b=1, eta=1.0, sigma=1.0, T=20, Delta=1.0, D=30.0, cells=2048)
    full = inst.profile()
    event = FAMILIES["at22_thm41"].build(n=2, b=1, eta=1.0, sigma=1.0, T=20, Delta=1.0, D=30.0, cells=2048,
                                         event=0.0).profile()
    for alpha in (1.5, 2.0, 8.0):
        assert 0 < event.renyi(alpha) <= full.renyi(alpha)
    for eps in (0.0, 0.5, 1.0):
        assert event.delta(eps) <= full.delta(eps) + 1e-12
    with pytest.raises(ValueError, match="event"):
        FAMILIES["at22_thm41"].build(n=2, b=1, eta=1.0, sigma=1.0, T=2, Delta=1.0, D=30.0, event=15.5)


def test_event_profile_moves_the_probabilities_together_by_their_error():
    from verify.instances.families import event_profile
    from verify.instances.profile import DiscreteProfile
    coarse = DiscreteProfile([0.5, 0.5], [0.1, 0.9], support=[-1.0, 1.0])
    fine = DiscreteProfile([0.5, 0.5], [0.08, 0.92], support=[-1.0, 1.0], coarse=coarse)
    out = event_profile(fine, 0.0, floor_error=0.01)  # error 0.02 + 0.01
    assert out.p[1] == pytest.approx(0.53) and out.q[1] == pytest.approx(0.89) and out.error == pytest.approx(0.03)
    # never crossing: an error larger than the gap meets in the middle (no information left)
    flat = event_profile(fine, 0.0, floor_error=1.0)
    assert flat.p[1] == pytest.approx(flat.q[1]) and flat.renyi(2.0) == pytest.approx(0.0, abs=1e-12)


# -- 1-D quadratics under uniform batches (dense grid engine) -----------------------------------------


def _mixture_laws(n, b, eta, sigma, T, g, g_prime, m):
    """The last iterate of unconstrained SGD on m/2 theta^2 + g theta from 0: a mixture of 2^T Gaussians
    over the steps whose batch held the record (brute force, the independent reference)."""
    import itertools
    c, q = 1 - eta * m, b / n
    var = (eta * sigma) ** 2 * sum(c ** (2 * k) for k in range(T))

    def comps(grad):
        out = []
        for used in itertools.product((0, 1), repeat=T):
            w = math.prod(q if u else 1 - q for u in used)
            out.append((w, sum(-eta * grad / b * u * c ** (T - 1 - t) for t, u in enumerate(used))))
        return out

    return comps(g), comps(g_prime), math.sqrt(var)


def _log_density(comps, sd):
    from scipy.special import logsumexp
    from scipy.stats import norm
    w = np.array([c[0] for c in comps])
    mu = np.array([c[1] for c in comps])
    return lambda x: float(logsumexp(norm.logpdf(x, mu, sd), b=w))


def _quad_renyi(alpha, P, Q, sd):
    """Rényi divergence of two Gaussian mixtures by adaptive quadrature (scipy; independent of the grid)."""
    from scipy.integrate import quad
    p, q = _log_density(P, sd), _log_density(Q, sd)
    f = lambda x: math.exp(alpha * p(x) + (1 - alpha) * q(x))  # noqa: E731
    total = sum(quad(f, a, b_, epsabs=0, epsrel=1e-10, limit=200)[0]
                for a, b_ in ((-np.inf, -5), (-5, 0), (0, 5), (5, np.inf)))
    return math.log(total) / (alpha - 1)


def _quad_delta(eps, P, Q, sd):
    from scipy.integrate import quad
    p, q = _log_density(P, sd), _log_density(Q, sd)
    f = lambda x: max(math.exp(p(x)) - math.exp(eps + q(x)), 0.0)  # noqa: E731
    return sum(quad(f, a, a + 1, epsabs=1e-12, limit=200)[0] for a in range(-15, 15))


@pytest.mark.parametrize("family, extra", [("subsampled_quadratic", {}), ("projected_quadratic", dict(D=40.0, cells=1024))])
def test_quadratic_under_uniform_batches_matches_the_brute_force_mixture(family, extra):
    n, b, eta, sigma, T, Delta, m = 2, 1, 0.5, 1.0, 4, 2.0, 0.6
    prof = FAMILIES[family].build(n=n, b=b, eta=eta, sigma=sigma, T=T, Delta=Delta, m=m, **extra).profile()
    P, Q, sd = _mixture_laws(n, b, eta, sigma, T, 0.0, -Delta, m)
    tol = 4 * prof.error + 1e-6
    for alpha in (2.0, 4.0):
        assert prof.renyi(alpha, "forward") == pytest.approx(_quad_renyi(alpha, P, Q, sd), rel=tol)
        assert prof.renyi(alpha, "backward") == pytest.approx(_quad_renyi(alpha, Q, P, sd), rel=tol)
    for eps in (0.0, 1.0):
        assert prof.delta(eps, "backward") == pytest.approx(_quad_delta(eps, Q, P, sd), abs=tol)


def test_projected_quadratic_one_step_from_off_centre_is_the_closed_form():
    # T = 1 from x0: theta_1 = Proj_[-D/2, D/2]((1 - eta m) x0 + eta Y + eta Z): atoms and a mixture density
    import mpmath
    n, b, eta, sigma, Delta, D, m, x0 = 3, 1, 0.5, 0.8, 1.5, 2.0, 0.7, 0.6
    prof = FAMILIES["projected_quadratic"].build(n=n, b=b, eta=eta, sigma=sigma, T=1, Delta=Delta, D=D, m=m,
                                                 x0=x0, cells=2048).profile()
    centre, s, q = (1 - eta * m) * x0, eta * sigma, b / n
    P = [(1.0, centre)]
    Q = [(1 - q, centre), (q, centre + eta * Delta / b)]

    def law(comps):
        lo = sum(w * mpmath.ncdf((-D / 2 - mu) / s) for w, mu in comps)
        hi = sum(w * (1 - mpmath.ncdf((D / 2 - mu) / s)) for w, mu in comps)
        return lo, hi, lambda x: sum(w * mpmath.npdf(x, mu, s) for w, mu in comps)

    (p_lo, p_hi, p), (q_lo, q_hi, qd) = law(P), law(Q)
    with mpmath.workdps(30):
        for alpha in (2.0, 5.0):
            inner = mpmath.quad(lambda x: p(x) ** alpha * qd(x) ** (1 - alpha), [-D / 2, 0, D / 2])
            total = inner + p_lo ** alpha * q_lo ** (1 - alpha) + p_hi ** alpha * q_hi ** (1 - alpha)
            assert prof.renyi(alpha, "forward") == pytest.approx(float(mpmath.log(total) / (alpha - 1)),
                                                                  rel=4 * prof.error + 1e-5)


@pytest.mark.parametrize("name, kwargs, match", [
    ("projected_quadratic", dict(m=1.0, M=0.5), "M >= m"),
    ("projected_quadratic", dict(m=1.0, eta=2.5), "eta"),
    ("projected_quadratic", dict(m=1.0, batches="full"), "batches"),
    ("subsampled_quadratic", dict(m=1e-6, T=5000), "m"),
])
def test_quadratic_families_refuse_bad_parameters(name, kwargs, match):
    base = dict(n=4, b=1, eta=0.5, sigma=1.0, T=3, Delta=1.0)
    if name == "projected_quadratic":
        base["D"] = 2.0
    with pytest.raises(ValueError, match=match):
        FAMILIES[name].build(**dict(base, **kwargs))


def test_quadratic_families_declare_their_constants():
    inst = FAMILIES["projected_quadratic"].build(n=4, b=1, eta=0.5, sigma=1.0, T=3, Delta=1.0, D=2.0, m=0.5)
    p = inst.params()
    assert p["L"] == pytest.approx(0.5 * 1.0 + 1.0) and p["m"] == p["M"] == 0.5 and p["q"] == 0.25
    assert "strongly_convex" in inst.loss_classes and inst.setting.constraint == "bounded"
    free = FAMILIES["subsampled_quadratic"].build(n=4, b=1, eta=0.5, sigma=1.0, T=3, Delta=1.0, m=0.5)
    assert free.setting.constraint == "none" and "L" not in free.params() and "D" not in free.params()


def test_decaying_step_sizes_match_the_brute_force_mixture():
    # eta_t = eta max(t, 1)^(-p) for the steps t = 0..T-1 (gradient and noise): the unconstrained last iterate
    # is a mixture over which steps used the record; an interval far wider than the noise stands for R
    import itertools
    n, b, eta, sigma, T, Delta, m, p = 3, 1, 0.6, 0.9, 4, 1.5, 0.5, 0.7
    steps = [eta * max(t, 1) ** -p for t in range(T)]
    gain = [math.prod(1 - steps[k] * m for k in range(t + 1, T)) for t in range(T)]
    sd = math.sqrt(sum((steps[t] * sigma * gain[t]) ** 2 for t in range(T)))
    q = b / n

    def comps(grad):
        return [(math.prod(q if u else 1 - q for u in used),
                 sum(-steps[t] * grad / b * u * gain[t] for t, u in enumerate(used)))
                for used in itertools.product((0, 1), repeat=T)]

    prof = FAMILIES["projected_quadratic"].build(n=n, b=b, eta=eta, sigma=sigma, T=T, Delta=Delta, D=30.0, m=m,
                                                 p_decay=p, cells=2048).profile()
    tol = 4 * prof.error + 1e-6
    P, Q = comps(0.0), comps(-Delta)
    for alpha in (2.0, 3.0):
        assert prof.renyi(alpha, "backward") == pytest.approx(_quad_renyi(alpha, Q, P, sd), rel=tol)
    # p = 0 is the constant-step run; T = 1 does not depend on p (only eta_0 = eta acts)
    const = dict(n=n, b=b, eta=eta, sigma=sigma, Delta=Delta, D=3.0, m=m, cells=128)
    a = FAMILIES["projected_quadratic"].build(T=3, **const).profile()
    assert FAMILIES["projected_quadratic"].build(T=3, p_decay=0.0, **const).profile().renyi(2.0) == a.renyi(2.0)
    one = FAMILIES["projected_quadratic"].build(T=1, **const).profile().renyi(2.0)
    assert FAMILIES["projected_quadratic"].build(T=1, p_decay=0.9, **const).profile().renyi(2.0) == one


def test_one_grid_chain_is_computed_once_for_every_family_that_builds_it():
    """a 1-D grid profile is shared by value of its chain (interval, start, noise, both schedules, cells),
    across families and names: bok_c16 is the interval walk of Bok et al.'s Thm C.16, and two projected quadratics
    named apart are one chain; another curvature is another chain (the curvature's affine displacement compared
    by value)."""
    walk = dict(n=4, eta=0.2, sigma=0.5, T=5, Delta=1.0, D=2.0, cells=512)
    shared = FAMILIES["interval_walk"].build(**walk).profile()
    assert FAMILIES["bok_c16"].build(**walk).profile() is shared
    quad = dict(n=4, eta=0.2, sigma=0.5, T=5, Delta=1.0, D=2.0, m=0.5, b=2)
    one = FAMILIES["projected_quadratic"].build(**quad, name="one").profile()
    assert FAMILIES["projected_quadratic"].build(**quad, name="two").profile() is one
    assert FAMILIES["projected_quadratic"].build(**{**quad, "m": 0.6}).profile() is not one
