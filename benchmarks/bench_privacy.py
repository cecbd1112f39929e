"""Benchmarks of the privacy calculus (plain script: ``python benchmarks/bench_privacy.py``).

1. ``gdp_eps`` on 1e5 mu values, vectorised, against a per-value scalar ``brentq`` root find of the
   same equation (Bu et al. footnote 10 style); the scalar loop is timed on a random subset and
   scaled to 1e5, and both answers are compared on that subset.
2. ``sampled_gaussian_rdp`` for 1e3 (q, sigma) pairs x 64 orders (48 integer, 16 fractional): time per
   value, split by integer (binomial series) and fractional (quadrature) orders.
3. Fractional orders: one batched quadrature over 20,480 (q, sigma, alpha) points shaped like
   ``altschuler2022/thm3.1``'s (add direction, q in [1e-3, 0.17], sigma in [0.4, 1e5] log-uniform,
   40 orders in (1, 220]) against the one-point path (now the fallback) on a subset, scaled, with the
   largest difference; with ``--against FILE`` (an older rdp.py, e.g. ``git show faf6400:verify/privacy/rdp.py``)
   also against that file's ``sampled_gaussian_rdp`` on all the points.
4. ``Composition``: building and querying C_p(G_mu)^{⊗T} and Poisson add/remove for T = 1000.

All random inputs come from ``numpy.random.default_rng(SEED)``.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import optimize
from scipy.stats import norm

from verify.privacy import Composition, gdp_eps, sampled_gaussian_rdp

SEED = 20240521


def scalar_gdp_eps(mu: float, delta: float) -> float:
    """Reference: brentq on delta(eps) - delta over [0, mu (mu/2 + Phi^{-1}(1 - delta))] (one value)."""

    def gap(eps: float) -> float:
        return norm.cdf(-eps / mu + mu / 2) - np.exp(eps + norm.logcdf(-eps / mu - mu / 2)) - delta

    if gap(0.0) <= 0:
        return 0.0
    return optimize.brentq(gap, 0.0, mu * (mu / 2 + norm.isf(delta)), xtol=1e-14, rtol=1e-14)


def bench_gdp_eps(rng: np.random.Generator) -> None:
    n, n_loop = 100_000, 2_000
    mu = rng.uniform(0.05, 10.0, n)
    delta = 1e-5
    t0 = time.perf_counter()
    eps_vec = gdp_eps(mu, delta)
    t_vec = time.perf_counter() - t0
    idx = rng.choice(n, n_loop, replace=False)
    t0 = time.perf_counter()
    eps_loop = np.array([scalar_gdp_eps(m, delta) for m in mu[idx]])
    t_loop = (time.perf_counter() - t0) * n / n_loop
    err = np.max(np.abs(eps_loop - eps_vec[idx]) / np.maximum(eps_loop, 1e-300))
    print("gdp_eps, 1e5 mu values in [0.05, 10], delta = 1e-5")
    print(f"  vectorised           {t_vec:8.3f} s  ({t_vec / n * 1e6:.2f} us/value)")
    print(f"  scalar brentq loop   {t_loop:8.3f} s  (timed on {n_loop} values, scaled)")
    print(f"  speed-up             {t_loop / t_vec:8.1f} x   (target >= 20x); max rel. difference {err:.1e}")


def bench_sgm_rdp(rng: np.random.Generator) -> None:
    n_pairs = 1000
    q = 10 ** rng.uniform(-4, np.log10(0.5), n_pairs)
    sigma = rng.uniform(0.5, 10.0, n_pairs)
    integer_orders = np.array(list(range(2, 41)) + [48, 56, 64, 80, 96, 128, 192, 256, 512], dtype=float)
    fractional_orders = np.array([1.25, 1.5, 1.75, 2.25, 2.5, 2.75, 3.25, 3.5, 3.75, 4.5, 5.5, 6.5, 7.5, 8.5, 10.5, 12.5])
    assert len(integer_orders) + len(fractional_orders) == 64
    print(f"sampled_gaussian_rdp, {n_pairs} (q, sigma) pairs x 64 orders, direction='remove'")
    total_t, total_n = 0.0, 0
    for label, orders in [("integer (series)", integer_orders), ("fractional (quadrature)", fractional_orders)]:
        t0 = time.perf_counter()
        values = sampled_gaussian_rdp(q[:, None], sigma[:, None], orders[None, :])
        t = time.perf_counter() - t0
        assert np.isfinite(values).all()
        total_t += t
        total_n += values.size
        print(f"  {label:24s} {t:8.3f} s  {t / values.size * 1e6:9.1f} us/value  ({values.size} values)")
    print(f"  {'all 64 orders':24s} {total_t:8.3f} s  {total_t / total_n * 1e6:9.1f} us/value")
    t0 = time.perf_counter()
    values = sampled_gaussian_rdp(q[:100, None], sigma[:100, None], fractional_orders[None, :], direction="add")
    t = time.perf_counter() - t0
    print(f"  {'add direction (quadr.)':24s} {t:8.3f} s  {t / values.size * 1e6:9.1f} us/value  ({values.size} values)")


def bench_fractional_batch(rng: np.random.Generator) -> None:
    from verify.privacy import rdp

    n, n_loop = 20_480, 1_024
    q = 10 ** rng.uniform(-3, np.log10(1 / 6), n)
    sigma = 10 ** rng.uniform(np.log10(0.4), 5, n)
    alpha = rng.choice(1 + np.geomspace(0.036, 219, 40), n)
    t0 = time.perf_counter()
    batch = sampled_gaussian_rdp(q, sigma, alpha, direction="add")
    t_batch = time.perf_counter() - t0
    idx = rng.choice(n, n_loop, replace=False)
    t0 = time.perf_counter()
    one = np.array([rdp._sgm_rdp_one(q[i], sigma[i], alpha[i], "add") for i in idx])
    t_one = (time.perf_counter() - t0) * n / n_loop
    one = np.minimum(one, -np.log1p(-q[idx]))
    err = np.max(np.abs(batch[idx] - one) / one)
    print(f"fractional-order RDP (add direction), {n} points like altschuler2022/thm3.1's")
    print(f"  batched quadrature   {t_batch:8.3f} s  ({t_batch / n * 1e6:.1f} us/value)")
    print(f"  one point at a time  {t_one:8.3f} s  (timed on {n_loop} points, scaled)")
    print(f"  speed-up             {t_one / t_batch:8.1f} x   max rel. difference {err:.1e}")
    if "--against" in sys.argv:
        import importlib.util

        path = sys.argv[sys.argv.index("--against") + 1]
        spec = importlib.util.spec_from_file_location("rdp_against", path)
        older = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(older)
        t0 = time.perf_counter()
        ref = older.sampled_gaussian_rdp(q, sigma, alpha, direction="add")
        t_old = time.perf_counter() - t0
        print(f"  {path}: {t_old:8.3f} s, {t_old / t_batch:.1f} x the batch; "
              f"max rel. difference {np.max(np.abs(batch - ref) / ref):.1e}")


def bench_pld() -> None:
    print("Composition (pessimistic PLD, interval 1e-4), T = 1000")
    for adjacency in ["add_remove", "replace", "symmetric"]:
        t0 = time.perf_counter()
        c = Composition.subsampled_gaussian(0.01, 1.0, 1000, adjacency=adjacency)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        d = c.delta(1.0)
        t_delta = time.perf_counter() - t0
        t0 = time.perf_counter()
        e = c.eps(1e-5)
        t_eps = time.perf_counter() - t0
        print(
            f"  {adjacency:10s} build {t_build:6.3f} s   delta(1) {t_delta * 1e3:7.2f} ms = {d:.3e}"
            f"   eps(1e-5) {t_eps * 1e3:7.2f} ms = {e:.4f}"
        )


def main() -> None:
    rng = np.random.default_rng(SEED)
    bench_gdp_eps(rng)
    print()
    bench_sgm_rdp(rng)
    print()
    bench_fractional_batch(rng)
    print()
    bench_pld()


if __name__ == "__main__":
    main()
