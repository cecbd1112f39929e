"""Privacy profiles of a pair of output laws (P for dataset D, Q for its neighbour D').

A :class:`PrivacyProfile` answers every privacy notion of docs/references.md for one pair:

* ``renyi(alpha, direction)``: Rényi divergence, ``forward`` D_alpha(P||Q), ``backward`` D_alpha(Q||P),
  ``max`` the larger of the two;
* ``delta(eps, direction)``: hockey-stick divergence ``sup_S P(S) - e^eps Q(S)`` (forward), the same
  with P and Q exchanged (backward), or the larger (max);
* ``eps(delta, direction)``: the smallest ``eps >= 0`` with ``delta(eps) <= delta``;
* ``tradeoff(a, direction)``: ``T(P,Q)(a)`` (forward), ``T(Q,P)(a)`` (backward), or (max, the default)
  the pointwise minimum of the two curves.  The minimum is what a symmetric f-DP statement must lie
  below; it is *not* convexified;
* ``mu``: the exact GDP parameter when the pair is Gaussian with equal covariance, else ``None``;
* ``error``: an estimate of the numerical error (0 for closed forms).

Three kinds: :class:`GaussianProfile` (closed forms), :class:`DiscreteProfile` (a pair of
probability vectors on a common finite support, computed exactly in log space) and
:class:`~verify.instances.composed.CompositionProfile` (T-fold composition of subsampled Gaussians
through ``dp_accounting``, in :mod:`verify.instances.composed`).
"""

from __future__ import annotations

import abc
import functools
from typing import Callable, Literal

import numpy as np
from scipy.special import log_ndtr

from verify.errors import InputError, PointRefused
from verify.instances.grid import normal_mass
from verify.logspace import logsumexp
from verify.privacy.gaussian import gdp_delta, gdp_eps, tradeoff_gaussian
from verify.privacy.notions import invert_delta

Direction = Literal["forward", "backward", "max"]
DIRECTIONS: tuple[str, ...] = ("forward", "backward", "max")


# ---------------------------------------------------------------------------------------------------
# Input validation shared by every profile
# ---------------------------------------------------------------------------------------------------


def _check_direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise InputError(f"direction must be one of {DIRECTIONS}, got {direction!r}", "direction")
    return direction


def _numbers(name: str, value) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number or an array of numbers, got {value!r}", name) from None


def _as_alpha(alpha) -> np.ndarray:
    a = _numbers("alpha", alpha)
    if np.isnan(a).any() or np.any(a <= 1) or np.isinf(a).any():
        raise InputError("alpha (Rényi order) must be finite and > 1", "alpha")
    return a


def _as_eps(eps) -> np.ndarray:
    e = _numbers("eps", eps)
    if not np.all(np.isfinite(e)):
        raise InputError("eps must be finite", "eps")
    return e


def _as_delta(delta) -> np.ndarray:
    d = _numbers("delta", delta)
    if np.isnan(d).any() or np.any(d <= 0) or np.any(d > 1):
        raise InputError("delta must lie in (0, 1]", "delta")
    return d


def _as_level(a) -> np.ndarray:
    x = _numbers("a", a)
    if np.isnan(x).any() or np.any(x < 0) or np.any(x > 1):
        raise InputError("a (type I error) must lie in [0, 1]", "a")
    return x


def _scalar(x: np.ndarray):
    return x[()] if x.ndim == 0 else x


# ---------------------------------------------------------------------------------------------------
# The interface
# ---------------------------------------------------------------------------------------------------


#: the quantities a profile states the error of (``error_of``)
_QUANTITIES = ("renyi", "delta", "eps", "tradeoff")


def _check_quantity(name: str) -> None:
    if name not in _QUANTITIES:
        raise InputError(f"name must be renyi, delta, eps or tradeoff, got {name!r}", "name")


def _refinement_gap(fine: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """``|fine - rough|``, 0 where both are infinite (a divergence infinite at either resolution)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(fine) & np.isinf(rough), 0.0, np.abs(fine - rough))


class PrivacyProfile(abc.ABC):
    """The privacy of a pair of output laws (P under D, Q under D'); see the module docstring."""

    mu: float | None = None
    error: float = 0.0

    # one-directional primitives, vectorised; ``forward`` = (P, Q), ``backward`` = (Q, P)
    @abc.abstractmethod
    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray: ...

    @abc.abstractmethod
    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray: ...

    @abc.abstractmethod
    def _tradeoff(self, a: np.ndarray, forward: bool) -> np.ndarray: ...

    def _eps(self, delta: np.ndarray, forward: bool) -> np.ndarray:
        return invert_delta(lambda e: self._delta(e, forward), delta)

    def _both(self, method: Callable[[np.ndarray, bool], np.ndarray], x: np.ndarray, direction: str,
              combine=np.maximum) -> np.ndarray:
        _check_direction(direction)
        if direction == "forward":
            return method(x, True)
        if direction == "backward":
            return method(x, False)
        return combine(method(x, True), method(x, False))

    def renyi(self, alpha, direction: Direction = "max"):
        """Rényi divergence of order ``alpha`` (> 1); vectorised over ``alpha``."""
        return _scalar(np.asarray(self._both(self._renyi, _as_alpha(alpha), direction), dtype=float))

    def delta(self, eps, direction: Direction = "max"):
        """Hockey-stick divergence ``delta(eps)``; vectorised over ``eps``."""
        return _scalar(np.asarray(self._both(self._delta, _as_eps(eps), direction), dtype=float))

    def eps(self, delta, direction: Direction = "max"):
        """Smallest ``eps >= 0`` with ``delta(eps) <= delta``; vectorised over ``delta``."""
        return _scalar(np.asarray(self._both(self._eps, _as_delta(delta), direction), dtype=float))

    def tradeoff(self, a, direction: Direction = "max"):
        """Tradeoff curve at type I error ``a``; ``max`` = pointwise min of T(P,Q) and T(Q,P)."""
        return _scalar(np.asarray(self._both(self._tradeoff, _as_level(a), direction, np.minimum),
                                  dtype=float))


# ---------------------------------------------------------------------------------------------------
# Gaussian pairs
# ---------------------------------------------------------------------------------------------------


class GaussianProfile(PrivacyProfile):
    """P = N(mean0, cov0), Q = N(mean1, cov1) in R^d.

    Covariances are full ``(d, d)`` matrices or ``(d,)`` vectors of variances (diagonal in the basis
    the means are expressed in).  Equal covariances: the pair is exactly ``mu``-GDP with
    ``mu = sqrt(dm^T Sigma^{-1} dm)`` (Dong, Roth, Su 2022, Thm 2: the Gaussian mechanism), and
    every notion follows from ``mu`` through :mod:`verify.privacy.gaussian`.  Unequal covariances: the
    Rényi divergence uses the general-covariance formula (Chourasia et al. 2021, App. B.1, the derived
    general form in docs/papers/chourasia2021.md; Gil, Alajaji, Linder 2013)

        D_a = a/2 dm^T S_a^{-1} dm - 1/(2(a-1)) log(det S_a / (det S0^{1-a} det S1^a)),
        S_a = a S1 + (1-a) S0,

    which is ``+inf`` (the true value) for orders where ``S_a`` is not positive definite.  In one
    dimension the hockey-stick divergence and tradeoff of unequal variances are computed exactly
    (the likelihood-ratio regions are intervals: quadratic log-likelihood ratio); for ``d > 1``
    with unequal covariances they raise NotImplementedError.
    """

    def __init__(self, mean0, cov0, mean1, cov1):
        m0 = np.atleast_1d(np.asarray(mean0, dtype=float))
        m1 = np.atleast_1d(np.asarray(mean1, dtype=float))
        if m0.shape != m1.shape or m0.ndim != 1:
            raise InputError(f"means must be vectors of one length, got shapes {m0.shape} and {m1.shape}", "mean1")
        d = m0.size
        c0, c1 = (self._as_cov(c, d, name) for c, name in ((cov0, "cov0"), (cov1, "cov1")))
        if c0.ndim != c1.ndim:  # one full, one diagonal: make both full
            c0 = np.diag(c0) if c0.ndim == 1 else c0
            c1 = np.diag(c1) if c1.ndim == 1 else c1
        if not (np.all(np.isfinite(m0)) and np.all(np.isfinite(m1))):
            raise InputError("means must be finite", "mean0")
        self.mean0, self.mean1, self.cov0, self.cov1 = m0, m1, c0, c1
        self.d = d
        self.diagonal = c0.ndim == 1
        self.equal_cov = bool(np.array_equal(c0, c1))
        self.error = 0.0
        self.mu = float(np.sqrt(self._mahalanobis2(c0, m1 - m0))) if self.equal_cov else None

    @staticmethod
    def _as_cov(c, d: int, name: str) -> np.ndarray:
        c = np.asarray(c, dtype=float)
        if c.ndim == 0:
            c = np.full(d, float(c))
        if c.shape not in ((d,), (d, d)):
            raise InputError(f"{name} must have shape ({d},) or ({d}, {d}), got {c.shape}", name)
        if not np.all(np.isfinite(c)):
            raise InputError(f"{name} must be finite", name)
        if c.ndim == 1:
            if np.any(c <= 0):
                raise InputError(f"{name} must be positive definite (a variance is <= 0)", name)
        else:
            if not np.allclose(c, c.T, rtol=1e-12, atol=0):
                raise InputError(f"{name} must be symmetric", name)
            try:
                np.linalg.cholesky(c)
            except np.linalg.LinAlgError:
                raise InputError(f"{name} must be positive definite", name) from None
        return c

    @staticmethod
    def _mahalanobis2(cov: np.ndarray, dm: np.ndarray) -> float:
        if cov.ndim == 1:
            return float(np.sum(dm * dm / cov))
        chol = np.linalg.cholesky(cov)
        y = np.linalg.solve(chol, dm)
        return float(y @ y)

    @staticmethod
    def _logdet(cov: np.ndarray) -> float:
        if cov.ndim == 1:
            return float(np.sum(np.log(cov)))
        return float(2 * np.sum(np.log(np.diag(np.linalg.cholesky(cov)))))

    def _renyi_one(self, a: float, forward: bool) -> float:
        s0, s1 = (self.cov0, self.cov1) if forward else (self.cov1, self.cov0)
        dm = self.mean1 - self.mean0
        sa = a * s1 + (1 - a) * s0
        if sa.ndim == 1:
            if np.any(sa <= 0):
                return np.inf
        else:
            sa = 0.5 * (sa + sa.T)
            if np.linalg.eigvalsh(sa)[0] <= 0:
                return np.inf
        quad = self._mahalanobis2(sa, dm)
        logdet = self._logdet(sa) - (1 - a) * self._logdet(s0) - a * self._logdet(s1)
        return 0.5 * a * quad - logdet / (2 * (a - 1))

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        if self.equal_cov:  # alpha mu^2 / 2 (Mironov 2017, Prop. 7)
            return 0.5 * alpha * self.mu ** 2
        flat = np.array([self._renyi_one(float(a), forward) for a in alpha.ravel()])
        return flat.reshape(alpha.shape)

    def _require_1d_or_equal(self, what: str) -> None:
        if not self.equal_cov and self.d != 1:
            raise NotImplementedError(f"{what} of a Gaussian pair with unequal covariances is implemented "
                                      f"in dimension 1 only (d = {self.d})")

    def _llr_quadratic(self, forward: bool) -> tuple[float, float, float]:
        """``log p(x) - log q(x) = A x^2 + B x + C`` (1-D, P = first law of the direction)."""
        m0, m1 = float(self.mean0[0]), float(self.mean1[0])
        v0, v1 = float(np.ravel(self.cov0)[0]), float(np.ravel(self.cov1)[0])
        if not forward:
            m0, m1, v0, v1 = m1, m0, v1, v0
        A = 0.5 * (1 / v1 - 1 / v0)
        B = m0 / v0 - m1 / v1
        C = m1 ** 2 / (2 * v1) - m0 ** 2 / (2 * v0) - 0.5 * np.log(v0 / v1)
        return A, B, C

    @staticmethod
    def _mass_above(mean: float, var: float, A: float, B: float, C: np.ndarray) -> np.ndarray:
        """N(mean, var)-mass of ``{x : A x^2 + B x + C > 0}`` (A != 0), vectorised over C."""
        sd = np.sqrt(var)
        disc = B * B - 4 * A * C
        with np.errstate(invalid="ignore"):
            root = np.sqrt(np.maximum(disc, 0.0))
        # roots via the stable quadratic formula
        qq = -0.5 * (B + np.copysign(root, B) if B != 0 else root)
        with np.errstate(divide="ignore", invalid="ignore"):
            r1 = np.where(qq != 0, qq / A, 0.0)
            r2 = np.where(qq != 0, C / qq, -r1)
        lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
        inside = normal_mass((lo - mean) / sd, (hi - mean) / sd)
        outside = np.exp(log_ndtr((lo - mean) / sd)) + np.exp(log_ndtr(-(hi - mean) / sd))
        if A > 0:  # positive outside the roots; everywhere when there are no real roots
            return np.where(disc <= 0, 1.0, outside)
        return np.where(disc <= 0, 0.0, inside)

    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        if self.equal_cov:
            return np.asarray(gdp_delta(self.mu, eps), dtype=float)
        self._require_1d_or_equal("delta(eps)")
        A, B, C = self._llr_quadratic(forward)
        (mp_, vp), (mq, vq) = self._laws(forward)
        P = self._mass_above(mp_, vp, A, B, C - eps)
        Q = self._mass_above(mq, vq, A, B, C - eps)
        return np.clip(P - np.exp(eps) * Q, 0.0, 1.0)

    def _laws(self, forward: bool):
        first = (float(self.mean0[0]), float(np.ravel(self.cov0)[0]))
        second = (float(self.mean1[0]), float(np.ravel(self.cov1)[0]))
        return (first, second) if forward else (second, first)

    def _eps(self, delta: np.ndarray, forward: bool) -> np.ndarray:
        if not self.equal_cov:
            self._require_1d_or_equal("eps(delta)")
            return invert_delta(lambda e: self._delta(e, forward), delta)
        if self.mu == 0:
            return np.zeros_like(delta)
        out = np.zeros(delta.shape)
        inner = delta < 1
        out[inner] = np.maximum(np.asarray(gdp_eps(self.mu, delta[inner]), dtype=float), 0.0)
        return out

    def _tradeoff(self, a: np.ndarray, forward: bool) -> np.ndarray:
        if self.equal_cov:
            return np.asarray(tradeoff_gaussian(a, self.mu), dtype=float)
        self._require_1d_or_equal("the tradeoff curve")
        # Neyman–Pearson: reject P where log q - log p > t; find t with P(reject) = a by bisection
        A, B, C = self._llr_quadratic(forward)
        (mp_, vp), (mq, vq) = self._laws(forward)
        size = lambda t: self._mass_above(mp_, vp, -A, -B, -C - t)
        flat = a.ravel()
        lo, hi = np.full(flat.shape, -1.0), np.full(flat.shape, 1.0)
        for _ in range(60):
            widen = size(lo) < flat
            if not widen.any():
                break
            lo = np.where(widen, 2 * lo, lo)
        for _ in range(60):
            widen = size(hi) > flat
            if not widen.any():
                break
            hi = np.where(widen, 2 * hi, hi)
        for _ in range(120):
            mid = 0.5 * (lo + hi)
            big = size(mid) > flat
            lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
        t = 0.5 * (lo + hi)
        power = self._mass_above(mq, vq, -A, -B, -C - t)
        return np.clip(1.0 - power, 0.0, 1.0).reshape(a.shape)

    def __repr__(self) -> str:
        return f"GaussianProfile(d={self.d}, mu={self.mu})"


# ---------------------------------------------------------------------------------------------------
# Discrete pairs (exact for the given probability vectors)
# ---------------------------------------------------------------------------------------------------


#: below this, a mass in linear scale may be the residue of an underflowed tail, not a singular part
UNDERFLOW_MASS = 1e-250
#: below this (near the smallest normal double, 2^-1022) a linear mass has lost digits or underflowed
TINY_MASS = 2.0 ** -1000
#: an uncertain cell (underflowed or floored) whose smaller mass is below this is the residue of an
#: underflow or of the dense engine's floor (2^-900), never of the FFT floor (2^-48, whose round-off moves every
#: cell): its true mass lies in [0, 2 max(mass, TINY_MASS)] and every other mass is exact to rounding
LINEAR_EXACT_MASS = 2.0 ** -800
#: ``delta(eps)`` is answered from the linear masses when their bound on its error (:meth:`DiscreteProfile.
#: _delta_bound`) is at most this fraction of the answer, far below any comparison's relative slack (>= 1e-6),
LINEAR_DELTA_SLACK = 1e-12
#: or at most this absolute error, far below every notion's resolution (f-DP: 1e-12) and the smallest delta
#: the GDP reading uses (1e-14)
LINEAR_DELTA_FLOOR = 1e-250
#: ``eps(delta)`` is answered from the linear masses when the bound on delta places the exact answer within
#: this (relative to ``max(1, eps)``) of theirs
LINEAR_EPS_WIDTH = 1e-12


class DiscreteProfile(PrivacyProfile):
    """P and Q: probability vectors on one finite support, every notion computed exactly for them.

    The log-likelihood ratio is formed from ``log p - log q`` (log space), so masses down to the
    smallest double are used at full relative precision.  A builder that computes the masses in log
    space passes them as :meth:`from_log`: masses far below the smallest double (the tails of a pair
    at a large per-step mu, e^-2000 and less) then still give the true, finite likelihood ratios, and
    Rényi divergences and eps(delta) stay finite where the linear masses would underflow to a
    spurious singular part.  ``error`` is supplied by the builder (the 1-D grid engine attaches its
    refinement estimate); ``coarse``, when given, is the same pair on a grid twice as coarse, used by
    :meth:`error_of`.

    ``resolve``: a builder of linear masses may also pass a function returning the same pair from log
    masses (the 1-D grid's :func:`~verify.instances.grid_log.evolve_log`, C^2 terms a step), called once
    and only when a query needs it: a Rényi divergence when some mass has underflowed (below
    ``TINY_MASS``, or both to 0) or was floored (``unresolved``), where the missing digits can decide it
    (``p^alpha q^(1-alpha)`` of e^-800 and e^-3000 is e^1400 at alpha = 2); delta, eps and
    the tradeoff when such a cell faces a mass above ``UNDERFLOW_MASS`` in the other law (a likelihood
    ratio that is not known).  A hockey-stick divergence is 1-Lipschitz in each mass (``e^eps``-Lipschitz
    in the second law's), so where every such cell's smaller mass is the residue of an underflow or of the
    dense floor (below ``LINEAR_EXACT_MASS``: true mass in ``[0, 2 max(mass, TINY_MASS)]``), the linear
    ``delta(eps)`` is within ``(1 + e^eps) S`` of the exact one, ``S`` the sum of those bounds
    (:meth:`_delta_bound`); when that is at most ``LINEAR_DELTA_SLACK`` times the answer (or
    ``LINEAR_DELTA_FLOOR``) the log masses are not computed for it (their answer is the same to that
    accuracy).  Likewise ``eps(delta)`` when the bound places the exact answer within ``LINEAR_EPS_WIDTH``
    of the linear one (:meth:`_eps_linear_ok`).  If the log engine refuses (too much work, InputError),
    the linear masses answer as without it.
    """

    def __init__(self, p, q, support=None, error: float = 0.0, coarse: "DiscreteProfile | None" = None,
                 unresolved=None, *, log: bool = False,
                 resolve: "Callable[[], DiscreteProfile] | None" = None):
        p = np.asarray(p, dtype=float).ravel()
        q = np.asarray(q, dtype=float).ravel()
        if p.shape != q.shape:
            raise InputError(f"p and q must have the same length, got {p.size} and {q.size}", "q")
        if log:  # p and q are log masses: -inf is a zero mass
            for name, v in (("log_p", p), ("log_q", q)):
                if np.isnan(v).any() or np.any(v == np.inf):
                    raise InputError(f"{name} must be log masses (finite or -inf)", name)
                total = logsumexp(v)
                if not abs(total) < 1e-6:
                    raise InputError(f"{name} must be the logs of masses summing to 1, sums to {np.exp(total)!r}",
                                     name)
            log_p, log_q = p, q
        else:
            for name, v in (("p", p), ("q", q)):
                if not np.all(np.isfinite(v)) or np.any(v < 0):
                    raise InputError(f"{name} must be finite and non-negative", name)
                total = v.sum()
                if not abs(total - 1) < 1e-6:
                    raise InputError(f"{name} must sum to 1, sums to {total!r}", name)
            with np.errstate(divide="ignore"):
                log_p, log_q = np.log(p), np.log(q)
        keep = (log_p > -np.inf) | (log_q > -np.inf)
        self._dropped = not log and not keep.all()  # cells where both linear masses are 0 (maybe underflowed)
        self._dropped_cells = 0 if log else int(keep.size - np.count_nonzero(keep))
        self.unresolved = None if unresolved is None else np.asarray(unresolved, dtype=bool).ravel()[keep]
        if log:
            self.log_p = log_p[keep] - logsumexp(log_p[keep])
            self.log_q = log_q[keep] - logsumexp(log_q[keep])
            self.p, self.q = np.exp(self.log_p), np.exp(self.log_q)
        else:
            self.p, self.q = p[keep] / p.sum(), q[keep] / q.sum()
            with np.errstate(divide="ignore"):
                self.log_p, self.log_q = np.log(self.p), np.log(self.q)
        self.support = None if support is None else np.asarray(support, dtype=float).ravel()[keep]
        self.from_logs = bool(log)
        self.error = float(error)
        self.coarse = coarse
        self.mu = None
        self.resolve = None if log else resolve
        self._resolved: "DiscreteProfile | None | bool" = None  # False: the log engine refused

    def _exact(self, strict: bool) -> "DiscreteProfile | None":
        """The same pair from log masses when these linear masses cannot answer (see ``resolve``)."""
        if self.resolve is None or self._resolved is False or not self._needs(strict):
            return None
        if self._resolved is None:
            try:
                exact = self.resolve()
            except InputError:
                self._resolved = False
                return None
            self._resolved = exact
        self._resolved.error, self._resolved.coarse = self.error, self.coarse
        return self._resolved

    def _uncertain(self, strict: bool) -> np.ndarray:
        """The cells whose linear masses cannot answer a query by themselves (see the class docstring)."""
        low = np.minimum(self.p, self.q) < TINY_MASS
        if self.unresolved is not None:
            low |= self.unresolved
        if not strict:
            low &= np.maximum(self.p, self.q) > UNDERFLOW_MASS
        return low

    def _needs(self, strict: bool) -> bool:
        """Whether a (``strict``: Rényi) query needs the log masses (when they can be had)."""
        needs = self.__dict__.setdefault("_need", {})
        if strict not in needs:
            needs[strict] = bool(self._uncertain(strict).any()) or (strict and self._dropped)
        return needs[strict]

    def _delta_bound(self, eps: np.ndarray) -> np.ndarray | None:
        """A bound on ``|delta(eps) - exact delta(eps)|`` in either direction for the linear masses (0 when no
        cell is uncertain), or None when some uncertain cell's smaller mass is not the residue of an underflow
        or of the dense floor (``>= LINEAR_EXACT_MASS``: an FFT floor): then only the log masses answer.

        Each term ``(p_i - e^eps q_i)^+`` moves by at most ``|dp_i| + e^eps |dq_i|``; in an uncertain cell (every
        one, those the linear answer alone was trusted with too) the smaller mass is off by at most
        ``2 max(mass, TINY_MASS)`` and the larger one by ``2 TINY_MASS`` when it is below ``TINY_MASS`` too, else
        exact to rounding; a dropped cell (both linear masses 0) by ``2 TINY_MASS`` in each law."""
        if "_delta_mass" not in self.__dict__:
            cells = self._uncertain(True)
            low = np.minimum(self.p[cells], self.q[cells])
            high = np.maximum(self.p[cells], self.q[cells])
            per_cell = 2.0 * np.maximum(low, TINY_MASS) + np.where(high < TINY_MASS, 2.0 * TINY_MASS, 0.0)
            self._delta_mass = None if np.any(low >= LINEAR_EXACT_MASS) else \
                float(np.sum(per_cell)) + 4.0 * TINY_MASS * self._dropped_cells
        if self._delta_mass is None:
            return None
        with np.errstate(over="ignore"):
            return (1.0 + np.exp(eps)) * self._delta_mass

    def _delta_linear_ok(self, eps: np.ndarray, values: np.ndarray) -> bool:
        """Whether the linear ``values`` of delta at ``eps`` are exact to ``LINEAR_DELTA_SLACK`` of themselves
        (or to ``LINEAR_DELTA_FLOOR``)."""
        bound = self._delta_bound(eps)
        return bound is not None and bool(np.all(bound <= np.maximum(LINEAR_DELTA_SLACK * values,
                                                                     LINEAR_DELTA_FLOOR)))

    def _eps_linear_ok(self, delta: np.ndarray, values: np.ndarray, forward: bool) -> bool:
        """Whether the exact ``eps(delta)`` lies within ``w = LINEAR_EPS_WIDTH max(1, eps)`` of the linear
        ``values``: ``delta`` (non-increasing in eps) is at most ``delta`` at ``eps + w`` and above it at
        ``eps - w`` even when moved by its bound (:meth:`_delta_bound`); at ``eps = 0``, at most ``delta``
        at 0 (the exact answer is then 0 too)."""
        if self._delta_bound(np.zeros(1)) is None or not np.all(np.isfinite(values)):
            return False
        width = LINEAR_EPS_WIDTH * np.maximum(1.0, values)
        above = np.where(values > 0, values + width, 0.0)
        if not np.all(self._delta_linear(above, forward) + self._delta_bound(above) <= delta):
            return False
        inside = values > 0
        below = values[inside] - width[inside]
        return bool(np.all(self._delta_linear(below, forward) - self._delta_bound(below) > delta[inside]))

    @classmethod
    def from_log(cls, log_p, log_q, support=None, error: float = 0.0, coarse: "DiscreteProfile | None" = None,
                 unresolved=None) -> "DiscreteProfile":
        """The pair given by its log masses (``-inf`` for a zero mass), which may lie far below the
        smallest double: see the class docstring."""
        return cls(log_p, log_q, support=support, error=error, coarse=coarse, unresolved=unresolved, log=True)

    def _pair(self, forward: bool):
        return (self.p, self.q, self.log_p, self.log_q) if forward else (self.q, self.p, self.log_q, self.log_p)

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        exact = self._exact(strict=True)
        if exact is not None:
            return exact._renyi(alpha, forward)
        p, q, lp, lq = self._pair(forward)
        on = lp > -np.inf
        singular = on & (lq == -np.inf)
        if np.any(singular):
            if not self.from_logs and float(np.max(p[singular])) < UNDERFLOW_MASS:
                # Q's mass underflowed to 0 where P's is itself at the bottom of the double range: the linear
                # masses cannot tell a singular part from a tail (Rényi would read a spurious +inf)
                raise PointRefused(f"the Rényi divergence is not resolved: the second law's mass underflows to 0 on "
                                   f"{int(singular.sum())} cells where the first has mass <= "
                                   f"{float(np.max(p[singular])):.3g} (linear masses; log masses are needed)", "alpha")
            return np.full(alpha.shape, np.inf)
        lp, lq = lp[on], lq[on]
        flat = alpha.ravel()
        out = np.empty(flat.shape)
        for i in range(0, flat.size, 64):
            a = flat[i:i + 64, None]
            out[i:i + 64] = logsumexp(a * lp + (1 - a) * lq, axis=1) / (a[:, 0] - 1)
        return np.maximum(out, 0.0).reshape(alpha.shape)

    @functools.cached_property
    def _sorted(self):
        """Cells sorted by decreasing forward log-likelihood ratio log(p/q), with cumulative sums."""
        with np.errstate(invalid="ignore"):
            llr = self.log_p - self.log_q  # +inf where q = 0, -inf where p = 0
        order = np.argsort(-llr, kind="stable")
        return llr[order], self.p[order], self.q[order]

    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        if self.resolve is None or self._resolved is False or not self._needs(False):
            return self._delta_linear(eps, forward)
        if self._resolved is None:  # the log masses only if the linear answer may differ from theirs
            values = self._delta_linear(eps, forward)
            if self._delta_linear_ok(eps, values):
                return values
        exact = self._exact(strict=False)
        if exact is not None:
            return exact._delta(eps, forward)
        return self._delta_linear(eps, forward)

    def _delta_linear(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        """``delta(eps)`` of the linear masses as they are."""
        llr, p, q = self._sorted
        if not forward:
            llr, p, q = -llr[::-1], q[::-1], p[::-1]
        # delta(eps) = sum_{llr > eps} p (1 - e^{eps - llr}): non-negative terms, no cancellation.  The cells
        # with llr > e are the first k (one searchsorted for every eps); a cell with llr = +inf (q = 0) has
        # weight -expm1(-inf) = 1 exactly, and llr = -inf never counts (eps is finite).  Each eps is one
        # sum over its own prefix, so its value does not depend on the other eps asked with it.
        flat = eps.ravel()
        counts = np.searchsorted(-llr, -flat, side="left")
        out = np.zeros(flat.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            for i in np.flatnonzero(counts):
                k = counts[i]
                out[i] = (p[:k] * -np.expm1(flat[i] - llr[:k])).sum()
        return out.reshape(eps.shape)

    def _eps(self, delta: np.ndarray, forward: bool) -> np.ndarray:
        if self.resolve is not None and self._resolved is None and self._needs(False):
            values = self._eps_linear(delta, forward)  # the log masses only if the answer may differ
            if self._eps_linear_ok(delta, values, forward):
                return values
        exact = self._exact(strict=False)
        if exact is not None:
            return exact._eps(delta, forward)
        return self._eps_linear(delta, forward)

    def _eps_linear(self, delta: np.ndarray, forward: bool) -> np.ndarray:
        """``eps(delta)`` of the linear masses as they are."""
        # delta(eps) = 0 beyond the largest finite log-likelihood ratio: the bracket reaches it (a pair at
        # a large mu has eps(delta) ~ mu^2/2, beyond invert_delta's default end 1e4)
        llr = self._sorted[0] if forward else -self._sorted[0][::-1]
        finite = llr[np.isfinite(llr)]
        top = float(finite.max()) if finite.size else 0.0
        return invert_delta(lambda e: self._delta_linear(e, forward), delta, eps_max=max(1e4, 2.0 * top))

    def _tradeoff(self, a: np.ndarray, forward: bool) -> np.ndarray:
        # Neyman–Pearson: reject P in favour of Q where q/p is largest (Dong, Roth, Su 2022, Def. 2.1)
        exact = self._exact(strict=False)
        if exact is not None:
            return exact._tradeoff(a, forward)
        llr, p, q = self._sorted
        if forward:  # T(P, Q): order by q/p decreasing = llr increasing
            p_o, q_o = p[::-1], q[::-1]
        else:  # T(Q, P): order by p/q decreasing
            p_o, q_o = q, p
        x = np.concatenate([[0.0], np.cumsum(p_o)])
        y = np.concatenate([[1.0], 1.0 - np.cumsum(q_o)])
        x[-1] = 1.0
        y = np.maximum(y, 0.0)
        # repeated x (cells with zero null mass): keep the last (lowest) y
        rev_x = x[::-1]
        _, idx = np.unique(rev_x, return_index=True)
        xs, ys = rev_x[idx], y[::-1][idx]
        return np.interp(a, xs, ys)

    def error_of(self, name: str, *args, **kwargs) -> float:
        """Error estimate of one quantity (``name`` in renyi/delta/eps/tradeoff; max over the arguments).

        ``|value - value on the twice-coarser grid|`` (the refinement estimate; 0 without a coarse
        companion) plus, when some masses were below the FFT round-off floor (``unresolved``), the
        change of the value when those cells are dropped.  A delta or eps answered from linear masses by their
        bound (:meth:`_delta_bound`) adds that bound (or ``LINEAR_EPS_WIDTH``) instead, the fine and the coarse
        one; the estimate of eps for a pair whose log masses are needed is theirs.
        """
        _check_quantity(name)
        fine = np.asarray(self.delta(*args, **kwargs), dtype=float) if name == "delta" else None
        exact = self._exact(strict=name == "renyi") if fine is None or self._answered_exactly() else None
        if exact is not None:  # the log masses have no floored cells: the refinement estimate only
            error = exact.error_of(name, *args, **kwargs)
            if name == "eps" and self._delta_bound(np.zeros(1)) is not None:  # eps() may be the linear answer
                at = np.asarray(exact.eps(*args, **kwargs), dtype=float)
                error += LINEAR_EPS_WIDTH * float(np.max(np.where(np.isfinite(at), np.maximum(1.0, at), 0.0)))
            return error
        if fine is None:
            fine = np.asarray(getattr(self, name)(*args, **kwargs), dtype=float)
        total = np.zeros(fine.shape)
        others = [self.coarse] if self.coarse is not None else []
        bounded = name == "delta" and self._answered_by_bound()  # its bound covers the floored cells too
        if not bounded and self.unresolved is not None and np.any(self.unresolved) and not np.all(self.unresolved):
            keep = ~self.unresolved
            if self.from_logs:  # the masses may lie below the float range: drop the cells in log space
                lp, lq = self.log_p[keep], self.log_q[keep]
                others.append(DiscreteProfile.from_log(lp - logsumexp(lp), lq - logsumexp(lq)))
            else:
                others.append(DiscreteProfile(self.p[keep] / self.p[keep].sum(), self.q[keep] / self.q[keep].sum()))
        answers = {id(self): fine}
        for other in others:
            rough = answers[id(other)] = np.asarray(getattr(other, name)(*args, **kwargs), dtype=float)
            total = total + _refinement_gap(fine, rough)
        for prof in (self, self.coarse):  # a linear answer within its bound of the log masses' one: add it
            if prof is not None and name in ("delta", "eps") and prof._answered_by_bound():
                if name == "delta":
                    total = total + prof._delta_bound(_as_eps(kwargs["eps"] if "eps" in kwargs else args[0]))
                else:
                    total = total + LINEAR_EPS_WIDTH * np.maximum(1.0, answers[id(prof)])
        if name == "eps" and self.coarse is not None and self.support is not None:
            total = total + self._llr_step(fine)
        return float(np.max(total))

    def _answered_exactly(self) -> bool:
        """Whether delta, eps and the tradeoff are answered from the log masses (computed and needed)."""
        return isinstance(self._resolved, DiscreteProfile) and self._needs(False)

    def _answered_by_bound(self) -> bool:
        """Whether delta or eps was answered from the linear masses by their bound although the log masses
        were needed (see :meth:`_delta_bound`); evaluated after the query."""
        return self.resolve is not None and self._resolved is None and self._needs(False)

    def _llr_step(self, eps: np.ndarray) -> np.ndarray:
        """The jump of the log-likelihood ratio between neighbouring grid cells where it crosses each
        ``eps``: the resolution of eps(delta) on this grid.  At a large mu the ratio changes by mu h / s
        per cell, and a fine and a coarse grid can give the same eps (the optimal set a union of coarse
        cells) while both miss the continuous value by up to that jump (a cell's ratio lies within its
        range of the continuous one: eps_true <= eps_grid + jump for one binned step)."""
        order = np.argsort(self.support, kind="stable")
        with np.errstate(invalid="ignore"):
            llr = (self.log_p - self.log_q)[order]
        llr = llr[np.isfinite(llr)]
        if llr.size < 2:
            return np.zeros(np.shape(eps))
        a, b = llr[:-1], llr[1:]
        jump = np.abs(b - a)
        out = np.zeros(np.size(eps))
        for i, e in enumerate(np.ravel(eps)):
            for x in (e, -e):  # forward and backward ratios
                crossing = (np.minimum(a, b) <= x) & (np.maximum(a, b) >= x)
                if crossing.any():
                    out[i] = max(out[i], float(jump[crossing].max()))
        return out.reshape(np.shape(eps))

    def extrapolate(self, name: str, *args, **kwargs):
        """Richardson extrapolation ``(4 v_h - v_2h) / 3`` of a quantity from the coarse companion.

        The grid values converge as ``O(h^2)``; this removes the leading term (not a value of the
        discretised pair: use it as a sharper estimate of the continuous one).
        """
        if self.coarse is None:
            raise InputError("extrapolate needs a coarse companion profile", "coarse")
        _check_quantity(name)
        fine = np.asarray(getattr(self, name)(*args, **kwargs), dtype=float)
        rough = np.asarray(getattr(self.coarse, name)(*args, **kwargs), dtype=float)
        return _scalar((4 * fine - rough) / 3)

    def __repr__(self) -> str:
        return f"DiscreteProfile(cells={self.p.size}, error={self.error:.3g})"


__all__ = ["DIRECTIONS", "DiscreteProfile", "GaussianProfile", "PrivacyProfile"]
