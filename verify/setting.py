"""The setting a theorem speaks about, and the one rule that says whether it covers a concrete run.

A theorem's :class:`Setting` names a class of runs (``loss="convex"``, ``batches="any"``); an exact
instance, a simulated run or a practitioner's training run has a concrete setting.  Whether the first
covers the second is decided by :meth:`Setting.covers` and nowhere else: the engine's verdicts, the
audit and ``verify account`` cannot disagree about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from verify.errors import InputError

ALGORITHMS = ("noisy_gd", "langevin", "exp_mech", "gaussian_mechanism", "dp_sgd", "any")
BATCHES = ("full", "cyclic", "poisson", "uniform", "shuffle", "any")
CONSTRAINTS = ("none", "bounded", "any")
ADJACENCIES = ("replace", "add_remove", "any")
INITS = ("fixed", "gaussian", "stationary", "any")
RELEASES = ("last", "all")
#: the concrete adjacencies ("any" claims, or compares, both)
CONCRETE_ADJACENCIES = ("replace", "add_remove")

#: the algorithms a concrete run of each algorithm also is: DP-SGD is the canonical iteration on
#: clipped per-record gradients, so a noisy-GD theorem covers it when its loss-class assumptions hold
ALGORITHM_IMPLIES: dict[str, frozenset[str]] = {"dp_sgd": frozenset({"dp_sgd", "noisy_gd"})}

#: the loss classes a loss of each named class belongs to (before facts of the instance itself,
#: such as m > 0 making a quadratic strongly convex); "squared" is an isotropic quadratic H = m I
#: "weakly_convex": the loss plus rho/2 |theta|^2 is convex (every convex loss is, with rho = 0); "nonconvex": an
#: instance's marker that its losses are not convex (a theorem for smooth non-convex losses names "smooth");
#: "concave_quadratic": -rho/2 theta^2 plus a linear term, rho-weakly convex and rho-smooth
LOSS_IMPLIES: dict[str, frozenset[str]] = {
    "squared": frozenset({"squared", "quadratic", "strongly_convex", "convex", "smooth", "weakly_convex"}),
    "quadratic": frozenset({"quadratic", "convex", "smooth", "weakly_convex"}),
    "strongly_convex": frozenset({"strongly_convex", "convex", "weakly_convex"}),
    "linear": frozenset({"linear", "convex", "smooth", "lipschitz", "weakly_convex"}),
    "logistic": frozenset({"logistic", "convex", "smooth", "lipschitz", "weakly_convex"}),
    "huber": frozenset({"huber", "convex", "smooth", "lipschitz", "weakly_convex"}),
    "convex": frozenset({"convex", "weakly_convex"}),
    "lipschitz": frozenset({"lipschitz"}),
    "smooth": frozenset({"smooth"}),
    "weakly_convex": frozenset({"weakly_convex"}),
    "nonconvex": frozenset({"nonconvex"}),
    "concave_quadratic": frozenset({"concave_quadratic", "nonconvex", "weakly_convex", "smooth"}),
    "any": frozenset(),
}


#: the loss classes a setting may name (a theorem's class, or a concrete run's loss)
LOSSES = tuple(LOSS_IMPLIES)


def loss_classes(*names: str) -> frozenset[str]:
    """Every loss class implied by the named ones (``loss_classes("quadratic")`` includes convex)."""
    out: set[str] = set()
    for name in names:
        if name not in LOSS_IMPLIES:
            raise InputError(f"unknown loss class {name!r} (known: {', '.join(LOSS_IMPLIES)})", "loss")
        out |= LOSS_IMPLIES[name]
    return frozenset(out)


@dataclass(frozen=True)
class Setting:
    """The algorithm and problem class a theorem speaks about (or a concrete run's own setting).

    * ``algorithm``: ``noisy_gd`` (the canonical iteration), ``langevin``, ``exp_mech`` (exponential
      mechanism / stationary law), ``gaussian_mechanism``, ``dp_sgd`` (clipped gradients, Bu et al.).
    * ``batches``: ``full``, ``cyclic``, ``poisson``, ``uniform``, ``shuffle``, ``any``.
    * ``loss``: ``any``, ``lipschitz``, ``smooth`` (possibly non-convex), ``weakly_convex`` (the loss plus
      ``rho/2 |theta|^2`` convex), ``convex``, ``strongly_convex``, ``quadratic``, ``linear``; the constants are
      assumptions on ``M``, ``m``, ``rho``.
    * ``constraint``: ``none`` (unconstrained), ``bounded`` (convex set of diameter ``D``), ``any``.
    * ``adjacency``: ``replace`` (replace one record), ``add_remove``, ``any``.
    * ``init``: ``fixed``, ``gaussian``, ``stationary``, ``any``.
    * ``release``: ``last`` (last iterate only, hidden state) or ``all`` (every iterate released).
    """

    algorithm: str = "noisy_gd"
    batches: str = "full"
    loss: str = "any"
    constraint: str = "none"
    adjacency: str = "replace"
    init: str = "any"
    release: str = "last"

    def __post_init__(self) -> None:
        for name, allowed in (("algorithm", ALGORITHMS), ("batches", BATCHES), ("loss", LOSSES),
                              ("constraint", CONSTRAINTS), ("adjacency", ADJACENCIES), ("init", INITS),
                              ("release", RELEASES)):
            value = getattr(self, name)
            if value not in allowed:
                raise InputError(f"Setting.{name} must be one of {allowed}, got {value!r}", name)

    def covers(self, run: "Setting", classes: Collection[str] | None = None, steps: int | None = None) -> str | None:
        """``None`` when this (a theorem's) setting covers the concrete setting ``run``, else why not.

        ``classes`` are the loss classes the run's losses belong to (default: those implied by
        ``run.loss``); an instance knows more (a quadratic with m > 0 is strongly convex).  ``steps``
        is the run's number of steps: a run of one step releases only its last iterate.
        """
        if self.algorithm != "any" and self.algorithm not in ALGORITHM_IMPLIES.get(run.algorithm,
                                                                                      {run.algorithm}):
            return f"algorithm {run.algorithm} is not {self.algorithm}"
        if self.batches not in ("any", run.batches):
            return f"batches {run.batches} is not {self.batches}"
        have = loss_classes(run.loss) if classes is None else frozenset(classes)
        if self.loss != "any" and self.loss not in have:
            return f"losses are not {self.loss.replace('_', ' ')}"
        if self.constraint == "none" and run.constraint != "none":
            return "the theorem is for unconstrained runs"
        if self.constraint == "bounded" and run.constraint == "none":
            return "the theorem needs a bounded constraint set"
        if self.adjacency not in ("any", run.adjacency):
            return f"adjacency {run.adjacency} is not {self.adjacency}"
        if self.init not in ("any", run.init):
            return f"initialisation {run.init} is not {self.init}"
        if self.release == "last" and run.release == "all" and (steps is None or steps > 1):
            return "the run releases every iterate, the theorem bounds the last one"
        return None

    def refute_only(self, run: "Setting", steps: int | None = None, sufficient: bool = False) -> str | None:
        """Why a covered run's exact value is only a LOWER bound of the quantity this (a theorem's) setting
        bounds, so that comparing with it may refute the theorem but is no evidence for it; ``None`` when
        the run's exact value is that quantity.

        A theorem about every iterate (``release="all"``) compared with a run that releases only its last
        of ``steps`` > 1 iterates sees a post-processing of what it bounds.  ``sufficient``: the run's last
        iterate is a sufficient statistic of all its iterates for the pair (e.g. noisy GD on linear losses,
        unconstrained, a fixed start, the differing record in every step's batch, constant step size and
        noise: the iterates' increments are independent and shifted alike), so both privacies are equal.
        """
        if self.release == "all" and run.release == "last" and (steps is None or steps > 1) and not sufficient:
            return (f"the theorem bounds every iterate, the run releases only the last of {steps or 'its'} steps "
                    "(a lower bound of the claimed quantity)")
        return None

    def adjacencies(self) -> tuple[str, ...]:
        """The concrete adjacencies this setting stands for, both for ``"any"``: those a theorem claims, or
        those a comparison on a run is evidence for (a run of ``"any"``: a construction that is the worst
        case of both)."""
        return CONCRETE_ADJACENCIES if self.adjacency == "any" else (self.adjacency,)


__all__ = ["ADJACENCIES", "ALGORITHMS", "ALGORITHM_IMPLIES", "BATCHES", "CONCRETE_ADJACENCIES", "CONSTRAINTS",
           "INITS", "LOSSES", "LOSS_IMPLIES", "RELEASES", "Setting", "loss_classes"]
