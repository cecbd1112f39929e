"""Mechanisms without iterations to evolve: composed Gaussian mechanisms and the sampled Gaussian pair.

* :func:`dpsgd_full_batch`: DP-SGD on full batches releasing every iterate is the T-fold composition
  of one Gaussian mechanism (Bu et al. 2020, footnote 4); the joint law of the T released noisy
  gradients is a pair of T-dimensional Gaussians of equal covariance, exactly ``mu``-GDP with ``mu``
  the Mahalanobis distance of their means (Dong, Roth, Su 2022, Thm 2).
* :func:`sampled_gaussian` / :func:`at22_sampled_gaussian`: the 1-D pair ``P = N(0, s^2)``,
  ``Q = (1-q) N(0, s^2) + q N(1, s^2)`` (the Poisson-subsampled Gaussian mechanism under add/remove,
  ``s = z`` in units of the sensitivity).  Rényi divergences by numerical quadrature (scipy) in log
  space with quad's own error estimate; hockey-stick divergences and tradeoffs in closed form, because
  the likelihood ratio ``dQ/dP(x) = 1 - q + q exp((2x - 1) / (2 s^2))`` is increasing in ``x`` (every
  likelihood-ratio test is a threshold test).  ``at22_sampled_gaussian`` is the *ordered* pair of
  Altschuler–Talwar 2022 Def. 2.10: a statement about ``D_alpha(P || Q)`` alone, so its ``max``
  reading is that one direction.
* :func:`exp_mech_interval`: the exponential mechanism on ``[0, D]`` with linear potentials (truncated
  exponential laws; Bok et al. 2024 Cor. 5.4), closed forms by the same monotone-likelihood-ratio argument.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize
from scipy.special import ndtr, ndtri, ndtri_exp

from verify.errors import InputError, PointRefused
from verify.instances.families import draw_offset
from verify.instances.instance import Instance, RunDescription
from verify.instances.profile import GaussianProfile, PrivacyProfile, _check_direction
from verify.instances.registry import register_family
from verify.setting import Setting, loss_classes
from verify.validate import choice, integer, positive, probability
from verify.vocabulary import derive

LINEAR = loss_classes("linear")

# ---------------------------------------------------------------------------------------------------
# T-fold Gaussian mechanism (full-batch DP-SGD releasing every iterate)
# ---------------------------------------------------------------------------------------------------


def dpsgd_full_batch(n, eta, sigma, T, Delta, adjacency="add_remove", offset=0.0, name=None) -> Instance:
    """DP-SGD on full batches, every iterate released: T Gaussian mechanisms (Bu et al. 2020, footnote 4).

    The differing record's clipped gradient is a constant of norm ``Delta = Cclip`` (absent from D
    under add/remove; replaced by 0 under replace), every other record's gradient is 0.  Under replace,
    ``offset`` moves both: gradient ``offset`` in D and ``offset - Delta`` in D' (L = the larger norm;
    ``offset = Delta/2`` is +-L with Delta = 2L); the released pair is the same.  Releasing
    ``theta_1..theta_T`` is releasing the ``T`` noisy mean gradients: ``N(0, sigma^2 I_T)`` vs
    ``N((Delta/n) 1_T, sigma^2 I_T)`` (``b = n``, ``z = n sigma / Delta``).  Exact profile: the
    T-dimensional Gaussian pair (:class:`~verify.instances.profile.GaussianProfile`).
    """
    where = "dpsgd_full_batch"
    n = integer("n", n, where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 6)
    Delta = positive("Delta", Delta, where)
    adjacency = choice("adjacency", adjacency, ("replace", "add_remove"), where)
    offset = float(offset)
    if not math.isfinite(offset):
        raise InputError(f"offset must be finite, got {offset!r}", "offset", where)
    if adjacency == "add_remove" and offset != 0:
        raise InputError("add_remove adjacency needs offset = 0 (the record is absent from D)", "offset", where)
    z = derive({"b": n, "sigma": sigma, "Cclip": Delta})["z"]  # the whole dataset is the batch
    shift = Delta / n
    # the pair in units of sigma (a bijection: the same privacy): sigma**2 would overflow at sigma ~ 1.3e154
    # and lose digits as a subnormal below 1e-154; the shift Delta / (n sigma) is 1/z
    unit_shift = shift / sigma
    if not unit_shift * unit_shift * T < math.inf:  # the profile's squared distance T (Delta / (n sigma))^2
        raise InputError(f"sigma={sigma:g} is too small for Delta={Delta:g}, n={n}, T={T}: the squared GDP "
                         "parameter T (Delta / (n sigma))^2 exceeds the float range", "sigma", where)

    def compute() -> GaussianProfile:
        return GaussianProfile(np.zeros(T), np.ones(T), np.full(T, unit_shift), np.ones(T))

    L = max(abs(offset), abs(offset - Delta)) if adjacency == "replace" else Delta
    constants = {"n": float(n), "b": float(n), "q": 1.0, "T": float(T), "eta": eta, "sigma": sigma, "Delta": Delta,
                 "L": L, "z": z, "Cclip": Delta, "d": 1.0}
    setting = Setting(algorithm="dp_sgd", batches="full", loss="linear", constraint="none", adjacency=adjacency,
                      init="fixed", release="all")
    run = RunDescription(kind="gaussian_pair", n=n, b=n, T=T, eta=eta, sigma=sigma, batches="full", z=z,
                         pair=f"N(0, {sigma:.6g}^2 I_{T}) vs N({shift:.6g} 1_{T}, {sigma:.6g}^2 I_{T})",
                         source="Bu et al. 2020, footnote 4")
    return Instance(name=name or f"{where}(n={n}, T={T}, z={z:.6g})", family=where, setting=setting,
                    loss_classes=LINEAR, constants=constants, run=run, compute=compute)


# ---------------------------------------------------------------------------------------------------
# The sampled Gaussian pair
# ---------------------------------------------------------------------------------------------------

#: relative accuracy asked of each quadrature (quad's error estimate is checked against it)
QUAD_RTOL = 1e-11

_LOG2 = math.log(2.0)


class SampledGaussianProfile(PrivacyProfile):
    """``P = N(0, s^2)`` vs ``Q = (1-q) N(0, s^2) + q N(1, s^2)``; ``forward`` is ``(P, Q)``.

    ``ordered``: the pair is a one-directional statement about ``(P, Q)`` (Altschuler–Talwar Def. 2.10),
    so ``max`` reads the forward direction only.  ``error``: the largest relative error estimate of
    the Rényi quadratures done so far (quad's estimate), and of the Rényi divergences from the rounding of
    their log moment divided by ``alpha - 1`` (it dominates as alpha -> 1, and exceeds 1 where a value is all
    rounding; 1 for a value <= 0); the closed forms carry none.
    """

    def __init__(self, q: float, s: float, ordered: bool = False):
        self.q, self.s, self.ordered = float(q), float(s), bool(ordered)
        self.error = 0.0
        self._log_moment_rounding = 0.0

    # -- Rényi divergences by quadrature --------------------------------------------------------------

    def _log_ratio(self, x: np.ndarray) -> np.ndarray:
        """log dQ/dP(x) = log(1 - q + q exp((2x - 1)/(2 s^2))), without overflow."""
        u = (2.0 * x - 1.0) / (2.0 * (self.s * self.s))  # s * s: inf (u = 0) where s**2 would raise
        if self.q == 1.0:
            return u
        return np.logaddexp(math.log1p(-self.q), math.log(self.q) + u)

    def log_moment(self, beta: float) -> float:
        """``log E_P[(dQ/dP)^beta]`` by adaptive quadrature (scipy ``quad``) of the log-shifted integrand.

        The integrand ``exp(log phi_s(x) + beta log dQ/dP(x))`` is located on a grid (its mass sits near
        0 and, for ``beta > 0``, near ``beta``), shifted by its maximum, and integrated over a window of
        40 standard deviations around both; the relative error estimate is kept in ``self.error``.
        """
        with np.errstate(all="ignore"):  # overflow at extreme s or beta is handled (InputError below)
            return self._log_moment(beta)

    def _log_moment(self, beta: float) -> float:
        s = self.s
        lo, hi = min(0.0, beta) - 40.0 * s - 2.0, max(0.0, beta) + 40.0 * s + 2.0
        grid = np.linspace(lo, hi, 4001)

        log_norm = math.log(s * math.sqrt(2 * math.pi))

        def log_f(x):
            return -0.5 * (x / s) ** 2 - log_norm + beta * self._log_ratio(x)

        values = log_f(grid)
        top = float(values.max())
        peak = float(grid[int(values.argmax())])
        points = sorted({peak, 0.0, min(max(beta, lo), hi), 0.5})
        if (max(abs(lo), abs(hi)) + 1.0) / s < 1e150:  # Python floats raise where numpy's overflow to inf
            integrand = self._scalar_integrand(beta, log_norm, top)
        else:  # an extreme noise: numpy's arithmetic, inf and all
            integrand = lambda x: math.exp(float(log_f(np.asarray(x))) - top)  # noqa: E731
        try:
            # full_output: quad's difficulties come back in its error estimate, not as a warning on stderr
            value, abserr, *_ = integrate.quad(integrand, lo, hi, points=points, limit=500, epsabs=0.0,
                                               epsrel=QUAD_RTOL, full_output=1)
        except OverflowError:  # the grid missed the integrand's peak (a huge order at a small noise)
            value = math.nan
        if not (value > 0 and math.isfinite(value)):
            raise PointRefused(f"quadrature of the sampled Gaussian moment failed at beta={beta} (q={self.q:g}, "
                               f"z={self.s:g}): this order at this noise is out of the range the quadrature resolves",
                               "alpha")
        self.error = max(self.error, abserr / value)
        log_value = math.log(value)
        # the rounding of top + log(value) (absolute, in the log moment): the Rényi divergence divides it by
        # alpha - 1, where it dominates quad's estimate as alpha -> 1 (see _renyi)
        self._log_moment_rounding = 4e-16 * (abs(top) + abs(log_value) + 1.0)
        return top + log_value

    def _scalar_integrand(self, beta: float, log_norm: float, top: float):
        """``x -> exp(log_f(x) - top)`` for quad, on Python floats: the operations of ``log_f`` on a numpy
        scalar (``pow`` for the square, numpy's ``logaddexp`` formula on libm's ``exp`` and ``log1p``), so
        the same bits at a tenth of the cost of a numpy call per point."""
        s2, q = 2.0 * (self.s * self.s), self.q
        if q == 1.0:
            return lambda x: math.exp(-0.5 * (x / self.s) ** 2 - log_norm + beta * ((2.0 * x - 1.0) / s2) - top)
        a, log_q = math.log1p(-q), math.log(q)

        def log_ratio(x: float) -> float:
            b = log_q + (2.0 * x - 1.0) / s2
            if a == b:
                return a + _LOG2
            gap = a - b
            if gap > 0:
                return a + math.log1p(math.exp(-gap))
            if gap <= 0:
                return b + math.log1p(math.exp(gap))
            return gap  # NaN

        s = self.s
        return lambda x: math.exp(-0.5 * (x / s) ** 2 - log_norm + beta * log_ratio(x) - top)

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        # D_a(P||Q) = log E_P[(dQ/dP)^(1-a)]/(a-1);  D_a(Q||P) = log E_P[(dQ/dP)^a]/(a-1)
        flat = np.asarray(alpha, dtype=float).ravel()
        out = []
        for a in flat:
            value = self.log_moment(1.0 - a if forward else a) / (a - 1.0)
            # the rounding relative to the divergence itself (what a comparison's slack reads)
            absolute = self._log_moment_rounding / (a - 1.0)
            self.error = max(self.error, absolute / value if value > 0 else 1.0)
            out.append(value)
        return np.maximum(np.asarray(out).reshape(np.shape(alpha)), 0.0)

    # -- hockey-stick divergences and tradeoffs: threshold tests --------------------------------------

    def _threshold(self, level: np.ndarray) -> np.ndarray:
        """The x at which dQ/dP(x) = level (level > 1 - q; +-inf beyond the ratio's range)."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            inner = np.log(np.maximum(level - (1.0 - self.q), 0.0)) - math.log(self.q)
            return (self.s * self.s) * inner + 0.5  # inf * 0 (s beyond 1e154 at level 1) is NaN: treated as +-inf

    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        s, q = self.s, self.q
        eps = np.asarray(eps, dtype=float)
        if forward:  # sup_S P(S) - e^eps Q(S): S = {dQ/dP < e^-eps} = {x < x*}
            x = self._threshold(np.exp(-eps))
            with np.errstate(invalid="ignore"):
                out = ndtr(x / s) - np.exp(eps) * ((1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s))
            return np.where(np.isfinite(x), np.clip(out, 0.0, 1.0), 0.0)
        x = self._threshold(np.exp(eps))  # S = {dQ/dP > e^eps} = {x > x*}
        with np.errstate(invalid="ignore"):
            out = (1 - q) * ndtr(-x / s) + q * ndtr((1 - x) / s) - np.exp(eps) * ndtr(-x / s)
        return np.where(np.isfinite(x), np.clip(out, 0.0, 1.0), np.where(np.exp(eps) > 1 - q, 0.0, 1.0 - np.exp(eps)))

    def _tradeoff(self, a: np.ndarray, forward: bool) -> np.ndarray:
        s, q = self.s, self.q
        a = np.asarray(a, dtype=float)
        if forward:  # T(P, Q): reject P for x > t, P(x > t) = a; type II Q(x <= t)
            with np.errstate(divide="ignore"):
                t = s * ndtri(1.0 - a)
            return (1 - q) * ndtr(t / s) + q * ndtr((t - 1) / s)
        # T(Q, P): reject Q for x < t, Q(x < t) = a (the mixture's CDF, inverted by bisection); type II P(x >= t)
        lo = np.full(a.shape, -60.0 * s - 60.0)
        hi = np.full(a.shape, 60.0 * s + 60.0)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            below = (1 - q) * ndtr(mid / s) + q * ndtr((mid - 1) / s) < a
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return np.where(a >= 1.0, 0.0, np.where(a <= 0.0, 1.0, ndtr(-hi / s)))

    def _both(self, method, x, direction, combine=np.maximum):
        _check_direction(direction)
        if self.ordered and direction == "max":
            return method(x, True)
        return super()._both(method, x, direction, combine)

    def log_delta_forward(self, eps: float) -> float:
        """log of the forward delta(eps), for tests of tiny values (log space)."""
        return float(np.log(self._delta(np.asarray([eps]), True)[0]))

    def __repr__(self) -> str:
        return f"SampledGaussianProfile(q={self.q}, s={self.s}, ordered={self.ordered})"


def _sampled(where: str, q, z, alpha, ordered: bool, name) -> Instance:
    q = probability("q", q, where)
    if q == 0:
        raise InputError("q must be > 0 (the record is never sampled otherwise)", "q", where)
    z = positive("z", z, where)
    profile_holder: list[SampledGaussianProfile] = []

    def compute() -> SampledGaussianProfile:
        if not profile_holder:
            profile_holder.append(SampledGaussianProfile(q, z, ordered=ordered))
        return profile_holder[0]

    constants = {"q": q, "z": z, "T": 1.0, "d": 1.0}
    if alpha is not None:  # the mechanism's own RDP at a given order (the input of an RDP -> DP conversion)
        alpha = positive("alpha", alpha, where)
        if alpha <= 1:
            raise InputError(f"alpha must be > 1, got {alpha}", "alpha", where)
        constants["alpha"] = alpha
        constants["eps_rdp"] = float(compute().renyi(alpha, "forward" if ordered else "max"))
    setting = Setting(algorithm="gaussian_mechanism", batches="poisson", loss="any", constraint="none",
                      adjacency="add_remove", init="fixed", release="all")
    pair = f"N(0, {z:.6g}^2) vs (1-{q:.6g}) N(0, {z:.6g}^2) + {q:.6g} N(1, {z:.6g}^2)"
    run = RunDescription(kind="gaussian_pair", q=q, z=z, pair=pair + (" (ordered)" if ordered else ""),
                         source="Altschuler & Talwar 2022, Definition 2.10" if ordered else
                         "Mironov, Talwar, Zhang 2019 (sampled Gaussian mechanism)")
    return Instance(name=name or f"{where}(q={q:.6g}, z={z:.6g})", family=where, setting=setting,
                    loss_classes=LINEAR, constants=constants, run=run, compute=compute)


def sampled_gaussian(q, z, alpha=None, name=None) -> Instance:
    """The sampled Gaussian mechanism (Poisson rate ``q``, noise multiplier ``z``, add/remove), both directions.

    ``N(0, z^2)`` (record absent) vs ``(1-q) N(0, z^2) + q N(1, z^2)``; ``q = 1`` is the Gaussian
    mechanism.  With ``alpha``, the constants carry ``eps_rdp``: the pair's Rényi DP at that order
    (larger direction).
    """
    return _sampled("sampled_gaussian", q, z, alpha, False, name)


def at22_sampled_gaussian(q, z, alpha=None, name=None) -> Instance:
    """The ordered pair of Altschuler & Talwar 2022, Def. 2.10, read in one direction only:
    ``D_alpha(N(0, z^2) || (1-q) N(0, z^2) + q N(1, z^2))``."""
    return _sampled("at22_sampled_gaussian", q, z, alpha, True, name)


# ---------------------------------------------------------------------------------------------------
# The exponential mechanism on an interval with linear potentials
# ---------------------------------------------------------------------------------------------------


def _log_abs_expm1(y: np.ndarray) -> np.ndarray:
    """log|e^y - 1| for y != 0, without overflow."""
    y = np.asarray(y, dtype=float)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        small = np.log(np.abs(np.expm1(np.minimum(y, 1.0))))  # accurate for |y| small (no cancellation)
        return np.where(y > 1.0, y + np.log1p(-np.exp(-np.abs(y))), small)


class TruncatedExponentialProfile(PrivacyProfile):
    """``P ∝ exp(-a x)``, ``Q ∝ exp(-a' x)`` on ``[0, D]`` (``a' - a = Delta > 0``), closed forms.

    The log-likelihood ratio ``log dQ/dP(x) = -Delta x + log(Z_a / Z_a')`` is decreasing in x, so every
    likelihood-ratio test is a threshold test on x and the hockey-stick divergence is a difference of
    truncated-exponential tail probabilities; Rényi divergences are closed forms too
    (``int p^alpha q^(1-alpha) = Z_{alpha a + (1-alpha) a'} / (Z_a^alpha Z_a'^(1-alpha))``).
    """

    def __init__(self, a: float, a_prime: float, D: float):
        self.a, self.a_prime, self.D = float(a), float(a_prime), float(D)
        self.Delta = self.a_prime - self.a
        self.error = 0.0

    def log_Z(self, rate) -> np.ndarray:
        """log of int_0^D exp(-rate x) dx (= D at rate 0)."""
        rate = np.asarray(rate, dtype=float)
        safe = np.where(rate == 0, 1.0, rate)
        with np.errstate(divide="ignore"):
            return np.where(rate == 0, math.log(self.D), _log_abs_expm1(-safe * self.D) - np.log(np.abs(safe)))

    def log_survival(self, rate: float, t) -> np.ndarray:
        """log P(x > t) under the law ∝ exp(-rate x) on [0, D], t clipped to [0, D]."""
        t = np.clip(np.asarray(t, dtype=float), 0.0, self.D)
        if rate == 0:
            with np.errstate(divide="ignore"):
                return np.log(self.D - t) - math.log(self.D)
        with np.errstate(divide="ignore"):
            return -rate * t + _log_abs_expm1(-rate * (self.D - t)) - _log_abs_expm1(np.asarray(-rate * self.D))

    def log_cdf(self, rate: float, t) -> np.ndarray:
        """log P(x < t) under the law ∝ exp(-rate x) on [0, D] (relative precision kept for tiny t)."""
        t = np.clip(np.asarray(t, dtype=float), 0.0, self.D)
        with np.errstate(divide="ignore"):
            if rate == 0:
                return np.log(t) - math.log(self.D)
            return _log_abs_expm1(-rate * t) - _log_abs_expm1(np.asarray(-rate * self.D))

    def _cdf(self, rate: float, t) -> np.ndarray:
        return -np.expm1(self.log_survival(rate, t))

    def exact_mu(self) -> float:
        """The pair's GDP parameter: the smallest mu with ``T(P,Q), T(Q,P) >= G_mu``.

        The likelihood ratio is monotone in x, so the optimal tests are thresholds ``x < t``; at each,
        ``G_mu(alpha) <= beta`` iff ``mu >= Phi^{-1}(1 - alpha) - Phi^{-1}(beta)``, and mu is the supremum of
        that over t, read in log space (``alpha``, ``beta`` down to e^-1e5: the supremum of a wide
        interval lies at alpha ~ e^{-Delta D/4}, far below any grid of eps or delta).  A dense grid of t
        near both ends and the middle, then a bounded local maximisation from the best grid point.
        """

        def quantile(log_p, log_complement):  # Phi^{-1}(p) from whichever of p, 1 - p is the smaller tail
            return np.where(log_p <= log_complement, ndtri_exp(log_p), -ndtri_exp(log_complement))

        def per_threshold(t):  # alpha = P(x < t), beta = Q(x >= t) (the reverse test swaps them: same value)
            t = np.asarray(t, dtype=float)
            with np.errstate(invalid="ignore"):
                survive_p, below_p = self.log_survival(self.a, t), self.log_cdf(self.a, t)
                survive_q, below_q = self.log_survival(self.a_prime, t), self.log_cdf(self.a_prime, t)
                value = quantile(survive_p, below_p) - quantile(survive_q, below_q)  # Phi^-1(1-alpha) - Phi^-1(beta)
                return np.nan_to_num(value, nan=0.0, posinf=0.0, neginf=0.0)

        ends = np.geomspace(1e-12, 0.5, 600) * self.D
        grid = np.unique(np.concatenate([ends, self.D - ends, np.linspace(0.0, self.D, 401)[1:-1]]))
        values = per_threshold(grid)
        best = int(np.argmax(values))
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
        if hi > lo:
            found = optimize.minimize_scalar(lambda t: -float(per_threshold(t)), bounds=(lo, hi), method="bounded",
                                             options={"xatol": 1e-12 * self.D})
            return max(float(values[best]), -float(found.fun))
        return float(values[best])

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        a, b = (self.a, self.a_prime) if forward else (self.a_prime, self.a)
        alpha = np.asarray(alpha, dtype=float)
        mixed = self.log_Z(alpha * a + (1 - alpha) * b) - alpha * self.log_Z(a) - (1 - alpha) * self.log_Z(b)
        return np.maximum(mixed / (alpha - 1), 0.0)

    def _shift(self) -> float:
        return float(self.log_Z(self.a) - self.log_Z(self.a_prime))  # log dQ/dP = -Delta x + shift

    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        eps = np.asarray(eps, dtype=float)
        c = self._shift()
        if forward:  # S = {dP/dQ > e^eps} = {x > (eps + c)/Delta}
            t = (eps + c) / self.Delta
            out = np.exp(self.log_survival(self.a, t)) - np.exp(eps + self.log_survival(self.a_prime, t))
        else:  # S = {dQ/dP > e^eps} = {x < (c - eps)/Delta}
            t = (c - eps) / self.Delta
            out = self._cdf(self.a_prime, t) - np.exp(eps) * self._cdf(self.a, t)
        return np.clip(out, 0.0, 1.0)

    def _quantile(self, rate: float, level) -> np.ndarray:
        """The t with P(x <= t) = level under the law ∝ exp(-rate x) on [0, D]."""
        level = np.clip(np.asarray(level, dtype=float), 0.0, 1.0)
        if rate == 0:
            return level * self.D
        with np.errstate(divide="ignore"):
            # 1 - level (1 - e^{-rate D}) in log space: logaddexp(log level - rate D, log(1 - level))
            inner = np.logaddexp(np.log(level) - rate * self.D, np.log1p(-level))
        return np.clip(-inner / rate, 0.0, self.D)

    def _tradeoff(self, level: np.ndarray, forward: bool) -> np.ndarray:
        level = np.asarray(level, dtype=float)
        if forward:  # T(P, Q): reject P where dQ/dP is large, x < t with P(x < t) = level; type II Q(x >= t)
            t = self._quantile(self.a, level)
            return np.exp(self.log_survival(self.a_prime, t))
        t = self._quantile(self.a_prime, 1.0 - level)  # T(Q, P): reject Q for x > t, Q(x > t) = level
        return self._cdf(self.a, t)

    def __repr__(self) -> str:
        return f"TruncatedExponentialProfile(a={self.a}, a_prime={self.a_prime}, D={self.D})"


def exp_mech_interval(Delta, D, offset=0.0, name=None) -> Instance:
    """The exponential mechanism on ``[0, D]`` with linear potentials: ``pi ∝ exp(-f)``, ``pi' ∝ exp(-f')``.

    ``f(x) = (offset - Delta/2) x`` and ``f'(x) = (offset + Delta/2) x``: convex (linear), smooth for every
    M, each ``L``-Lipschitz with ``L = |offset| + Delta/2``, and ``f' - f`` is ``Delta``-Lipschitz (the
    gradient difference; Bok et al. 2024 Cor. 5.4).  ``offset = 0``: the symmetric tilt, where both of
    Cor. 5.4's readings of L coincide.  Closed forms (:class:`TruncatedExponentialProfile`).
    """
    where = "exp_mech_interval"
    Delta = positive("Delta", Delta, where)
    D = positive("D", D, where)
    offset = float(offset)
    if not math.isfinite(offset):
        raise InputError(f"offset must be finite, got {offset!r}", "offset", where)
    a, a_prime = offset - Delta / 2, offset + Delta / 2
    constants = {"Delta": Delta, "D": D, "L": abs(offset) + Delta / 2, "d": 1.0, "m": 0.0, "n": 1.0, "b": 1.0,
                 "q": 1.0}
    setting = Setting(algorithm="exp_mech", batches="full", loss="linear", constraint="bounded",
                      adjacency="replace", init="stationary", release="last")
    run = RunDescription(kind="gaussian_pair", loss="linear potentials on [0, D]", interval=(0.0, D),
                         pair=f"exp(-({a:.6g}) x) vs exp(-({a_prime:.6g}) x) on [0, {D:.6g}]",
                         source="Bok et al. 2024, Corollary 5.4 (linear tilt)")
    return Instance(name=name or f"{where}(Delta={Delta:.6g}, D={D:.6g})", family=where, setting=setting,
                    loss_classes=LINEAR, constants=constants, run=run,
                    compute=lambda: TruncatedExponentialProfile(a, a_prime, D))


_PAIR = Setting(algorithm="gaussian_mechanism", batches="poisson", loss="any", constraint="none",
                adjacency="add_remove", init="fixed", release="all")
_QUAD = ("1-D pair: Rényi divergence by adaptive quadrature (scipy quad, log-shifted integrand, its error "
         "estimate in profile().error); hockey-stick and tradeoff in closed form (monotone likelihood ratio)")

register_family("dpsgd_full_batch", dpsgd_full_batch, cost="closed_form", run_kind="gaussian_pair",
                exactness="the T released noisy gradients: a T-dimensional Gaussian pair of equal covariance, "
                          "exactly mu-GDP (Mahalanobis distance)",
                setting=Setting(algorithm="dp_sgd", batches="full", loss="linear", constraint="none",
                                adjacency="any", init="fixed", release="all"),
                source="Bu et al. 2020, footnote 4", searched={"offset": draw_offset},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0))
register_family("sampled_gaussian", sampled_gaussian, cost="quadrature", run_kind="gaussian_pair", exactness=_QUAD,
                setting=_PAIR, source="Mironov, Talwar, Zhang 2019",
                example=dict(q=0.1, z=1.0, alpha=2.0))
register_family("at22_sampled_gaussian", at22_sampled_gaussian, cost="quadrature", run_kind="gaussian_pair",
                exactness=_QUAD + "; ordered: the forward direction only", setting=_PAIR,
                source="Altschuler & Talwar 2022, Definition 2.10",
                example=dict(q=0.1, z=1.0))
register_family("exp_mech_interval", exp_mech_interval, cost="closed_form", run_kind="gaussian_pair",
                exactness="truncated exponential densities on [0, D]: monotone likelihood ratio, threshold tests in "
                          "closed form (mu: the supremum over thresholds in log space)",
                setting=Setting(algorithm="exp_mech", batches="full", loss="linear", constraint="bounded",
                                adjacency="replace", init="stationary", release="last"),
                source="Bok et al. 2024, Corollary 5.4",
                example=dict(Delta=1.0, D=2.0))

__all__ = ["QUAD_RTOL", "SampledGaussianProfile", "TruncatedExponentialProfile", "at22_sampled_gaussian",
           "dpsgd_full_batch", "exp_mech_interval", "sampled_gaussian"]
