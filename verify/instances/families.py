"""The instance families: Gaussian chains, 1-D interval walks and the papers' own constructions.

Every builder takes canonical parameters (DESIGN.md §3) plus family keywords and returns an
:class:`~verify.instances.instance.Instance`; invalid parameters raise ``ValueError`` naming the
problem.  Conventions: the differing record is replaced (``adjacency="replace"``) unless stated;
Delta is the sup norm of the gradient difference of the differing record; Poisson batches keep the
denominator ``b``; per-step parameter noise has std ``eta * sigma``.
"""

from __future__ import annotations

import math

import numpy as np

from verify.instances.chain import QuadraticRun
from verify.instances.grid import IntervalGrid, Mixture, evolve_many
from verify.instances.instance import (Family, Instance, as_array, batches_of, choice, integer,
                                       nonnegative, positive, sensitivity)
from verify.instances.profile import CompositionProfile, DiscreteProfile, GaussianProfile
from verify.theorem import Setting

#: eps grid on which the refinement error of a grid profile is measured (sup-norm of delta(eps))
ERROR_EPS = np.linspace(0.0, 4.0, 41)


# ---------------------------------------------------------------------------------------------------
# Gaussian chains (quadratic and linear losses, full or cyclic batches)
# ---------------------------------------------------------------------------------------------------


def _spectrum(where: str, d, m, M, eigenvalues, H):
    """Eigenvalues and eigenvectors of the shared H, with (m, M) checked against them."""
    if H is not None:
        H = np.asarray(H, dtype=float)
        if H.ndim != 2 or H.shape[0] != H.shape[1]:
            raise ValueError(f"{where}: H must be a square matrix, got shape {H.shape}")
        if not np.all(np.isfinite(H)) or not np.allclose(H, H.T, rtol=1e-12, atol=1e-14):
            raise ValueError(f"{where}: H must be symmetric positive definite (it is not symmetric)")
        lam, U = np.linalg.eigh(H)
    elif eigenvalues is not None:
        lam = np.atleast_1d(np.asarray(eigenvalues, dtype=float))
        if lam.ndim != 1 or not np.all(np.isfinite(lam)):
            raise ValueError(f"{where}: eigenvalues must be a finite vector")
        U = None
    else:
        if m is None or M is None:
            raise ValueError(f"{where}: give m and M (or eigenvalues, or H)")
        m = positive("m", m, where)
        M = positive("M", M, where)
        if M < m:
            raise ValueError(f"{where}: need m <= M, got m={m} > M={M}")
        if d is None:
            d = 1 if m == M else 2
        d = integer("d", d, where)
        if d == 1 and m != M:
            raise ValueError(f"{where}: d=1 cannot hold both eigenvalues m={m} and M={M}; use d >= 2")
        lam = np.linspace(m, M, d) if d > 1 else np.array([m])
        U = None
    if d is not None and integer("d", d, where) != lam.size:
        raise ValueError(f"{where}: d={d} does not match H of dimension {lam.size} (mismatched dimensions)")
    if np.any(lam <= 0):
        raise ValueError(f"{where}: H must be symmetric positive definite (smallest eigenvalue {lam.min()!r} <= 0)")
    lo, hi = float(lam.min()), float(lam.max())
    for name, given, true in (("m", m, lo), ("M", M, hi)):
        if given is not None and (H is not None or eigenvalues is not None) \
                and not math.isclose(float(given), true, rel_tol=1e-9):
            raise ValueError(f"{where}: {name}={given} does not match the eigenvalues of H ({true})")
    return lam, U


def _direction(where: str, direction, lam: np.ndarray, U) -> np.ndarray:
    """Unit vector (eigenbasis) of the gradient difference: 'm', 'M' or an explicit vector."""
    d = lam.size
    if isinstance(direction, str):
        choice("direction", direction, ("m", "M"), where)
        v = np.zeros(d)
        v[int(np.argmin(lam) if direction == "m" else np.argmax(lam))] = 1.0
        return v
    v = as_array("direction", direction, (d,), where)
    norm = np.linalg.norm(v)
    if norm == 0:
        raise ValueError(f"{where}: direction must be a non-zero vector")
    v = v / norm
    return v if U is None else U.T @ v


def _gaussian_chain(*, where: str, family: str, name: str, n, eta, sigma, T, lam: np.ndarray, U,
                    Delta, d_vec: np.ndarray | None, batches, b, position, init, init_var, theta0,
                    records, loss_classes, extra_constants, run_extra, linear: bool,
                    setting_loss: str) -> Instance:
    n = integer("n", n, where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where)
    d = lam.size
    b, l = batches_of(n, batches, b, where, ("full", "cyclic"))
    if l * d > 10 ** 7:
        raise ValueError(f"{where}: l*d = {l * d} batch means is too large (max 1e7)")
    position = integer("position", position, where, low=0)
    if position >= l:
        raise ValueError(f"{where}: position must be < l = n/b = {l}, got {position}")
    x_max = eta * float(lam.max())
    if x_max > 2:
        raise ValueError(f"{where}: need eta*M <= 2 (the chain diverges otherwise), got {x_max}")
    choice("init", init, ("fixed", "gaussian"), where)
    mean0 = np.zeros(d) if theta0 is None else as_array("theta0", theta0, (d,), where)
    if U is not None:
        mean0 = U.T @ mean0
    if init == "gaussian":
        if init_var is None:
            if linear:
                raise ValueError(f"{where}: init='gaussian' on linear losses needs init_var")
            # Chourasia et al. 2021, Lemma 5: theta_0 ~ N(0, (2 sigma_C^2 / lambda) I), sigma_C^2 = eta sigma^2 / 2
            init_var = eta * sigma ** 2 / float(lam.min())
        init_var = positive("init_var", init_var, where)
    else:
        if init_var not in (None, 0, 0.0):
            raise ValueError(f"{where}: init_var is only meaningful with init='gaussian'")
        init_var = 0.0
    if records is None:
        h = None
        hbar = np.zeros((l, d))
    else:
        h = as_array("records", records, (n, d), where)
        if U is not None:
            h = h @ U
        hbar = h.reshape(l, b, d).mean(axis=1)
    if d_vec is None or not np.any(d_vec):
        raise ValueError(f"{where}: the differing record equals the original (gradient difference 0)")
    i_star = position * b
    diff = np.zeros((l, d))
    diff[position] = d_vec / b  # (h'_{i*} - h_{i*}) / b moves the mean of batch `position`
    run_D = QuadraticRun(lam, hbar, eta, sigma, T, mean0, init_var)
    shift = QuadraticRun(lam, diff, eta, sigma, T, np.zeros(d), 0.0)

    def compute() -> GaussianProfile:
        var = run_D.variances()
        return GaussianProfile(np.zeros(d), var, shift.mean(), var)

    constants = {"n": n, "b": b, "q": b / n, "T": T, "eta": eta, "sigma": sigma, "d": d}
    if batches == "cyclic":
        constants["l"] = l
        if T % l == 0:
            constants["E"] = T // l
    if Delta is not None:
        constants["Delta"] = Delta
    constants.update(extra_constants)
    extras = {}
    if not linear:
        def excess(T_query=None):
            Ts = np.atleast_1d(np.asarray(T if T_query is None else T_query))
            theta_star = hbar.mean(axis=0) / lam  # H^{-1} hbar (eigenbasis)
            out = []
            for t in Ts.ravel():
                t = integer("T", t, where)
                r = QuadraticRun(lam, hbar, eta, sigma, t, mean0, init_var)
                gap = r.mean() - theta_star
                out.append(0.5 * float(np.sum(lam * (gap ** 2 + r.variances()))))
            res = np.asarray(out).reshape(Ts.shape)
            return res[0] if np.ndim(T if T_query is None else T_query) == 0 else res
        extras["expected_excess_risk"] = excess
    setting = Setting(algorithm="noisy_gd", batches=batches, loss=setting_loss, constraint="none",
                      adjacency="replace", init=init, release="last")
    run = {"eigenvalues": lam, "basis": U, "records": h if h is not None else "all zero", "differing_index": i_star,
           "gradient_difference": d_vec, "eta": eta, "sigma": sigma, "T": T, "batches": batches,
           "b": b, "position": position, "projection": None, "init": init, "init_mean": mean0,
           "init_var": init_var, **run_extra}
    return Instance(name=name, family=family, setting=setting, loss_classes=frozenset(loss_classes),
                    constants=constants, run=run, compute=compute, extras=extras)


def quadratic_chain(n, eta, sigma, T, m=None, M=None, Delta=None, d=None, batches="full", b=None,
                    position=0, init="fixed", init_var=None, theta0=None, direction="m",
                    eigenvalues=None, H=None, records=None, name=None, _family="quadratic_chain") -> Instance:
    """Noisy GD on ``l_i(theta) = 1/2 theta^T H theta - h_i^T theta`` with a shared SPD ``H``.

    ``H`` has eigenvalues ``linspace(m, M, d)`` (or ``eigenvalues``, or ``H`` itself); ``d=None``
    takes the smallest dimension holding both m and M.  The differing record's linear term moves by
    ``Delta`` along ``direction`` (``"m"``: the eigenvector of m, the least contracted one; ``"M"``;
    or a vector), so the gradient difference is constant with norm Delta.  ``records`` (``(n, d)``,
    default 0) are the ``h_i`` of D.  Full or cyclic batches, the differing record in batch
    ``position``; fixed start ``theta0`` or Gaussian ``N(theta0, init_var I)`` (default variance
    ``eta sigma^2 / m``: Chourasia et al. 2021 Lemma 5 in canonical units).  Exact Gaussian laws via
    :class:`verify.instances.chain.QuadraticRun`.
    """
    where = _family
    lam, U = _spectrum(where, d, m, M, eigenvalues, H)
    if Delta is None:
        raise ValueError(f"{where}: Delta (the gradient sensitivity) is required")
    Delta = sensitivity(Delta, where)
    v = _direction(where, direction, lam, U)
    return _gaussian_chain(
        where=where, family=_family, name=name or f"{_family}(n={n}, T={T}, eta={eta}, sigma={sigma})",
        n=n, eta=eta, sigma=sigma, T=T, lam=lam, U=U, Delta=Delta, d_vec=Delta * v, batches=batches, b=b,
        position=position, init=init, init_var=init_var, theta0=theta0, records=records,
        loss_classes={"quadratic", "convex", "strongly_convex", "smooth"}
        | ({"squared"} if np.ptp(lam) <= 1e-12 * lam.max() else set()),
        extra_constants={"m": float(lam.min()), "M": float(lam.max())},
        run_extra={"loss": "1/2 theta^T H theta - h_i^T theta"}, linear=False, setting_loss="quadratic")


def linear_chain(n, eta, sigma, T, Delta, d=1, batches="full", b=None, position=0, init="fixed",
                 init_var=None, theta0=None, direction=None, M=None, name=None) -> Instance:
    """Noisy GD on linear losses, unconstrained: D's record has gradient ``+Delta/2 v``, D''s ``-Delta/2 v``.

    Every other record has gradient 0.  The losses are L-Lipschitz with ``L = Delta/2`` (so Delta =
    2L, the replace-one worst case), convex, and M-smooth for every M (``M`` records a declared
    smoothness constant; omitted otherwise).  Exact GDP of the last iterate:
    ``mu = uses * Delta / (b sigma sqrt(T))`` (``uses`` = steps whose batch holds the record); full
    batch: ``sqrt(T) Delta / (n sigma)``, Bok et al. 2024 Thm 4.1 with equality.  (Cyclic batches
    are more private than Thm 4.4's composition bound here: every step's noise accumulates.)
    """
    where = "linear_chain"
    d = integer("d", d, where)
    lam = np.zeros(d)
    Delta = sensitivity(Delta, where)
    v = np.eye(d)[0] if direction is None else _direction(where, direction, np.ones(d), None)
    n_int = integer("n", n, where)
    b_, l_ = batches_of(n_int, batches, b, where, ("full", "cyclic"))
    pos = integer("position", position, where, low=0)
    if pos >= l_:
        raise ValueError(f"{where}: position must be < l = n/b = {l_}, got {position}")
    if n_int * d > 10 ** 7:
        raise ValueError(f"{where}: n*d = {n_int * d} is too large for an explicit dataset (max 1e7)")
    records = np.zeros((n_int, d))
    records[pos * b_] = -0.5 * Delta * v  # grad = -h
    extra = {"L": Delta / 2, "m": 0.0}
    if M is not None:
        extra["M"] = positive("M", M, where)
    return _gaussian_chain(
        where=where, family="linear_chain", name=name or f"linear_chain(n={n}, T={T})", n=n, eta=eta,
        sigma=sigma, T=T, lam=lam, U=None, Delta=Delta, d_vec=Delta * v, batches=batches, b=b,
        position=position, init=init, init_var=init_var, theta0=theta0, records=records,
        loss_classes={"linear", "convex", "smooth", "lipschitz"}, extra_constants=extra,
        run_extra={"loss": "<g_i, theta>"}, linear=True, setting_loss="linear")


def bok_thm42(n, eta, sigma, T, m, M, Delta, d=None, name=None) -> Instance:
    """Bok et al. 2024, Thm 4.2 equality case: ``f_i = m/2 |x|^2``, ``f'_{i*} = f_i + Delta <v, x>``, x0 = 0.

    Full batch, unconstrained, ``eta < 2/M``; the last iterates are Gaussians with equal covariance
    and ``T(X_T, X'_T) = G_mu`` with Thm 4.2's mu exactly when ``eta <= 2/(M+m)`` (recorded as
    ``run["tight"]``).  ``H`` has eigenvalues m and M (d >= 2 when m < M); the tilt is along m.
    """
    where = "bok_thm42"
    eta_ = positive("eta", eta, where)
    if eta_ * positive("M", M, where) >= 2:
        raise ValueError(f"{where}: Thm 4.2 needs eta < 2/M, got eta*M = {eta_ * float(M)}")
    inst = quadratic_chain(n, eta, sigma, T, m=m, M=M, Delta=Delta, d=d, name=name or
                           f"bok_thm42(n={n}, T={T}, eta={eta}, sigma={sigma}, m={m}, M={M})",
                           _family="bok_thm42")
    inst.run["tight"] = eta_ <= 2 / (float(M) + float(m))
    inst.run["source"] = "Bok et al. 2024, Theorem 4.2 (proof, equality case)"
    return inst


def bok_c17(n, b, eta, sigma, m, M, Delta, E=None, T=None, position=None, d=None, name=None) -> Instance:
    """Bok et al. 2024, Thm C.17: the Thm 4.2 quadratics under cyclic batches (NoisyCGD).

    ``l = n/b`` batches, ``E`` epochs (``T = l E``), the differing record in batch ``position``
    (0-based; default the last, ``l - 1``, the paper's worst ``j = l``).  Exact GDP ``mu_j``.
    """
    where = "bok_c17"
    n_ = integer("n", n, where)
    b_ = integer("b", b, where)
    if n_ % b_:
        raise ValueError(f"{where}: b must divide n, got n={n_}, b={b_}")
    l = n_ // b_
    if T is None:
        if E is None:
            raise ValueError(f"{where}: give E (epochs) or T (= l E)")
        T = l * integer("E", E, where)
    elif E is not None and integer("T", T, where) != l * integer("E", E, where):
        raise ValueError(f"{where}: T must equal l*E = {l}*{E}")
    inst = quadratic_chain(n, eta, sigma, T, m=m, M=M, Delta=Delta, d=d, batches="cyclic", b=b,
                           position=l - 1 if position is None else position,
                           name=name or f"bok_c17(n={n}, b={b}, T={T})", _family="bok_c17")
    inst.run["source"] = "Bok et al. 2024, Theorem C.17"
    return inst


def chourasia_thm3(n, eta, sigma, T, Delta, d=1, init="fixed", name=None) -> Instance:
    """Chourasia et al. 2021, Thm 3 (and §4(b) of the catalogue): squared loss ``1/2 |theta - x|^2``.

    ``D = (x_1, 0, ..., 0)``, ``D' = (x_1', 0, ..., 0)``, ``x_1 = (Delta/2) e_1 = -x_1'`` (so
    ``S_g = Delta``), ``theta_0 = 0``, unconstrained, full batch, ``0 < eta < 1``.  In canonical
    units the paper's sigma is ``sigma_C = sigma sqrt(eta/2)`` and the exact value of the proof is
    ``R_alpha = alpha Delta^2 (2 - eta) / (4 sigma_C^2 n^2) * (1 - (1-eta)^T) / (1 + (1-eta)^T)``.
    ``init="gaussian"`` uses Lemma 5's law ``N(0, (2 sigma_C^2 / lambda) I)``.
    """
    where = "chourasia_thm3"
    eta_ = positive("eta", eta, where)
    if eta_ >= 1:
        raise ValueError(f"{where}: Thm 3 needs 0 < eta < 1 (eta < 1/beta with beta = 1), got {eta}")
    d = integer("d", d, where)
    n_ = integer("n", n, where)
    Delta_ = sensitivity(Delta, where)
    if n_ * d > 10 ** 7:
        raise ValueError(f"{where}: n*d = {n_ * d} is too large for an explicit dataset (max 1e7)")
    data = np.zeros((n_, d))
    data[0, 0] = Delta_ / 2
    inst = quadratic_chain(n, eta, sigma, T, Delta=Delta_, d=d, eigenvalues=np.ones(d), records=data,
                           direction=-np.eye(d)[0], init=init,
                           name=name or f"chourasia_thm3(n={n}, T={T}, eta={eta}, sigma={sigma})",
                           _family="chourasia_thm3")
    inst.run.update({"loss": "1/2 |theta - x|^2", "x": data, "x_prime": -data[0],
                     "source": "Chourasia et al. 2021, Theorem 3 (proof)"})
    return inst


# ---------------------------------------------------------------------------------------------------
# 1-D interval walks and subsampled linear losses (grid engine)
# ---------------------------------------------------------------------------------------------------


def _schedules(where, n, eta, batches, b, q, l, position, g, g_prime):
    """Per-step displacement mixtures for D and D' (record gradient g vs g'; other records 0)."""
    if batches == "full":
        return [Mixture((1.0,), (-eta * g / n,))], [Mixture((1.0,), (-eta * g_prime / n,))]
    if batches == "cyclic":
        still = Mixture((1.0,), (0.0,))
        sch_d = [still] * l
        sch_p = [still] * l
        sch_d = sch_d[:position] + [Mixture((1.0,), (-eta * g / b,))] + sch_d[position + 1:]
        sch_p = sch_p[:position] + [Mixture((1.0,), (-eta * g_prime / b,))] + sch_p[position + 1:]
        return sch_d, sch_p
    # poisson / uniform: the differing record is in the batch with probability q; denominator b
    mix = lambda grad: Mixture((1.0,), (0.0,)) if grad == 0 else Mixture((1 - q, q), (0.0, -eta * grad / b))
    return [mix(g)], [mix(g_prime)]


def _grid_profile(lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error: bool) -> DiscreteProfile:
    def pair(c):
        grid = IntervalGrid(lo, hi, c)
        (P, Q), unresolved = evolve_many(grid, x0, s, [sch_d, sch_p], T, method)
        extra = float(P[0] + P[-1] + Q[0] + Q[-1]) if escaped_is_error else 0.0
        return DiscreteProfile(P, Q, support=grid.support, unresolved=unresolved), extra

    fine, extra = pair(cells)
    coarse, _ = pair(max(cells // 2, 4))
    profile = DiscreteProfile(fine.p, fine.q, support=fine.support, coarse=coarse, unresolved=fine.unresolved)
    profile.error = profile.error_of("delta", ERROR_EPS) + extra
    return profile


def interval_walk(n, eta, sigma, T, Delta, D, batches="full", b=None, position=0, x0=None, lo=None,
                  offset=0.0, adjacency="replace", cells=2048, method="auto", name=None,
                  _family="interval_walk") -> Instance:
    """Projected noisy GD on linear losses in 1-D, ``C = [lo, lo + D]`` (default ``[-D/2, D/2]``).

    Every record but the differing one has zero loss; the differing record has gradient ``offset``
    in D and ``offset - Delta`` in D' (so D' drifts upwards by ``eta Delta / b`` when it is used).
    Batches: full, cyclic (record in batch ``position``), poisson or uniform (record used with
    probability ``q = b/n``).  ``adjacency="add_remove"`` requires ``offset = 0`` (the record absent
    from D).  Start ``x0`` (default the centre).  Exact laws of the discretised chain (grid engine,
    ``cells`` cells); ``profile().error`` is the refinement estimate: sup over eps in [0, 4] of
    ``|delta_h - delta_2h|`` (max direction), plus the effect of dropping cells below the FFT floor;
    ``profile().error_of(name, ...)`` gives the same estimate for any other query.
    """
    where = _family
    n = integer("n", n, where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 6)  # the grid engine steps through T
    Delta = sensitivity(Delta, where)
    D = nonnegative("D", D, where)
    if D == 0:
        raise ValueError(f"{where}: the interval is empty (D = 0)")
    lo = -D / 2 if lo is None else float(lo)
    if not math.isfinite(lo):
        raise ValueError(f"{where}: lo must be finite")
    hi = lo + D
    x0 = (lo + hi) / 2 if x0 is None else float(x0)
    if not lo <= x0 <= hi:
        raise ValueError(f"{where}: x0 = {x0} lies outside the interval [{lo}, {hi}]")
    b, l = batches_of(n, batches, b, where, ("full", "cyclic", "poisson", "uniform"))
    position = integer("position", position, where, low=0)
    if position >= l:
        raise ValueError(f"{where}: position must be < l = {l}, got {position}")
    choice("adjacency", adjacency, ("replace", "add_remove"), where)
    offset = float(offset)
    if adjacency == "add_remove" and offset != 0:
        raise ValueError(f"{where}: add_remove adjacency needs offset = 0 (the record is absent from D)")
    if adjacency == "add_remove" and batches != "poisson":
        raise ValueError(f"{where}: add_remove adjacency needs Poisson batches (other schemes change the batch size)")
    cells = integer("cells", cells, where, low=8, high=2 ** 22)
    q = b / n
    g, g_prime = offset, offset - Delta
    sch_d, sch_p = _schedules(where, n, eta, batches, b, q, l, position, g, g_prime)
    s = eta * sigma

    def compute() -> DiscreteProfile:
        return _grid_profile(lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error=False)

    L = max(abs(g), abs(g_prime))
    constants = {"n": n, "b": b, "q": q, "T": T, "eta": eta, "sigma": sigma, "Delta": Delta, "D": D,
                 "d": 1, "m": 0.0}
    if L > 0:
        constants["L"] = L
    if batches == "cyclic":
        constants["l"] = l
        if T % l == 0:
            constants["E"] = T // l
    setting = Setting(algorithm="noisy_gd", batches=batches, loss="linear", constraint="bounded",
                      adjacency=adjacency, init="fixed", release="last")
    run = {"loss": "linear", "record_gradient": g, "record_gradient_prime": g_prime, "interval": (lo, hi),
           "x0": x0, "eta": eta, "sigma": sigma, "T": T, "batches": batches, "b": b, "position": position,
           "projection": (lo, hi), "init": "fixed", "cells": cells, "method": method}
    return Instance(name=name or f"{_family}(n={n}, T={T}, D={D}, batches={batches})", family=_family,
                    setting=setting, loss_classes=frozenset({"linear", "convex", "smooth", "lipschitz"}),
                    constants=constants, run=run, compute=compute)


def bok_c16(n, eta, sigma, T, Delta, D, batches="full", b=None, position=None, cells=2048, method="auto",
            name=None) -> Instance:
    """Bok et al. 2024, Thm C.16 construction: ``[-D/2, D/2]``, x0 = 0, all losses zero in D, and in D'
    the differing record linear with slope Delta (drift ``eta Delta / n`` per step for GD,
    ``eta Delta / b`` once per epoch for cyclic batches, in batch ``position``, default the last)."""
    if batches == "cyclic" and position is None and b is not None:
        position = integer("n", n, "bok_c16") // integer("b", b, "bok_c16") - 1
    inst = interval_walk(n, eta, sigma, T, Delta, D, batches=batches, b=b, position=position or 0,
                         cells=cells, method=method, name=name, _family="bok_c16")
    inst.run["source"] = "Bok et al. 2024, Theorem C.16 (construction)"
    return inst


def at22_thm41(n, eta, sigma, T, Delta, D, b=1, cells=2048, method="auto", name=None) -> Instance:
    """Altschuler & Talwar 2022, Thm 4.1 construction: ``K = [-D/2, D/2]``, omega_0 = 0, uniform batches
    of size b; all losses zero except ``f(omega; x'_n) = L (D - omega)`` in D' (gradient ``-L``,
    ``L = Delta``): D' moves up by ``eta L / b`` with probability ``b/n`` each step."""
    inst = interval_walk(n, eta, sigma, T, Delta, D, batches="uniform", b=b, cells=cells, method=method,
                         name=name, _family="at22_thm41")
    inst.run["source"] = "Altschuler & Talwar 2022, Theorem 4.1 (Appendix A.4 construction)"
    return inst


def subsampled_linear(n, eta, sigma, T, Delta, b, batches="poisson", adjacency=None, cells=8192,
                      method="auto", window=30.0, name=None) -> Instance:
    """Unconstrained linear loss, the differing record Poisson- or uniformly-subsampled (1-D grid).

    D': the record has gradient ``-Delta`` (drift ``eta Delta / b`` when sampled); D: gradient 0 (its
    absence, for add/remove; ``adjacency`` defaults to add_remove for Poisson and replace for
    uniform batches).  Unconstrained: the grid covers the drift of up to ``qT + 12 sd + 12`` uses
    plus ``window`` standard deviations of the accumulated noise on each side; the mass that reaches
    the window's ends is added to ``profile().error``.
    """
    where = "subsampled_linear"
    n_ = integer("n", n, where)
    eta_ = positive("eta", eta, where)
    sigma_ = positive("sigma", sigma, where)
    T_ = integer("T", T, where, high=10 ** 6)
    Delta_ = sensitivity(Delta, where)
    b_, _ = batches_of(n_, batches, b, where, ("poisson", "uniform"))
    window = positive("window", window, where)
    if adjacency is None:
        adjacency = "add_remove" if batches == "poisson" else "replace"
    s = eta_ * sigma_
    q = b_ / n_
    uses = min(T_, q * T_ + 12 * math.sqrt(q * (1 - q) * T_) + 12)  # binomial count, far tail
    reach = uses * eta_ * Delta_ / b_
    lo, hi = -window * s * math.sqrt(T_), reach + window * s * math.sqrt(T_)
    inst = interval_walk(n, eta, sigma, T, Delta, hi - lo, batches=batches, b=b, x0=0.0, lo=lo,
                         adjacency=adjacency, cells=cells, method=method, name=name, _family=where)
    sch_d, sch_p = _schedules(where, n_, eta_, batches, b_, q, 1, 0, 0.0, -Delta_)

    def compute() -> DiscreteProfile:
        return _grid_profile(lo, hi, 0.0, s, sch_d, sch_p, T_, inst.run["cells"], method, escaped_is_error=True)

    constants = dict(inst.constants)
    del constants["D"]
    constants["L"] = Delta_
    run = dict(inst.run, projection=None, window=(lo, hi))
    setting = Setting(algorithm="noisy_gd", batches=batches, loss="linear", constraint="none",
                      adjacency=adjacency, init="fixed", release="last")
    return Instance(name=inst.name, family=where, setting=setting, loss_classes=inst.loss_classes,
                    constants=constants, run=run, compute=compute)


# ---------------------------------------------------------------------------------------------------
# Compositions: the worst-case DP-SGD step of Bu et al. 2020
# ---------------------------------------------------------------------------------------------------


def dpsgd_worst_step(n, b, eta, sigma, T, Delta, name=None) -> Instance:
    """Bu et al. 2020, Thm 3: the worst case 1-D DP-SGD step, composed T times (all iterates released).

    Poisson sampling with ``q = b/n``, add/remove adjacency, clipped gradient of the added record
    ``Delta = Cclip``, noise multiplier ``z = b sigma / Delta``: one step is ``N(0, 1)`` vs
    ``(1-q) N(0, 1) + q N(1/z, 1)``, and ``T`` steps are exactly ``T(P^T, GM^T)`` (Bu et al. Thm 3;
    equal to the last iterate for T = 1).  Profile: :class:`CompositionProfile` through
    ``verify.privacy.pld``; Rényi by additivity through ``verify.privacy.rdp.sampled_gaussian_rdp``
    (forward ``D(P||Q)`` = its "add" direction, backward = "remove").
    """
    where = "dpsgd_worst_step"
    n = integer("n", n, where)
    b = integer("b", b, where)
    if b > n:
        raise ValueError(f"{where}: b must be <= n, got b={b} > n={n}")
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where)
    Delta = sensitivity(Delta, where)
    q = b / n
    z = b * sigma / Delta

    def renyi(alpha, forward):
        from verify.privacy.rdp import sampled_gaussian_rdp
        return sampled_gaussian_rdp(q, z, alpha, steps=T, direction="add" if forward else "remove")

    def compute() -> CompositionProfile:
        return CompositionProfile(q, 1.0 / z, T, sampling="poisson", adjacency="add_remove", renyi_fn=renyi)

    constants = {"n": n, "b": b, "q": q, "T": T, "eta": eta, "sigma": sigma, "Delta": Delta, "L": Delta,
                 "z": z, "Cclip": Delta, "d": 1}
    setting = Setting(algorithm="dp_sgd", batches="poisson", loss="linear", constraint="none",
                      adjacency="add_remove", init="fixed", release="all")
    run = {"step": "N(0,1) vs (1-q) N(0,1) + q N(1/z, 1)", "q": q, "z": z, "T": T,
           "source": "Bu et al. 2020, Theorem 3"}
    return Instance(name=name or f"dpsgd_worst_step(q={q:.4g}, z={z:.4g}, T={T})", family=where,
                    setting=setting, loss_classes=frozenset({"linear", "convex", "lipschitz", "smooth"}),
                    constants=constants, run=run, compute=compute)


def composition_reference(p: float, mu: float, T: int, sampling: str = "poisson",
                          adjacency: str = "add_remove") -> CompositionProfile:
    """Exact privacy of ``T`` subsampled Gaussian steps (per-step GDP ``mu``, rate ``p``), via
    :mod:`verify.privacy.pld`; the reference that judges the CLT of Bu et al. 2020 (Thm 5)."""
    where = "composition_reference"
    p = positive("p", p, where)
    if p > 1:
        raise ValueError(f"{where}: p must lie in (0, 1], got {p}")
    mu = positive("mu", mu, where)
    T = integer("T", T, where, high=10 ** 7)
    return CompositionProfile(p, mu, T, sampling=sampling, adjacency=adjacency)


def gaussian_mechanism(sigma=None, Delta=None, n=1, z=None, adjacency="replace", name=None) -> Instance:
    """The Gaussian mechanism: release the mean ``(1/n) sum`` of records plus ``N(0, sigma^2)``.

    One changed record moves the mean by ``Delta/n``: the pair ``N(0, sigma^2)`` vs ``N(Delta/n, sigma^2)``
    is exactly ``mu``-GDP with ``mu = Delta/(n sigma)`` (Dong et al. 2022, Thm 2; Bu et al. 2020 §2.1).
    DP-SGD form: noise multiplier ``z`` (``sigma = z Delta / n``), i.e. ``mu = 1/z``.  Both adjacencies
    give the same pair (add/remove with ``Delta`` the norm of the added record's contribution).
    """
    where = "gaussian_mechanism"
    n = integer("n", n, where)
    if z is not None:
        z = positive("z", z, where)
        Delta = 1.0 if Delta is None else sensitivity(Delta, where)
        sigma = z * Delta / n
    if sigma is None or Delta is None:
        raise ValueError(f"{where}: give sigma and Delta, or z")
    sigma = positive("sigma", sigma, where)
    Delta = sensitivity(Delta, where)
    adjacency = choice("adjacency", adjacency, ("replace", "add_remove"), where)
    mu = Delta / (n * sigma)
    constants = {"n": float(n), "sigma": sigma, "Delta": Delta, "mu": mu, "z": 1.0 / mu, "T": 1.0,
                 "b": float(n), "q": 1.0}
    setting = Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="none",
                      adjacency=adjacency, init="fixed", release="all")
    return Instance(name=name or f"gaussian_mechanism(mu={mu:.6g})", family=where, setting=setting,
                    loss_classes=frozenset({"linear", "convex", "smooth", "lipschitz"}), constants=constants,
                    run={"pair": f"N(0, {sigma}^2) vs N({Delta / n}, {sigma}^2)"},
                    compute=lambda: GaussianProfile(0.0, sigma**2, Delta / n, sigma**2))


def bok_cor52(m, Delta, d=1, name=None) -> Instance:
    """Exponential mechanism with quadratic potentials (Bok et al. 2024, Cor 5.2 / Remark 5.3).

    ``pi ∝ exp(-m|x|^2/2)`` and ``pi' ∝ exp(-m|x|^2/2 - Delta <v, x>)``: ``N(0, I/m)`` vs ``N(-Delta v/m, I/m)``,
    exactly ``mu = Delta/sqrt(m)``-GDP (the stationary laws of the Langevin diffusion).
    """
    where = "bok_cor52"
    m = positive("m", m, where)
    Delta = sensitivity(Delta, where)
    d = integer("d", d, where)
    constants = {"m": m, "M": m, "Delta": Delta, "d": float(d)}
    setting = Setting(algorithm="exp_mech", batches="full", loss="quadratic", constraint="none",
                      adjacency="replace", init="stationary", release="last")
    return Instance(name=name or f"bok_cor52(m={m:.6g}, Delta={Delta:.6g})", family=where, setting=setting,
                    loss_classes=frozenset({"quadratic", "squared", "convex", "strongly_convex", "smooth"}),
                    constants=constants, run={"pair": "N(0, 1/m) vs N(-Delta/m, 1/m)"},
                    compute=lambda: GaussianProfile(0.0, 1.0 / m, -Delta / m, 1.0 / m))


def langevin_quadratic(eta, T, m, M, Delta, name=None) -> Instance:
    """Unadjusted Langevin (LMC) ``x <- x - eta grad f(x) + sqrt(2 eta) Z`` on quadratics (Bok et al. Prop 5.1).

    It is the canonical chain with ``n = 1`` and ``sigma = sqrt(2/eta)`` (per-step noise ``sqrt(2 eta)``); the
    potentials differ by the linear term ``Delta <v, x>`` along the eigenvector of ``m``.
    """
    where = "langevin_quadratic"
    eta = positive("eta", eta, where)
    inst = quadratic_chain(n=1, eta=eta, sigma=math.sqrt(2.0 / eta), T=T, m=m, M=M, Delta=Delta,
                           name=name or f"langevin_quadratic(eta={eta:.6g}, T={T})", _family=where)
    constants = {k: v for k, v in inst.constants.items() if k not in ("n", "b", "sigma", "q", "l", "E")}
    setting = Setting(algorithm="langevin", batches="full", loss="quadratic", constraint="none",
                      adjacency="replace", init="fixed", release="last")
    return Instance(name=inst.name, family=where, setting=setting, loss_classes=inst.loss_classes,
                    constants=constants, run=inst.run, compute=inst.compute, extras=inst.extras)


# ---------------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------------


def _family(name, builder, setting, source=""):
    return Family(name=name, description=(builder.__doc__ or "").strip().split("\n")[0], setting=setting,
                  builder=builder, source=source)


FAMILIES: dict[str, Family] = {f.name: f for f in [
    _family("quadratic_chain", quadratic_chain,
            Setting(batches="full", loss="quadratic", constraint="none", init="any")),
    _family("linear_chain", linear_chain, Setting(batches="full", loss="linear", constraint="none", init="any")),
    _family("bok_thm42", bok_thm42, Setting(batches="full", loss="quadratic", constraint="none", init="fixed"),
            "Bok et al. 2024, Theorem 4.2"),
    _family("bok_c17", bok_c17, Setting(batches="cyclic", loss="quadratic", constraint="none", init="fixed"),
            "Bok et al. 2024, Theorem C.17"),
    _family("chourasia_thm3", chourasia_thm3,
            Setting(batches="full", loss="quadratic", constraint="none", init="fixed"),
            "Chourasia et al. 2021, Theorem 3"),
    _family("interval_walk", interval_walk,
            Setting(batches="any", loss="linear", constraint="bounded", init="fixed")),
    _family("bok_c16", bok_c16, Setting(batches="full", loss="linear", constraint="bounded", init="fixed"),
            "Bok et al. 2024, Theorem C.16"),
    _family("at22_thm41", at22_thm41,
            Setting(batches="uniform", loss="linear", constraint="bounded", init="fixed"),
            "Altschuler & Talwar 2022, Theorem 4.1"),
    _family("subsampled_linear", subsampled_linear,
            Setting(batches="poisson", loss="linear", constraint="none", adjacency="add_remove", init="fixed")),
    _family("gaussian_mechanism", gaussian_mechanism,
            Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="none", init="fixed",
                    release="all"), "Dong et al. 2022, Thm 2 (the Gaussian mechanism is exactly mu-GDP)"),
    _family("bok_cor52", bok_cor52,
            Setting(algorithm="exp_mech", batches="full", loss="quadratic", constraint="none", init="stationary"),
            "Bok et al. 2024, Corollary 5.2 / Remark 5.3"),
    _family("langevin_quadratic", langevin_quadratic,
            Setting(algorithm="langevin", batches="full", loss="quadratic", constraint="none", init="fixed"),
            "Bok et al. 2024, Proposition 5.1"),
    _family("dpsgd_worst_step", dpsgd_worst_step,
            Setting(algorithm="dp_sgd", batches="poisson", loss="linear", constraint="none",
                    adjacency="add_remove", init="fixed", release="all"),
            "Bu et al. 2020, Theorem 3"),
]}

__all__ = ["FAMILIES", "at22_thm41", "bok_c16", "bok_c17", "bok_thm42", "chourasia_thm3",
           "bok_cor52", "composition_reference", "dpsgd_worst_step", "gaussian_mechanism", "langevin_quadratic", "interval_walk", "linear_chain",
           "quadratic_chain", "subsampled_linear"]
