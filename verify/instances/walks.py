"""The 1-D walk families: projected noisy GD / SGD on linear, quadratic and concave losses in an interval, and
subsampled linear losses, evolved exactly on a grid (:mod:`verify.instances.grid`); the papers' constructions
that are such walks (Bok et al. Thm C.16, Altschuler & Talwar Thm 4.1).  Registered with the other families in
:mod:`verify.instances.families`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from verify.errors import InputError
from verify.instances.composed import RepeatedStep
from verify.instances.grid import DENSE_MAX_CELLS, FFT_FLOOR, IntervalGrid, Mixture, evolve_many, evolve_shuffled
from verify.instances.grid_log import evolve_log
from verify.instances.instance import PROFILES, BatchPlan, Instance, RunDescription, sensitivity
from verify.instances.profile import DiscreteProfile
from verify.setting import Setting, loss_classes
from verify.validate import choice, finite, integer, nonnegative, positive
from verify.vocabulary import derive

#: eps grid on which the refinement error of a grid profile is measured (sup-norm of delta(eps))
ERROR_EPS = np.linspace(0.0, 4.0, 41)

LINEAR = loss_classes("linear")  # linear losses: convex, smooth for every M, Lipschitz

def _with_run(instance: Instance, **changes) -> Instance:
    """``instance`` with its run description changed (a new record: instances are immutable)."""
    return dataclasses.replace(instance, run=dataclasses.replace(instance.run, **changes))


@dataclass(frozen=True)
class _Affine:
    """The displacement ``shift - slope * theta``: a translation plus the gradient step of a shared quadratic
    (compared by value, so that equal chains are recognised: :func:`_chain_key`)."""

    shift: float
    slope: float

    def __call__(self, theta):
        return self.shift - self.slope * theta


def _schedules(n, eta, plan: BatchPlan, g, g_prime, curvature: float | None = None):
    """Per-step displacement mixtures for D and D' (record gradient g vs g'; other records 0).

    ``curvature``: every record's loss also has the shared quadratic ``curvature/2 theta^2``, whose gradient
    step ``-eta * curvature * theta`` makes each translation ``c`` the affine map ``c - eta curvature theta``."""
    if curvature is None:
        law = Mixture
    else:
        slope = eta * curvature
        def law(weights, shifts):
            return Mixture(weights, tuple(_Affine(float(c), slope) for c in shifts))
    if plan.batches == "full":
        return [law((1.0,), (-eta * g / n,))], [law((1.0,), (-eta * g_prime / n,))]
    b, l, position = plan.b, plan.l, plan.position
    if plan.batches == "cyclic":
        still = law((1.0,), (0.0,))
        sch_d = [still] * l
        sch_p = [still] * l
        sch_d = sch_d[:position] + [law((1.0,), (-eta * g / b,))] + sch_d[position + 1:]
        sch_p = sch_p[:position] + [law((1.0,), (-eta * g_prime / b,))] + sch_p[position + 1:]
        return sch_d, sch_p
    # poisson / uniform: the differing record is in the batch with probability q; denominator b
    q = plan.q
    mix = lambda grad: law((1.0,), (0.0,)) if grad == 0 else law((1 - q, q), (0.0, -eta * grad / b))
    return [mix(g)], [mix(g_prime)]


def _decaying(n, eta: float, p_decay: float, T: int, plan: BatchPlan, g, g_prime,
              curvature: float | None = None) -> tuple[np.ndarray, list[Mixture], list[Mixture]]:
    """Decaying step sizes ``eta_t = eta max(t, 1)^(-p)`` (Altschuler & Talwar 2022, §5.3): the steps and the
    per-step schedules of D and D' (step t takes the entry of its batch in the plan's schedule)."""
    steps = eta * np.maximum(np.arange(T, dtype=float), 1.0) ** -p_decay
    sch_d, sch_p = [], []
    for t, eta_t in enumerate(steps):
        d_t, p_t = _schedules(n, float(eta_t), plan, g, g_prime, curvature=curvature)
        sch_d.append(d_t[t % len(d_t)])
        sch_p.append(p_t[t % len(p_t)])
    return steps, sch_d, sch_p


def _chain_key(lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error: bool, shuffled: int | None):
    """The key of a grid profile in :data:`~verify.instances.instance.PROFILES`: every argument by value (None
    when a displacement is a map not known by value)."""
    laws = []
    for sch in (sch_d, sch_p):
        if any(callable(c) and not isinstance(c, _Affine) for mx in sch for c in mx.displacements):
            return None
        laws.append(tuple((tuple(map(float, mx.weights)), mx.displacements) for mx in sch))
    stds = tuple(float(v) for v in np.ravel(s)) if np.ndim(s) else float(s)
    return ("grid profile", float(lo), float(hi), float(x0), stds, tuple(laws), int(T), int(cells), method,
            bool(escaped_is_error), shuffled)


def _grid_profile(lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error: bool,
                  shuffled: int | None = None) -> DiscreteProfile:
    """The grid profile of D (schedule ``sch_d``) and D' (``sch_p``), refined against half the cells.

    ``shuffled = l``: shuffled batches, each schedule the pair ``[still, use]`` of steps without and with
    the differing record (:func:`~verify.instances.grid.evolve_shuffled`).  Computed once per process for
    the same chain (:data:`~verify.instances.instance.PROFILES`): families and parameters that differ in
    nothing the chain depends on share it."""
    args = (lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error, shuffled)
    key = _chain_key(*args)
    return _grid_profile_of(*args) if key is None else PROFILES.get(key, lambda: _grid_profile_of(*args))


def _grid_profile_of(lo, hi, x0, s, sch_d, sch_p, T, cells, method, escaped_is_error: bool,
                     shuffled: int | None) -> DiscreteProfile:
    """:func:`_grid_profile`, computed."""
    def pair(c):
        grid = IntervalGrid(lo, hi, c)
        if shuffled is None:
            (P, Q), unresolved = evolve_many(grid, x0, s, [sch_d, sch_p], T, method)
        else:
            (P, Q), unresolved = evolve_shuffled(grid, x0, s, [tuple(sch_d), tuple(sch_p)], shuffled, T)
        extra = float(P[0] + P[-1] + Q[0] + Q[-1]) if escaped_is_error else 0.0

        def resolve() -> DiscreteProfile:  # the same chain on log masses, when a query needs them
            log_p, log_q = evolve_log(IntervalGrid(lo, hi, c), x0, s, [sch_d, sch_p], T, shuffled=shuffled)
            return DiscreteProfile.from_log(log_p, log_q, support=grid.support)

        return DiscreteProfile(P, Q, support=grid.support, unresolved=unresolved, resolve=resolve), extra

    fine, extra = pair(cells)
    coarse, _ = pair(max(cells // 2, 4))
    profile = DiscreteProfile(fine.p, fine.q, support=fine.support, coarse=coarse, unresolved=fine.unresolved,
                              resolve=fine.resolve)
    profile.error = profile.error_of("delta", ERROR_EPS) + extra
    return profile


def event_profile(profile: DiscreteProfile, threshold: float, floor_error: float = 0.0) -> DiscreteProfile:
    """The laws of the event ``{theta_T >= threshold}`` under D and D': a certified lower bound.

    Post-processing the last iterate by ``theta -> 1[theta >= threshold]`` can only lose information,
    so every divergence of the two Bernoulli laws (Rényi, hockey-stick, hence eps(delta)) is at most the
    last iterate's (data-processing inequality; Altschuler & Talwar 2022, Lemma 2.7 and the positivity
    test of Appendix A.4).  The event probabilities are first moved towards each other by their error
    (refinement difference against the coarse grid plus ``floor_error``, the most the FFT round-off
    floor can move them), so the returned pair is less distinguishable than the continuous one: a lower
    bound that holds where the Rényi divergence of high order is beyond the grid's resolution.
    """
    def above(prof: DiscreteProfile) -> tuple[float, float]:
        if prof.support is None:
            raise InputError("an event profile needs a profile with its support", "profile")
        hit = prof.support >= threshold
        return float(prof.p[hit].sum()), float(prof.q[hit].sum())

    p, q = above(profile)
    error = float(floor_error)
    if profile.coarse is not None:
        pc, qc = above(profile.coarse)
        error += max(abs(p - pc), abs(q - qc))
    mid = 0.5 * (p + q)
    p_safe = min(p + error, mid) if p <= q else max(p - error, mid)
    q_safe = max(q - error, mid) if p <= q else min(q + error, mid)
    return DiscreteProfile([1.0 - p_safe, p_safe], [1.0 - q_safe, q_safe], support=[0.0, 1.0], error=error)


def _walk_laws(n, eta, sigma, T, plan: BatchPlan, g, g_prime, p_decay, shuffle: bool):
    """The noise of each step and the schedules of D and D' of :func:`interval_walk`, built with its reference
    (decaying steps: a law per step, T of them)."""
    if p_decay is not None:
        steps, sch_d, sch_p = _decaying(n, eta, p_decay, T, plan, g, g_prime)
        return steps * sigma, sch_d, sch_p
    sch_d, sch_p = _schedules(n, eta, plan, g, g_prime)
    if shuffle:  # [still, use]: the cyclic schedule with the record in batch 0 uses it at step 0
        sch_d, sch_p = ([Mixture((1.0,), (0.0,)), sch[0]] for sch in (sch_d, sch_p))
    return eta * sigma, sch_d, sch_p


def _interval(where: str, D, lo, x0) -> tuple[float, float, float, float]:
    """``(D, lo, hi, x0)``: the interval ``[lo, lo + D]`` (default centred at 0) and a start inside it."""
    D = nonnegative("D", D, where)
    if D == 0:
        raise InputError("the interval is empty (D = 0)", "D", where)
    lo = -D / 2 if lo is None else finite("lo", lo, where)
    hi = lo + D
    x0 = (lo + hi) / 2 if x0 is None else finite("x0", x0, where)
    if not lo <= x0 <= hi:
        raise InputError(f"x0 = {x0} lies outside the interval [{lo}, {hi}]", "x0", where)
    return D, lo, hi, x0


def interval_walk(n, eta, sigma, T, Delta, D, batches="full", b=None, position=0, x0=None, lo=None,
                  offset=0.0, adjacency="replace", cells=2048, method="auto", event=None, p_decay=None, name=None,
                  _family="interval_walk") -> Instance:
    """Projected noisy GD on linear losses in 1-D, ``C = [lo, lo + D]`` (default ``[-D/2, D/2]``).

    Every record but the differing one has zero loss; the differing record has gradient ``offset``
    in D and ``offset - Delta`` in D' (so D' drifts upwards by ``eta Delta / b`` when it is used).
    Batches: full, cyclic (record in batch ``position``), poisson or uniform (record used with
    probability ``q = b/n``), shuffle (a fresh permutation into ``l = n/b`` batches every epoch: the
    record's batch uniform and independent across epochs, an epoch kernel that averages the ``l``
    position kernels, :func:`~verify.instances.grid.evolve_shuffled`; dense engine, ``cells <= 2048``).
    ``adjacency="add_remove"`` requires ``offset = 0`` (the record absent
    from D).  Start ``x0`` (default the centre).  Exact laws of the discretised chain (grid engine,
    ``cells`` cells); ``profile().error`` is the refinement estimate: sup over eps in [0, 4] of
    ``|delta_h - delta_2h|`` (max direction), plus the effect of dropping cells below the FFT floor;
    ``profile().error_of(name, ...)`` gives the same estimate for any other query.  ``event``: release
    only ``1[theta_T >= event]`` (:func:`event_profile`: a certified lower bound on every divergence of
    the last iterate, for orders or levels beyond the grid's resolution).  ``p_decay``: decaying step sizes
    ``eta_t = eta max(t, 1)^(-p)`` for the gradient and the noise of step t = 0, ..., T-1 (Altschuler & Talwar 2022,
    §5.3, as :func:`projected_quadratic`); not with shuffled batches.
    """
    where = _family
    n = integer("n", n, where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 6)  # the grid engine steps through T
    Delta = sensitivity(Delta, where)
    D, lo, hi, x0 = _interval(where, D, lo, x0)
    choice("batches", batches, ("full", "cyclic", "poisson", "uniform", "shuffle"), where)
    shuffle = batches == "shuffle"  # a partition into l = n/b batches (b divides n), as for cyclic ones
    plan = BatchPlan.of(where, n, "cyclic" if shuffle else batches, b, 0 if shuffle else position,
                        ("full", "cyclic", "poisson", "uniform"))
    choice("adjacency", adjacency, ("replace", "add_remove"), where)
    offset = finite("offset", offset, where)
    if adjacency == "add_remove" and offset != 0:
        raise InputError("add_remove adjacency needs offset = 0 (the record is absent from D)", "offset", where)
    if adjacency == "add_remove" and batches != "poisson":
        raise InputError("add_remove adjacency needs Poisson batches (other schemes change the batch size)",
                         "adjacency", where)
    cells = integer("cells", cells, where, low=8, high=DENSE_MAX_CELLS if shuffle else 2 ** 22)
    choice("method", method, ("auto", "dense") if shuffle else ("auto", "fft", "direct", "dense"), where)
    g, g_prime = offset, offset - Delta
    if p_decay is not None:
        if shuffle:
            raise InputError("decaying steps are not available with shuffled batches", "p_decay", where)
        p_decay = nonnegative("p_decay", p_decay, where)
    if event is not None:
        event = finite("event", event, where)
        if not lo < event <= hi:
            raise InputError(f"the event threshold {event} must lie in ({lo}, {hi}]", "event", where)

    def compute() -> DiscreteProfile:
        noise, sch_d, sch_p = _walk_laws(n, eta, sigma, T, plan, g, g_prime, p_decay, shuffle)
        profile = _grid_profile(lo, hi, x0, noise, sch_d, sch_p, T, cells, method, escaped_is_error=False,
                                shuffled=plan.l if shuffle else None)
        if event is None:
            return profile
        floored = 0 if profile.unresolved is None else int(profile.unresolved.sum())
        return event_profile(profile, event, floor_error=2.0 * floored * FFT_FLOOR)

    constants = {**plan.constants(T), "eta": eta, "sigma": sigma, "Delta": Delta, "D": D, "d": 1, "m": 0.0,
                 **({} if p_decay is None else {"p_decay": p_decay})}
    if max(abs(g), abs(g_prime)) > 0:
        constants["L"] = max(abs(g), abs(g_prime))
    setting = Setting(algorithm="noisy_gd", batches=batches, loss="linear", constraint="bounded",
                      adjacency=adjacency, init="fixed", release="last")
    run = RunDescription(kind="walk_1d", loss="linear", n=n, b=plan.b, T=T, eta=eta, sigma=sigma, batches=batches,
                         position=plan.position, init="fixed", record_gradient=g, record_gradient_prime=g_prime,
                         x0=x0, interval=(lo, hi), projection=(lo, hi), cells=cells, method=method,
                         post_processing=None if event is None else f"1[theta_T >= {event}]")
    shown = f"{_family}(n={n}, T={T}, D={D}, batches={batches}" + (
        "" if event is None else f", event theta_T >= {event}")
    return Instance(name=name or shown + ")", family=_family,
                    setting=setting, loss_classes=LINEAR, constants=constants, run=run, compute=compute)


def projected_quadratic(n, eta, sigma, T, Delta, D, m, M=None, batches="uniform", b=None, position=0, x0=None,
                        offset=0.0, p_decay=None, cells=None, method="dense", name=None, _family="projected_quadratic",
                        _escaped_is_error=False, _concave=False) -> Instance:
    """Projected noisy SGD on 1-D quadratics ``l_i(theta) = m/2 theta^2 + g_i theta`` on ``[-D/2, D/2]``.

    Every record has ``g_i = 0`` but the differing one: ``g = offset`` in D, ``offset - Delta`` in D'
    (so the gradient difference is ``Delta``).  The losses are m-strongly convex, m-smooth (``M >= m``
    records a declared smoothness constant; default m) and L-Lipschitz on the interval with
    ``L = m D/2 + max(|g|, |g'|)``.  One step is ``theta <- Proj((1 - eta m) theta - eta g/b 1[record in
    batch] - eta Z)``: a mixture of affine maps, evolved exactly on the grid by the dense engine (a
    transition matrix, ``cells <= 2048``); uniform batches of size ``b`` (the record used with
    probability ``q = b/n``), the setting the strongly convex SGD statements speak about (the Gaussian
    chains cover full and cyclic batches exactly), or shuffled batches (a fresh permutation into ``l = n/b``
    batches every epoch: the record's step uniform in each epoch, independently across epochs, an exact mixture
    over the orders, :func:`~verify.instances.grid.evolve_shuffled`).  Start ``x0`` (default the centre).  ``p_decay``:
    decaying step sizes, the step ``omega_{t+1} = ...`` (t = 0, ..., T-1) using ``eta_t = eta max(t, 1)^(-p)``
    for its gradient and its noise ``eta_t Z`` (Altschuler & Talwar 2022, §5.3: ``eta = eta_1`` the largest
    step; a per-step kernel each step).  The strongly convex reference of
    Altschuler & Talwar 2022, Thm 5.1 / (5.3) / (B.3) and Bok et al. 2024, Thm 4.9.  ``_concave``: the
    curvature is ``-m`` (:func:`projected_nonconvex`).
    """
    where = _family
    n = integer("n", n, where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where, high=10 ** 5)
    Delta = sensitivity(Delta, where)
    m = positive("m", m, where)
    M = m if M is None else positive("M", M, where)
    if M < m:
        raise InputError(f"need M >= m (a quadratic of curvature m is M-smooth for M >= m), got M={M} < m={m}",
                         "M", where)
    if eta * m >= 2:
        raise InputError(f"need eta*m < 2 (the gradient step expands otherwise), got {eta * m}", "eta", where)
    D, lo, hi, x0 = _interval(where, D, lo=None, x0=x0)
    choice("batches", batches, ("uniform", "shuffle"), where)
    shuffle = batches == "shuffle"  # a partition into l = n/b batches, a fresh order every epoch
    plan = BatchPlan.of(where, n, "cyclic" if shuffle else batches, b, 0 if shuffle else position,
                        ("cyclic",) if shuffle else ("uniform",))
    curvature = -m if _concave else m
    offset = finite("offset", offset, where)
    # default 512 cells; 256 with decaying steps (one transition matrix per step: the cost grows with T C^2)
    cells = integer("cells", (512 if p_decay is None else 256) if cells is None else cells, where, low=8,
                    high=DENSE_MAX_CELLS)
    choice("method", method, ("dense",), where)
    g, g_prime = offset, offset - Delta
    if shuffle and p_decay is not None:
        raise InputError("decaying steps are not available with shuffled batches", "p_decay", where)
    if p_decay is not None:
        p_decay = nonnegative("p_decay", p_decay, where)

    def laws():
        """The steps and the schedules of D and D', built with the reference (decaying steps: a law per step)."""
        if p_decay is not None:
            return _decaying(n, eta, p_decay, T, plan, g, g_prime, curvature)
        sch_d, sch_p = _schedules(n, eta, plan, g, g_prime, curvature=curvature)
        if shuffle:  # [still, use]: the step without the record (the gradient step alone), the step with it
            still = Mixture((1.0,), (_Affine(0.0, eta * curvature),))
            sch_d, sch_p = [still, sch_d[0]], [still, sch_p[0]]
        return eta, sch_d, sch_p

    def compute() -> DiscreteProfile:
        steps, sch_d, sch_p = laws()
        return _grid_profile(lo, hi, x0, steps * sigma, sch_d, sch_p, T, cells, method,
                             escaped_is_error=_escaped_is_error, shuffled=plan.l if shuffle else None)

    L = m * max(abs(lo), abs(hi)) + max(abs(g), abs(g_prime))
    batch_constants = {k: v for k, v in plan.constants(T).items() if not (shuffle and k == "tpos")}
    constants = {**batch_constants, "eta": eta, "sigma": sigma, "Delta": Delta, "D": D, "d": 1,
                 **({"rho": m} if _concave else {"m": m}), "M": M, "L": L,
                 **({} if p_decay is None else {"p_decay": p_decay})}
    setting = Setting(algorithm="noisy_gd", batches=batches, loss="concave_quadratic" if _concave else "quadratic",
                      constraint="bounded", adjacency="replace", init="fixed", release="last")
    run = RunDescription(kind="walk_1d", loss="m/2 theta^2 + g theta", n=n, b=plan.b, T=T, eta=eta, sigma=sigma,
                         batches=batches, position=plan.position, init="fixed", record_gradient=g,
                         record_gradient_prime=g_prime, x0=x0, interval=(lo, hi), projection=(lo, hi), cells=cells,
                         method=method, eigenvalues=np.array([curvature]))
    classes = loss_classes("concave_quadratic", "lipschitz") if _concave else loss_classes("squared")
    return Instance(name=name or f"{where}(n={n}, T={T}, D={D:.4g}, m={m:.4g}, batches={batches})", family=_family,
                    setting=setting, loss_classes=classes, constants=constants, run=run, compute=compute)


def projected_nonconvex(n, eta, sigma, T, Delta, D, rho, M=None, batches="uniform", b=None, x0=None, offset=0.0,
                        cells=None, name=None) -> Instance:
    """Projected noisy SGD on the concave 1-D quadratics ``-rho/2 theta^2 + g_i theta`` on ``[-D/2, D/2]``.

    Rho-weakly convex, rho-smooth (``M >= rho`` a declared constant), L-Lipschitz on the interval with
    ``L = rho D/2 + max(|g|, |g'|)``, not convex: a step expands by ``1 + eta rho`` before the projection, so the
    iterates are pushed to the walls and the differing record's shift is kept, not forgotten.  Uniform batches of
    size b (the record used with probability ``b/n``), evolved exactly on the grid (dense engine, as
    :func:`projected_quadratic`).  The bounded, Lipschitz non-convex reference for subsampled runs.
    """
    where = "projected_nonconvex"
    rho = positive("rho", rho, where)
    inst = projected_quadratic(n, eta, sigma, T, Delta, D, rho, M=M, batches=batches, b=b, x0=x0, offset=offset,
                               cells=cells, name=name or f"{where}(n={n}, T={T}, D={D:.4g}, rho={rho:.4g})",
                               _family=where, _concave=True)
    return dataclasses.replace(inst, run=dataclasses.replace(inst.run, loss="-rho/2 theta^2 + g theta"))


def subsampled_quadratic(n, eta, sigma, T, Delta, m, M=None, b=1, offset=0.0, window=14.0, cells=None,
                         name=None) -> Instance:
    """Unconstrained noisy SGD on 1-D quadratics (:func:`projected_quadratic` without the projection).

    ``l_i(theta) = m/2 theta^2 + g_i theta`` (the differing record ``g = offset`` in D, ``offset - Delta`` in
    D'), uniform batches of size b, theta_0 = 0.  The last iterate is a mixture of ``2^T`` Gaussians (which
    steps used the record); here it is evolved on a grid over a window holding the drift
    ``eta max|g|/(b (1 - |1 - eta m|))`` plus ``window`` standard deviations of the accumulated noise on
    each side; the mass that reaches the window's ends is added to ``profile().error``.  ``cells``
    (default: 6 per noise standard deviation ``eta sigma``) is at most 2048.  The reference of Bok et al.
    2024, Thm 4.9 (strongly convex, unconstrained NoisySGD).
    """
    where = "subsampled_quadratic"
    eta_ = positive("eta", eta, where)
    sigma_ = positive("sigma", sigma, where)
    T_ = integer("T", T, where, high=10 ** 5)
    Delta_ = sensitivity(Delta, where)
    m_ = positive("m", m, where)
    if eta_ * m_ >= 2:
        raise InputError(f"need eta*m < 2 (the gradient step expands otherwise), got {eta_ * m_}", "eta", where)
    plan = BatchPlan.of(where, n, "uniform", b, 0, ("uniform",))
    offset_ = finite("offset", offset, where)
    window_ = positive("window", window, where)
    c = abs(1.0 - eta_ * m_)
    s = eta_ * sigma_
    sd = s * math.sqrt(sum(c ** (2 * k) for k in range(min(T_, 10 ** 4))) if c < 1 else T_)
    drift = eta_ * max(abs(offset_), abs(offset_ - Delta_)) / plan.b * (T_ if c >= 1 else min(T_, 1 / (1 - c)))
    half = drift + window_ * sd
    if cells is None:
        cells = max(64, int(math.ceil(6 * 2 * half / s)))
        if cells > DENSE_MAX_CELLS:
            raise InputError(f"the window needs {cells} cells of width eta*sigma/6 (at most {DENSE_MAX_CELLS}): "
                             f"m too small or the drift too large", "m", where)
    inst = projected_quadratic(n, eta, sigma, T, Delta, 2 * half, m, M=M, b=b, offset=offset_, cells=cells,
                               name=name or f"{where}(n={n}, b={b}, T={T}, m={m_:.4g})", _family=where,
                               _escaped_is_error=True)
    constants = {k: v for k, v in inst.constants.items() if k not in ("D", "L")}
    return dataclasses.replace(inst, setting=dataclasses.replace(inst.setting, constraint="none"),
                               constants=constants, run=dataclasses.replace(inst.run, projection=None,
                                                                            window=(-half, half)))


def bok_c16(n, eta, sigma, T, Delta, D, batches="full", b=None, position=None, cells=2048, method="auto",
            name=None) -> Instance:
    """Bok et al. 2024, Thm C.16 construction: ``[-D/2, D/2]``, x0 = 0, all losses zero in D, and in D'
    the differing record linear with slope Delta (drift ``eta Delta / n`` per step for GD,
    ``eta Delta / b`` once per epoch for cyclic batches, in batch ``position``, default the last)."""
    if batches == "cyclic" and position is None and b is not None:
        position = derive({"n": integer("n", n, "bok_c16"), "b": integer("b", b, "bok_c16")}, "cyclic")["l"] - 1
    inst = interval_walk(n, eta, sigma, T, Delta, D, batches=batches, b=b, position=position or 0,
                         cells=cells, method=method, name=name, _family="bok_c16")
    return _with_run(inst, source="Bok et al. 2024, Theorem C.16 (construction)")


def at22_thm41(n, eta, sigma, T, Delta, D, b=1, cells=2048, method="auto", event=None, name=None) -> Instance:
    """Altschuler & Talwar 2022, Thm 4.1 construction: ``K = [-D/2, D/2]``, omega_0 = 0, uniform batches
    of size b; all losses zero except ``f(omega; x'_n) = L (D - omega)`` in D' (gradient ``-L``,
    ``L = Delta``): D' moves up by ``eta L / b`` with probability ``b/n`` each step.  ``event=0.0``:
    the proof's positivity test ``1[omega_T >= 0]`` (a lower bound on every divergence, see
    :func:`event_profile`)."""
    inst = interval_walk(n, eta, sigma, T, Delta, D, batches="uniform", b=b, cells=cells, method=method,
                         event=event, name=name, _family="at22_thm41")
    return _with_run(inst, source="Altschuler & Talwar 2022, Theorem 4.1 (Appendix A.4 construction)")


def subsampled_linear(n, eta, sigma, T, Delta, b, batches="poisson", adjacency=None, offset=0.0, cells=8192,
                      method="auto", window=30.0, release="last", name=None) -> Instance:
    """Unconstrained linear loss, the differing record Poisson- or uniformly-subsampled (1-D grid).

    The record has gradient ``offset`` in D and ``offset - Delta`` in D' (default: 0, i.e. its absence
    for add/remove, against ``-Delta``, a drift ``eta Delta / b`` when sampled); the losses are
    L-Lipschitz with ``L = max(|offset|, |offset - Delta|)`` (``offset = Delta/2``: +-L with Delta = 2L,
    the replace-one worst case).  ``adjacency`` defaults to add_remove for Poisson and replace for
    uniform batches; add/remove needs ``offset = 0``.  Unconstrained: the grid covers the drifts of up
    to ``qT + 12 sd + 12`` uses plus ``window`` standard deviations of the accumulated noise on each
    side; the mass that reaches the window's ends is added to ``profile().error``.

    ``batches="shuffle"`` (a fresh permutation into ``l = n/b`` batches every epoch, replace adjacency):
    unconstrained, the last iterate depends only on how often the record was used, ``E = T // l`` times
    plus once more with probability ``r / l`` (``r = T mod l``, the partial epoch), so its law is one
    step of noise ``eta sigma sqrt(T)`` and that mixture of displacements, evolved exactly on the grid.

    ``release="all"`` (Poisson or uniform batches): the transcript.  Unconstrained linear losses make the steps'
    increments independent and identically distributed, each the one-step pair (the record sampled or not), so
    the transcript is that pair repeated ``T`` times (:class:`~verify.instances.composed.RepeatedStep`, read in
    Rényi DP by additivity).
    """
    where = "subsampled_linear"
    choice("release", release, ("last", "all"), where)
    if release == "all":
        step = subsampled_linear(n, eta, sigma, 1, Delta, b, batches=batches, adjacency=adjacency, offset=offset,
                                 cells=cells, method=method, window=window)
        return _transcript(step, n, b, T, batches, name)
    n_ = integer("n", n, where)
    eta_ = positive("eta", eta, where)
    sigma_ = positive("sigma", sigma, where)
    T_ = integer("T", T, where, high=10 ** 6)
    Delta_ = sensitivity(Delta, where)
    choice("batches", batches, ("poisson", "uniform", "shuffle"), where)
    shuffle = batches == "shuffle"
    # shuffled batches are validated as a partition (b divides n), like cyclic ones
    plan = BatchPlan.of(where, n_, "cyclic" if shuffle else batches, b, 0, ("poisson", "uniform", "cyclic"))
    window = positive("window", window, where)
    if adjacency is None:
        adjacency = "add_remove" if batches == "poisson" else "replace"
    offset_ = finite("offset", offset, where)
    g, g_prime = offset_, offset_ - Delta_
    s = eta_ * sigma_
    if shuffle:
        epochs, rest = divmod(T_, plan.l)
        uses = epochs + (1 if rest else 0)
    else:
        q = plan.q
        uses = min(T_, q * T_ + 12 * math.sqrt(q * (1 - q) * T_) + 12)  # binomial count, far tail
    step = uses * eta_ / plan.b  # a record of gradient g moves the iterate by -g per unit of step
    lo = min(0.0, -step * max(g, g_prime)) - window * s * math.sqrt(T_)
    hi = max(0.0, -step * min(g, g_prime)) + window * s * math.sqrt(T_)
    walk = interval_walk(n, eta, sigma, T, Delta, hi - lo, batches="cyclic" if shuffle else batches, b=b, x0=0.0,
                         lo=lo, offset=offset_, adjacency=adjacency, cells=cells, method=method,
                         name=name or (f"{where}(n={n_}, b={plan.b}, T={T_}, batches=shuffle)" if shuffle else None),
                         _family=where)
    if shuffle:
        sch_d, sch_p = ([_shuffled_uses(grad, eta_ / plan.b, T_, plan.l)] for grad in (g, g_prime))
        noise, steps = s * math.sqrt(T_), 1
    else:
        (sch_d, sch_p), noise, steps = _schedules(n_, eta_, plan, g, g_prime), s, T_

    def compute() -> DiscreteProfile:
        return _grid_profile(lo, hi, 0.0, noise, sch_d, sch_p, steps, walk.run.cells, method, escaped_is_error=True)

    constants = {k: v for k, v in walk.constants.items() if k != "D"}  # L = max(|g|, |g'|), the walk's
    setting = dataclasses.replace(walk.setting, constraint="none", batches=batches)
    return dataclasses.replace(walk, setting=setting, constants=constants,
                               run=dataclasses.replace(walk.run, projection=None, window=(lo, hi), batches=batches),
                               compute=compute)


def _transcript(step: Instance, n, b, T, batches: str, name) -> Instance:
    """The transcript of ``T`` steps of :func:`subsampled_linear` from its one-step instance ``step``: unconstrained
    linear losses make the increments independent and identically distributed (:class:`RepeatedStep`)."""
    where = "subsampled_linear"
    if batches == "shuffle":
        raise InputError("shuffled batches: the last iterate only (the transcript depends on the orders)",
                         "release", where)
    T_all = integer("T", T, where, high=10 ** 7)
    return dataclasses.replace(
        step, name=name or f"{where}(n={n}, b={b}, T={T_all}, batches={batches}, every iterate)",
        setting=dataclasses.replace(step.setting, release="all"),
        constants={**step.constants,
                   **BatchPlan.of(where, int(n), batches, b, 0, ("poisson", "uniform")).constants(T_all)},
        run=dataclasses.replace(step.run, T=T_all), compute=lambda: RepeatedStep(step.profile(), T_all))


def _shuffled_uses(grad: float, per_use: float, T: int, l: int) -> Mixture:
    """The displacement of an unconstrained linear run under shuffled batches by a record of gradient ``grad``
    (``per_use`` = eta/b): used once per whole epoch, once more with probability ``r/l`` in a partial one."""
    epochs, rest = divmod(T, l)
    move = -per_use * grad
    if rest == 0:
        return Mixture((1.0,), (epochs * move,))
    share = rest / l
    return Mixture((1.0 - share, share), (epochs * move, (epochs + 1) * move))


# ---------------------------------------------------------------------------------------------------
# Compositions: the worst-case DP-SGD step of Bu et al. 2020
# ---------------------------------------------------------------------------------------------------


