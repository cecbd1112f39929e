"""The canonical symbol vocabulary (docs/conventions.md) and the relations between its parameters.

Every theorem, instance and run speaks these names.  The relations that tie them together
(``q = b/n``, ``l = n/b``, ``T = l*E``, ``sigma = z*Cclip/b``, ``Delta <= 2L`` under replace adjacency,
``m <= M``, the steps of a number of epochs) are written here once (:func:`derive`,
:func:`sensitivity_of_lipschitz`, :func:`batch_count`, :func:`epoch_steps`, :func:`check_curvatures`) and
nowhere else.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal, Mapping

import numpy as np
import sympy as sp

from verify.errors import InputError


@dataclass(frozen=True)
class Variable:
    """One symbol of the canonical vocabulary.

    ``scale`` is the power of ``c`` the symbol picks up under the re-parametrisation theta' = c*theta
    (docs/conventions.md): L -> L/c has scale -1, eta -> c^2 eta has scale 2.
    """

    name: str
    meaning: str
    scale: int = 0
    domain: Literal["positive", "nonnegative", "real", "integer", "unit"] = "positive"

    @functools.cached_property
    def symbol(self) -> sp.Symbol:
        if self.domain == "integer":
            return sp.Symbol(self.name, integer=True, positive=True)
        if self.domain == "nonnegative":
            return sp.Symbol(self.name, nonnegative=True)
        if self.domain == "real":
            return sp.Symbol(self.name, real=True)
        return sp.Symbol(self.name, positive=True)


VOCABULARY: dict[str, Variable] = {
    v.name: v
    for v in [
        Variable("n", "dataset size", domain="integer"),
        Variable("b", "batch size", domain="integer"),
        Variable("q", "sampling probability b/n (Poisson) or batch fraction", domain="unit"),
        Variable("l", "batches per epoch (cyclic: l = n/b)", domain="integer"),
        Variable("T", "number of steps", domain="integer"),
        Variable("E", "number of epochs (cyclic: T = l*E)", domain="integer"),
        Variable("tpos", "the batch holding the differing record (cyclic batches, 1 to l; with b = 1, the record's "
                         "index in the pass)", domain="integer"),
        Variable("eta", "step size", scale=2),
        Variable("sigma", "std of the Gaussian noise added to the averaged gradient", scale=-1),
        Variable("Delta", "gradient sensitivity (sup norm of the difference of per-record gradients)", scale=-1),
        Variable("L", "Lipschitz constant of each loss", scale=-1),
        Variable("m", "strong-convexity constant", scale=-2, domain="nonnegative"),
        Variable("rho", "weak-convexity constant: each loss plus rho/2 |theta|^2 is convex (non-convex losses)",
                 scale=-2, domain="nonnegative"),
        Variable("M", "smoothness constant", scale=-2),
        Variable("D", "diameter of the constraint set", scale=1),
        Variable("d", "dimension", domain="integer"),
        Variable("alpha", "Rényi order (> 1)"),
        Variable("eps", "epsilon of (eps, delta)-DP", domain="real"),
        Variable("delta", "delta of (eps, delta)-DP", domain="unit"),
        Variable("mu", "Gaussian-DP parameter", domain="nonnegative"),
        Variable("z", "DP-SGD noise multiplier (sigma = z*Cclip/b)"),
        Variable("Cclip", "DP-SGD clipping norm", scale=-1),
        # free parameters that bounds optimise over (see FreeParameter)
        Variable("tau", "free split point of a shifted-interpolation / PABI argument", domain="nonnegative"),
        Variable("nu", "free window length", domain="integer"),
        Variable("gamma", "free interpolation or noise-split parameter in (0, 1)", domain="unit"),
        # quantities particular to some results
        Variable("clsi", "log-Sobolev constant of the tracing diffusions (1/variance, so it scales like m)",
                 scale=-2),
        Variable("eps_rdp", "RDP epsilon at order alpha (a budget to calibrate for, or a conversion input)"),
        Variable("p_decay", "exponent of decaying step sizes eta_t = eta * t^(-p_decay)", domain="nonnegative"),
    ]
}

#: the sympy symbols, by name (``SYMBOLS["eta"]``); also importable as ``verify.theorem.sym``
SYMBOLS: dict[str, sp.Symbol] = {name: v.symbol for name, v in VOCABULARY.items()}


class _Symbols:
    """Attribute access to the vocabulary: ``sym.eta``."""

    def __getattr__(self, name: str) -> sp.Symbol:
        try:
            return SYMBOLS[name]
        except KeyError:
            raise AttributeError(f"{name!r} is not in the canonical vocabulary") from None

    def __dir__(self) -> list[str]:
        return sorted(SYMBOLS)

    def __repr__(self) -> str:
        return f"sym: the vocabulary's symbols ({', '.join(SYMBOLS)})"


sym = _Symbols()


def add_variable(variable: Variable) -> sp.Symbol:
    """Extend the vocabulary (for a user's quantity with no canonical name yet); returns its symbol.  The same
    declaration twice is one variable (a user file read again); a different one under a taken name is refused.
    The papers' own quantities are declared in :data:`VOCABULARY`, so importing them changes nothing."""
    existing = VOCABULARY.get(variable.name)
    if existing is not None:
        if existing != variable:
            raise InputError(f"variable {variable.name!r} is already defined differently: {existing}", "name",
                             "add_variable")
        return existing.symbol
    VOCABULARY[variable.name] = variable
    SYMBOLS[variable.name] = variable.symbol
    return variable.symbol


def contraction(eta: sp.Expr | None = None, m: sp.Expr | None = None, M: sp.Expr | None = None) -> sp.Expr:
    """Contraction factor of a gradient step, ``c = max(|1 - eta m|, |1 - eta M|)`` (Bok et al. Lemma 2.8)."""
    eta = sym.eta if eta is None else eta
    m = sym.m if m is None else m
    M = sym.M if M is None else M
    return sp.Max(sp.Abs(1 - eta * m), sp.Abs(1 - eta * M))


def check_domain(name: str, value: np.ndarray, where: str = "") -> None:
    """Raise ``InputError`` when ``value`` (any shape) has a NaN or lies outside the domain of vocabulary
    variable ``name``.  One min/max pass decides the common, valid case; the message is built only
    for a failure."""
    var = VOCABULARY.get(name)
    if var is None or _in_domain(var, value):
        return
    if np.isnan(value).any():
        raise InputError(f"parameter {name} is NaN", name, where)
    if var.domain == "real" or (np.any(np.isinf(value)) and name not in _MAY_BE_INFINITE):
        raise InputError(f"parameter {name} must be finite", name, where)
    if var.domain == "positive":
        raise InputError(f"parameter {name} must be > 0 ({var.meaning})", name, where)
    if var.domain == "nonnegative":
        raise InputError(f"parameter {name} must be >= 0 ({var.meaning})", name, where)
    if var.domain == "integer":
        raise InputError(f"parameter {name} must be a positive integer ({var.meaning})", name, where)
    raise InputError(f"parameter {name} must lie in (0, 1] ({var.meaning})", name, where)


#: parameters whose value may be +inf (the limit of infinitely many steps or orders)
_MAY_BE_INFINITE = frozenset({"T", "E", "alpha"})


def _in_domain(var: Variable, value: np.ndarray) -> bool:
    if value.size == 0:
        return True
    if value.ndim == 0:  # one number (every point of a rejection sampler): no reduction machinery
        lo = hi = float(value)
    else:
        lo, hi = float(value.min()), float(value.max())  # NaN propagates and fails every test below
    top = math.inf if var.name in _MAY_BE_INFINITE else math.nextafter(math.inf, 0)
    if var.domain == "real":
        return -math.inf < lo and hi < math.inf
    if var.domain == "positive":
        return lo > 0 and hi <= top
    if var.domain == "nonnegative":
        return lo >= 0 and hi <= top
    if var.domain == "unit":
        return lo > 0 and hi <= 1
    if not (lo >= 1 and hi <= top):  # integer
        return False
    if value.ndim == 0:
        return hi == math.inf or lo.is_integer()
    finite = value if hi < math.inf else value[np.isfinite(value)]
    return bool(np.all(finite == np.round(finite)))


# ---------------------------------------------------------------------------------------------------
# relations between parameters
# ---------------------------------------------------------------------------------------------------


def sensitivity_of_lipschitz(L, adjacency: str):
    """The gradient sensitivity Delta an L-Lipschitz loss guarantees: ``2L`` when one record is
    replaced (two gradients of norm <= L, in opposite directions at worst), ``L`` when one is added or
    removed (docs/conventions.md)."""
    if adjacency == "replace":
        return 2 * L
    if adjacency == "add_remove":
        return L
    raise InputError(f"adjacency must be 'replace' or 'add_remove', got {adjacency!r}", "adjacency")


def noise_multiplier(sigma, b, Cclip):
    """DP-SGD's noise multiplier ``z = b*sigma/Cclip`` (noise std ``z*Cclip`` on the summed gradient)."""
    return b * sigma / Cclip


def batch_count(n: int, b: int, batches: str | None) -> int:
    """``l``, the batches one pass over the data holds: ``n // b`` for cyclic batches (the caller has checked
    that ``b`` divides ``n``), 1 otherwise (full batches are one batch; sampled batches are drawn afresh at
    every step, so a record has no fixed position)."""
    return n // b if batches == "cyclic" else 1


def epoch_steps(epochs: float, per_epoch: float) -> int:
    """The steps of ``epochs`` passes at ``per_epoch`` steps each, rounded up — rounding up never
    under-counts the privacy cost — with a relative slack of 1e-9 for a product that floating point puts just
    above a whole number (3 epochs of 1/0.1 steps are 30 steps, not 31)."""
    steps = epochs * per_epoch
    return max(1, math.ceil(steps - 1e-9 * max(1.0, steps)))


def check_curvatures(m: float, M: float, where: str = "", error: type[InputError] = InputError) -> None:
    """Refuse a smoothness constant below the strong convexity (as ``error``, an :class:`InputError`): an
    m-strongly convex loss has curvature at least ``m`` everywhere, so it is M-smooth only for ``M >= m``."""
    if M < m:
        raise error(f"need M >= m (an m-strongly convex loss is M-smooth only for M >= m), got M={M:g} < "
                         f"m={m:g}", "M", where)


def derive(params: Mapping[str, float], batches: str | None = None) -> dict[str, float]:
    """``params`` completed by the relations of docs/conventions.md wherever they determine a missing value.

    ``q = b/n``; for cyclic batches ``l = n/b`` and ``T = l*E`` (``E = T/l`` when ``l`` divides
    ``T``); ``sigma = z*Cclip/b`` and ``z = b*sigma/Cclip``.  Values already given are kept (a
    contradiction is the caller's to report: :func:`contradictions`).
    """
    out = dict(params)
    n, b = out.get("n"), out.get("b")
    if n is not None and b is not None:
        out.setdefault("q", b / n)
        if batches in ("cyclic", "full"):
            out.setdefault("l", batch_count(n, b, batches))
    l = out.get("l")
    if l is not None:
        if "E" in out:
            out.setdefault("T", l * out["E"])
        elif "T" in out and out["T"] % l == 0:
            out["E"] = out["T"] // l
    if b is not None and "Cclip" in out:
        if "z" in out:
            out.setdefault("sigma", out["z"] * out["Cclip"] / b)
        elif "sigma" in out:
            out["z"] = noise_multiplier(out["sigma"], b, out["Cclip"])
    return out


def contradictions(params: Mapping[str, float], batches: str | None = None, rtol: float = 1e-9) -> list[str]:
    """The relations of :func:`derive` that ``params`` break, each as a sentence ("" when none)."""
    problems = []
    full = derive({k: v for k, v in params.items() if k not in ("q", "l", "T", "sigma", "z")}, batches)
    for name in ("q", "l", "T", "sigma", "z"):
        if name in params and name in full and not math.isclose(float(params[name]), float(full[name]),
                                                                  rel_tol=rtol):
            problems.append(f"{name} = {params[name]} contradicts the other parameters ({name} = {full[name]})")
    return problems


__all__ = ["SYMBOLS", "VOCABULARY", "Variable", "add_variable", "batch_count", "check_curvatures", "check_domain",
           "contraction", "contradictions", "derive", "epoch_steps", "noise_multiplier", "sensitivity_of_lipschitz",
           "sym"]
