"""Named numeric operators: bounds that are not closed forms, usable inside sympy expressions.

A theorem's bound is a sympy expression in the canonical vocabulary (DESIGN.md §4).  Some bounds are
not closed forms: an f-DP composition such as ``C_p(G_mu)^{⊗T}``, or a Rényi divergence of the
subsampled Gaussian.  Such a bound is written with a :class:`NumericOperator`: an undefined sympy
function whose numeric value comes from the privacy calculus.  The expression keeps its arguments, so
symbolic obligations (the scaling check, for one) still see through it: an operator is invariant under
a re-parametrisation whenever each of its arguments is.

Define an operator with :func:`numeric_operator`; its ``numeric`` callable receives numpy arrays already
broadcast against each other and must return an array of the same shape.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import sympy as sp

#: every operator defined so far, by name (used by ``lambdify``)
OPERATORS: dict[str, type["NumericOperator"]] = {}


class NumericOperator(sp.Function):
    """Base class of the named numeric operators (never instantiated directly)."""

    numeric: Callable[..., np.ndarray]
    description: str = ""
    #: the argument names, for display and error messages
    arg_names: tuple[str, ...] = ()

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
) -> type[NumericOperator]:
    """Create (or return the existing) operator ``name`` evaluating ``numeric(*args)``.

    ``numeric`` must broadcast over its arguments.  Wrap a scalar routine with
    :func:`vectorize` when it cannot.
    """
    if name in OPERATORS:
        return OPERATORS[name]
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
    OPERATORS[name] = cls
    return cls


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


def lambdify_modules() -> list:
    """Modules for ``sympy.lambdify``: the named operators first, then numpy."""
    return [{name: cls.numeric for name, cls in OPERATORS.items()}, "numpy"]


# --- RDP operators (Chourasia et al., Altschuler–Talwar, baselines) ---


# --- f-DP operators (Bok et al., Bu et al.) ---
