"""Structural axes: what a theorem's assumption class admits, what one instance stands for, and the verdict when a
value is not reached."""

import sympy as sp

import theorems
from verify.check.soundness import axes
from verify.instances import FAMILIES
from verify.testing import check
from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "structural axes")


def _theorem(setting, bound=sym.Delta / (sym.n * sym.sigma), kind="upper", assumptions=()):
    return Theorem(id="axes/t", title="t", source=SRC, notion="gdp", kind=kind, setting=setting, bound=bound,
                   assumptions=assumptions)


def test_admitted_values_follow_the_setting():
    last_any = axes.admitted(_theorem(Setting(batches="cyclic", loss="any", constraint="any")))
    assert last_any["loss"] == ("linear", "nonconvex")
    assert last_any["position"] == ("first", "last") and last_any["epoch"] == ("whole", "partial")
    assert last_any["init"] == ("fixed",) and last_any["adjacency"] == ("replace",) and "release" not in last_any
    transcript = axes.admitted(_theorem(Setting(batches="full", loss="smooth", release="all")))
    assert transcript["release"] == ("all",) and transcript["loss"] == ("linear",)  # the worst case of every class
    in_epochs = axes.admitted(_theorem(Setting(batches="cyclic", loss="convex"), bound=sp.sqrt(sym.E) / sym.sigma))
    assert in_epochs["epoch"] == ("whole",) and in_epochs["loss"] == ("linear",)
    # strong convexity read off an assumption that fails at m = 0
    strongly = _theorem(Setting(batches="full", loss="convex"), bound=sym.Delta / (sym.n * sym.sigma * sym.m),
                        assumptions=(Assumption(sym.m > 0),))
    assert axes.admitted(strongly)["loss"] == ("quadratic",)
    assert axes.admitted(_theorem(Setting(batches="full"), kind="lower")) == {}
    assert axes.admitted(_theorem(Setting(batches="any", adjacency="any")))["adjacency"] == ("replace", "add_remove")


def test_an_instance_stands_for_its_own_values():
    first = FAMILIES["linear_chain"].build(n=6, b=2, batches="cyclic", position=0, eta=0.5, sigma=1.0, T=7, Delta=1.0)
    values = axes.values_of(first, transcript=False)
    assert values["position"] == ("first",) and values["epoch"] == ("partial",) and values["loss"] == ("linear",)
    assert values["release"] == ("last",)
    last = FAMILIES["nonconvex_chain"].build(n=6, b=2, batches="cyclic", position=2, eta=0.5, sigma=1.0, T=6,
                                             rho=0.5, Delta=1.0, release="all")
    values = axes.values_of(last, transcript=True)
    assert values["position"] == ("last",) and values["epoch"] == ("whole",) and values["loss"] == ("nonconvex",)
    assert values["release"] == ("all",)
    gaps = axes.missing({"loss": ("linear", "nonconvex"), "release": ("all",)}, {"loss": {"linear"}})
    assert gaps == {"loss": ("nonconvex",), "release": ("all",)}
    assert "non-convex losses" in axes.describe(gaps) and "every iterate" in axes.describe(gaps)


def test_a_value_no_reference_reaches_leaves_the_theorem_inconclusive():
    """Every iterate released under shuffled batches: no exact transcript reference, so a correct composition bound
    is inconclusive and says why (never verified on last iterates alone)."""
    shuffled = Theorem(id="axes/shuffle-all", title="shuffled, every iterate", source=SRC, notion="gdp", kind="upper",
                       setting=Setting(batches="shuffle", loss="any", constraint="any", release="all"),
                       bound=sp.sqrt(sym.E) * sym.Delta / (sym.b * sym.sigma))
    verdict = check(shuffled, max_examples=10)
    assert verdict.verdict == "inconclusive", verdict.reason
    assert "every iterate released" in verdict.reason
    soundness = next(o for o in verdict.obligations if o.name == "soundness")
    assert soundness.data.axes_needed["release"] == ("all",) and "all" not in soundness.data.axes["release"]


def test_the_json_lists_the_values_compared_per_axis():
    verdict = check(theorems.get("bok2024/thm4.4"), max_examples=10)
    data = next(o for o in verdict.obligations if o.name == "soundness").data
    assert verdict.verdict == "verified"
    assert set(data.axes["position"]) >= {"first", "last"}
    assert data.axes_needed["epoch"] == ("whole",)  # stated in epochs E: a partial epoch is outside its class
    assert "nonconvex" in data.axes["loss"]
    assert data.to_json()["axes_needed"]["loss"] == ["linear", "nonconvex"]
