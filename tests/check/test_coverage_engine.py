"""The coverage rule of the soundness verdict (H9): ``verified`` only when the exact values compared are the quantity
the theorem bounds, on every adjacency it claims.

* A last iterate of T > 1 steps is a post-processing of all the iterates: compared with a theorem about every
  iterate it may refute the theorem (its exact value is a lower bound of the claimed quantity) but is no evidence
  for it, unless its last iterate is a sufficient statistic (linear losses, full batches, a fixed start).
* A theorem claimed for any adjacency needs compared replace and add/remove pairs.

Reference values: Bok et al. 2024 Thm 4.2 (exact last-iterate GDP on a quadratic), the composition of T Gaussian
steps sqrt(T) Delta/(n sigma) (all iterates), and the adversarial records' own independent checks
(tests/check/test_adversary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from verify.check.suite import load_user_theorems
from verify.setting import Setting
from verify.testing import check
from verify.theorem import Claim, Source, Theorem, sym

USER = Path(__file__).parent / "user_theorems"
SRC = Source("test", "coverage rule")
R = sym.Delta / (sym.n * sym.sigma)


def _record(file: str, theorem_id: str) -> Theorem:
    return next(t for t in load_user_theorems(str(USER / file)) if t.id == theorem_id)


def soundness_verdict(verdict):
    return next(o for o in verdict.obligations if o.name == "soundness")


def test_a_last_iterate_bound_claimed_for_every_iterate_is_not_verified(fresh_caches):
    """Bok 4.2 with release='all': exact sqrt(2) = 1.414 > 1.342 at m = M = 1, eta = 0.5, T = 2 (composition)."""
    verdict = check(_record("adversary_missed.py", "adv/sc-all-iterates"), max_examples=20, seed=0)
    assert verdict.verdict != "verified", verdict.reason
    if verdict.verdict == "inconclusive":
        assert "every iterate" in soundness_verdict(verdict).detail


def test_composition_for_every_iterate_is_verified_on_sufficient_last_iterates(fresh_caches):
    """sqrt(T) Delta/(n sigma) is the exact privacy of all the iterates; the linear full-batch chain's last
    iterate is sufficient for them, so it is evidence."""
    theorem = Theorem(id="test/composition-all", title="composition", source=SRC, notion="gdp", kind="upper",
                      setting=Setting(batches="full", loss="any", constraint="none", release="all"),
                      bound=sp.sqrt(sym.T) * R)
    verdict = check(theorem, max_examples=20, seed=0)
    assert verdict.verdict == "verified", verdict.reason
    assert verdict.max_ratio == pytest.approx(1.0, rel=1e-6)


def test_a_wrong_bound_for_every_iterate_is_still_refuted_by_a_last_iterate(fresh_caches):
    theorem = Theorem(id="test/composition-all-low", title="composition, 10% low", source=SRC, notion="gdp",
                      kind="upper", setting=Setting(batches="full", loss="any", constraint="none", release="all"),
                      bound=sp.Rational(9, 10) * sp.sqrt(sym.T) * R)
    assert check(theorem, max_examples=20, seed=0).verdict == "violated"


def test_a_lower_bound_for_every_iterate_is_never_refuted_by_a_last_iterate(fresh_caches):
    """sqrt(T) Delta/(n sigma) bounds every iterate's privacy from below (it is exact); a quadratic chain's last
    iterate is more private (Bok 4.2): that is no violation of the lower bound."""
    theorem = Theorem(id="test/composition-all-lower", title="composition, lower", source=SRC, notion="gdp",
                      kind="lower", setting=Setting(batches="full", loss="quadratic", constraint="none", release="all"),
                      bound=sp.sqrt(sym.T) * R, claims=(Claim("witness", value="quadratic_chain"),))
    assert check(theorem, max_examples=20, seed=0).verdict != "violated"


def test_any_adjacency_needs_replace_pairs_compared(fresh_caches):
    """alpha/(2 z^2) for any adjacency: the replace pair has D_2 = 2.5685 > 1 at q = 0.9, z = 1; no sampled-Gaussian
    family is a replace pair, so the verdict says what was not compared."""
    verdict = check(_record("adversary_missed.py", "adv/poisson-unsampled-rdp-any-adjacency"), max_examples=20, seed=0)
    assert verdict.verdict == "inconclusive", verdict.reason
    assert "replace" in soundness_verdict(verdict).detail


def test_the_order_2_bound_is_verified_for_add_remove(fresh_caches):
    verdict = check(_record("correct_poisson_small_q.py", "user/poisson-order-2"), max_examples=20, seed=0)
    assert verdict.verdict == "verified", verdict.reason


@pytest.mark.parametrize("theorem_id", ["adv/quadratic-min-saturation-overshoot", "adv/convex-saturates-late",
                                        "adv/gd-dimension-discount"])
def test_corners_and_far_ranges_find_the_adversary_misses(fresh_caches, theorem_id):
    verdict = check(_record("adversary_missed.py", theorem_id), max_examples=20, seed=0)
    assert verdict.verdict == "violated", verdict.reason
