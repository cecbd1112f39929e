"""Worst-case families per assumption class: the searched keywords (offset, position, x0, init_var),
the +-L records under replace adjacency, shuffled batches, and the AT22 Thm 5.6 instance they expose.

Every exact value is checked against an independent computation written here by hand (Gaussian closed
forms, or mpmath quadrature of the Gaussian mixtures of the last iterate).
"""

import math

import mpmath as mp
import pytest

import theorems
from verify.check import references as refs
from verify.check.soundness import compare, theorem_parameters, violates
from verify.errors import InputError
from verify.instances import FAMILIES, family
from verify.instances.families import draw_init_var, draw_offset, draw_position, draw_x0

#: Altschuler & Talwar 2022, Thm 5.6 read with constant 1: full batch as cyclic with l = 1, linear
#: losses +-L, n = b = 10, T = 20, eta = sigma = L = 1, D = 60, alpha = 2
THM56_POINT = dict(n=10.0, b=10.0, l=1.0, E=20.0, T=20.0, q=1.0, eta=1.0, sigma=1.0, Delta=2.0, L=1.0, D=60.0,
                   M=1.0, m=0.0, d=1.0, alpha=2.0)


def gaussian_renyi(alpha, gap, var):
    """D_alpha(N(a, v) || N(a + gap, v)) = alpha gap^2 / (2 v)."""
    return alpha * gap ** 2 / (2.0 * var)


def mixture_renyi(alpha, weights, means_p, means_q, var):
    """max of both directions of D_alpha between two Gaussian mixtures of one variance (mpmath quad)."""
    mp.mp.dps = 30
    sd = mp.sqrt(var)

    def law(means):
        return lambda x: mp.fsum(w * mp.npdf(x, mu, sd) for w, mu in zip(weights, means))

    p, q = law(means_p), law(means_q)
    edges = sorted(set([-mp.inf, *means_p, *means_q, mp.inf]))

    def one(a, b):
        return mp.log(mp.quad(lambda x: a(x) ** alpha * b(x) ** (1 - alpha), edges)) / (alpha - 1)

    return float(max(one(p, q), one(q, p)))


# ---------------------------------------------------------------------------------------------------
# The thm5.6 instance: a theorem stated in L is checked at gradient difference 2L
# ---------------------------------------------------------------------------------------------------


def _thm56_instance(theorem_id, **draws):
    theorem = theorems.get(theorem_id)
    instance = refs.build(FAMILIES["interval_walk"], {**THM56_POINT, **draws}, theorem)
    params = theorem_parameters(theorem, instance, THM56_POINT, 2.0)
    return theorem, instance, params


def test_the_offset_draw_puts_the_records_at_plus_minus_L_and_the_instance_says_so():
    _, instance, params = _thm56_instance("altschuler2022/thm5.6", u_offset=0.5)
    assert (instance.run.record_gradient, instance.run.record_gradient_prime) == (1.0, -1.0)
    assert instance.params()["L"] == 1.0 and instance.params()["Delta"] == 2.0  # Delta = 2L
    assert params["L"] == 1.0
    _, today, _ = _thm56_instance("altschuler2022/thm5.6")  # no draw: today's 0 vs -Delta
    assert (today.run.record_gradient, today.run.record_gradient_prime) == (0.0, -2.0)
    assert today.params()["L"] == 2.0


@pytest.mark.parametrize("theorem_id", ["altschuler2022/thm5.6", "altschuler2022/eq5.4"])
def test_at22_thm56_read_with_constant_1_is_refuted_at_gradient_difference_2L(theorem_id):
    theorem, instance, params = _thm56_instance(theorem_id, u_offset=0.5)
    # by hand: 20 steps move the means apart by eta * 2L / b each, the noise accumulates T (eta sigma)^2
    exact = gaussian_renyi(2.0, 20 * 1.0 * 2.0 / 10, 20 * 1.0)
    assert exact == pytest.approx(0.8)
    # the walls at +-30 are > 6 standard deviations (sqrt 20) from both means: the projection moves
    # the value by less than the grid's own error
    c = compare(theorem, instance, params)
    assert c.exact == pytest.approx(exact, rel=1e-3)
    assert c.bound == pytest.approx(2.0 * (1 / 100 + 20 / 100))  # 0.42: (0.01 + 0.2) doubled
    assert c.exact / c.bound == pytest.approx(2 * 20 / 21, rel=1e-3)  # exact/bound = 2T/(T+1)
    assert violates(theorem, c, params)


def test_without_the_draw_the_same_run_is_not_a_counterexample():
    theorem, instance, params = _thm56_instance("altschuler2022/thm5.6")  # L = Delta = 2: bound 1.68
    c = compare(theorem, instance, params)
    assert c.bound == pytest.approx(4 * 2.0 * (1 / 100 + 20 / 100))
    assert not violates(theorem, c, params)


# ---------------------------------------------------------------------------------------------------
# The draws and refs.build
# ---------------------------------------------------------------------------------------------------


def test_offset_draw_spans_0_vs_minus_Delta_to_Delta_vs_0_under_replace_only():
    ctx = {"Delta": 2.0, "adjacency": "replace"}
    assert [draw_offset(u, ctx) for u in (0.0, 0.5, 1.0)] == [0.0, 1.0, 2.0]
    assert draw_offset(0.5, {"Delta": 2.0, "adjacency": "add_remove"}) is None
    assert draw_offset(0.5, {"Delta": 2.0, "adjacency": None, "batches": "poisson"}) is None  # its default
    assert draw_offset(0.5, {"Delta": 2.0, "adjacency": None, "batches": "uniform"}) == 1.0


def test_position_draw_covers_every_batch_of_a_cyclic_run_only():
    ctx = {"batches": "cyclic", "n": 12, "b": 3}  # l = 4
    assert [draw_position(u, ctx) for u in (0.0, 0.25, 0.5, 0.74, 1.0)] == [0, 1, 2, 2, 3]
    assert draw_position(0.9, {"batches": "full", "n": 12, "b": None}) is None
    assert draw_position(0.9, {"batches": "cyclic", "n": 12, "b": 5}) is None  # refused by the builder anyway


def test_x0_and_init_var_draws():
    assert [draw_x0(u, {"D": 4.0, "lo": None}) for u in (0.0, 0.5, 1.0)] == [-2.0, 0.0, 2.0]
    assert draw_x0(0.2, {"D": 4.0, "lo": 1.0}) is None  # an explicit interval: no draw
    assert draw_init_var(1.0, {"init": "fixed", "eta": 0.5, "sigma": 1.0, "m": 0.5}) is None
    # Chourasia et al. 2021 Lemma 5: eta sigma^2 / m at u = 1, four decades below at u = 0
    assert draw_init_var(1.0, {"init": "gaussian", "eta": 0.5, "sigma": 2.0, "m": 0.5}) == pytest.approx(4.0)
    assert draw_init_var(0.0, {"init": "gaussian", "eta": 0.5, "sigma": 2.0, "m": 0.5}) == pytest.approx(4e-4)
    assert draw_init_var(1.0, {"init": "gaussian", "eta": 0.5, "sigma": 2.0, "m": 0.0, "T": 3}) == \
        pytest.approx(3.0)


def test_searched_names_is_the_union_over_the_registry():
    names = refs.searched_names()
    assert set(names) == {n for fam in FAMILIES.values() for n in fam.searched}
    assert {"offset", "position", "init_var"} <= set(names)
    for fam in FAMILIES.values():
        assert set(fam.searched) <= set(fam.parameters)


def test_build_draws_position_but_never_overrides_the_theorem_or_the_point():
    theorem = theorems.get("altschuler2022/thm5.6")  # cyclic
    base = dict(THM56_POINT, n=6.0, b=2.0, l=3.0, E=2.0, T=6.0)
    walk = FAMILIES["interval_walk"]
    assert refs.build(walk, base, theorem).run.position == 0
    assert refs.build(walk, dict(base, u_position=0.5), theorem).run.position == 1
    assert refs.build(walk, dict(base, u_position=1.0), theorem).run.position == 2
    assert refs.build(walk, dict(base, u_x0=0.0), theorem).run.x0 == -30.0
    assert refs.build(walk, dict(base, u_offset=1.0, offset=0.0), theorem).run.record_gradient == 0.0  # given
    full_any = theorems.get("altschuler2022/eq1.1")  # full batches: no position to draw
    assert refs.build(walk, dict(base, u_position=1.0), full_any).run.position == 0
    with pytest.raises(InputError) as info:
        refs.build(walk, dict(base, u_offset=1.5), theorem)
    assert info.value.parameter == "u_offset"


def test_an_add_remove_theorem_gets_no_offset():
    theorem = theorems.get("bu2020/thm3")  # Poisson, add/remove
    fam = FAMILIES["subsampled_linear"]
    point = dict(n=8.0, b=2.0, T=3.0, eta=1.0, sigma=1.0, Delta=1.0, u_offset=0.5)
    inst = refs.build(fam, point, theorem)
    assert inst.run.record_gradient == 0.0 and inst.setting.adjacency == "add_remove"


def test_gaussian_start_variance_is_drawn_for_a_theorem_that_asks_for_it():
    theorem = theorems.get("chourasia2021/cor1")  # init="gaussian"
    point = dict(n=2.0, b=2.0, T=4.0, eta=0.5, sigma=1.0, m=0.5, M=0.5, Delta=1.0, d=1.0, u_init_var=0.5)
    inst = refs.build(FAMILIES["quadratic_chain"], point, theorem)
    assert inst.run.init == "gaussian" and inst.run.init_var == pytest.approx(1e-2 * 0.5 * 1.0 / 0.5)
    # by hand: c = 1 - eta m; mean gap sum_k c^k eta Delta / n; variance c^{2T} v0 + (eta sigma)^2 sum_k c^{2k}
    c, v0 = 0.75, 0.01
    gap = sum(c ** k for k in range(4)) * 0.5 * 1.0 / 2
    var = c ** 8 * v0 + 0.25 * sum(c ** (2 * k) for k in range(4))
    assert inst.profile().renyi(3.0) == pytest.approx(gaussian_renyi(3.0, gap, var), rel=1e-12)
    fixed = refs.build(FAMILIES["quadratic_chain"], point, theorems.get("chourasia2021/thm1"))
    assert fixed.run.init == "fixed"  # a theorem covering both starts gets the worst one, the fixed start


# ---------------------------------------------------------------------------------------------------
# +-L records under every batching, and shuffled batches
# ---------------------------------------------------------------------------------------------------


def test_uniform_batches_plus_minus_L_against_the_binomial_mixture():
    n, b, T, eta, sigma, Delta = 4, 1, 3, 1.0, 1.0, 2.0
    inst = family("subsampled_linear").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, batches="uniform",
                                             offset=Delta / 2)
    assert inst.params()["L"] == 1.0 and inst.setting.adjacency == "replace"
    q = b / n
    weights = [math.comb(T, k) * q ** k * (1 - q) ** (T - k) for k in range(T + 1)]
    move = eta * (Delta / 2) / b  # D's record (gradient +L) moves down, D''s (-L) up, per use
    ref = mixture_renyi(2.0, weights, [-k * move for k in range(T + 1)], [k * move for k in range(T + 1)],
                        T * (eta * sigma) ** 2)
    assert inst.profile().renyi(2.0) == pytest.approx(ref, rel=1e-4)


def test_poisson_replace_offset_moves_L_not_the_difference():
    inst = family("subsampled_linear").build(n=8, b=2, T=4, eta=1.0, sigma=1.0, Delta=1.0, batches="poisson",
                                             adjacency="replace", offset=0.25)
    assert inst.params()["L"] == 0.75 and inst.params()["Delta"] == 1.0
    with pytest.raises(InputError) as info:
        family("subsampled_linear").build(n=8, b=2, T=4, eta=1.0, sigma=1.0, Delta=1.0, batches="poisson",
                                          offset=0.25)  # add/remove by default: the record is absent from D
    assert info.value.parameter == "offset"


def test_shuffled_whole_epochs_are_the_gaussian_closed_form():
    n, b, T, eta, sigma, Delta = 10, 2, 15, 0.5, 1.0, 2.0  # l = 5, E = 3
    chain = family("linear_chain").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, batches="shuffle")
    walk = family("subsampled_linear").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, batches="shuffle",
                                             offset=Delta / 2)
    assert chain.setting.batches == walk.setting.batches == "shuffle"
    assert chain.params()["E"] == walk.params()["E"] == 3
    ref = gaussian_renyi(2.0, 3 * eta * Delta / b, T * (eta * sigma) ** 2)
    assert chain.profile().renyi(2.0) == pytest.approx(ref, rel=1e-12)
    assert walk.profile().renyi(2.0) == pytest.approx(ref, rel=1e-4)
    with pytest.raises(InputError) as info:
        family("linear_chain").build(n=n, b=b, T=13, eta=eta, sigma=sigma, Delta=Delta, batches="shuffle")
    assert info.value.parameter == "T"


def test_shuffled_partial_epoch_is_a_two_point_mixture():
    n, b, T, eta, sigma, Delta = 10, 2, 13, 0.5, 1.0, 2.0  # l = 5: E = 2 epochs and 3 of 5 steps
    walk = family("subsampled_linear").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, batches="shuffle",
                                             offset=Delta / 2)
    move = eta * (Delta / 2) / b
    ref = mixture_renyi(2.0, [0.4, 0.6], [-2 * move, -3 * move], [2 * move, 3 * move], T * (eta * sigma) ** 2)
    assert walk.profile().renyi(2.0) == pytest.approx(ref, rel=1e-4)


def test_linear_chain_position_does_not_matter_unconstrained():
    kwargs = dict(n=6, b=2, T=6, eta=0.5, sigma=1.0, Delta=1.0, batches="cyclic")
    ref = gaussian_renyi(2.0, 2 * 0.5 * 1.0 / 2, 6 * 0.25)
    for position in range(3):
        inst = family("linear_chain").build(position=position, **kwargs)
        assert inst.profile().renyi(2.0) == pytest.approx(ref, rel=1e-12)


def test_full_batch_dpsgd_replace_offset():
    inst = family("dpsgd_full_batch").build(n=5, eta=1.0, sigma=1.0, T=4, Delta=2.0, adjacency="replace",
                                            offset=1.0)
    assert inst.params()["L"] == 1.0
    assert inst.profile().mu == pytest.approx(math.sqrt(4) * 2.0 / (5 * 1.0))  # sqrt(T) Delta / (n sigma)
    with pytest.raises(InputError) as info:
        family("dpsgd_full_batch").build(n=5, eta=1.0, sigma=1.0, T=4, Delta=2.0, offset=1.0)
    assert info.value.parameter == "offset"


def test_projected_quadratic_offset_states_its_lipschitz_constant():
    inst = family("projected_quadratic").build(n=4, b=1, eta=0.5, sigma=1.0, T=3, Delta=2.0, D=2.0, m=0.5,
                                               offset=1.0, cells=64)
    assert inst.params()["L"] == pytest.approx(0.5 * 1.0 + 1.0)  # m D/2 + max(|g|, |g'|)


def test_projected_shuffled_walk_averages_the_position_paths():
    # brute force, independent of the epoch algebra: every assignment of the record's batch in each of
    # the 3 epochs (2 whole, 1 partial) evolved as its own cyclic path, then averaged (3^3 paths)
    import itertools

    from verify.instances.grid import IntervalGrid, Mixture, evolve_many
    from verify.instances.profile import DiscreteProfile

    n, b, T, eta, sigma, Delta, D, cells = 6, 2, 7, 1.0, 1.0, 2.0, 3.0, 128  # l = 3
    inst = family("interval_walk").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, D=D, batches="shuffle",
                                         offset=1.0, cells=cells)
    assert inst.setting.batches == "shuffle" and inst.params()["L"] == 1.0
    grid = IntervalGrid(-D / 2, D / 2, cells)
    still = Mixture((1.0,), (0.0,))
    P = Q = 0.0
    for batch in itertools.product(range(3), repeat=3):
        uses = [batch[t // 3] == t % 3 for t in range(T)]
        sch_d = [Mixture((1.0,), (-eta * 1.0 / b,)) if u else still for u in uses]
        sch_p = [Mixture((1.0,), (eta * 1.0 / b,)) if u else still for u in uses]
        (p, q), _ = evolve_many(grid, 0.0, eta * sigma, [sch_d, sch_p], T, "dense")
        P, Q = P + p / 27, Q + q / 27
    ref = DiscreteProfile(P, Q, support=grid.support)
    for alpha in (2.0, 5.0):
        assert inst.profile().renyi(alpha) == pytest.approx(ref.renyi(alpha), rel=1e-10)


def test_shuffled_walk_far_from_its_walls_is_the_unconstrained_mixture():
    n, b, T, eta, sigma, Delta = 6, 2, 7, 1.0, 1.0, 2.0  # l = 3: 2 epochs, then the record with probability 1/3
    inst = family("interval_walk").build(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=Delta, D=40.0,
                                         batches="shuffle", offset=1.0, cells=1024)
    move = eta * 1.0 / b
    ref = mixture_renyi(2.0, [2 / 3, 1 / 3], [-2 * move, -3 * move], [2 * move, 3 * move], T * (eta * sigma) ** 2)
    profile = inst.profile()  # the walls are 7 standard deviations away: the grid's own error dominates
    assert abs(profile.renyi(2.0) - ref) <= profile.error_of("renyi", 2.0)
    assert profile.renyi(2.0) == pytest.approx(ref, rel=1e-3)


def test_projected_shuffled_walk_matches_a_simulation_of_the_shuffled_algorithm():
    # Monte Carlo of the algorithm itself, written here: each epoch a fresh permutation puts the record
    # in a uniform batch of l = 3; projected steps on [-2, 2]; the law of theta_T under D.  These
    # parameters tell shuffle apart from uniform batches (CDFs 0.03 to 0.06 apart) and from every
    # cyclic position, far beyond the 5e-3 tolerance (4 standard errors of 200k runs)
    import numpy as np

    n, b, T, eta, sigma, D, cells = 3, 1, 7, 1.0, 0.5, 4.0, 1024
    kwargs = dict(n=n, b=b, T=T, eta=eta, sigma=sigma, Delta=2.0, D=D, offset=1.0, cells=cells)
    P = family("interval_walk").build(batches="shuffle", **kwargs).profile().p
    support = np.concatenate([[-D / 2], -D / 2 + (np.arange(cells) + 0.5) * D / cells, [D / 2]])
    rng = np.random.default_rng(7)
    runs = 200_000
    batch = rng.integers(0, 3, size=(runs, 3))  # the record's batch in epochs 0, 1, 2
    theta = np.zeros(runs)
    for t in range(T):
        used = batch[:, t // 3] == t % 3
        theta = np.clip(theta - eta * (1.0 / b) * used + eta * sigma * rng.standard_normal(runs), -D / 2, D / 2)
    points = (-1.5, -1.0, -0.5, 0.0, 0.5)
    for x in points:
        assert np.mean(theta <= x) == pytest.approx(P[support <= x].sum(), abs=5e-3)
    assert np.mean(theta == -D / 2) == pytest.approx(P[0], abs=3e-3)  # the atoms at the walls
    assert np.mean(theta == D / 2) == pytest.approx(P[-1], abs=3e-3)
    uniform = family("interval_walk").build(batches="uniform", **kwargs).profile().p
    assert max(abs(P[support <= x].sum() - uniform[support <= x].sum()) for x in points) > 0.03
