"""Structural axes of a theorem's assumption class: which cases it admits, which the search compared.

A bound can be right on every run the search draws and still wrong on a structural case those runs never
reach: the differing record in the first batch rather than the last, a partial last epoch, every iterate
released, a non-convex loss.  Each axis below names such a case by value.  From a theorem's setting (and its
parameters) :func:`admitted` derives the values whose comparison its claim needs, including the worst case of
its assumption class; :func:`values_of` reads the values one compared instance stands for.  ``verified``
needs every admitted value compared on an exact reference (:func:`missing`); otherwise the soundness
obligation is inconclusive and says which values were not reached.

The worst cases, and why they are enough:

* ``release``: a theorem about every iterate needs transcript references (a last iterate is a
  post-processing of the transcript: it may refute, never confirm), unless the last iterate is a sufficient
  statistic (linear losses, full batches, fixed start).
* ``loss``: a bound on the transcript is an adaptive composition of the steps, each a Gaussian mechanism whose
  mean moves by at most ``eta Delta / b``; linear losses with a constant gradient difference ``Delta`` attain
  that at every step, so ``linear`` is the worst case of every loss class there.  A bound on the last iterate
  of convex losses is compared on linear losses (the construction of the known lower bounds, Altschuler &
  Talwar 2022, Thm 4.1) and, for strongly convex ones, on quadratics (where contraction is exact).  A
  last-iterate bound whose class admits non-convex losses (``any``, ``lipschitz``, ``smooth``,
  ``weakly_convex``) is also compared on a non-convex loss: there the past is not forgotten (an expanding
  step keeps the differing record's shift as large as the noise added after it).
* ``position`` (cyclic batches, ``l >= 2``): the first batch (the most steps after the record) and the last
  (the fewest); ``epoch``: whole epochs and a partial last epoch (``T mod l != 0``), unless the theorem is
  stated in whole epochs (it names ``E``).
* ``init``: a theorem for any start is compared from a fixed start (for the affine chains a Gaussian start
  adds independent noise, a post-processing); a theorem for a Gaussian or stationary start, from that start.
* ``adjacency``: each concrete adjacency the theorem claims (``any``: both).
"""

from __future__ import annotations

from typing import Mapping

import sympy as sp

from verify.theorem import Theorem

#: the axes, in the order the JSON lists them
AXES = ("release", "loss", "position", "epoch", "init", "adjacency")

#: the loss classes of a theorem whose last-iterate bounds must also hold on non-convex losses
NONCONVEX_CLASSES = frozenset({"any", "lipschitz", "smooth", "weakly_convex"})
#: the classes whose worst case is a quadratic (strong convexity is what the bound uses)
QUADRATIC_CLASSES = frozenset({"strongly_convex", "quadratic", "squared"})
#: algorithms whose runs have a loss (the others are pairs of laws: a loss axis says nothing there)
ITERATIVE = frozenset({"noisy_gd", "dp_sgd", "langevin"})


def admitted(theorem: Theorem) -> dict[str, tuple[str, ...]]:
    """Per axis, the values ``theorem``'s claim needs compared (an axis that does not apply is left out).
    Only upper bounds are held to it: lower bounds and exact values are checked on their own construction."""
    if theorem.kind != "upper":
        return {}
    setting, out = theorem.setting, {}
    if setting.release == "all":
        out["release"] = ("all",)
    if setting.algorithm in ITERATIVE:
        if setting.loss in QUADRATIC_CLASSES or _strongly_convex(theorem):
            out["loss"] = ("quadratic",)
        elif setting.release == "all" or setting.loss in ("linear", "convex"):
            out["loss"] = ("linear",)
        elif setting.loss in QUADRATIC_CLASSES:
            out["loss"] = ("quadratic",)
        elif setting.loss in NONCONVEX_CLASSES:
            out["loss"] = ("linear", "nonconvex")
    if setting.batches == "cyclic":
        out["position"] = ("first", "last")
        out["epoch"] = ("whole",) if "E" in theorem.parameters else ("whole", "partial")
    if setting.algorithm in ITERATIVE:
        out["init"] = ("fixed",) if setting.init == "any" else (setting.init,)
    out["adjacency"] = setting.adjacencies()
    return out


def _strongly_convex(theorem: Theorem) -> bool:
    """Whether an assumption of ``theorem`` fails at ``m = 0`` (it needs strong convexity, so linear losses are
    outside its class)."""
    m = sp.Symbol("m", nonnegative=True)
    if "m" not in theorem.parameters:
        return False
    for assumption in theorem.assumptions:
        try:
            if assumption.relation.subs(m, 0) == sp.false:
                return True
        except (TypeError, ValueError):
            continue
    return False


def loss_value(classes) -> str:
    """The loss axis value of an instance whose losses belong to ``classes``."""
    if "nonconvex" in classes:
        return "nonconvex"
    if "linear" in classes:
        return "linear"
    if "quadratic" in classes or "squared" in classes:
        return "quadratic"
    return "other"


def values_of(instance, transcript: bool) -> dict[str, tuple[str, ...]]:
    """The axis values one compared ``instance`` stands for (``transcript``: its exact value is the privacy of
    every iterate, as for a sufficient last iterate)."""
    run, setting = instance.run, instance.setting
    T = instance.steps
    release = "one-step" if T is None or T <= 1 else "all" if transcript else "last"
    out = {"release": (release,), "loss": (loss_value(instance.loss_classes),),
           "init": (setting.init,), "adjacency": setting.adjacencies()}
    l = int(instance.constants.get("l", 1) or 1)
    if setting.batches == "cyclic" and l >= 2 and run.position is not None:
        out["position"] = ("first" if run.position == 0 else "last" if run.position == l - 1 else "middle",)
    if setting.batches in ("cyclic", "shuffle") and l >= 2 and T is not None:
        out["epoch"] = ("whole" if T % l == 0 else "partial",)
    return out


def missing(needed: Mapping[str, tuple[str, ...]], compared: Mapping[str, set[str]]) -> dict[str, tuple[str, ...]]:
    """Per axis, the admitted values no evidence reached."""
    out = {}
    for axis, values in needed.items():
        left = tuple(v for v in values if v not in compared.get(axis, ()))
        if left:
            out[axis] = left
    return out


#: what to say of a value no comparison reached
_WORDS = {("release", "all"): "every iterate released (no transcript reference was compared)",
          ("loss", "nonconvex"): "non-convex losses",
          ("loss", "linear"): "linear losses (the worst case of the class)",
          ("loss", "quadratic"): "strongly convex quadratics",
          ("position", "first"): "the differing record in the first batch",
          ("position", "last"): "the differing record in the last batch",
          ("epoch", "partial"): "a partial last epoch (T not a multiple of l)",
          ("epoch", "whole"): "whole epochs",
          ("adjacency", "add_remove"): "an add/remove pair",
          ("adjacency", "replace"): "a replace-one pair"}


def describe(gaps: Mapping[str, tuple[str, ...]]) -> str:
    """The values not compared, in words ("" when none)."""
    parts = [_WORDS.get((axis, v), f"{axis} {v}") for axis, values in gaps.items() for v in values]
    return "; ".join(parts)


__all__ = ["AXES", "admitted", "describe", "loss_value", "missing", "values_of"]
