"""Which registry theorems speak about a given run, and why the others do not.

A theorem applies to a run when (i) it is a privacy guarantee (not a lower bound, a utility bound, or an
"as printed" variant kept to be caught), (ii) its :class:`~verify.theorem.Setting` covers the run (batch
scheme, loss class, constraint, adjacency, initialisation, what is released), (iii) the run determines
every parameter it needs, and (iv) each of its assumptions holds at the run's values
(:meth:`~verify.theorem.Theorem.violated_assumptions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verify.account.run import Run
from verify.theorem import Theorem

#: algorithms that are the canonical noisy gradient iteration (DP-SGD is it with clipped gradients)
RUN_ALGORITHMS = ("noisy_gd", "dp_sgd")

_ALL_LOSSES = ("any", "lipschitz", "convex", "strongly_convex", "quadratic", "linear")
#: for each loss class a theorem's ``setting.loss`` may name, the run loss classes it covers
_LOSS_COVERS: dict[str, tuple[str, ...]] = {
    "any": _ALL_LOSSES,
    "lipschitz": _ALL_LOSSES,  # the Lipschitz constant itself is a parameter the theorem asks for
    "convex": ("convex", "strongly_convex", "quadratic", "linear"),
    "strongly_convex": ("strongly_convex",),
    "quadratic": ("quadratic",),
    "linear": ("linear",),
}


@dataclass(frozen=True)
class Applicability:
    """Whether ``theorem`` applies to a run, the parameters to evaluate it at, and otherwise why not."""

    theorem: Theorem
    applies: bool
    reason: str = ""
    params: dict[str, float] = field(default_factory=dict)
    #: the assumptions that failed (their texts), when that is the reason
    violated: tuple[str, ...] = ()
    #: the parameters those failed assumptions involve
    violated_symbols: frozenset[str] = frozenset()


def applicability(theorem: Theorem, run: Run) -> Applicability:
    """Decide whether ``theorem`` is a valid privacy guarantee for ``run`` (see the module docstring)."""

    def no(reason: str, violated: tuple[str, ...] = ()) -> Applicability:
        return Applicability(theorem, False, reason, violated=violated)

    if theorem.is_printed_variant:
        return no(f"'as printed' variant of {theorem.printed_of} (known erratum), never used")
    if theorem.notion == "utility":
        return no("a utility bound, not a privacy guarantee")
    if theorem.kind == "lower":
        return no("a lower bound, not a guarantee")
    mismatch = setting_mismatch(theorem, run)
    if mismatch:
        return no(mismatch)
    available = run.parameters()
    extra = theorem.notion_record.parameter
    needed = [p for p in theorem.parameters if p != extra]
    missing = [p for p in needed if p not in available]
    if missing:
        return no("the run description does not determine " + ", ".join(missing))
    params = {p: available[p] for p in needed}
    try:
        coerced = theorem.coerce({**params, **({extra: _probe(extra)} if extra else {})})
    except ValueError as exc:
        return no(f"parameter out of domain: {str(exc).splitlines()[0]}")
    failed = theorem.violated_assumptions(coerced)
    if failed:
        texts = tuple(str(a) for a in failed)
        names = frozenset(s.name for a in failed for s in a.relation.free_symbols)
        return Applicability(theorem, False, "assumption violated: " + "; ".join(texts), violated=texts,
                             violated_symbols=names)
    return Applicability(theorem, True, params=params)


def setting_mismatch(theorem: Theorem, run: Run) -> str:
    """Why the theorem's setting does not cover the run ("" when it does)."""
    s = theorem.setting
    if s.algorithm == "any":
        return "a conversion between notions, not a bound on a training run"
    if s.algorithm not in RUN_ALGORITHMS:
        return f"about the {s.algorithm} algorithm, not noisy gradient descent"
    if s.batches not in ("any", run.batches):
        return f"needs {s.batches} batches (run: {run.batches})"
    if s.adjacency != run.adjacency:
        return f"needs {s.adjacency} adjacency (run: {run.adjacency})"
    if run.loss not in _LOSS_COVERS.get(s.loss, ()):
        return f"needs {s.loss.replace('_', ' ')} losses (run: {run.loss.replace('_', ' ')})"
    if s.constraint == "none" and run.constrained:
        return "needs an unconstrained run (run has a constraint set of diameter D)"
    if s.constraint == "bounded" and not run.constrained:
        return "needs a bounded constraint set (give its diameter D)"
    if s.init not in ("any", run.init):
        return f"needs {s.init} initialisation (run: {run.init})"
    if s.release == "last" and run.release == "all":
        return "bounds the last iterate only (run releases every iterate)"
    return ""


def _probe(name: str) -> float:
    """A value of the notion's own parameter, only to evaluate the assumptions (they never involve it)."""
    return {"alpha": 2.0, "delta": 1e-5, "eps": 1.0}[name]
