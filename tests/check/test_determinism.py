"""The engine's verdicts depend on the seed only, not on what the process loaded or checked before."""

import importlib

import theorems
from verify.check.engine import check_theorem, search_effort


def _fingerprint(theorem_id: str, seed: int = 0):
    verdict = check_theorem(theorems.get(theorem_id), theorems.get, search_effort("quick"), seed)
    tight = next(o for o in verdict.obligations if o.name == "tightness")
    sound = next(o for o in verdict.obligations if o.name == "soundness")
    # the corners are the same for every seed: the random draws show in the coverage counts
    return verdict.verdict, tight.data.max_ratio, tight.data.median_ratio, sound.data.cells


def test_same_seed_same_instances_whatever_was_loaded_before():
    first = _fingerprint("baselines/noisy-gd/eps-classical")
    # load many more local modules: each brings literal constants that hypothesis would otherwise draw
    for module in ("verify.report.build", "verify.report.render", "verify.account.accountant",
                   "verify.simulate.engine", "verify.simulate.audit", "theorems.tables"):
        importlib.import_module(module)
    _fingerprint("bok2024/thm4.5")  # and check something else in between
    assert _fingerprint("baselines/noisy-gd/eps-classical") == first


def test_another_seed_draws_other_instances():
    assert _fingerprint("bok2024/thm4.5", seed=1) != _fingerprint("bok2024/thm4.5", seed=0)


def test_a_variable_added_by_another_module_changes_no_draw_of_a_theorem_that_does_not_use_it(monkeypatch):
    """The search's coordinates and the canonical points of a theorem do not depend on what other modules (a
    user's file, another paper) added to the vocabulary in this process (a verdict once moved with the files
    loaded before it)."""
    import theorems
    from verify import vocabulary
    from verify.check import domain
    from verify.check.soundness import Budget, Record, Search

    theorem = theorems.get("bok2024/thm4.2")
    before_points = domain.canonical_points(8, 3)
    before_coordinates = Search(theorem, [], Record(), Budget()).coordinates
    monkeypatch.setitem(vocabulary.VOCABULARY, "zz_added", vocabulary.Variable("zz_added", "a test variable"))
    after_points = domain.canonical_points(8, 3)
    assert "zz_added" in domain.unit_names()
    assert Search(theorem, [], Record(), Budget()).coordinates == before_coordinates
    assert [{k: v for k, v in p.items() if k != "zz_added"} for p in after_points] == before_points
    assert all("zz_added" in p for p in after_points)


def test_an_obligation_runs_on_one_blas_thread_and_the_pool_is_restored():
    """Every obligation runs with one BLAS thread, as in a cluster worker, whatever the process had: the same
    summation order of a product wherever it runs (and no spinning second thread)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from verify.check import engine

    blas = lambda: [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas()
        inside = engine._guard(blas, "blas threads")
        after = blas()
    assert inside and set(inside) == {1}
    assert after == before
    # an error inside is still an inconclusive outcome, and the pool is restored after it too
    with threadpool_limits(limits=2, user_api="blas"):
        outcome = engine._guard(lambda: 1 / 0, "a step")
        assert outcome.status == "inconclusive" and blas() == before
        assert outcome.data.step == "a step"  # the step is named, not "<lambda>"
