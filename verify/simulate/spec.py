"""What to simulate: a loss, the datasets D and D', batches, steps, noise, constraint (docs/conventions.md).

The canonical iteration, run independently on D and on its neighbour D'::

    theta_{k+1} = Proj_C(theta_k - eta_k * ((1/b) * sum_{i in B_k} grad l(theta_k; x_i) + sigma * Z_k))

* D' replaces record ``index`` by ``(x_other, y_other)`` (replace-one), or, when ``x_other`` is
  ``None``, lacks record ``index`` (add/remove).  The denominator stays ``b`` in both cases
  (Poisson convention of docs/conventions.md; for ``full`` batches b = n of D).
* Losses are per-record: :class:`Quadratic` ``½θᵀHθ - ⟨x, θ⟩`` (H diagonal), :class:`Linear`
  ``⟨x, θ⟩``, :class:`Logistic` ``log(1 + exp(-y⟨x, θ⟩))``, :class:`Huber` ``h_κ(⟨x, θ⟩ - y)``.
  Each computes the batch sum of gradients for R runs at once through the array-API namespace ``xp``.
* Constraints: :class:`Ball`, :class:`Box`, :class:`Interval` (a 1-D box); ``None`` = unconstrained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from verify.errors import InputError
from verify.vocabulary import derive
BATCHES: tuple[str, ...] = ("full", "cyclic", "poisson", "uniform", "shuffle")


def _finite(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numeric, got {value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} must be finite")
    return arr


# ---------------------------------------------------------------------------------------------------
# losses: batch sums of per-record gradients
# ---------------------------------------------------------------------------------------------------
# ``theta`` is (R, d); ``X`` (n, d); ``y`` (n,) or None; ``mask`` (R, n) or (n,) with entries in {0, 1}.
# Every method returns the (R, d) array sum_i mask_i * grad l(theta; x_i).


@dataclass(frozen=True)
class Quadratic:
    """``l(θ; x) = ½ θᵀ H θ - ⟨x, θ⟩`` with ``H = diag(curvature)``: gradient ``Hθ - x`` (m = min H, M = max H).

    The record ``x`` is the linear tilt, as in the Gaussian chains of ``verify.instances.chain``
    (``½(θ - c)ᵀH(θ - c)`` is the record ``x = Hc``); ``curvature = 0`` is a linear loss ``-⟨x, θ⟩``.
    """

    curvature: Any = 1.0
    name: str = "quadratic"

    def __post_init__(self) -> None:
        c = _finite("curvature", self.curvature)
        if c.ndim > 1 or np.any(c < 0):
            raise InputError("curvature must be a number or a vector, >= 0")
        object.__setattr__(self, "curvature", c)

    def grad_sum(self, xp, theta, X, y, mask, h):
        count = xp.sum(mask, axis=-1)
        if count.ndim:
            count = count[:, None]
        return h * (count * theta) - mask @ X

    def constants(self, X, y) -> dict[str, float]:
        c = np.broadcast_to(self.curvature, (X.shape[1],))
        return {"m": float(c.min()), "M": float(c.max())}


@dataclass(frozen=True)
class Linear:
    """``l(θ; x) = ⟨x, θ⟩``: gradient ``x`` whatever θ (L = max ‖x‖, m = M = 0)."""

    name: str = "linear"

    def grad_sum(self, xp, theta, X, y, mask, h):
        g = mask @ X
        return g if g.ndim == 2 else xp.zeros_like(theta) + g

    def constants(self, X, y) -> dict[str, float]:
        return {"L": float(np.linalg.norm(X, axis=1).max()), "m": 0.0, "M": 0.0}


@dataclass(frozen=True)
class Logistic:
    """Logistic regression ``l(θ; (x, y)) = log(1 + exp(-y ⟨x, θ⟩))``, labels ``y ∈ {-1, +1}``.

    Gradient ``-y σ(-y⟨x, θ⟩) x``: L = max ‖x‖, M = max ‖x‖² / 4, m = 0.
    """

    name: str = "logistic"

    def grad_sum(self, xp, theta, X, y, mask, h):
        margin = y * (theta @ X.T)  # (R, n)
        weight = -y * 0.5 * (1.0 - xp.tanh(0.5 * margin))  # -y * sigmoid(-margin), overflow-free
        return (weight * mask) @ X

    def constants(self, X, y) -> dict[str, float]:
        r = float(np.linalg.norm(X, axis=1).max())
        return {"L": r, "M": r * r / 4.0, "m": 0.0}


@dataclass(frozen=True)
class Huber:
    """Huber regression ``l(θ; (x, y)) = h_κ(⟨x, θ⟩ - y)``, ``h_κ(r) = r²/2`` for ``|r| ≤ κ``.

    Gradient ``clip(⟨x, θ⟩ - y, -κ, κ) x``: L = κ max ‖x‖, M = max ‖x‖², m = 0.
    """

    kappa: float = 1.0
    name: str = "huber"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.kappa) and self.kappa > 0):
            raise InputError(f"kappa must be finite and > 0, got {self.kappa!r}")

    def grad_sum(self, xp, theta, X, y, mask, h):
        residual = theta @ X.T - y
        return (xp.clip(residual, -self.kappa, self.kappa) * mask) @ X

    def constants(self, X, y) -> dict[str, float]:
        r = float(np.linalg.norm(X, axis=1).max())
        return {"L": self.kappa * r, "M": r * r, "m": 0.0}


LOSSES: dict[str, type] = {"quadratic": Quadratic, "linear": Linear, "logistic": Logistic, "huber": Huber}


# ---------------------------------------------------------------------------------------------------
# constraint sets
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ball:
    """Euclidean ball ``{θ : ‖θ - center‖ ≤ radius}`` (diameter D = 2 radius)."""

    radius: float
    center: Any = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.radius) and self.radius > 0):
            raise InputError(f"radius must be finite and > 0, got {self.radius!r}")
        object.__setattr__(self, "center", _finite("center", self.center))

    @property
    def diameter(self) -> float:
        return 2.0 * self.radius

    def project(self, xp, theta, center):
        offset = theta - center
        norm = xp.sqrt(xp.sum(offset * offset, axis=-1, keepdims=True))
        return center + offset * xp.clip(self.radius / xp.clip(norm, 1e-300, None), None, 1.0)


@dataclass(frozen=True)
class Box:
    """Axis-aligned box ``{θ : lo ≤ θ ≤ hi}`` (coordinatewise; D = ‖hi - lo‖)."""

    lo: Any
    hi: Any

    def __post_init__(self) -> None:
        lo, hi = _finite("lo", self.lo), _finite("hi", self.hi)
        if np.any(lo >= hi):
            raise InputError("box bounds must satisfy lo < hi")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(np.broadcast_to(self.hi - self.lo, np.broadcast(self.lo, self.hi).shape)))

    def project(self, xp, theta, bounds):
        lo, hi = bounds
        return xp.minimum(xp.maximum(theta, lo), hi)


def Interval(lo: float, hi: float) -> Box:  # noqa: N802 - reads as a set, like Ball and Box
    """The interval ``[lo, hi]`` (a 1-D :class:`Box`)."""
    return Box(np.array([lo], dtype=float), np.array([hi], dtype=float))


# ---------------------------------------------------------------------------------------------------
# the simulation record
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # holds arrays: identity comparison
class Simulation:
    """One neighbouring pair (D, D') and the algorithm run on it; see the module docstring.

    ``eta`` is a constant or a length-``steps`` schedule; ``theta0`` the initial point (``init_std > 0``
    adds ``N(0, init_std² I)``); ``batch_size`` is b (``None`` = n: full batch).  ``statistic`` is an
    optional map from the (R, d) last iterates to an (R,) statistic, larger meaning "more like D'";
    adapters set it to the exact log-likelihood ratio when one is known.  :meth:`constants` gives the
    canonical parameters of the instance (n, b, q, T, eta, sigma, L, Delta, m, M, D, d) for comparing
    with theorems; ``known_constants`` (an exact instance's ``params()``) override the derived ones.
    """

    loss: Any
    X: Any
    steps: int
    eta: Any
    sigma: float
    index: int = 0
    x_other: Any = None
    y: Any = None
    y_other: float | None = None
    batches: str = "full"
    batch_size: int | None = None
    constraint: Any = None
    theta0: Any = 0.0
    init_std: float = 0.0
    statistic: Callable | None = field(default=None, compare=False)
    name: str = "simulation"
    known_constants: Mapping[str, float] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        X = _finite("X", self.X)
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2 or X.shape[0] < 1:
            raise InputError("X must be an (n, d) array of records with n >= 1")
        n, d = X.shape
        object.__setattr__(self, "X", X)
        if not hasattr(self.loss, "grad_sum"):
            raise InputError(f"loss must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        needs_y = self.loss.name in ("logistic", "huber")
        if needs_y:
            y = _finite("y", self.y).reshape(-1)
            if y.shape != (n,):
                raise InputError(f"y must have one label per record ({n}), got shape {y.shape}")
            if self.loss.name == "logistic" and not np.all(np.abs(y) == 1):
                raise InputError("y must be in {-1, +1} for the logistic loss")
            object.__setattr__(self, "y", y)
        else:
            object.__setattr__(self, "y", None)
        if not (isinstance(self.index, (int, np.integer)) and 0 <= self.index < n):
            raise InputError(f"index must be an integer in [0, {n}), got {self.index!r}")
        if self.x_other is not None:
            xo = _finite("x_other", self.x_other).reshape(-1)
            if xo.shape != (d,):
                raise InputError(f"x_other must have dimension {d}, got shape {xo.shape}")
            object.__setattr__(self, "x_other", xo)
            if needs_y:
                if self.y_other is None:
                    raise InputError("y_other is required for a replaced record of a labelled loss")
                if self.loss.name == "logistic" and abs(self.y_other) != 1:
                    raise InputError("y_other must be -1 or +1 for the logistic loss")
        if not (isinstance(self.steps, (int, np.integer)) and self.steps >= 1):
            raise InputError(f"steps must be a positive integer, got {self.steps!r}")
        eta = _finite("eta", self.eta)
        if eta.ndim not in (0, 1) or (eta.ndim == 1 and eta.shape[0] != self.steps):
            raise InputError(f"eta must be a number or a schedule of length steps={self.steps}")
        if np.any(eta <= 0):
            raise InputError("eta must be > 0")
        object.__setattr__(self, "eta", eta)
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise InputError(f"sigma must be finite and > 0, got {self.sigma!r}")
        if self.batches not in BATCHES:
            raise InputError(f"batches must be one of {', '.join(BATCHES)}, got {self.batches!r}")
        b = n if self.batch_size is None else self.batch_size
        if not (isinstance(b, (int, np.integer)) and 1 <= b <= n):
            raise InputError(f"batch_size must be an integer in [1, n={n}], got {self.batch_size!r}")
        if self.batches == "full" and b != n:
            raise InputError(f"batch_size must equal n={n} for full batches")
        if self.batches in ("cyclic", "shuffle") and n % b:
            raise InputError(f"batch_size={b} must divide n={n} for {self.batches} batches")
        object.__setattr__(self, "batch_size", int(b))
        theta0 = _finite("theta0", self.theta0)
        if theta0.ndim > 1 or (theta0.ndim == 1 and theta0.shape[0] != d):
            raise InputError(f"theta0 must be a number or a vector of dimension {d}")
        object.__setattr__(self, "theta0", np.broadcast_to(theta0, (d,)).copy())
        if not (math.isfinite(self.init_std) and self.init_std >= 0):
            raise InputError(f"init_std must be finite and >= 0, got {self.init_std!r}")
        if self.constraint is not None and not hasattr(self.constraint, "project"):
            raise InputError(f"constraint must be a Ball, Box, Interval or None, got {self.constraint!r}")
        if isinstance(self.constraint, Box):
            shape = np.broadcast(self.constraint.lo, self.constraint.hi).shape
            if shape not in ((), (1,), (d,)) or (shape == (1,) and d != 1):
                raise InputError(f"box bounds must have dimension {d}")
        if isinstance(self.constraint, Ball) and self.constraint.center.ndim and \
                self.constraint.center.shape != (d,):
            raise InputError(f"ball center must have dimension {d}")

    # -- derived -------------------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def adjacency(self) -> str:
        return "add_remove" if self.x_other is None else "replace"

    def eta_schedule(self) -> np.ndarray:
        """The step sizes eta_0 .. eta_{T-1}."""
        return np.broadcast_to(self.eta, (self.steps,)).astype(float)

    def side(self, which: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """Records, labels and presence vector of D (``which=0``) or D' (``which=1``)."""
        X, y, present = self.X, self.y, np.ones(self.n)
        if which == 1:
            if self.x_other is None:
                present = present.copy()
                present[self.index] = 0.0
            else:
                X = X.copy()
                X[self.index] = self.x_other
                if y is not None:
                    y = y.copy()
                    y[self.index] = self.y_other
        return X, y, present

    def constants(self) -> dict[str, float]:
        """Canonical parameters of this instance (docs/conventions.md vocabulary), for evaluating theorems."""
        b = self.batch_size
        out: dict[str, float] = {"n": self.n, "b": b, "q": b / self.n, "T": self.steps, "d": self.d,
                                 "sigma": self.sigma}
        eta = self.eta_schedule()
        if np.all(eta == eta[0]):
            out["eta"] = float(eta[0])
        if self.batches == "cyclic":
            out = derive(out, "cyclic")
        X0, y0, _ = self.side(0)
        X1, y1, _ = self.side(1)
        both = np.vstack([X0, X1[self.index:self.index + 1]])
        labels = None if y0 is None else np.concatenate([y0, y1[self.index:self.index + 1]])
        out.update(self.loss.constants(both, labels))
        if self.loss.name == "quadratic" and self.adjacency == "replace":
            out["Delta"] = float(np.linalg.norm(X0[self.index] - X1[self.index]))
        if "L" in out:
            out["Delta"] = out["L"] if self.adjacency == "add_remove" else 2.0 * out["L"]
            if out["L"] > 0:  # DP-SGD reading: clipping at Cclip = L is the identity
                out["Cclip"] = out["L"]
                out["z"] = b * self.sigma / out["L"]
        if self.constraint is not None:
            out["D"] = float(self.constraint.diameter)
        out.update(self.known_constants)  # an instance's own declared constants take precedence
        return out
