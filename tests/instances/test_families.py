"""Families: derived constants, settings, invalid instances, and the composition references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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
    ("quadratic_chain", dict(BASE, m=2.0, M=1.0, Delta=1.0), "m <= M"),
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
    """theta' = c theta (DESIGN.md §3): Delta/c, m/c^2, M/c^2, eta c^2, sigma/c leave the privacy unchanged."""
    a = FAMILIES["bok_thm42"].build(n=n, eta=eta, sigma=sigma, T=T, m=0.5, M=0.9, Delta=Delta)
    b = FAMILIES["bok_thm42"].build(n=n, eta=eta * c * c, sigma=sigma / c, T=T, m=0.5 / c ** 2, M=0.9 / c ** 2,
                                    Delta=Delta / c)
    assert b.profile().mu == pytest.approx(a.profile().mu, rel=1e-10)


_junk = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.text(max_size=2),
                  st.just([1.0, 2.0]))


@settings(deadline=None, max_examples=60)
@given(name=st.sampled_from(sorted(FAMILIES)), key=st.sampled_from(["n", "eta", "sigma", "T", "Delta", "b", "m", "M", "D", "d", "position", "batches", "E", "init"]),
       value=_junk)
def test_bad_parameters_never_raise_anything_but_value_error(name, key, value):
    """Corrupting one parameter of a valid call gives an instance or a ValueError, never another error."""
    valid = {
        "quadratic_chain": dict(BASE, m=0.5, M=2.0, Delta=1.0),
        "linear_chain": dict(BASE, Delta=1.0),
        "bok_thm42": dict(BASE, m=0.5, M=2.0, Delta=1.0),
        "bok_c17": dict(n=10, b=5, eta=0.1, sigma=1.0, E=3, m=0.5, M=2.0, Delta=1.0),
        "chourasia_thm3": dict(BASE, Delta=1.0),
        "interval_walk": dict(BASE, Delta=1.0, D=2.0, cells=32),
        "bok_c16": dict(BASE, Delta=1.0, D=2.0, cells=32),
        "at22_thm41": dict(BASE, Delta=1.0, D=2.0, cells=32),
        "subsampled_linear": dict(BASE, Delta=1.0, b=2, cells=64),
        "dpsgd_worst_step": dict(BASE, Delta=1.0, b=2),
        "gaussian_mechanism": dict(n=10, sigma=1.0, Delta=1.0),
        "bok_cor52": dict(m=0.5, Delta=1.0),
        "langevin_quadratic": dict(eta=0.1, T=5, m=0.5, M=2.0, Delta=1.0),
    }[name]
    kwargs = dict(valid, **{key: value})
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
    """Bu et al. 2020 Fig. 5 setting (catalogue §8): sigma = 1.1, T = 234, p = (256/60000) sqrt(14062.5/234).
    The catalogue's exact one-sided f = T(P^T, GM^T); the profile is the symmetrised curve (<= f)."""
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
