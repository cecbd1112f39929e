"""The loss constants last-iterate theorems need, for models where they are known.

:func:`constants` returns ``m`` (strong convexity), ``M`` (smoothness), ``L`` (Lipschitz constant of the
data term) and ``Delta`` (gradient sensitivity, docs/conventions.md) for three L2-regularised models of one
record ``(x, y)`` with features bounded by ``R`` (``|x| <= R`` for *every* possible record, a neighbour's
included: the data's largest norm by default, or the bound the features are clipped to):

==========  =================================================  =========  ============  ====================
model       loss of one record                                 m          M             L (data term)
==========  =================================================  =========  ============  ====================
logistic    ``log(1 + exp(-y <theta, x>))``, ``y = +-1``        ``lam``    R^2/4 + lam   ``R``
ridge       ``(<theta, x> - y)^2 / 2``, ``|y| <= B``              ``lam``    R^2 + lam     ``R (rho R + B)``
huber       ``H_k(<theta, x> - y)`` (Huber, threshold ``k``)      ``lam``    R^2 + lam     ``k R``
==========  =================================================  =========  ============  ====================

each plus ``lam/2 |theta|^2``.  Why: the data term's Hessian is ``s''(.) x x^T`` with ``s'' <= 1/4``
(logistic), ``= 1`` (ridge) or ``in [0, 1]`` (Huber), so ``lam I <= Hessian <= (R^2 c + lam) I``; its
gradient is ``s'(.) x`` with ``|s'| <= 1`` (logistic), ``<= k`` (Huber), ``<= rho R + B`` (ridge, only on
the ball ``|theta| <= rho``: ridge needs a constraint set, ``D = 2 rho``).  Sensitivity: replace-one
``Delta = 2L`` (the regulariser cancels in the difference of two records' gradients), add/remove ``Delta = L``
(the regulariser must then be applied once per step, outside the sum over the batch).

``M_data`` is the smoothness of the *average* loss over this dataset or any neighbour of it,
``c (lambda_max(X^T X) + R^2) / n + lam``: what the data's second-moment matrix gives for full-batch
runs.  It is reported, not used: the theorem records assume every record's loss is ``M``-smooth.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from verify import validate
from verify.errors import InputError
from verify.vocabulary import sensitivity_of_lipschitz

MODELS = ("logistic", "ridge", "huber")
#: bound on the second derivative of the data term's scalar loss (its curvature along x)
_CURVATURE = {"logistic": 0.25, "ridge": 1.0, "huber": 1.0}


@dataclass(frozen=True)
class Constants:
    """The constants of one model on one dataset, and the assumptions under which they hold."""

    model: str
    n: int
    d: int
    R: float
    m: float
    M: float
    L: float
    Delta: float
    adjacency: str
    M_data: float
    assumptions: tuple[str, ...]
    D: float | None = None

    def run_fields(self) -> dict[str, object]:
        """The run keys these constants determine (for :func:`verify.account.account`)."""
        fields: dict[str, object] = {"m": self.m, "M": self.M, "Delta": self.Delta, "d": self.d,
                                     "loss": "strongly_convex" if self.m > 0 else "convex"}
        if self.D is not None:
            fields["D"] = self.D
        return fields

    def to_json(self) -> dict:
        return {"model": self.model, "n": self.n, "d": self.d, "R": self.R, "m": self.m, "M": self.M,
                "L": self.L, "Delta": self.Delta, "adjacency": self.adjacency, "M_data": self.M_data,
                "D": self.D, "assumptions": list(self.assumptions)}


def constants(X, model: str, *, lam: float, adjacency: str = "replace", feature_bound: float | None = None,
              radius: float | None = None, label_bound: float | None = None,
              huber: float | None = None) -> Constants:
    """m, M, L, Delta of ``model`` on the data matrix ``X`` (rows are records); see the module docstring.

    ``lam > 0``: the L2 regularisation; ``feature_bound``: R (default: the largest row norm of ``X``; a
    smaller one is refused); ``radius`` (ridge: ``|theta| <= rho``) and ``label_bound`` (ridge: ``|y| <= B``);
    ``huber``: the Huber threshold ``k``.  ``InputError`` names the parameter at fault.
    """
    where = "constants"
    model = validate.choice("model", model, MODELS, where)
    adjacency = validate.choice("adjacency", adjacency, ("replace", "add_remove"), where)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InputError(f"X must be a non-empty 2-D matrix (records x features), got shape {X.shape}", "X", where)
    if not np.isfinite(X).all():
        raise InputError("X must be finite", "X", where)
    lam = validate.positive("lam", lam, where)
    n, d = X.shape
    largest = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))
    if feature_bound is None:
        R = largest
        bound_text = f"every record's features, a neighbour's included, have norm <= R = {R:g} (the data's largest)"
    else:
        R = validate.positive("feature_bound", feature_bound, where)
        if R < largest * (1 - 1e-12):
            raise InputError(f"feature_bound={R:g} is below the data's largest feature norm {largest:g}",
                             "feature_bound", where)
        bound_text = f"every record's features have norm <= R = {R:g} (clipped or bounded by construction)"
    assumptions = [bound_text, f"L2 regularisation lam/2 |theta|^2 with lam = {lam:g} (m = lam)"]
    D = None
    if model == "logistic":
        L = R
        assumptions.append("labels y in {-1, +1}; |d/dt log(1 + e^-t)| <= 1, second derivative <= 1/4")
    elif model == "huber":
        if huber is None:
            raise InputError("huber regression needs its threshold k (huber=...)", "huber", where)
        k = validate.positive("huber", huber, where)
        L = k * R
        assumptions.append(f"Huber loss with threshold k = {k:g}: |H'| <= k, 0 <= H'' <= 1")
    else:  # ridge
        if radius is None or label_bound is None:
            missing = "radius" if radius is None else "label_bound"
            raise InputError(f"ridge regression has unbounded gradients: give radius (|theta| <= rho, the "
                             f"constraint set) and label_bound (|y| <= B); {missing} is missing", missing, where)
        rho = validate.positive("radius", radius, where)
        B = validate.nonnegative("label_bound", label_bound, where)
        L = R * (rho * R + B)
        D = 2.0 * rho
        assumptions.append(f"iterates projected onto the ball |theta| <= rho = {rho:g} (D = {D:g}); "
                           f"labels |y| <= B = {B:g}")
    if adjacency == "add_remove":
        assumptions.append("add/remove: the regulariser's gradient is added once per step, outside the sum "
                           "over the batch (else the sensitivity is unbounded)")
    else:
        assumptions.append("replace-one: the regulariser is in every record's loss and cancels in the "
                           "difference of two records' gradients")
    c = _CURVATURE[model]
    second_moment = float(np.linalg.eigvalsh(X.T @ X)[-1]) if d <= 2000 else float(
        np.linalg.svd(X, compute_uv=False)[0] ** 2)
    return Constants(model, n, d, R, m=lam, M=c * R * R + lam, L=float(L),
                     Delta=float(sensitivity_of_lipschitz(L, adjacency)), adjacency=adjacency,
                     M_data=c * (second_moment + R * R) / n + lam, assumptions=tuple(assumptions), D=D)


def load_matrix(path: str | Path) -> np.ndarray:
    """A data matrix from a ``.npy`` file (``InputError`` naming ``data`` when it cannot be read)."""
    path = Path(path)
    try:
        X = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read a .npy matrix: {exc}", "data") from None
    if X.ndim == 1:
        X = X[:, None]
    return X


__all__ = ["MODELS", "Constants", "constants", "load_matrix"]
