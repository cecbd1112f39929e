"""Which registry theorems speak about a given run, and why the others do not.

A theorem applies to a run when (i) it is a privacy guarantee on a training run (not a lower bound, a
utility bound, a conversion between notions, or an "as printed" variant kept to be caught: the
accountant's policy), (ii) its :class:`~verify.setting.Setting` covers the run's concrete setting
(:meth:`Setting.covers`, the one rule the engine and the audit use too), (iii) the run determines every
parameter it needs, and (iv) each of its assumptions holds at the run's values
(:meth:`~verify.theorem.Theorem.violated_assumptions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verify.account.run import Run
from verify.errors import InputError
from verify.setting import Setting, loss_classes
from verify.theorem import Theorem


def run_setting(run: Run) -> Setting:
    """The concrete setting of ``run``.

    A run with a clipping norm is a DP-SGD run; so is one whose sensitivity is known, since clipping at
    the per-record gradient bound changes nothing (``Run.parameters`` gives Bu et al.'s ``z`` as
    ``b*sigma/Delta``).  A DP-SGD run is also a noisy-GD run (:data:`verify.setting.ALGORITHM_IMPLIES`).
    """
    clipped = run.Cclip is not None or run.Delta is not None
    return Setting(algorithm="dp_sgd" if clipped else "noisy_gd", batches=run.batches,
                   loss=run.loss, constraint="bounded" if run.constrained else "none",
                   adjacency=run.adjacency, init=run.init, release=run.release)


def run_loss_classes(run: Run) -> frozenset[str]:
    """The loss classes the run's losses belong to.  "lipschitz" always: a Lipschitz theorem asks for
    ``L`` (or ``Delta``) as a parameter, so the run's description decides whether it can be evaluated."""
    return loss_classes(run.loss, "lipschitz")


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


def policy_refusal(theorem: Theorem) -> str:
    """Why the accountant never uses ``theorem`` whatever the run ("" when it may)."""
    if theorem.is_printed_variant:
        return f"'as printed' variant of {theorem.printed_of} (known erratum), never used"
    if not theorem.notion_record.privacy:
        return f"a {theorem.notion} bound, not a privacy guarantee"
    if theorem.kind == "lower":
        return "a lower bound, not a guarantee"
    if theorem.setting.algorithm == "any":
        return "a conversion between notions, not a bound on a training run"
    return ""


def applicability(theorem: Theorem, run: Run) -> Applicability:
    """Decide whether ``theorem`` is a valid privacy guarantee for ``run`` (see the module docstring)."""

    def no(reason: str) -> Applicability:
        return Applicability(theorem, False, reason)

    refusal = policy_refusal(theorem) or setting_mismatch(theorem, run)
    if refusal:
        return no(refusal)
    available = run.parameters()
    record = theorem.notion_record
    needed = [p for p in theorem.parameters if p != record.parameter]
    missing = [p for p in needed if p not in available]
    if missing:
        return no("the run description does not determine " + ", ".join(missing))
    params = {p: available[p] for p in needed}
    # the notion's own parameter at its probe value: assumptions never involve it
    probe = {record.parameter: record.probe} if record.parameter else {}
    try:
        coerced = theorem.coerce({**params, **probe})
    except InputError as exc:
        return no(f"parameter out of domain: {str(exc).splitlines()[0]}")
    failed = theorem.violated_assumptions(coerced)
    if failed:
        texts = tuple(str(a) for a in failed)
        names = frozenset(s.name for a in failed for s in a.relation.free_symbols)
        return Applicability(theorem, False, "assumption violated: " + "; ".join(texts), violated=texts,
                             violated_symbols=names)
    return Applicability(theorem, True, params=params)


def setting_mismatch(theorem: Theorem, run: Run) -> str:
    """Why the theorem's setting does not cover the run ("" when it does), by :meth:`Setting.covers`."""
    reason = theorem.setting.covers(run_setting(run), run_loss_classes(run), steps=run.T)
    return "" if reason is None else f"setting: {reason}"
