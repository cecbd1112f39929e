"""Exact expected excess risk of noisy GD on a strongly convex quadratic over a box (Chourasia et al. 2021,
Lemma 6 and Theorem 4).

The run: every record has the loss ``l(theta) = (m/2) ||theta||^2`` (so ``L_D`` has its minimiser
``theta* = 0`` and ``L_D(theta) - L_D(theta*) = (m/2) ||theta||^2``), the constraint set is the box
``C = [-D/(2 sqrt d), D/(2 sqrt d)]^d`` of diameter ``D`` centred at ``theta*``, full batches, and the start
is ``theta_0 ~ Pi_C(N(x0 1, v0 I))`` with Lemma 5's variance ``v0 = 2 sigma_C^2/lambda = eta sigma^2/m``
(canonical units, docs/conventions.md).  The paper centres the start at 0 and lets C be any closed convex set; a
translation of both is the same run, so ``x0`` is where the start sits relative to ``theta*``.  On this
box each loss is ``L``-Lipschitz with ``L = m D/2`` exactly, so ``diam(C) = 2L/m``: the largest diameter
Lemma 6's assumptions allow.  The loss, the box, the start and the noise are separable, so the
coordinates are independent copies of one 1-D chain and the excess risk is ``d`` times the 1-D one.

The 1-D excess risk ``(m/2) E[theta_T^2]`` is computed one of two ways (``method``):

* ``closed_form``: the unprojected chain is Gaussian, ``theta_t ~ N(a^t x0, a^{2t} v0 + eta^2 sigma^2
  G(a^2, t))`` with ``a = 1 - eta m`` (:class:`verify.instances.chain.QuadraticRun`).  Driven by the same
  start draw and the same noise, the projected and the unprojected chains coincide unless the unprojected
  one leaves C at some ``t <= T`` (probability ``P_out``, bounded over blocks of steps by Lévy's maximal
  inequality, :func:`_log_exit`);
  on that event ``theta_T^2 <= R^2`` (``R`` the half side) for the projected chain, hence
  ``|E_proj - E_free| <= (m/2) (R^2 P_out + sqrt(E[theta_T^4] P_out))`` (Cauchy-Schwarz), a certified
  error.  Used when that error is below ``CERTIFIED`` relative.
* ``grid``: the law of the projected chain on the grid of :mod:`verify.instances.grid` (atoms at the box
  ends, a dense transition matrix applied ``T`` times, or its power by repeated squaring), started from the
  projected Gaussian itself; the error is the refinement estimate against a grid twice as coarse.

``auto`` takes the closed form when it is certified, else the grid when it resolves the per-step noise
within its budget, else refuses (:class:`~verify.errors.InputError`: no evidence, the search skips it).
What stays out of reach: a small ``eta m`` (the grid needs ``>> 1e3`` cells over ``~ 1/(eta m)`` steps) on a
box only a few stationary standard deviations wide (the projection matters, no certificate).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy.special import log_ndtr

from verify.errors import InputError, PointRefused
from verify.instances.chain import QuadraticRun, one_minus_power
from verify.instances.grid import DENSE_MAX_CELLS, IntervalGrid, Mixture
from verify.instances.instance import Instance, RunDescription
from verify.instances.registry import register_family
from verify.logspace import logsumexp
from verify.setting import Setting, loss_classes
from verify.validate import choice, finite, integer, positive
from verify.vocabulary import check_curvatures

#: relative certified error below which the closed form (projection ignored) is used
CERTIFIED = 1e-9
#: relative refinement error above which a grid result is refused as unresolved
GRID_TOLERANCE = 1e-2
#: flops a grid reference may spend (C^2 per step, or C^3 per squaring; two grids)
GRID_BUDGET = 1.5e8
#: the most cells a grid reference takes by itself (a dense step matrix of (C+2)^2 doubles and its temporaries)
MAX_CELLS = 1024
#: the most blocks the bound on the projection's effect sums (longer runs take longer blocks)
MAX_BLOCKS = 200_000


@dataclasses.dataclass(frozen=True)
class RiskProfile:
    """The exact expected excess risk of a run's last iterate (a utility reference, no privacy pair).

    ``excess_risk`` is ``E[L_D(theta_T)] - L_D(theta*)``; ``error`` its relative error bound (certified for
    the closed form, a refinement estimate for the grid); ``method`` how it was computed.  The privacy
    queries refuse with :class:`~verify.errors.InputError` (a privacy theorem that draws such an instance
    skips it as no evidence).
    """

    excess_risk: float
    error: float
    method: str
    mu = None

    def _none(self, *args, **kwargs):
        raise InputError("a utility reference has no privacy profile (a single dataset)", "profile")

    renyi = delta = eps = _none


def _moments(m: float, eta: float, sigma: float, x0: float, v0: float, T: int) -> tuple[float, float]:
    """Mean and variance of the unprojected 1-D chain after ``T`` steps (closed form in T)."""
    run = QuadraticRun(np.array([m]), np.zeros((1, 1)), eta, sigma, T, np.array([x0]), v0)
    return float(run.mean()[0]), float(run.variances()[0])


def _log_exit(m: float, eta: float, sigma: float, x0: float, v0: float, T: int, R: float) -> float:
    """log of a bound on P(the unprojected chain leaves [-R, R] at some t = 0..T).

    ``theta_t = mu_t + N_t`` with ``mu_t = a^t x0`` and ``N_t = a^t (xi - eta sum_{s<t} a^{-1-s} Z_s)`` (``xi``
    the start's deviation): ``a^{-t} N_t`` are partial sums of independent symmetric Gaussians, so over a
    block ``t0 <= t <= t1`` Lévy's maximal inequality and ``a^t <= a^{t0}`` (``0 < a < 1``) give
    ``P(max |N_t| > r) <= 2 P(|N_{t1}| > r a^{t1 - t0})``, and ``|mu_t| <= |mu_{t0}|``.  Blocks of ``B`` steps
    with ``a^B >= e^{-1/20}`` (at most :data:`MAX_BLOCKS` of them); a block of one step uses its exact
    Gaussian tails.
    """
    x = eta * m
    B = max(1, int(0.05 / -math.log1p(-x)), -(-(T + 1) // MAX_BLOCKS))
    t0 = np.arange(0, T + 1, B, dtype=float)
    t1 = np.minimum(t0 + B - 1, T)
    mean = (1.0 - one_minus_power(x, t0)) * abs(x0)  # |mu_{t0}|, the largest |mu_t| of the block
    # the variances of theta_{t1} (the chain's closed form, broadcast over the block ends)
    std = np.sqrt(QuadraticRun(np.array([m]), np.zeros((1, 1)), eta, sigma, t1, np.zeros(1), v0).variances())
    shrink = 1.0 - one_minus_power(x, t1 - t0)  # a^{t1 - t0}
    with np.errstate(divide="ignore"):
        single = np.logaddexp(log_ndtr((-R - mean) / std), log_ndtr((mean - R) / std))
        block = math.log(4.0) + log_ndtr(-(R - mean) * shrink / std)
    return float(logsumexp(np.where(t1 == t0, single, block)))


def closed_form_risk(m: float, eta: float, sigma: float, T: int, R: float, x0: float, v0: float) -> tuple[float, float]:
    """``((m/2) E[theta_T^2], certified absolute error)`` of the 1-D chain projected on ``[-R, R]``
    (module docstring: the free chain's closed form, and the most the projection can change it)."""
    mean, var = _moments(m, eta, sigma, x0, v0, T)
    risk = 0.5 * m * (mean ** 2 + var)
    fourth = mean ** 4 + 6 * mean ** 2 * var + 3 * var ** 2  # E[theta_T^4] of N(mean, var)
    p_out = math.exp(min(_log_exit(m, eta, sigma, x0, v0, T, R), 0.0))
    return risk, 0.5 * m * (R ** 2 * p_out + math.sqrt(fourth * p_out))


def _grid_law(m: float, eta: float, sigma: float, T: int, R: float, x0: float, v0: float,
              cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Support and law of the projected 1-D chain's ``theta_T`` on a grid of ``cells`` cells."""
    grid = IntervalGrid(-R, R, cells)
    start = grid.row(np.array(x0), math.sqrt(v0))  # Pi_C(N(x0, v0)) on the grid
    step = grid.dense(Mixture((1.0,), (lambda theta: -eta * m * theta,)), eta * sigma)
    if T <= cells * (2 * math.log2(max(T, 2)) + 1):  # stepping costs T C^2, squaring C^3 (2 log2 T + 1)
        state = start
        for _ in range(T):
            state = state @ step
    else:  # repeated squaring: log2(T) products of (C+2)^2 matrices
        state, power, k = start, step, T
        while k:
            if k & 1:
                state = state @ power
            k >>= 1
            if k:
                power = power @ power
    return grid.support, state / state.sum()


def grid_risk(m: float, eta: float, sigma: float, T: int, R: float, x0: float, v0: float,
              cells: int) -> tuple[float, float]:
    """``((m/2) E[theta_T^2], refinement error)`` of the 1-D chain projected on ``[-R, R]`` (grid)."""
    values = []
    for c in (cells, cells // 2):
        support, law = _grid_law(m, eta, sigma, T, R, x0, v0, c)
        values.append(0.5 * m * float(np.dot(law, support ** 2)))
    return values[0], abs(values[0] - values[1])


def _wanted(eta: float, sigma: float, R: float) -> int:
    """Cells of width <= eta sigma / 8 on [-R, R], at least 64: the mass-at-the-centre rounding of each step
    then adds about 1/768 of the per-step noise variance, well inside :data:`GRID_TOLERANCE`."""
    return max(64, int(math.ceil(16.0 * R / (eta * sigma))))


def _grid_cells(eta: float, sigma: float, R: float, T: int, cells) -> int | None:
    """Cells resolving the per-step noise (:func:`_wanted`), None beyond the budget."""
    if cells is not None:
        return integer("cells", cells, "excess_risk_1d", low=8, high=DENSE_MAX_CELLS)
    want = _wanted(eta, sigma, R)
    if want > MAX_CELLS:
        return None
    cost = min(T * want ** 2, want ** 3 * (2 * math.log2(max(T, 2)) + 1))
    return want if cost <= GRID_BUDGET else None


def excess_risk_1d(m: float, eta: float, sigma: float, T: int, R: float, x0: float, v0: float,
                   method: str = "auto", cells=None) -> RiskProfile:
    """The exact ``E[(m/2) theta_T^2]`` of noisy GD projected on ``[-R, R]`` from ``Pi(N(x0, v0))``
    (module docstring), as a :class:`RiskProfile` with its relative error."""
    where = "excess_risk_1d"
    choice("method", method, ("auto", "closed_form", "grid"), where)
    if method in ("auto", "closed_form"):
        risk, error = closed_form_risk(m, eta, sigma, T, R, x0, v0)
        if method == "closed_form" or error <= CERTIFIED * risk:
            return RiskProfile(risk, error / risk if risk > 0 else math.inf, "closed_form")
    c = _grid_cells(eta, sigma, R, T, cells)
    if c is None:
        raise PointRefused(f"the projection matters and the grid is beyond its budget ({_wanted(eta, sigma, R)} "
                           f"cells, T = {T})", "D", where)
    risk, error = grid_risk(m, eta, sigma, T, R, x0, v0, c)
    relative = error / risk if risk > 0 else math.inf
    if method == "auto" and relative > GRID_TOLERANCE:
        raise PointRefused(f"the grid does not resolve the excess risk (refinement error {relative:.2g})", "cells",
                           where)
    return RiskProfile(risk, relative, "grid")


def _start(m: float, eta: float, sigma: float, T: int, R: float, v0: float, x0, method: str) -> float:
    """The start's mean: ``x0`` when given, else as far from ``theta* = 0`` as the reference allows.

    The closed form needs the start (and the whole path) inside the box up to :data:`CERTIFIED`: the first
    of ``6, 8, 10, 12, 16, 24, 32`` start standard deviations inside the lower end that certifies it, if
    that is in the outer quarter of the box; else the end itself when the grid can carry the projected
    start; else the farthest certified start among those, ``-R/2`` and the centre; else the end (the
    reference then refuses).
    """
    if x0 is not None:
        return finite("x0", x0, "utility")
    if method == "grid":
        return -R

    def certified(x: float) -> bool:
        risk, error = closed_form_risk(m, eta, sigma, T, R, x, v0)
        return error <= CERTIFIED * risk

    inside = [-R + k * math.sqrt(v0) for k in (6, 8, 10, 12, 16, 24, 32)]
    inside = [x for x in inside if x < 0] + [-R / 2, 0.0]
    outer = [x for x in inside if x <= -0.75 * R]
    found = next((x for x in outer if certified(x)), None)
    if found is not None:
        return found
    if method == "auto" and _grid_cells(eta, sigma, R, T, None) is not None:
        return -R
    found = next((x for x in inside if x > -0.75 * R and certified(x)), None)
    return -R if found is None else found


def _risk_instance(where: str, name: str, eta, sigma, T, m, M, D, d, x0, method, cells,
                   extra: dict[str, float], source: str) -> Instance:
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where)
    D = positive("D", D, where)
    d = integer("d", d, where, high=10 ** 6)
    m = positive("m", m, where)
    if eta * m >= 1:  # (Lemma 6's eta <= m/(2M^2) gives eta m <= 1/2)
        raise InputError(f"need eta*m < 1, got {eta * m}", "eta", where)
    M = m if M is None else positive("M", M, where)
    check_curvatures(m, M, where)
    R = D / (2.0 * math.sqrt(d))  # half the side of the box
    v0 = eta * sigma ** 2 / m  # Chourasia et al. 2021, Lemma 5: 2 sigma_C^2 / lambda
    choice("method", method, ("auto", "closed_form", "grid"), where)
    start = _start(m, eta, sigma, T, R, v0, x0, method)
    if not -R <= start <= R:
        raise InputError(f"x0 = {start} lies outside the box's side [{-R}, {R}]", "x0", where)
    if cells is not None:
        cells = integer("cells", cells, where, low=8, high=DENSE_MAX_CELLS)

    def compute() -> RiskProfile:  # on first use: building is cheap, applicability is decided first
        one = excess_risk_1d(m, eta, sigma, T, R, start, v0, method, cells)
        return RiskProfile(d * one.excess_risk, one.error, one.method)

    constants = {"eta": eta, "sigma": sigma, "T": float(T), "m": m, "M": M, "D": D, "d": float(d),
                 "L": m * D / 2.0, **extra}
    setting = Setting(algorithm="noisy_gd", batches="full", loss="quadratic", constraint="bounded",
                      adjacency="replace", init="gaussian", release="last")
    run = RunDescription(kind="gaussian_chain", loss="(m/2)||theta||^2 on a box", T=T, eta=eta, sigma=sigma,
                         batches="full", init="gaussian", eigenvalues=np.full(d, m), init_mean=np.full(d, start),
                         init_var=v0, projection=(-R, R), interval=(-R, R), method=method, source=source)
    name = name or f"{where}(T={T}, eta={eta:.4g}, sigma={sigma:.4g}, m={m:.4g}, M={M:.4g}, D={D:.4g}, d={d})"
    return Instance(name=name, family=where, setting=setting, loss_classes=loss_classes("squared"),
                    constants=constants, run=run, compute=compute)


def box_quadratic(eta, sigma, T, m, D, M=None, d=1, x0=None, method="auto", cells=None, name=None) -> Instance:
    """Noisy GD on ``(m/2)||theta||^2`` over a box of diameter ``D``, Gaussian start: exact excess risk.

    The worst case of Chourasia et al. 2021, Lemma 6 within quadratics: ``L = m D/2`` (the box is as wide as
    ``diam(C) <= 2L/m`` allows) and the start sits at the end of the box, as far from ``theta* = 0`` as the
    reference allows (``x0``, default: see the module docstring).  ``M >= m`` is a declared smoothness
    constant.  ``method``: ``auto``, ``closed_form`` or ``grid`` (module docstring).
    """
    where = "box_quadratic"
    return _risk_instance(where, name, eta, sigma, T, m, M, D, d, x0, method, cells, {},
                          "Chourasia et al. 2021, Lemma 6 (worst quadratic)")


def _calibrated(where: str, n, m, M, L, d, alpha: float, eps_rdp: float, budget_ratio, x0, method, cells, extra,
                name) -> Instance:
    """The run of Chourasia et al. 2021, Theorem 4 calibrated to (alpha, eps')-RDP: eta = m/(2M^2),
    sigma_C^2 = 4 alpha L^2/(m eps' n^2) (canonical sigma^2 = 2 sigma_C^2/eta), K* = (2M^2/m^2) log(ratio)
    rounded up, ``ratio = budget_ratio(n, d)`` the statement's own (n^2 eps'/(alpha d) for the RDP version);
    the box of diameter 2L/m (the largest Lemma 6 allows)."""
    n = integer("n", n, where)
    m = positive("m", m, where)
    M = positive("M", M, where)
    L = positive("L", L, where)
    d = integer("d", d, where, high=10 ** 6)
    check_curvatures(m, M, where)
    ratio = budget_ratio(n, d)
    if not ratio > 1:
        raise InputError(f"K* > 0 needs a budget ratio > 1 (n^2 eps' > alpha d), got {ratio:.4g}", "n", where)
    eta = m / (2 * M ** 2)
    sigma_c2 = 4 * alpha * L ** 2 / (m * eps_rdp * n ** 2)
    K = 2 * M ** 2 / m ** 2 * math.log(ratio)
    if not K <= 1e15:
        raise PointRefused(f"K* = {K:.3g} steps is beyond the references' range", "m", where)
    K = max(math.ceil(K), 1)
    sigma = math.sqrt(2 * sigma_c2 / eta)
    return _risk_instance(where, name, eta, sigma, K, m, M, 2 * L / m, d, x0, method, cells,
                          {"n": float(n), "L": L, **extra},
                          "Chourasia et al. 2021, Theorem 4 (calibrated run)")


def _gaussian_start(init, where: str) -> None:
    """Theorem 4's run starts from Lemma 5's Gaussian law, and says so: ``init`` is required (a statement
    about another start, or a conversion between notions reading ``alpha`` and ``eps_rdp`` as an
    instance's own RDP, does not build these instances)."""
    choice("init", init, ("gaussian",), where)


def chourasia_thm4_rdp(n, m, M, L, alpha, eps_rdp, init, d=1, x0=None, method="auto", cells=None,
                       name=None) -> Instance:
    """Chourasia et al. 2021, Theorem 4 (RDP version): noisy GD calibrated to (alpha, eps')-RDP on the
    worst quadratic of :func:`box_quadratic`; exact excess risk of the last iterate ``theta_{K*}``.
    ``alpha`` and ``eps_rdp`` are the calibration's target, not the instance's own Rényi divergence
    (its two runs are not a neighbouring pair); ``init`` must be ``"gaussian"``."""
    where = "chourasia_thm4_rdp"
    _gaussian_start(init, where)
    alpha = positive("alpha", alpha, where)
    if alpha <= 1:
        raise InputError(f"alpha must be > 1, got {alpha}", "alpha", where)
    eps_rdp = positive("eps_rdp", eps_rdp, where)
    return _calibrated(where, n, m, M, L, d, alpha, eps_rdp, lambda n, d: n ** 2 * eps_rdp / (alpha * d), x0,
                       method, cells, {"alpha": alpha, "eps_rdp": eps_rdp}, name)


def chourasia_thm4_dp(n, m, M, L, eps, delta, init, d=1, x0=None, method="auto", cells=None,
                      name=None) -> Instance:
    """Chourasia et al. 2021, Theorem 4 ((eps, delta) version): the RDP calibration at
    ``alpha = 1 + (2/eps) log(1/delta)``, ``eps' = eps/2`` (so sigma_C^2 = 8 L^2 (eps + 2 log(1/delta))/(m eps^2
    n^2)), run for the stated ``K* = (2M^2/m^2) log(n^2 eps^2/(4 log(1/delta) d))`` rounded up.  ``eps`` and
    ``delta`` are the calibration's target; ``init`` must be ``"gaussian"``."""
    where = "chourasia_thm4_dp"
    _gaussian_start(init, where)
    eps = positive("eps", eps, where)
    delta = positive("delta", delta, where)
    if delta >= 1:
        raise InputError(f"delta must be < 1, got {delta}", "delta", where)
    log_inv = math.log(1 / delta)
    return _calibrated(where, n, m, M, L, d, 1 + 2 * log_inv / eps, eps / 2,
                       lambda n, d: n ** 2 * eps ** 2 / (4 * log_inv * d), x0, method, cells,
                       {"eps": eps, "delta": delta}, name)


SETTING = Setting(batches="full", loss="quadratic", constraint="bounded", adjacency="replace", init="gaussian")
EXACTNESS = ("closed form of the unprojected Gaussian chain with a certified bound on the projection's effect "
             "(relative <= 1e-9), else the 1-D grid (projected start, dense transition) with its refinement "
             "error; d identical independent coordinates")

register_family("box_quadratic", box_quadratic, setting=SETTING, cost="closed_form", exactness=EXACTNESS,
                run_kind="gaussian_chain", source="Chourasia et al. 2021, Lemma 6 (worst quadratic)",
                example=dict(eta=0.1, sigma=1.0, T=5, m=0.5, D=2.0))
register_family("chourasia_thm4_rdp", chourasia_thm4_rdp, setting=SETTING, cost="closed_form", exactness=EXACTNESS,
                run_kind="gaussian_chain", source="Chourasia et al. 2021, Theorem 4, eq. (21)",
                example=dict(n=1000, m=0.5, M=1.0, L=1.0, alpha=2.0, eps_rdp=1.0, init="gaussian"))
register_family("chourasia_thm4_dp", chourasia_thm4_dp, setting=SETTING, cost="closed_form", exactness=EXACTNESS,
                run_kind="gaussian_chain", source="Chourasia et al. 2021, Theorem 4, eq. (22)",
                example=dict(n=1000, m=0.5, M=1.0, L=1.0, eps=1.0, delta=1e-05, init="gaussian"))

__all__ = ["CERTIFIED", "RiskProfile", "box_quadratic", "chourasia_thm4_dp", "chourasia_thm4_rdp",
           "closed_form_risk", "excess_risk_1d", "grid_risk"]
