"""The instance families: Gaussian chains, 1-D interval walks and the papers' own constructions.

Every builder takes canonical parameters (docs/conventions.md) plus family keywords and returns an
:class:`~verify.instances.instance.Instance`; invalid parameters raise
:class:`~verify.errors.InputError` naming the parameter.  Conventions: the differing record is
replaced (``adjacency="replace"``) unless stated; Delta is the sup norm of the gradient difference
of the differing record; Poisson batches keep the denominator ``b``; per-step parameter noise has
std ``eta * sigma``.  Each family is registered once, at the end of this module
(:func:`verify.instances.registry.register_family`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from verify.errors import InputError
from verify.instances.chain import QuadraticRun
from verify.instances.instance import BatchPlan, Instance, RunDescription, sensitivity
from verify.instances.composed import CompositionProfile
from verify.instances.profile import GaussianProfile
from verify.instances.registry import reads, register_family
from verify.instances.walks import (LINEAR, _with_run, at22_thm41, bok_c16, event_profile, interval_walk,
                                    projected_nonconvex, projected_quadratic, subsampled_linear,
                                    subsampled_quadratic)
from verify.privacy.rdp import sampled_gaussian_rdp
from verify.setting import Setting, loss_classes
from verify.validate import array, choice, finite, integer, positive, probability
from verify.vocabulary import batch_count, check_curvatures, contradictions, derive


# ---------------------------------------------------------------------------------------------------
# Gaussian chains (quadratic and linear losses, full or cyclic batches)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainGeometry:
    """The losses of a Gaussian chain, ``l_i(theta) = 1/2 theta^T H theta - h_i^T theta`` (H = 0: linear).

    ``eigenvalues`` of H and ``basis`` (its eigenvectors; None when H is given diagonal);
    ``difference``: the differing record's gradient difference, in the eigenbasis; ``records``: the
    ``h_i`` of D in the original basis (None: all zero); ``loss`` in words; ``classes`` of the losses.
    """

    eigenvalues: np.ndarray
    basis: np.ndarray | None
    difference: np.ndarray
    records: np.ndarray | None
    loss: str
    classes: frozenset[str]

    @property
    def linear(self) -> bool:
        return not np.any(self.eigenvalues)


@dataclass(frozen=True)
class ChainStart:
    """``theta_0``: ``mean`` (eigenbasis), plus ``N(0, var I)`` noise when ``init == "gaussian"``."""

    init: str
    mean: np.ndarray
    var: float


def _spectrum(where: str, d, m, M, eigenvalues, H):
    """Eigenvalues and eigenvectors of the shared H, with (m, M) checked against them."""
    if H is not None:
        H = array("H", H, where=where)
        if H.ndim != 2 or H.shape[0] != H.shape[1]:
            raise InputError(f"H must be a square matrix, got shape {H.shape}", "H", where)
        if not np.allclose(H, H.T, rtol=1e-12, atol=1e-14):
            raise InputError("H must be symmetric positive definite (it is not symmetric)", "H", where)
        lam, U = np.linalg.eigh(H)
    elif eigenvalues is not None:
        lam = np.atleast_1d(array("eigenvalues", eigenvalues, where=where))
        if lam.ndim != 1:
            raise InputError("eigenvalues must be a finite vector", "eigenvalues", where)
        U = None
    else:
        if m is None or M is None:
            raise InputError("give m and M (or eigenvalues, or H)", "m" if m is None else "M", where)
        m = positive("m", m, where)
        M = positive("M", M, where)
        check_curvatures(m, M, where)
        if d is None:
            d = 1 if m == M else 2
        d = integer("d", d, where)
        if d == 1 and m != M:
            raise InputError(f"d=1 cannot hold both eigenvalues m={m} and M={M}; use d >= 2", "d", where)
        lam = np.linspace(m, M, d) if d > 1 else np.array([m])
        U = None
    if d is not None and integer("d", d, where) != lam.size:
        raise InputError(f"d={d} does not match H of dimension {lam.size} (mismatched dimensions)", "d", where)
    if np.any(lam <= 0):
        raise InputError(f"H must be symmetric positive definite (smallest eigenvalue {lam.min()!r} <= 0)", "H",
                         where)
    lo, hi = float(lam.min()), float(lam.max())
    for name, given, true in (("m", m, lo), ("M", M, hi)):
        if given is not None and (H is not None or eigenvalues is not None) \
                and not math.isclose(finite(name, given, where), true, rel_tol=1e-9):
            raise InputError(f"{name}={given} does not match the eigenvalues of H ({true})", name, where)
    return lam, U


def _direction(where: str, direction, lam: np.ndarray, U) -> np.ndarray:
    """Unit vector (eigenbasis) of the gradient difference: 'm', 'M' or an explicit vector."""
    d = lam.size
    if isinstance(direction, str):
        choice("direction", direction, ("m", "M"), where)
        v = np.zeros(d)
        v[int(np.argmin(lam) if direction == "m" else np.argmax(lam))] = 1.0
        return v
    v = array("direction", direction, (d,), where)
    norm = np.linalg.norm(v)
    if norm == 0:
        raise InputError("direction must be a non-zero vector", "direction", where)
    v = v / norm
    return v if U is None else U.T @ v


def _chain_start(where: str, geometry: ChainGeometry, eta: float, sigma: float, init, init_var,
                 theta0) -> ChainStart:
    lam, d = geometry.eigenvalues, geometry.eigenvalues.size
    choice("init", init, ("fixed", "gaussian"), where)
    mean0 = np.zeros(d) if theta0 is None else array("theta0", theta0, (d,), where)
    if geometry.basis is not None:
        mean0 = geometry.basis.T @ mean0
    if init == "gaussian":
        if init_var is None:
            if geometry.linear:
                raise InputError("init='gaussian' on linear losses needs init_var", "init_var", where)
            # Chourasia et al. 2021, Lemma 5: theta_0 ~ N(0, (2 sigma_C^2 / lambda) I), sigma_C^2 = eta sigma^2 / 2
            init_var = eta * sigma ** 2 / float(lam.min())
        return ChainStart(init, mean0, positive("init_var", init_var, where))
    if init_var not in (None, 0, 0.0):
        raise InputError("init_var is only meaningful with init='gaussian'", "init_var", where)
    return ChainStart(init, mean0, 0.0)


def _batch_means(where: str, geometry: ChainGeometry, plan: BatchPlan) -> tuple[np.ndarray | None, np.ndarray]:
    """The records' linear terms in the eigenbasis (None: all zero) and their mean per batch, ``(l, d)``."""
    d = geometry.eigenvalues.size
    if geometry.records is None:
        return None, np.zeros((plan.l, d))
    h = array("records", geometry.records, (plan.n, d), where)
    if geometry.basis is not None:
        h = h @ geometry.basis
    return h, h.reshape(plan.l, plan.b, d).mean(axis=1)


def _excess_risk(where: str, lam: np.ndarray, hbar: np.ndarray, eta: float, sigma: float, T: int,
                 start: ChainStart):
    """Exact ``E[L_D(theta_t) - min L_D]`` of a quadratic chain as a function of ``t`` (default ``T``)."""
    theta_star = hbar.mean(axis=0) / lam  # H^{-1} hbar (eigenbasis)

    def excess(T_query=None):
        Ts = np.atleast_1d(np.asarray(T if T_query is None else T_query))
        out = []
        for t in Ts.ravel():
            r = QuadraticRun(lam, hbar, eta, sigma, integer("T", t, where), start.mean, start.var)
            gap = r.mean() - theta_star
            out.append(0.5 * float(np.sum(lam * (gap ** 2 + r.variances()))))
        res = np.asarray(out).reshape(Ts.shape)
        return res[0] if np.ndim(T if T_query is None else T_query) == 0 else res

    return excess


def _gaussian_chain(where: str, name: str, geometry: ChainGeometry, plan: BatchPlan, eta, sigma, T,
                    init, init_var, theta0, constants: dict[str, float], release: str = "last") -> Instance:
    """The chain instance of family ``where``; ``constants``: the canonical constants of the losses.

    ``release="all"``: the pair of transcripts (every iterate).  Given the iterates so far, a step moves the mean by
    the same ``eta/b (h' - h)`` wherever they are (the gradient difference is constant) with noise ``eta sigma``:
    the transcript is the composition of ``uses`` Gaussian mechanisms, exactly ``mu``-GDP with
    ``mu = sqrt(uses) |h' - h| / (b sigma)`` (Dong, Roth, Su 2022, Cor. 3.3), whatever the curvature."""
    choice("release", release, ("last", "all"), where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where)
    lam, d = geometry.eigenvalues, geometry.eigenvalues.size
    if plan.l * d > 10 ** 7:
        raise InputError(f"l*d = {plan.l * d} batch means is too large (max 1e7)", "b", where)
    if eta * float(np.abs(lam).max()) > 2:
        raise InputError(f"need eta*M <= 2 (the chain diverges otherwise), got {eta * float(np.abs(lam).max())}",
                         "eta", where)
    start = _chain_start(where, geometry, eta, sigma, init, init_var, theta0)
    h, hbar = _batch_means(where, geometry, plan)
    if not np.any(geometry.difference):
        raise InputError("the differing record equals the original (gradient difference 0)", "Delta", where)
    diff = np.zeros((plan.l, d))
    diff[plan.position] = geometry.difference / plan.b  # (h'_{i*} - h_{i*}) / b moves the mean of batch `position`
    run_D = QuadraticRun(lam, hbar, eta, sigma, T, start.mean, start.var)
    shift = QuadraticRun(lam, diff, eta, sigma, T, np.zeros(d), 0.0)

    def compute() -> GaussianProfile:
        if release == "all":
            mu = math.sqrt(plan.uses(T)) * float(np.linalg.norm(geometry.difference)) / (plan.b * sigma)
            return GaussianProfile(0.0, 1.0, mu, 1.0)
        var = run_D.variances()
        return GaussianProfile(np.zeros(d), var, shift.mean(), var)

    extras = {} if geometry.linear else {"expected_excess_risk": _excess_risk(where, lam, hbar, eta, sigma, T, start)}
    loss = "linear" if geometry.linear else "concave_quadratic" if "nonconvex" in geometry.classes else "quadratic"
    setting = Setting(algorithm="noisy_gd", batches=plan.batches, loss=loss, constraint="none", adjacency="replace",
                      init=start.init, release=release)
    run = RunDescription(
        kind="gaussian_chain", loss=geometry.loss, n=plan.n, b=plan.b, T=T, eta=eta, sigma=sigma,
        batches=plan.batches, position=plan.position, init=start.init, eigenvalues=lam, basis=geometry.basis,
        records=h, differing_index=plan.position * plan.b, gradient_difference=geometry.difference,
        init_mean=start.mean, init_var=start.var,
        # linear losses, a fixed start, the record in every step's batch: the increments are independent and
        # shifted alike (eta Delta/b, noise eta sigma), so their sum, the last iterate, is sufficient
        sufficient=bool(geometry.linear and plan.l == 1 and start.var == 0))
    return Instance(name=name, family=where, setting=setting, loss_classes=geometry.classes,
                    constants={**plan.constants(T), "eta": eta, "sigma": sigma, "d": d, **constants}, run=run,
                    compute=compute, extras=extras)


def quadratic_chain(n, eta, sigma, T, m=None, M=None, Delta=None, d=None, batches="full", b=None,
                    position=0, init="fixed", init_var=None, theta0=None, direction="m",
                    eigenvalues=None, H=None, records=None, release="last", name=None,
                    _family="quadratic_chain") -> Instance:
    """Noisy GD on ``l_i(theta) = 1/2 theta^T H theta - h_i^T theta`` with a shared SPD ``H``.

    ``H`` has eigenvalues ``linspace(m, M, d)`` (or ``eigenvalues``, or ``H`` itself); ``d=None``
    takes the smallest dimension holding both m and M.  The differing record's linear term moves by
    ``Delta`` along ``direction`` (``"m"``: the eigenvector of m, the least contracted one; ``"M"``;
    or a vector), so the gradient difference is constant with norm Delta.  ``records`` (``(n, d)``,
    default 0) are the ``h_i`` of D.  Full or cyclic batches, the differing record in batch
    ``position``; fixed start ``theta0`` or Gaussian ``N(theta0, init_var I)`` (default variance
    ``eta sigma^2 / m``: Chourasia et al. 2021 Lemma 5 in canonical units).  Exact Gaussian laws via
    :class:`verify.instances.chain.QuadraticRun`; ``release="all"``: the transcript (every iterate).
    """
    where = _family
    lam, U = _spectrum(where, d, m, M, eigenvalues, H)
    if Delta is None:
        raise InputError("Delta (the gradient sensitivity) is required", "Delta", where)
    Delta = sensitivity(Delta, where)
    isotropic = np.ptp(lam) <= 1e-12 * lam.max()  # H = m I: the squared loss
    geometry = ChainGeometry(lam, U, Delta * _direction(where, direction, lam, U), records,
                             "1/2 theta^T H theta - h_i^T theta",
                             loss_classes("squared" if isotropic else "quadratic", "strongly_convex"))
    plan = BatchPlan.of(where, n, batches, b, position, ("full", "cyclic"))
    return _gaussian_chain(where, name or f"{_family}(n={n}, T={T}, eta={eta}, sigma={sigma})", geometry, plan,
                           eta, sigma, T, init, init_var, theta0,
                           {"Delta": Delta, "m": float(lam.min()), "M": float(lam.max())}, release)


def linear_chain(n, eta, sigma, T, Delta, d=1, batches="full", b=None, position=0, init="fixed",
                 init_var=None, theta0=None, direction=None, M=None, release="last", name=None) -> Instance:
    """Noisy GD on linear losses, unconstrained: D's record has gradient ``+Delta/2 v``, D''s ``-Delta/2 v``.

    Every other record has gradient 0.  The losses are L-Lipschitz with ``L = Delta/2`` (so Delta =
    2L, the replace-one worst case), convex, and M-smooth for every M (``M`` records a declared
    smoothness constant; omitted otherwise).  Exact GDP of the last iterate:
    ``mu = uses * Delta / (b sigma sqrt(T))`` (``uses`` = steps whose batch holds the record); full
    batch: ``sqrt(T) Delta / (n sigma)``, Bok et al. 2024 Thm 4.1 with equality.  (Cyclic batches
    are more private than Thm 4.4's composition bound here: every step's noise accumulates.)
    ``batches="shuffle"`` (a fresh permutation every epoch) when ``l = n/b`` divides ``T``: the record
    is used once per epoch wherever it falls, and the last iterate of linear losses depends only on the
    number of uses, so the laws are those of cyclic batches (any position).
    """
    where = "linear_chain"
    d = integer("d", d, where)
    Delta = sensitivity(Delta, where)
    v = np.eye(d)[0] if direction is None else _direction(where, direction, np.ones(d), None)
    if batches == "shuffle":
        if release != "last":
            raise InputError("shuffled batches: the last iterate only (the transcript depends on the orders)",
                             "release", where)
        plan = BatchPlan.of(where, n, "cyclic", b, 0, ("cyclic",))
        if integer("T", T, where) % plan.l:
            raise InputError(f"shuffled batches need whole epochs here: l = n/b = {plan.l} must divide T = {T} "
                             "(subsampled_linear covers a partial epoch)", "T", where)
        cyclic = linear_chain(n, eta, sigma, T, Delta, d=d, batches="cyclic", b=b, init=init, init_var=init_var,
                              theta0=theta0, direction=direction, M=M,
                              name=name or f"linear_chain(n={n}, T={T}, batches=shuffle)")
        return dataclasses.replace(cyclic, setting=dataclasses.replace(cyclic.setting, batches="shuffle"),
                                   run=dataclasses.replace(cyclic.run, batches="shuffle"))
    plan = BatchPlan.of(where, n, batches, b, position, ("full", "cyclic"))
    if plan.n * d > 10 ** 7:
        raise InputError(f"n*d = {plan.n * d} is too large for an explicit dataset (max 1e7)", "n", where)
    records = np.zeros((plan.n, d))
    records[plan.position * plan.b] = -0.5 * Delta * v  # grad = -h
    constants = {"Delta": Delta, "L": Delta / 2, "m": 0.0}
    if M is not None:
        constants["M"] = positive("M", M, where)
    geometry = ChainGeometry(np.zeros(d), None, Delta * v, records, "<g_i, theta>", LINEAR)
    return _gaussian_chain(where, name or f"linear_chain(n={n}, T={T})", geometry, plan, eta, sigma, T, init,
                           init_var, theta0, constants, release)


def nonconvex_chain(n, eta, sigma, T, rho, Delta, M=None, batches="full", b=None, position=0, init="fixed",
                    init_var=None, release="last", name=None) -> Instance:
    """Noisy GD on the concave quadratics ``l_i(theta) = -rho/2 theta^2 - h_i theta`` in 1-D, unconstrained.

    Each loss is rho-weakly convex and rho-smooth (``M >= rho`` records a declared smoothness constant), and not
    convex.  A step multiplies the iterate by ``1 + eta rho > 1``: the differing record's shift grows as fast as
    the noise added before it, so the last iterate forgets nothing; its privacy tends to a constant as T grows
    instead of decaying like the convex runs' (for a record used at the first step, ``mu_T^2 -> (Delta/(b
    sigma))^2 (1 - (1 + eta rho)^-2)``): the last iterate is nearly as revealing as the transcript.  A
    last-iterate bound claimed for smooth or weakly convex losses that decays in T is refuted here.  The
    differing record's linear term moves by ``Delta`` (gradient difference Delta); full or cyclic batches;
    fixed start 0 or Gaussian ``N(0, init_var)``; ``release="all"``: the transcript.  Exact Gaussian laws
    (:class:`verify.instances.chain.QuadraticRun` with a negative eigenvalue).
    """
    where = "nonconvex_chain"
    rho = positive("rho", rho, where)
    M = rho if M is None else positive("M", M, where)
    if M < rho:
        raise InputError(f"need M >= rho (a curvature -rho is M-smooth for M >= rho), got M={M} < rho={rho}", "M",
                         where)
    Delta = sensitivity(Delta, where)
    if init == "gaussian" and init_var is None:
        raise InputError("init='gaussian' on an expanding chain needs init_var", "init_var", where)
    geometry = ChainGeometry(np.array([-rho]), None, np.array([Delta]), None, "-rho/2 theta^2 - h_i theta",
                             loss_classes("concave_quadratic"))
    plan = BatchPlan.of(where, n, batches, b, position, ("full", "cyclic"))
    return _gaussian_chain(where, name or f"{where}(n={n}, T={T}, eta={eta}, sigma={sigma}, rho={rho:.4g})",
                           geometry, plan, eta, sigma, T, init, init_var, None,
                           {"Delta": Delta, "rho": rho, "M": M}, release)


def bok_thm42(n, eta, sigma, T, m, M, Delta, d=None, release="last", name=None) -> Instance:
    """Bok et al. 2024, Thm 4.2 equality case: ``f_i = m/2 |x|^2``, ``f'_{i*} = f_i + Delta <v, x>``, x0 = 0.

    Full batch, unconstrained, ``eta < 2/M``; the last iterates are Gaussians with equal covariance
    and ``T(X_T, X'_T) = G_mu`` with Thm 4.2's mu exactly when ``eta <= 2/(M+m)`` (recorded as
    ``run.tight``).  ``H`` has eigenvalues m and M (d >= 2 when m < M); the tilt is along m.
    """
    where = "bok_thm42"
    eta_ = positive("eta", eta, where)
    M_ = positive("M", M, where)
    if eta_ * M_ >= 2:
        raise InputError(f"Thm 4.2 needs eta < 2/M, got eta*M = {eta_ * M_}", "eta", where)
    inst = quadratic_chain(n, eta, sigma, T, m=m, M=M, Delta=Delta, d=d, release=release, name=name or
                           f"bok_thm42(n={n}, T={T}, eta={eta}, sigma={sigma}, m={m}, M={M})",
                           _family="bok_thm42")
    return _with_run(inst, tight=eta_ <= 2 / (M_ + float(m)),
                     source="Bok et al. 2024, Theorem 4.2 (proof, equality case)")


def bok_c17(n, b, eta, sigma, m, M, Delta, E=None, T=None, position=None, d=None, release="last",
            name=None) -> Instance:
    """Bok et al. 2024, Thm C.17: the Thm 4.2 quadratics under cyclic batches (NoisyCGD).

    ``l = n/b`` batches, ``E`` epochs (``T = l E``), the differing record in batch ``position``
    (0-based; default the last, ``l - 1``, the paper's worst ``j = l``).  Exact GDP ``mu_j``.
    """
    where = "bok_c17"
    n_ = integer("n", n, where)
    b_ = integer("b", b, where)
    if n_ % b_:
        raise InputError(f"b must divide n, got n={n_}, b={b_}", "b", where)
    if T is None and E is None:
        raise InputError("give E (epochs) or T (= l E)", "E", where)
    given = {"n": n_, "b": b_, **({} if E is None else {"E": integer("E", E, where)}),
             **({} if T is None else {"T": integer("T", T, where)})}
    problems = contradictions(given, "cyclic")
    if problems:
        raise InputError(problems[0], "T", where)
    cyclic = derive(given, "cyclic")  # l = n/b, T = l E
    shown_T = cyclic["T"] if T is None else T
    inst = quadratic_chain(n, eta, sigma, cyclic["T"], m=m, M=M, Delta=Delta, d=d, batches="cyclic", b=b,
                           position=cyclic["l"] - 1 if position is None else position, release=release,
                           name=name or f"bok_c17(n={n}, b={b}, T={shown_T})", _family="bok_c17")
    return _with_run(inst, source="Bok et al. 2024, Theorem C.17")


def chourasia_thm3(n, eta, sigma, T, Delta, d=1, init="fixed", release="last", name=None) -> Instance:
    """Chourasia et al. 2021, Thm 3 (and §4(b) of the paper notes): squared loss ``1/2 |theta - x|^2``.

    ``D = (x_1, 0, ..., 0)``, ``D' = (x_1', 0, ..., 0)``, ``x_1 = (Delta/2) e_1 = -x_1'`` (so
    ``S_g = Delta``), ``theta_0 = 0``, unconstrained, full batch, ``0 < eta < 1``.  In canonical
    units the paper's sigma is ``sigma_C = sigma sqrt(eta/2)`` and the exact value of the proof is
    ``R_alpha = alpha Delta^2 (2 - eta) / (4 sigma_C^2 n^2) * (1 - (1-eta)^T) / (1 + (1-eta)^T)``.
    ``init="gaussian"`` uses Lemma 5's law ``N(0, (2 sigma_C^2 / lambda) I)``.
    """
    where = "chourasia_thm3"
    eta_ = positive("eta", eta, where)
    if eta_ >= 1:
        raise InputError(f"Thm 3 needs 0 < eta < 1 (eta < 1/beta with beta = 1), got {eta}", "eta", where)
    d = integer("d", d, where)
    n_ = integer("n", n, where)
    Delta_ = sensitivity(Delta, where)
    if n_ * d > 10 ** 7:
        raise InputError(f"n*d = {n_ * d} is too large for an explicit dataset (max 1e7)", "n", where)
    data = np.zeros((n_, d))
    data[0, 0] = Delta_ / 2
    inst = quadratic_chain(n, eta, sigma, T, Delta=Delta_, d=d, eigenvalues=np.ones(d), records=data,
                           direction=-np.eye(d)[0], init=init, release=release,
                           name=name or f"chourasia_thm3(n={n}, T={T}, eta={eta}, sigma={sigma})",
                           _family="chourasia_thm3")
    return _with_run(inst, loss="1/2 |theta - x|^2", data=data, data_prime=-data[0],
                     source="Chourasia et al. 2021, Theorem 3 (proof)")


def dpsgd_worst_step(n, b, eta, sigma, T, Delta, name=None) -> Instance:
    """Bu et al. 2020, Thm 3: the worst case 1-D DP-SGD step, composed T times (all iterates released).

    Poisson sampling with ``q = b/n``, add/remove adjacency, clipped gradient of the added record
    ``Delta = Cclip``, noise multiplier ``z = b sigma / Delta``: one step is ``N(0, 1)`` vs
    ``(1-q) N(0, 1) + q N(1/z, 1)``, and ``T`` steps are exactly ``T(P^T, GM^T)`` (Bu et al. Thm 3;
    equal to the last iterate for T = 1).  Profile: :class:`CompositionProfile` through
    ``verify.privacy.pld``; Rényi by additivity through ``verify.privacy.rdp.sampled_gaussian_rdp``
    (forward ``D(P||Q)`` = its "add" direction, backward = "remove").  Simulated as the 1-D walk of its
    last iterate (less information than every iterate: an audited lower bound stays a lower bound).
    """
    where = "dpsgd_worst_step"
    n = integer("n", n, where)
    b = integer("b", b, where)
    if b > n:
        raise InputError(f"b must be <= n, got b={b} > n={n}", "b", where)
    eta = positive("eta", eta, where)
    sigma = positive("sigma", sigma, where)
    T = integer("T", T, where)
    Delta = sensitivity(Delta, where)
    derived = derive({"n": n, "b": b, "sigma": sigma, "Cclip": Delta})  # q = b/n, z = b sigma / Cclip
    q, z = derived["q"], derived["z"]

    def renyi(alpha, forward):
        return sampled_gaussian_rdp(q, z, alpha, steps=T, direction="add" if forward else "remove")

    def compute() -> CompositionProfile:
        return CompositionProfile(q, 1.0 / z, T, sampling="poisson", adjacency="add_remove", renyi_fn=renyi)

    constants = {"n": n, "b": b, "q": q, "T": T, "eta": eta, "sigma": sigma, "Delta": Delta, "L": Delta,
                 "z": z, "Cclip": Delta, "d": 1}
    setting = Setting(algorithm="dp_sgd", batches="poisson", loss="linear", constraint="none",
                      adjacency="add_remove", init="fixed", release="all")
    run = RunDescription(kind="walk_1d", loss="linear", n=n, b=b, T=T, eta=eta, sigma=sigma, batches="poisson",
                         init="fixed", record_gradient=0.0, record_gradient_prime=-Delta, x0=0.0,
                         step="N(0,1) vs (1-q) N(0,1) + q N(1/z, 1)", q=q, z=z, source="Bu et al. 2020, Theorem 3")
    return Instance(name=name or f"dpsgd_worst_step(q={q:.4g}, z={z:.4g}, T={T})", family=where,
                    setting=setting, loss_classes=LINEAR, constants=constants, run=run, compute=compute)


def composition_reference(p: float, mu: float, T: int, sampling: str = "poisson",
                          adjacency: str = "add_remove") -> CompositionProfile:
    """Exact privacy of ``T`` subsampled Gaussian steps (per-step GDP ``mu``, rate ``p``), via
    :mod:`verify.privacy.pld`; the reference that judges the CLT of Bu et al. 2020 (Thm 5)."""
    where = "composition_reference"
    p = probability("p", p, where)
    mu = positive("mu", mu, where)
    T = integer("T", T, where, high=10 ** 7)
    return CompositionProfile(p, mu, T, sampling=sampling, adjacency=adjacency)


# ---------------------------------------------------------------------------------------------------
# Pairs of Gaussian laws (no iteration) and the Langevin chain
# ---------------------------------------------------------------------------------------------------


def gaussian_mechanism(sigma=None, Delta=None, n=1, z=None, adjacency="replace", alpha=None, name=None) -> Instance:
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
        sigma = derive({"b": n, "z": z, "Cclip": Delta})["sigma"]  # the whole dataset is the batch: b = n
    if sigma is None or Delta is None:
        raise InputError("give sigma and Delta, or z", "sigma" if sigma is None else "Delta", where)
    sigma = positive("sigma", sigma, where)
    Delta = sensitivity(Delta, where)
    adjacency = choice("adjacency", adjacency, ("replace", "add_remove"), where)
    mu = Delta / (n * sigma)
    constants = {"n": float(n), "sigma": sigma, "Delta": Delta, "mu": mu, "z": 1.0 / mu, "T": 1.0,
                 "b": float(n), "q": 1.0}
    if alpha is not None:  # the pair's own RDP at a given order (the input of an RDP -> DP conversion)
        alpha = positive("alpha", alpha, where)
        if alpha <= 1:
            raise InputError(f"alpha must be > 1, got {alpha}", "alpha", where)
        constants.update(alpha=alpha, eps_rdp=alpha * mu * mu / 2)  # Mironov 2017, Prop. 7
    setting = Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="none",
                      adjacency=adjacency, init="fixed", release="all")
    run = RunDescription(kind="gaussian_pair", n=n, sigma=sigma, pair=f"N(0, {sigma}^2) vs N({Delta / n}, {sigma}^2)",
                         source="Dong et al. 2022, Theorem 2")
    return Instance(name=name or f"gaussian_mechanism(mu={mu:.6g})", family=where, setting=setting,
                    loss_classes=LINEAR, constants=constants, run=run,
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
    run = RunDescription(kind="gaussian_pair", loss="m/2 |x|^2 (+ Delta <v, x> in D')",
                         pair="N(0, 1/m) vs N(-Delta/m, 1/m)", source="Bok et al. 2024, Corollary 5.2")
    return Instance(name=name or f"bok_cor52(m={m:.6g}, Delta={Delta:.6g})", family=where, setting=setting,
                    loss_classes=loss_classes("squared"), constants=constants, run=run,
                    compute=lambda: GaussianProfile(0.0, 1.0 / m, -Delta / m, 1.0 / m))


def langevin_quadratic(eta, T, m, M, Delta, name=None) -> Instance:
    """Unadjusted Langevin (LMC) ``x <- x - eta grad f(x) + sqrt(2 eta) Z`` on quadratics (Bok et al. Prop 5.1).

    It is the canonical chain with ``n = 1`` and ``sigma = sqrt(2/eta)`` (per-step noise ``sqrt(2 eta)``); the
    potentials differ by the linear term ``Delta <v, x>`` along the eigenvector of ``m``.
    """
    where = "langevin_quadratic"
    eta = positive("eta", eta, where)
    chain = quadratic_chain(n=1, eta=eta, sigma=math.sqrt(2.0 / eta), T=T, m=m, M=M, Delta=Delta,
                            name=name or f"langevin_quadratic(eta={eta:.6g}, T={T})", _family=where)
    constants = {k: v for k, v in chain.constants.items() if k not in ("n", "b", "sigma", "q", "l", "E")}
    setting = Setting(algorithm="langevin", batches="full", loss="quadratic", constraint="none",
                      adjacency="replace", init="fixed", release="last")
    return dataclasses.replace(chain, setting=setting, constants=constants,
                               run=dataclasses.replace(chain.run, source="Bok et al. 2024, Proposition 5.1"))


# ---------------------------------------------------------------------------------------------------
# Searched keywords: where the worst case of an assumption class lies (Family.searched)
# ---------------------------------------------------------------------------------------------------
# Each draw maps a unit draw u in [0, 1] and the build's context (the builder's defaults, the canonical
# point, the keywords already chosen) to a keyword value, or None to keep the default.  The canonical
# point's L is not read: an instance states its own L (the largest |record gradient|).


def _adjacency(context) -> str:
    """The adjacency the build will use (subsampled_linear's default: add/remove for Poisson batches)."""
    adjacency = context.get("adjacency")
    if adjacency is None:
        return "add_remove" if context.get("batches") == "poisson" else "replace"
    return str(adjacency)


@reads("Delta")
def draw_offset(u: float, context) -> float | None:
    """``offset = Delta u``: the differing record has gradient ``Delta u`` in D, ``Delta (u - 1)`` in D'.

    ``u = 0``: 0 vs -Delta (L = Delta, the families' default); ``u = 1/2``: +-Delta/2 (L = Delta/2, so a
    theorem stated in L is checked at gradient difference 2L, the replace-one worst case for
    L-Lipschitz losses); ``u = 1``: Delta vs 0.  None under add/remove (the record is absent from D).
    """
    if _adjacency(context) == "add_remove":
        return None
    return float(context["Delta"]) * u


@reads("n", "b")
def draw_position(u: float, context) -> int | None:
    """Cyclic batches: the differing record in batch ``min(l - 1, floor(u l))`` of ``l = n/b``
    (u = 0 the first, u = 1 the last); None for other batchings (one position only)."""
    if context.get("batches") != "cyclic" or context.get("b") is None:
        return None
    n, b = int(context["n"]), int(context["b"])
    if b <= 0 or n % b:
        return None  # the builder refuses these batches anyway
    l = batch_count(n, b, "cyclic")
    return min(l - 1, int(math.floor(u * l)))


@reads()
def draw_event(u: float, context) -> float | None:
    """Release the positivity test ``1[theta_T >= 0]`` instead of the last iterate for ``u >= 3/4`` (None below,
    the default): a post-processing, evidence for a lower bound at orders and levels the grid cannot resolve
    (Altschuler & Talwar 2022, Appendix A.4), a refutation only for an upper bound."""
    return 0.0 if u >= 0.75 else None


@reads("D")
def draw_x0(u: float, context) -> float | None:
    """The start of a projected walk on ``[-D/2, D/2]``: ``x0 = D (u - 1/2)`` (u = 1/2 the centre, the
    default; u = 0 or 1 a wall)."""
    if context.get("lo") is not None:
        return None
    return float(context["D"]) * (u - 0.5)


@reads("T", "eta", "sigma", "m")
def draw_init_var(u: float, context) -> float | None:
    """Gaussian start ``N(theta0, init_var I)``, only when the theorem asks for one (``init="gaussian"``).

    Quadratic chains: ``init_var = 10^(-4 (1 - u)) eta sigma^2 / m``, at most Lemma 5's law of Chourasia et
    al. 2021 (u = 1, the default): a smaller variance is a start at least as concentrated, which their
    LSI induction allows (c' >= lambda / (2 sigma_C^2)).  Linear chains (no m): ``10^(-4 (1 - u)) T
    (eta sigma)^2``, up to the variance the noise accumulates.  A fixed start is not drawn for theorems
    covering both: for these affine chains a Gaussian start adds independent noise to the last iterate,
    a post-processing, so the fixed start is the worst case.
    """
    if context.get("init") != "gaussian":
        return None
    scale = 10.0 ** (-4.0 * (1.0 - u))
    eta, sigma = float(context["eta"]), float(context["sigma"])
    m = context.get("m")
    if m is None or float(m) <= 0:
        return scale * float(context["T"]) * (eta * sigma) ** 2
    return scale * eta * sigma ** 2 / float(m)


# ---------------------------------------------------------------------------------------------------
# Registry: one record per family (setting, cost, why exact, the paper, how simulated)
# ---------------------------------------------------------------------------------------------------

CHAIN = "Gaussian chain: every iterate Gaussian, mean and covariance in closed form in T (verify.instances.chain)"
GRID = ("1-D density evolution on a grid (atoms at the interval ends), error estimated by refinement "
        "(profile().error)")

register_family("quadratic_chain", quadratic_chain, cost="closed_form", exactness=CHAIN, run_kind="gaussian_chain",
                setting=Setting(batches="any", loss="quadratic", constraint="none", init="any"),
                searched={"position": draw_position, "init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, m=0.5, M=2.0, Delta=1.0))
register_family("nonconvex_chain", nonconvex_chain, cost="closed_form", exactness=CHAIN + " (a negative curvature)",
                run_kind="gaussian_chain",
                setting=Setting(batches="any", loss="concave_quadratic", constraint="none", init="any"),
                source="a non-convex construction: the expanding step keeps the record's shift (the last iterate as "
                       "revealing as the transcript, up to a constant)",
                searched={"position": draw_position, "init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, rho=0.5, Delta=1.0))
register_family("linear_chain", linear_chain, cost="closed_form", exactness=CHAIN, run_kind="gaussian_chain",
                setting=Setting(batches="any", loss="linear", constraint="none", init="any"),
                searched={"position": draw_position, "init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0))
register_family("bok_thm42", bok_thm42, cost="closed_form", exactness=CHAIN, run_kind="gaussian_chain",
                setting=Setting(batches="full", loss="quadratic", constraint="none", init="fixed"),
                source="Bok et al. 2024, Theorem 4.2",
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, m=0.5, M=2.0, Delta=1.0))
register_family("bok_c17", bok_c17, cost="closed_form", exactness=CHAIN, run_kind="gaussian_chain",
                setting=Setting(batches="cyclic", loss="quadratic", constraint="none", init="fixed"),
                source="Bok et al. 2024, Theorem C.17",
                example=dict(n=10, b=5, eta=0.1, sigma=1.0, E=3, m=0.5, M=2.0, Delta=1.0))
register_family("chourasia_thm3", chourasia_thm3, cost="closed_form", exactness=CHAIN, run_kind="gaussian_chain",
                setting=Setting(batches="full", loss="quadratic", constraint="none", init="any"),
                source="Chourasia et al. 2021, Theorem 3",
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, init="gaussian"))
register_family("interval_walk", interval_walk, cost="grid", exactness=GRID, run_kind="walk_1d",
                setting=Setting(batches="any", loss="linear", constraint="bounded", adjacency="any", init="fixed"),
                searched={"offset": draw_offset, "position": draw_position, "x0": draw_x0},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, D=2.0, cells=32, batches="poisson", b=2,
                             adjacency="add_remove"))
register_family("bok_c16", bok_c16, cost="grid", exactness=GRID, run_kind="walk_1d",
                setting=Setting(batches="any", loss="linear", constraint="bounded", init="fixed"),
                source="Bok et al. 2024, Theorem C.16",
                example=dict(n=10, b=5, eta=0.1, sigma=1.0, T=4, Delta=1.0, D=2.0, cells=32, batches="cyclic"))
register_family("at22_thm41", at22_thm41, cost="grid", exactness=GRID, run_kind="walk_1d",
                setting=Setting(batches="uniform", loss="linear", constraint="bounded", init="fixed"),
                source="Altschuler & Talwar 2022, Theorem 4.1", searched={"event": draw_event},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, D=2.0, cells=32))
register_family("projected_quadratic", projected_quadratic, cost="grid", exactness=GRID, run_kind="walk_1d",
                setting=Setting(batches="any", loss="quadratic", constraint="bounded", init="fixed"),
                source="Altschuler & Talwar 2022, Thm 5.1 / Appendix B.3 (strongly convex SGD)",
                searched={"offset": draw_offset, "x0": draw_x0},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, D=2.0, m=0.5, b=2, cells=32))
register_family("projected_nonconvex", projected_nonconvex, cost="grid", exactness=GRID, run_kind="walk_1d",
                setting=Setting(batches="any", loss="concave_quadratic", constraint="bounded", init="fixed"),
                source="a non-convex construction: an expanding step between walls keeps the record's shift",
                searched={"offset": draw_offset, "x0": draw_x0},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, D=2.0, rho=0.5, b=2, cells=32))
register_family("subsampled_quadratic", subsampled_quadratic, cost="grid", run_kind="walk_1d",
                exactness=GRID + "; unconstrained: a window of the drift and the noise, the mass reaching its ends "
                                 "added to the error",
                setting=Setting(batches="uniform", loss="quadratic", constraint="none", init="fixed"),
                source="Bok et al. 2024, Thm 4.9 (strongly convex NoisySGD, unconstrained)",
                searched={"offset": draw_offset},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, m=0.5, b=2))
register_family("subsampled_linear", subsampled_linear, cost="grid", run_kind="walk_1d",
                exactness=GRID + "; unconstrained: a window of the noise, the mass reaching its ends added to "
                                 "the error",
                setting=Setting(batches="any", loss="linear", constraint="none", adjacency="any", init="fixed"),
                searched={"offset": draw_offset},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, b=2, cells=64, batches="uniform"))
register_family("gaussian_mechanism", gaussian_mechanism, cost="closed_form", run_kind="gaussian_pair",
                exactness="a pair of Gaussians of equal variance: exactly mu-GDP, closed forms",
                setting=Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="none",
                                adjacency="any", init="fixed", release="all"),
                source="Dong et al. 2022, Thm 2 (the Gaussian mechanism is exactly mu-GDP)",
                example=dict(n=10, sigma=1.0, Delta=1.0, adjacency="add_remove"))
register_family("bok_cor52", bok_cor52, cost="closed_form", run_kind="gaussian_pair",
                exactness="the stationary laws: a pair of Gaussians of equal covariance, closed forms",
                setting=Setting(algorithm="exp_mech", batches="full", loss="quadratic", constraint="none",
                                init="stationary"),
                source="Bok et al. 2024, Corollary 5.2 / Remark 5.3",
                example=dict(m=0.5, Delta=1.0))
register_family("langevin_quadratic", langevin_quadratic, cost="closed_form", run_kind="gaussian_chain",
                exactness=CHAIN + " (n = 1, sigma = sqrt(2/eta))",
                setting=Setting(algorithm="langevin", batches="full", loss="quadratic", constraint="none",
                                init="fixed"),
                source="Bok et al. 2024, Proposition 5.1",
                example=dict(eta=0.1, T=5, m=0.5, M=2.0, Delta=1.0))
# the T-fold composition steps through T like the grid families (cost grows with T)
register_family("dpsgd_worst_step", dpsgd_worst_step, cost="grid", run_kind="walk_1d",
                exactness="T-fold composition of the worst-case subsampled Gaussian step by privacy-loss "
                          "distributions (dp_accounting); Rényi by additivity",
                setting=Setting(algorithm="dp_sgd", batches="poisson", loss="linear", constraint="none",
                                adjacency="add_remove", init="fixed", release="all"),
                source="Bu et al. 2020, Theorem 3",
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0, b=2))

__all__ = ["ChainGeometry", "ChainStart", "at22_thm41", "bok_c16", "bok_c17", "bok_cor52", "bok_thm42",
           "chourasia_thm3", "composition_reference", "dpsgd_worst_step", "draw_event", "draw_init_var", "draw_offset",
           "draw_position", "draw_x0", "event_profile", "gaussian_mechanism", "interval_walk", "langevin_quadratic",
           "linear_chain", "nonconvex_chain", "projected_nonconvex", "projected_quadratic", "quadratic_chain",
           "subsampled_linear", "subsampled_quadratic"]
