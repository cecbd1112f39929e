"""Named numeric operators: bounds that are not closed forms, usable inside sympy expressions.

A theorem's bound is a sympy expression in the canonical vocabulary (docs/theorems.md).  Some bounds are
not closed forms: an f-DP composition such as ``C_p(G_mu)^{⊗T}``, or a Rényi divergence of the
subsampled Gaussian.  Such a bound is written with a :class:`NumericOperator`: an undefined sympy
function whose numeric value comes from the privacy calculus.  The expression keeps its arguments, so
symbolic obligations (the scaling check, for one) still see through it: an operator is invariant under
a re-parametrisation whenever each of its arguments is.

Define an operator with :func:`numeric_operator`; its ``numeric`` callable receives numpy arrays already
broadcast against each other and must return an array of the same shape.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Callable, Iterator

import mpmath
import numpy as np
import sympy as sp

from verify.cache import BoundedCache
from verify.errors import InputError
from verify.privacy.clt import clt_mu_symmetric, clt_mu_uniform
from verify.privacy.gaussian import gdp_delta, gdp_eps
from verify.privacy.rdp import at22_S, rdp_to_dp_classical, rdp_to_dp_improved, sampled_gaussian_rdp
from verify.registry import Registry

#: every operator defined so far, by name (used by ``lambdify``; read-only: define with :func:`numeric_operator`)
OPERATORS: Registry[type["NumericOperator"]] = Registry("numeric operator", "name")


class NumericOperator(sp.Function):
    """Base class of the named numeric operators (never instantiated directly)."""

    numeric: Callable[..., np.ndarray]
    description: str = ""
    #: the argument names, for display and error messages
    arg_names: tuple[str, ...] = ()
    #: its value comes from composed privacy-loss distributions at the interval :func:`pld_interval` sets: its
    #: error at a point is measured by refinement (:func:`verify.check.certify.operator_error`)
    refinable: bool = False

    @classmethod
    def eval(cls, *args):  # stays unevaluated symbolically
        return None

    def _eval_is_real(self):
        return True

    def _eval_is_nonnegative(self):
        return True


def numeric_operator(
    name: str,
    numeric: Callable[..., np.ndarray],
    arg_names: tuple[str, ...],
    description: str,
    *,
    replace: bool = False,
) -> type[NumericOperator]:
    """Create the operator ``name`` evaluating ``numeric(*args)`` (a taken name needs ``replace=True``: two
    operators of one name would make a bound's meaning depend on which was defined first).

    ``numeric`` must broadcast over its arguments.  Wrap a scalar routine with
    :func:`vectorize` when it cannot.
    """
    cls = type(
        name,
        (NumericOperator,),
        {
            "nargs": len(arg_names),
            "numeric": staticmethod(numeric),
            "arg_names": tuple(arg_names),
            "description": description,
        },
    )
    return OPERATORS.add(name, cls, replace=replace, where="numeric_operator")


def vectorize(scalar: Callable[..., float]) -> Callable[..., np.ndarray]:
    """Broadcast a scalar routine over array arguments (evaluating each distinct point once)."""

    def wrapped(*args):
        arrays = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args])
        shape = arrays[0].shape
        flat = np.stack([a.ravel() for a in arrays], axis=1) if arrays else np.empty((1, 0))
        unique, inverse = np.unique(flat, axis=0, return_inverse=True)
        values = np.array([scalar(*row) for row in unique], dtype=float)
        return values[inverse.ravel()].reshape(shape)

    wrapped.__doc__ = scalar.__doc__
    wrapped.__name__ = getattr(scalar, "__name__", "vectorized")
    return wrapped


#: modules for ``sympy.lambdify`` on arrays: scipy's special functions (erf, erfc, gamma, loggamma, polygamma,
#: zeta, Bessel, ...) before numpy, so that every function sympy prints evaluates elementwise on arrays (with
#: numpy alone, lambdify falls back to ``math.erf``, which refuses an array)
ARRAY_MODULES: tuple[str, ...] = ("scipy", "numpy")


def lambdify_modules() -> list:
    """Modules for ``sympy.lambdify``: the named operators first, then :data:`ARRAY_MODULES`."""
    return [{name: cls.numeric for name, cls in OPERATORS.items()}, *ARRAY_MODULES]


# --- RDP operators (Chourasia et al., Altschuler–Talwar, baselines) ---


def _at22_S(alpha, q, s) -> np.ndarray:
    """S_alpha(q, s) of Altschuler–Talwar 2022, Definition 2.10: D_alpha(N(0,s^2) || (1-q)N(0,s^2)+qN(1,s^2)).

    The pure Gaussian is the first argument (the paper's direction); the value comes from
    ``verify.privacy.rdp.at22_S``.
    """
    alpha, q, s = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in (alpha, q, s)])
    # evaluate each distinct point once: free-parameter grids repeat the same (alpha, q, s) many times
    flat = np.stack([alpha.ravel(), q.ravel(), s.ravel()], axis=1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    # one bound often calls S on the same grid several times (AT22 App. B.3)
    key = ("at22_S", unique.shape, hashlib.sha256(unique.tobytes()).digest())  # the grid, not its bytes
    values = _VALUES.get(key, lambda: np.broadcast_to(
        np.asarray(at22_S(unique[:, 0], unique[:, 1], unique[:, 2]), dtype=float), (unique.shape[0],)))
    return values[inverse.ravel()].reshape(alpha.shape)


#: values of the operators that build no PLD, by their arguments (small arrays that never grow: measured once):
#: S_alpha by grid of distinct points, and the RDP accountant operators (:func:`_remembered`): a soundness
#: search asks the same grid again (altschuler2022/b.3/first-order/both-directions: 36 of 36 evaluations of
#: SampledGaussianRDPMax repeat points already asked, 2.2 s of the quick check's 3.9 s in it)
_VALUES = BoundedCache(32 * 2**20, remeasure=False)


def _power_step_sum_scalar(p: float, a: float, b: float) -> float:
    """sum_{t=a}^{b} t^(-p) for integers 1 <= a (0 when b < a): the sum of the polynomially decaying step
    sizes eta_t = eta t^(-p) of Altschuler–Talwar 2022, eq. (5.7) and Example 5.8 (in units of eta)."""
    if not (a >= 1 and float(a).is_integer() and float(b).is_integer()):
        raise InputError(f"PowerStepSum: a must be a positive integer and b an integer, got a={a}, b={b}", "a")
    if b < a:
        return 0.0
    if b - a < 200_000:
        t = np.arange(a, b + 1, dtype=float)
        return float(np.sum(np.exp(-p * np.log(t))))
    with mpmath.workdps(40):  # Hurwitz-zeta difference; digamma at the pole p = 1
        if p == 1.0:
            return float(mpmath.digamma(b + 1) - mpmath.digamma(a))
        return float(mpmath.zeta(p, a) - mpmath.zeta(p, b + 1))


AT22S = numeric_operator(
    "AT22S", _at22_S, ("alpha", "q", "s"),
    "S_alpha(q, s) = D_alpha(N(0,s^2) || (1-q)N(0,s^2) + qN(1,s^2)) (Altschuler–Talwar 2022, Def. 2.10)")
PowerStepSum = numeric_operator(
    "PowerStepSum", vectorize(_power_step_sum_scalar), ("p", "a", "b"),
    "sum_{t=a}^{b} t^(-p): total step size of eta_t = eta t^(-p) (Altschuler–Talwar 2022, (5.7), Ex. 5.8)")


# --- f-DP operators (Bok et al., Bu et al.) ---
#
# Thin adapters from sympy bounds to the privacy calculus of verify.privacy.  No formula is re-derived here
# except the two RDP -> (eps, delta) conversions that only Bok et al. Appendix A.1 uses ([BS16] and
# [ALC+21]); the others are taken from verify.privacy.rdp.

#: Rényi orders of TensorFlow Privacy's moments accountant, as used by Bu et al. (App. B.3, footnote 13;
#: docs/papers/bu2020.md): 1 + x/10 for x = 1..99, then 12..63.
TF_PRIVACY_ORDERS: np.ndarray = np.concatenate([1.0 + np.arange(1, 100) / 10.0, np.arange(12, 64, dtype=float)])

#: order grid of the baseline subsampled-Gaussian accountants (fractional orders cost a quadrature each)
DENSE_ORDERS: np.ndarray = np.concatenate([1.0 + np.arange(1, 100) / 20.0, np.arange(6, 257, dtype=float),
                                           [320.0, 512.0, 1024.0]])

#: fine order grid for RDP curves that are closed forms (rho * alpha)
LINEAR_ORDERS: np.ndarray = 1.0 + np.geomspace(1e-4, 1e6, 4000)


def _broadcast(*args) -> list[np.ndarray]:
    return np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args])


def _gdp_delta(mu, eps) -> np.ndarray:
    """delta(eps) of mu-GDP (Bu et al. 2020 eq. (3.2); Bok et al. 2024 Lemma A.3)."""
    mu, eps = _broadcast(mu, eps)
    return np.asarray(gdp_delta(mu, eps), dtype=float)


def _gdp_eps(mu, delta) -> np.ndarray:
    """eps(delta) of mu-GDP, the inverse of eq. (3.2) in eps (Bu et al. 2020, footnotes 9-10)."""
    mu, delta = _broadcast(mu, delta)
    return np.asarray(gdp_eps(mu, delta), dtype=float)


#: the discretisation interval of the PLDs the composition operators build (None: the default of
#: :mod:`verify.privacy.pld`); :func:`pld_interval` sets it for a refinement
_INTERVAL: list[float | None] = [None]


@contextlib.contextmanager
def pld_interval(h: float) -> Iterator[None]:
    """Inside, the composition operators (``refinable``) build their PLDs at the interval ``h``."""
    previous, _INTERVAL[0] = _INTERVAL[0], float(h)
    try:
        yield
    finally:
        _INTERVAL[0] = previous


def _composition(p: float, mu: float, steps: int, adjacency: str):
    """C_p(G_mu)^{⊗steps} (symmetric) or the Poisson add/remove composition, at the interval :func:`pld_interval`
    set (else the default).

    Kept in the one byte-bounded cache of :mod:`verify.privacy.pld` (no cache here: a count-bounded cache
    of composed PLDs, 1-1.6 GB each at some corners, would defeat its byte budget).
    """
    from verify.privacy.pld import DEFAULT_INTERVAL, Composition  # on first use: dp_accounting loads scipy.stats

    return Composition.subsampled_gaussian(p, mu, steps, sampling="poisson", adjacency=adjacency,
                                           value_discretization_interval=_INTERVAL[0] or DEFAULT_INTERVAL)


def _remembered(name: str, numeric: Callable[..., np.ndarray],
                cache: BoundedCache | None = None) -> Callable[..., np.ndarray]:
    """``numeric`` with its results kept by the values of its arguments, in ``cache`` or by default in the
    byte-bounded cache of built PLDs (:data:`verify.privacy.pld.CACHE`: cleared with it, evicted with it).

    The soundness search evaluates the same bound at the same point several times (bok2024/thm4.10's unit:
    33 evaluations, 9 distinct), and each evaluation reads composed PLDs that may have been evicted since:
    a repeat then costs neither the composition nor the pass over its losses.  A deterministic function of
    its arguments, so the values are the same; an error is raised again (nothing is kept for it).
    """

    def wrapped(*args):
        if cache is None:
            from verify.privacy.pld import CACHE as kept  # see _composition
        else:
            kept = cache
        arrays = _broadcast(*args)
        digest = hashlib.sha256(b"".join(a.tobytes() for a in arrays)).digest()
        key = ("operator", name, _INTERVAL[0], len(arrays), arrays[0].shape, digest)
        return kept.get(key, lambda: np.asarray(numeric(*arrays), dtype=float).copy()).copy()

    wrapped.__doc__ = numeric.__doc__
    wrapped.__name__ = getattr(numeric, "__name__", name)
    return wrapped


def _steps(value: float, name: str) -> int:
    if not (value >= 1 and float(value).is_integer()):
        raise InputError(f"{name} must be a positive integer, got {value}", name)
    return int(value)


def _by_composition(p, mu, steps, *xs, evaluate: Callable[..., np.ndarray], steps_name: str = "T") -> np.ndarray:
    """``evaluate(p, mu, T, *x_rows)`` once per distinct ``(p, mu, T)``, over all the points that need it.

    One composed PLD serves every notion parameter (eps or delta, and a last step's mu) of a grid in one
    vectorised query, instead of one query per point; the arguments broadcast and the result has their
    shape.
    """
    p, mu, steps, *xs = _broadcast(p, mu, steps, *xs)
    shape = p.shape
    p, mu, steps, *xs = (a.ravel() for a in (p, mu, steps, *xs))
    out = np.empty(p.shape)
    if p.size:
        unique, inverse = np.unique(np.stack([p, mu, steps], axis=1), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        for g, (pg, mug, kg) in enumerate(unique):
            rows = np.flatnonzero(inverse == g)
            out[rows] = evaluate(float(pg), float(mug), _steps(kg, steps_name), *(x[rows] for x in xs))
    return out.reshape(shape)


def _delta_or_limit(adjacency: str):
    """delta(eps) of the T-fold composition, or its mu -> infinity limit where it equals it to float precision
    (noise so small that no PLD grid can hold the loss: ``subsampled_delta_limit``), for an array of eps.
    At ``p = 1`` every adjacency is ``G_mu`` per step, and the composition is ``G_{mu sqrt T}`` in closed form."""

    def evaluate(p: float, mu: float, T: int, eps: np.ndarray) -> np.ndarray:
        from verify.privacy.pld import subsampled_delta_limit  # see _composition

        if p == 1.0:
            return np.asarray(gdp_delta(_composed_gaussian_mu(mu, T), eps), dtype=float)
        limits = [subsampled_delta_limit(p, mu, T, float(e)) for e in eps]
        out = np.array([np.nan if v is None else v for v in limits], dtype=float)
        rest = np.isnan(out)
        if rest.any():
            out[rest] = np.asarray(_composition(p, mu, T, adjacency).delta(eps[rest]), dtype=float)
        return out

    return evaluate


def _composed_gaussian_mu(mu: float, steps: int, mu_last: float | np.ndarray = 0.0) -> float | np.ndarray:
    """mu of ``G_mu^{⊗steps} ⊗ G_{mu_last}``: ``sqrt(steps mu^2 + mu_last^2)`` (DRS22 Cor. 2), the exact
    composition at sampling rate ``p = 1`` (``C_1(G_mu) = G_mu``, and without subsampling both orderings
    of add/remove and replace-one are ``G_mu``).  No PLD is built: the closed form is exact, where the
    pessimistic PLD would only bound it (and needs a grid of ``mu sqrt(steps) / h`` points)."""
    return np.hypot(mu * np.sqrt(float(steps)), mu_last)


def _symm_subsampled_delta(p, mu, steps, eps) -> np.ndarray:
    """delta(eps) of C_p(G_mu)^{⊗T} (Bok et al. 2024, Theorem 4.8; exact PLD composition)."""
    return _by_composition(p, mu, steps, eps, evaluate=_delta_or_limit("symmetric"))


def _symm_subsampled_shift_delta(p, mu, steps, mu_last, eps) -> np.ndarray:
    """delta(eps) of C_p(G_mu)^{⊗k} ⊗ G(mu_last) (Bok et al. 2024, Theorems 4.9 and 4.10).

    The last Gaussian step is composed analytically (``Composition.delta_with_gaussian``: one vectorised
    pass over the PLD's losses, no grid for ``G(mu_last)``, however small its noise); each composed PLD
    ``(p, mu, k)`` is built once for all the ``(mu_last, eps)`` that need it.
    """
    p, mu, steps, mu_last, eps = _broadcast(p, mu, steps, mu_last, eps)
    out = np.ones(p.shape)
    # composing never lowers delta: when G(mu_last) alone gives delta = 1 to float precision, so does the whole
    trivial = (mu_last > 0) & (np.asarray(gdp_delta(mu_last, eps), dtype=float) >= 1.0 - 1e-16)
    rest = ~trivial
    if rest.any():
        out[rest] = _by_composition(p[rest], mu[rest], steps[rest], mu_last[rest], eps[rest], steps_name="T - tau",
                                    evaluate=_delta_with_gaussian)
    return out


def _delta_with_gaussian(p: float, mu: float, k: int, mu_last: np.ndarray, eps: np.ndarray) -> np.ndarray:
    if p == 1.0:  # G_mu^{⊗k} ⊗ G(mu_last) is a Gaussian mechanism
        return np.asarray(gdp_delta(_composed_gaussian_mu(mu, k, mu_last), eps), dtype=float)
    return _composition(p, mu, k, "symmetric").delta_with_gaussian(mu_last, eps)


def _poisson_subsampled_delta(p, mu, steps, eps) -> np.ndarray:
    """delta(eps) of min{f, f^-1}** with f = (p G_mu + (1-p) Id)^{⊗T} (Bu et al. 2020, Theorem 3)."""
    return _by_composition(p, mu, steps, eps, evaluate=_delta_or_limit("add_remove"))


def _poisson_eps(p: float, mu: float, T: int, delta: np.ndarray) -> np.ndarray:
    # delta(0) <= 1 - (1-p)^T for every mu (subsampled_delta_limit): such a delta is met at eps = 0
    if p == 1.0:  # G_mu^{⊗T} = G_{mu sqrt T}
        return np.asarray(gdp_eps(_composed_gaussian_mu(mu, T), delta), dtype=float)
    out = np.zeros(delta.shape)
    met = delta >= -np.expm1(T * np.log1p(-p)) if 0.0 < p < 1.0 else np.zeros(delta.shape, dtype=bool)
    rest = ~met
    if rest.any():
        out[rest] = np.asarray(_composition(p, mu, T, "add_remove").eps(delta[rest]), dtype=float)
    return out


def _poisson_subsampled_eps(p, mu, steps, delta) -> np.ndarray:
    """eps(delta) of Bu et al. 2020, Theorem 3 (both directions, exact PLD composition)."""
    return _by_composition(p, mu, steps, delta, evaluate=_poisson_eps)


def _clt_mu_symmetric(p, mu, steps) -> np.ndarray:
    """CLT mu of C_p(G_mu)^{⊗T} (Bok et al. 2024, Lemma A.5; Dong et al. Cor. 4)."""
    p, mu, steps = _broadcast(p, mu, steps)
    return np.asarray(clt_mu_symmetric(p, mu, steps), dtype=float)


def _clt_mu_uniform(q, steps, z) -> np.ndarray:
    """CLT mu of NoisySGD with uniform sampling (Dong et al. §5, as cited by Bu et al. 2020 §3.1)."""
    q, steps, z = _broadcast(q, steps, z)
    return np.asarray(clt_mu_uniform(q, steps, z), dtype=float)


def _sampled_gaussian_rdp(q, z, alpha, steps) -> np.ndarray:
    """T * max of both Rényi divergences of the Poisson-subsampled Gaussian (Bu et al. 2020, App. B.3)."""
    q, z, alpha, steps = _broadcast(q, z, alpha, steps)
    return np.asarray(sampled_gaussian_rdp(q, z, alpha, steps=steps, direction="max"), dtype=float)


def accountant_eps(q: float, z: float, steps: float, delta: float, orders: np.ndarray, method: str) -> float:
    """eps(delta) of an RDP accountant of ``steps`` Poisson-subsampled Gaussian steps over the Rényi ``orders``,
    converted by the ``method`` ("classical" or "improved")."""
    # the "remove" direction dominates (Mironov-Talwar-Zhang 2019; docs/papers/bu2020.md), so it is the max
    curve = np.asarray(sampled_gaussian_rdp(q, z, orders, steps=steps, direction="remove"), dtype=float)
    convert = rdp_to_dp_classical if method == "classical" else rdp_to_dp_improved
    return float(convert(orders, curve, delta))


def _moments_accountant_eps(q: float, z: float, steps: float, delta: float) -> float:
    """eps(delta) of the moments accountant as Bu et al. 2020 used it (App. B.3): classical conversion
    over TensorFlow Privacy's order grid."""
    return accountant_eps(q, z, steps, delta, TF_PRIVACY_ORDERS, "classical")


def _rdp_accountant_eps_classical(q: float, z: float, steps: float, delta: float) -> float:
    """eps(delta) of T-fold Poisson-subsampled Gaussian RDP, classical conversion (Mironov 2017, Prop. 3)."""
    return accountant_eps(q, z, steps, delta, DENSE_ORDERS, "classical")


def _rdp_accountant_eps_improved(q: float, z: float, steps: float, delta: float) -> float:
    """eps(delta) of T-fold Poisson-subsampled Gaussian RDP, improved conversion (Balle et al. 2020, Thm 21)."""
    return accountant_eps(q, z, steps, delta, DENSE_ORDERS, "improved")


def _linear_rdp_eps_improved(rho: float, delta: float) -> float:
    """eps(delta) of (alpha, rho*alpha)-RDP for all alpha > 1, improved conversion (Balle et al. 2020)."""
    return float(rdp_to_dp_improved(LINEAR_ORDERS, rho * LINEAR_ORDERS, delta))


def _bok_linear_rdp_eps(rho: float, delta: float) -> float:
    """eps(delta) reported by Bok et al. 2024, Appendix A.1, for (alpha, rho*alpha)-RDP for all alpha > 1:
    the minimum of [BS16, L. 3.5], [Mir17, Prop. 3], [BBG+20, Thm 20] and [ALC+21, L. 1]."""
    orders = LINEAR_ORDERS
    bs16 = rho + np.sqrt(4.0 * rho * np.log(1.0 / delta))
    mir17 = float(rdp_to_dp_classical(orders, rho * orders, delta))
    bbg20 = float(rdp_to_dp_improved(orders, rho * orders, delta))
    # [ALC+21, Lemma 1]: log((exp(rho (a-1) a) - 1)/(a delta) + 1)/(a-1), in log space
    a = orders
    log_num = rho * (a - 1) * a + np.log(-np.expm1(-rho * (a - 1) * a)) - np.log(a) - np.log(delta)
    alc21 = float(np.min(np.logaddexp(log_num, 0.0) / (a - 1)))
    return float(min(bs16, mir17, bbg20, alc21))


def _switch_at(x, threshold, below, above) -> np.ndarray:
    """``below`` where ``x < threshold``, else ``above``: a bound that changes formula at a printed threshold
    (Bok et al. 2024, Tables 10-12: min(Thm 4.4, Thm 4.6) switched at the printed E*)."""
    x, threshold, below, above = _broadcast(x, threshold, below, above)
    return np.where(x < threshold, below, above)


SwitchAt = numeric_operator(
    "SwitchAt", _switch_at, ("x", "threshold", "below", "above"),
    "below if x < threshold else above (a piecewise bound whose switch point is itself checked for scaling)")
GDPDelta = numeric_operator(
    "GDPDelta", _gdp_delta, ("mu", "eps"), "delta(eps) of mu-GDP (Bu et al. eq. (3.2), Bok et al. Lemma A.3)")
GDPEps = numeric_operator(
    "GDPEps", _gdp_eps, ("mu", "delta"), "eps(delta) of mu-GDP (inverse of Bu et al. eq. (3.2))")
SymmSubsampledGaussianDelta = numeric_operator(
    "SymmSubsampledGaussianDelta", _remembered("SymmSubsampledGaussianDelta", _symm_subsampled_delta),
    ("p", "mu", "T", "eps"),
    "delta(eps) of C_p(G_mu)^{⊗T} (Bok et al. Thm 4.8), exact PLD composition")
SymmSubsampledGaussianShiftDelta = numeric_operator(
    "SymmSubsampledGaussianShiftDelta", _remembered("SymmSubsampledGaussianShiftDelta", _symm_subsampled_shift_delta),
    ("p", "mu", "k", "mu2", "eps"),
    "delta(eps) of C_p(G_mu)^{⊗k} ⊗ G(mu2) (Bok et al. Thms 4.9, 4.10), exact PLD composition")
PoissonSubsampledGaussianDelta = numeric_operator(
    "PoissonSubsampledGaussianDelta", _remembered("PoissonSubsampledGaussianDelta", _poisson_subsampled_delta),
    ("p", "mu", "T", "eps"),
    "delta(eps) of min{f,f^-1}**, f = (p G_mu + (1-p) Id)^{⊗T} (Bu et al. Thm 3), exact PLD composition")
PoissonSubsampledGaussianEps = numeric_operator(
    "PoissonSubsampledGaussianEps", _remembered("PoissonSubsampledGaussianEps", _poisson_subsampled_eps),
    ("p", "mu", "T", "delta"),
    "eps(delta) of Bu et al. Thm 3, exact PLD composition")
for _operator in (SymmSubsampledGaussianDelta, SymmSubsampledGaussianShiftDelta, PoissonSubsampledGaussianDelta,
                  PoissonSubsampledGaussianEps):
    _operator.refinable = True
CLTMuSymmetric = numeric_operator(
    "CLTMuSymmetric", _clt_mu_symmetric, ("p", "mu", "T"),
    "CLT mu of C_p(G_mu)^{⊗T} (Bok et al. Lemma A.5)")
CLTMuUniform = numeric_operator(
    "CLTMuUniform", _clt_mu_uniform, ("q", "T", "z"),
    "CLT mu of uniformly subsampled NoisySGD (Dong et al. §5; Bu et al. §3.1)")
SampledGaussianRDPMax = numeric_operator(
    "SampledGaussianRDPMax", _remembered("SampledGaussianRDPMax", _sampled_gaussian_rdp, _VALUES),
    ("q", "z", "alpha", "T"),
    "T times the larger Rényi divergence of the Poisson-subsampled Gaussian (moments accountant)")
MomentsAccountantEps = numeric_operator(
    "MomentsAccountantEps", vectorize(_moments_accountant_eps), ("q", "z", "T", "delta"),
    "moments accountant eps(delta) as in Bu et al. App. B.3 (classical conversion, TF-Privacy orders)")
RDPAccountantEpsClassical = numeric_operator(
    "RDPAccountantEpsClassical",
    _remembered("RDPAccountantEpsClassical", vectorize(_rdp_accountant_eps_classical), _VALUES),
    ("q", "z", "T", "delta"),
    "subsampled-Gaussian RDP composition -> eps(delta), classical conversion, dense order grid")
RDPAccountantEpsImproved = numeric_operator(
    "RDPAccountantEpsImproved",
    _remembered("RDPAccountantEpsImproved", vectorize(_rdp_accountant_eps_improved), _VALUES),
    ("q", "z", "T", "delta"),
    "subsampled-Gaussian RDP composition -> eps(delta), improved conversion, dense order grid")
LinearRDPEpsImproved = numeric_operator(
    "LinearRDPEpsImproved", vectorize(_linear_rdp_eps_improved), ("rho", "delta"),
    "(alpha, rho*alpha)-RDP -> eps(delta), improved conversion (Balle et al. 2020)")
BokLinearRDPEps = numeric_operator(
    "BokLinearRDPEps", vectorize(_bok_linear_rdp_eps), ("rho", "delta"),
    "(alpha, rho*alpha)-RDP -> eps(delta), best of the four conversions of Bok et al. App. A.1")
