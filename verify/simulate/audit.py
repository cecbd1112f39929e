"""Empirical privacy audit: threshold tests on simulated outputs -> lower confidence bounds.

A test that rejects "the output came from D" when the statistic exceeds a threshold has false-positive
rate alpha = P_D(s > t) and false-negative rate beta = P_D'(s <= t).  Every privacy guarantee restricts
(alpha, beta):

* (eps, delta)-DP:  alpha + e^eps beta >= 1 - delta  and  beta + e^eps alpha >= 1 - delta
  (Kairouz, Oh, Viswanath 2015, Thm 2.1; Dong, Roth, Su 2022, Prop 2.5);
* mu-GDP:  beta >= Phi(Phi^{-1}(1 - alpha) - mu)  (Dong, Roth, Su 2022, Def 2.7 of G_mu);
* Rényi DP of order a:  D_a(Bern(1 - beta) || Bern(alpha)) <= rdp(a)  (data processing; Mironov 2017).

Each bound is monotone in (alpha, beta), so one-sided Clopper–Pearson *upper* bounds on alpha and beta
turn the constraints into lower confidence bounds on eps(delta), delta(eps), mu and rdp(a).  Thresholds
are chosen on a held-out selection split; the remaining runs estimate the rates, with a Bonferroni
correction over every interval used, so all the reported bounds hold simultaneously with probability at
least ``confidence``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import special, stats

from verify.errors import InputError

# ---------------------------------------------------------------------------------------------------
# exact binomial intervals
# ---------------------------------------------------------------------------------------------------


def _counts(k, n) -> tuple[np.ndarray, np.ndarray]:
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise InputError("n must be a positive integer (number of trials)", "n")
    if np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)):
        raise InputError("k must be an integer in [0, n] (number of successes)", "k")
    return k, n


def _level(level: float, name: str = "level") -> float:
    if not (0 < level < 1):
        raise InputError(f"{name} must lie in (0, 1), got {level!r}", name)
    return float(level)


def clopper_pearson_upper(k, n, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound on a binomial proportion at confidence ``level``.

    ``P(p <= bound) >= level`` (Clopper & Pearson 1934): the ``level`` quantile of Beta(k+1, n-k),
    and 1 when k = n.  Broadcasts over ``k`` and ``n``.
    """
    k, n = _counts(k, n)
    level = _level(level)
    with np.errstate(all="ignore"):
        out = stats.beta.ppf(level, k + 1, np.maximum(n - k, 1))
    return np.where(k >= n, 1.0, out)


def clopper_pearson_lower(k, n, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: the ``1 - level`` quantile of Beta(k, n-k+1), 0 at k = 0."""
    k, n = _counts(k, n)
    level = _level(level)
    with np.errstate(all="ignore"):
        out = stats.beta.ppf(1 - level, np.maximum(k, 1), n - k + 1)
    return np.where(k <= 0, 0.0, out)


# ---------------------------------------------------------------------------------------------------
# what a pair of error rates implies
# ---------------------------------------------------------------------------------------------------


def _rates(alpha, beta) -> tuple[np.ndarray, np.ndarray]:
    alpha, beta = np.broadcast_arrays(np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float))
    if np.any(~(alpha >= 0) | (alpha > 1)) or np.any(~(beta >= 0) | (beta > 1)):
        raise InputError("alpha and beta must lie in [0, 1]",
                         "alpha" if np.any(~(alpha >= 0) | (alpha > 1)) else "beta")
    return alpha, beta


def eps_from_rates(alpha, beta, delta) -> np.ndarray:
    """Smallest eps such that a test with errors (alpha, beta) is allowed by (eps, delta)-DP.

    ``max(0, log((1-delta-alpha)/beta), log((1-delta-beta)/alpha))`` (Kairouz et al. 2015, Thm 2.1),
    computed in log space; alpha = 0 or beta = 0 with 1 - delta - (other) > 0 is ``inf`` (no finite eps).
    """
    alpha, beta = _rates(alpha, beta)
    delta = np.asarray(delta, dtype=float)
    if np.any(~(delta >= 0) | (delta >= 1)):
        raise InputError("delta must lie in [0, 1)", "delta")
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.log(np.clip(1 - delta - alpha, 0, None)) - np.log(beta)
        two = np.log(np.clip(1 - delta - beta, 0, None)) - np.log(alpha)
    one = np.where(np.isnan(one), -np.inf, one)
    two = np.where(np.isnan(two), -np.inf, two)
    return np.maximum(0.0, np.maximum(one, two))


def delta_from_rates(alpha, beta, eps) -> np.ndarray:
    """Smallest delta such that (alpha, beta) is allowed by (eps, delta)-DP: ``1 - alpha - e^eps beta`` or sym."""
    alpha, beta = _rates(alpha, beta)
    eps = np.asarray(eps, dtype=float)
    if np.any(~np.isfinite(eps)):
        raise InputError("eps must be finite", "eps")
    e = np.exp(np.minimum(eps, 700.0))
    return np.clip(np.maximum(1 - alpha - e * beta, 1 - beta - e * alpha), 0.0, 1.0)


def mu_from_rates(alpha, beta) -> np.ndarray:
    """Smallest mu such that (alpha, beta) lies on or above G_mu: ``max(0, -Phi^{-1}(alpha) - Phi^{-1}(beta))``."""
    alpha, beta = _rates(alpha, beta)
    with np.errstate(all="ignore"):
        mu = -special.ndtri(alpha) - special.ndtri(beta)
    return np.maximum(0.0, np.where(np.isnan(mu), 0.0, mu))


def rdp_from_rates(alpha, beta, order) -> np.ndarray:
    """Smallest Rényi-DP epsilon at ``order`` allowing (alpha, beta), by data processing to one bit.

    ``max(D_a(Bern(1-beta) || Bern(alpha)), D_a(Bern(alpha) || Bern(1-beta)))`` when
    1 - beta > alpha, else 0 (Mironov 2017, Prop. 2 / data-processing inequality), in log space.
    """
    alpha, beta = _rates(alpha, beta)
    a = np.asarray(order, dtype=float)
    if np.any(~(a > 1)) or np.any(~np.isfinite(a)):
        raise InputError("order must be finite and > 1", "order")
    p, q = 1.0 - beta, alpha

    def div(p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.stack(np.broadcast_arrays(a * np.log(p) + (1 - a) * np.log(q),
                                                 a * np.log1p(-p) + (1 - a) * np.log1p(-q)))
            # 0^a * 0^(1-a) := 0 (the outcome never happens under either law)
            terms = np.where(np.isnan(terms), -np.inf, terms)
            return special.logsumexp(terms, axis=0) / (a - 1)

    out = np.maximum(div(p, q), div(q, p))
    return np.where(p > q, np.maximum(out, 0.0), 0.0)


# ---------------------------------------------------------------------------------------------------
# empirical tradeoff curve
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TradeoffBand:
    """Empirical (alpha, beta) of the tests ``s > t`` with simultaneous two-sided CP intervals."""

    thresholds: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    alpha_lo: np.ndarray
    alpha_hi: np.ndarray
    beta_lo: np.ndarray
    beta_hi: np.ndarray
    confidence: float

    def contains(self, tradeoff: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Whether the curve ``beta = f(alpha)`` (non-increasing) meets each rectangle of the band."""
        return (tradeoff(self.alpha_lo) >= self.beta_lo) & (tradeoff(self.alpha_hi) <= self.beta_hi)


def empirical_tradeoff(s0, s1, thresholds, confidence: float = 0.95) -> TradeoffBand:
    """FPR/FNR of the tests ``s > t`` from samples ``s0`` (under D) and ``s1`` (under D').

    Two-sided Clopper–Pearson intervals, Bonferroni-corrected over the ``2 K`` intervals of the K
    thresholds so that all hold together with probability >= ``confidence``.
    """
    s0, s1 = np.asarray(s0, dtype=float).ravel(), np.asarray(s1, dtype=float).ravel()
    if s0.size == 0 or s1.size == 0:
        raise InputError("s0 and s1 must be non-empty samples", "s0" if s0.size == 0 else "s1")
    t = np.asarray(thresholds, dtype=float).ravel()
    confidence = _level(confidence, "confidence")
    per = 1 - (1 - confidence) / (4 * t.size)  # two sides of 2K intervals
    k0 = s0.size - np.searchsorted(np.sort(s0), t, side="right")
    k1 = np.searchsorted(np.sort(s1), t, side="right")
    return TradeoffBand(t, k0 / s0.size, k1 / s1.size,
                        clopper_pearson_lower(k0, s0.size, per), clopper_pearson_upper(k0, s0.size, per),
                        clopper_pearson_lower(k1, s1.size, per), clopper_pearson_upper(k1, s1.size, per),
                        confidence)


# ---------------------------------------------------------------------------------------------------
# the audit proper
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdTest:
    """One selected test (reject D when ``s > threshold``, or ``s < threshold`` for direction "<")
    and its rates on the estimation split."""

    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    chosen_for: str
    direction: str = ">"


@dataclass(frozen=True)
class AuditResult:
    """Lower confidence bounds from an audit; every bound holds jointly with prob. >= ``confidence``.

    ``eps_lower`` is at ``delta``; :meth:`delta_lower`, :meth:`rdp_lower` give the other notions from
    the same selected tests (still covered by the same Bonferroni correction).
    """

    eps_lower: float
    mu_lower: float
    runs: int
    confidence: float
    delta: float
    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    tests: tuple[ThresholdTest, ...]
    statistic: str
    selection_runs: int
    estimation_runs: int
    extra: dict = field(default_factory=dict)

    def eps_lower_at(self, delta) -> np.ndarray | float:
        """Lower bound on eps(delta) for any delta in [0, 1)."""
        out = np.max([eps_from_rates(t.fpr_upper, t.fnr_upper, delta) for t in self.tests], axis=0)
        return out[()] if np.ndim(out) == 0 else out

    def delta_lower(self, eps) -> np.ndarray | float:
        """Lower bound on the hockey-stick divergence delta(eps)."""
        out = np.max([delta_from_rates(t.fpr_upper, t.fnr_upper, eps) for t in self.tests], axis=0)
        return out[()] if np.ndim(out) == 0 else out

    def rdp_lower(self, order) -> np.ndarray | float:
        """Lower bound on the Rényi divergence of order ``order`` (either direction)."""
        out = np.max([rdp_from_rates(t.fpr_upper, t.fnr_upper, order) for t in self.tests], axis=0)
        return out[()] if np.ndim(out) == 0 else out

    def to_json(self) -> dict:
        return {
            "eps_lower": self.eps_lower, "mu_lower": self.mu_lower, "delta": self.delta,
            "runs": self.runs, "confidence": self.confidence, "threshold": self.threshold,
            "fpr": self.fpr, "fnr": self.fnr, "fpr_upper": self.fpr_upper, "fnr_upper": self.fnr_upper,
            "statistic": self.statistic, "selection_runs": self.selection_runs,
            "estimation_runs": self.estimation_runs,
            "tests": [t.__dict__ for t in self.tests], **self.extra,
        }


@dataclass(frozen=True)
class BoundComparison:
    """A theorem's bound against an audit's lower confidence bound, in the theorem's notion, at the
    notion parameter values ``at`` (None for a notion without one).  ``ok``: the bound is not below the
    audited lower bound anywhere it is defined."""

    theorem: str
    notion: str
    ok: bool
    bound: float | list[float]
    lower: float | list[float]
    at: list[float] | None

    def to_json(self) -> dict:
        return {"ok": self.ok, "bound": self.bound, "lower": self.lower, "at": self.at, "theorem": self.theorem,
                "notion": self.notion}


def mean_difference_direction(theta0: np.ndarray, theta1: np.ndarray) -> np.ndarray:
    """Unit vector along the difference of the sample means (the Gaussian LLR direction for equal,
    isotropic covariances); the first coordinate axis when the means coincide."""
    w = theta1.mean(axis=0) - theta0.mean(axis=0)
    norm = float(np.linalg.norm(w))
    if not np.isfinite(norm) or norm == 0:
        w = np.zeros(theta0.shape[1])
        w[0] = 1.0
        return w
    return w / norm


def audit_samples(theta0, theta1, *, confidence: float = 0.95, delta: float = 1e-5,
                  statistic: Callable | None = None, select_fraction: float = 0.2,
                  candidates: int = 256) -> AuditResult:
    """Audit from last iterates ``theta0`` (runs on D) and ``theta1`` (runs on D'), each (R, d) or (R,).

    The first ``select_fraction`` of the runs of each side selects the direction (when ``statistic`` is
    None: projection on the mean difference), the orientation and two thresholds (one maximising the
    predicted eps bound at ``delta``, one the mu bound); the rest estimates their rates.  Four
    one-sided Clopper–Pearson bounds at level ``1 - (1 - confidence)/4`` (Bonferroni) make every
    reported bound hold jointly with probability >= ``confidence``.
    """
    confidence = _level(confidence, "confidence")
    if not (0 <= delta < 1):
        raise InputError(f"delta must lie in [0, 1), got {delta!r}", "delta")
    _level(select_fraction, "select_fraction")
    th0 = np.asarray(theta0, dtype=float)
    th1 = np.asarray(theta1, dtype=float)
    th0 = th0[:, None] if th0.ndim == 1 else th0
    th1 = th1[:, None] if th1.ndim == 1 else th1
    r0, r1 = th0.shape[0], th1.shape[0]
    k0, k1 = int(round(select_fraction * r0)), int(round(select_fraction * r1))
    if min(k0, k1, r0 - k0, r1 - k1) < 1:
        raise InputError(f"runs must be large enough for both splits (got {r0} and {r1} runs)", "theta0")
    if statistic is None:
        w = mean_difference_direction(th0[:k0], th1[:k1])
        stat = lambda th: th @ w  # noqa: E731
        name = "mean-difference projection"
    else:
        stat = statistic
        name = getattr(statistic, "__name__", "user statistic")
    s0 = np.asarray(stat(th0), dtype=float).ravel()
    s1 = np.asarray(stat(th1), dtype=float).ravel()
    if s0.shape != (r0,) or s1.shape != (r1,):
        raise InputError("statistic must map (R, d) iterates to R numbers", "statistic")
    if not (np.all(np.isfinite(s0)) and np.all(np.isfinite(s1))):
        raise InputError("statistic returned non-finite values", "statistic")
    sel0, est0, sel1, est1 = s0[:k0], s0[k0:], s1[:k1], s1[k1:]
    sign = 1.0 if np.median(sel1) >= np.median(sel0) else -1.0
    sel0, est0, sel1, est1 = sign * sel0, sign * est0, sign * sel1, sign * est1
    n0, n1 = est0.size, est1.size
    per = 1 - (1 - confidence) / 4
    # candidate thresholds: quantiles of the pooled selection sample, and the extremes
    pooled = np.sort(np.concatenate([sel0, sel1]))
    qs = np.unique(np.quantile(pooled, np.linspace(0, 1, candidates + 1)))
    a_sel = 1 - np.searchsorted(np.sort(sel0), qs, side="right") / sel0.size
    b_sel = np.searchsorted(np.sort(sel1), qs, side="right") / sel1.size
    # predicted bounds if the estimation split saw the same rates
    a_pred = clopper_pearson_upper(np.round(a_sel * n0), n0, per)
    b_pred = clopper_pearson_upper(np.round(b_sel * n1), n1, per)
    t_eps = float(qs[int(np.argmax(eps_from_rates(a_pred, b_pred, delta)))])
    t_mu = float(qs[int(np.argmax(mu_from_rates(a_pred, b_pred)))])
    tests = []
    srt0, srt1 = np.sort(est0), np.sort(est1)
    for t, why in ((t_eps, "eps"), (t_mu, "mu")):
        fp = int(n0 - np.searchsorted(srt0, t, side="right"))
        fn = int(np.searchsorted(srt1, t, side="right"))
        tests.append(ThresholdTest(sign * t, fp / n0, fn / n1, float(clopper_pearson_upper(fp, n0, per)),
                                   float(clopper_pearson_upper(fn, n1, per)), why, ">" if sign > 0 else "<"))
    eps_lb = float(max(eps_from_rates(t.fpr_upper, t.fnr_upper, delta) for t in tests))
    mu_lb = float(max(mu_from_rates(t.fpr_upper, t.fnr_upper) for t in tests))
    first = tests[0]
    return AuditResult(eps_lb, mu_lb, min(r0, r1), confidence, float(delta), first.threshold, first.fpr,
                       first.fnr, first.fpr_upper, first.fnr_upper, tuple(tests),
                       name + ("" if sign > 0 else " (reversed)"), k0 + k1, n0 + n1)
