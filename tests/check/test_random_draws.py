"""The random phase of the soundness search spends hypothesis' draws where they can become comparisons
: only the unit coordinates that move a quantity the theorem or
its families read are drawn, and a run stops once so many draws in a row were inadmissible that an
admissible region, if any, is out of the search's reach.

The independent check is the point map itself (``search_point``), moved one coordinate at a time from
random points: not the scan the search uses to choose its coordinates."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theorems
from verify.check import references as refs
from verify.check import soundness as soundness_module
from verify.check.domain import CORNER_BASE, search_point
from verify.check.engine import search_effort
from verify.check.soundness import (
    HOPELESS,
    Record,
    Search,
    candidate_families,
    soundness,
)
from verify.setting import Setting
from verify.theorem import Assumption, Source, Theorem, sym

QUICK = search_effort("quick").budget()
LINEAR_FULL = Setting(batches="full", loss="linear", constraint="none")
#: a full-batch theorem, a cyclic one, an (eps, delta) theorem on a strongly convex loss, a subsampled RDP one
CASES = ("bok2024/thm4.2", "bok2024/ys22", "chourasia2021/thm4/dp", "altschuler2022/lemma2.12")


def _search(theorem_id: str) -> Search:
    theorem = theorems.get(theorem_id)
    return Search(theorem, candidate_families(theorem), Record(), QUICK)


def _read(search: Search) -> set[str]:
    """What a comparison on this theorem reads of a point: its parameters, its families' build keywords and
    what their searched draws read (checked below), M (a linear loss's smoothness)."""
    read = set(search.theorem.parameters) | {"M"}  # instance_params takes a linear loss's M from the point
    for name in search.names:
        family = refs.families()[name]
        read |= set(refs.keywords(family))
        for draw in family.searched.values():
            read |= draw.reads
    return read


class _Logged(dict):
    """A build context that remembers the keys read."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


#: context entries that are the build's setting (the theorem's or the builder's defaults), not point quantities
SETTING_KEYS = {"adjacency", "batches", "init", "lo"}


def test_each_searched_draw_reads_only_what_it_declares():
    point = search_point({name: 0.4 for name in _search("bok2024/thm4.2").coordinates})
    checked = 0
    for family in refs.families().values():
        for name, draw in family.searched.items():
            for setting in ({}, {"batches": "cyclic"}, {"init": "gaussian"}, {"adjacency": "replace"},
                            {"init": "gaussian", "m": 0.0}):
                for u in (0.0, 0.5, 1.0):
                    context = _Logged({**family.defaults, **point, **setting})
                    draw(u, context)
                    assert context.read - SETTING_KEYS <= draw.reads, (family.name, name)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("theorem_id", CASES)
def test_the_random_phase_leaves_out_coordinates(theorem_id):
    search = _search(theorem_id)
    drawn = search.drawn()
    assert set(drawn) <= set(search.coordinates)
    assert len(drawn) < len(search.coordinates)  # something is left out: the draws are cheaper
    # a notion parameter the theorem does not take is never drawn
    for name in ("alpha", "eps", "delta"):
        assert (name in drawn) == (name in search.theorem.parameters)


@pytest.mark.parametrize("theorem_id", CASES)
def test_a_coordinate_left_out_moves_nothing_a_comparison_reads(theorem_id):
    search = _search(theorem_id)
    drawn, read = set(search.drawn()), _read(search)
    left_out = [name for name in search.coordinates if name not in drawn]
    unit = st.floats(0.0, 1.0, allow_nan=False)

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries({name: unit for name in search.coordinates}), st.sampled_from(left_out), unit)
    def moves_nothing(u, name, value):
        before, after = search.point(u), search.point({**u, name: value})
        assert {k: before[k] for k in read if k in before} == {k: after[k] for k in read if k in after}

    moves_nothing()


def test_a_draw_that_does_not_say_what_it_reads_draws_every_coordinate(monkeypatch):
    search = _search("bok2024/thm4.2")
    assert len(search.drawn()) < len(search.coordinates)
    families = dict(refs.families())
    name = next(n for n in search.names if families[n].searched)
    keyword = next(iter(families[name].searched))
    families[name] = dataclasses.replace(families[name], searched={**families[name].searched,
                                                                   keyword: lambda u, context: None})
    monkeypatch.setattr(refs, "families", lambda: families)
    assert search.drawn() == search.coordinates


def test_a_drawn_coordinate_does_move_what_is_read():
    # m/M moves eta near the contraction edge (eta*M's draw in [0.35, 0.65)), nowhere else: a theorem that
    # reads eta but not m must still draw it
    search = _search("bok2024/thm4.2")
    assert "mM" in search.drawn()
    u = {**{name: 0.5 for name in search.coordinates}, "etaM": 0.5}
    assert search.point({**u, "mM": 0.2})["eta"] != search.point({**u, "mM": 0.9})["eta"]


def test_the_coordinates_left_out_stay_at_the_corner_base(monkeypatch):
    theorem_id = "bok2024/thm4.2"
    theorem = theorems.get(theorem_id)
    seen = []
    original = Search.evaluate

    def evaluate(self, name, u):
        if self.record.phase == "random":
            seen.append(dict(u))
        return original(self, name, u)

    monkeypatch.setattr(Search, "evaluate", evaluate)
    sound, _ = soundness(theorem, seed=0, budget=QUICK)
    assert sound.status == "passed" and seen
    search = _search(theorem_id)
    left_out = [name for name in search.coordinates if name not in search.drawn()]
    for u in seen:
        assert all(u[name] == CORNER_BASE.get(name, 0.5) for name in left_out)
    # the drawn ones do vary
    assert len({u["mu"] for u in seen}) > 1


def _planted(assumption: Assumption) -> Theorem:
    bound = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)  # exact on the full-batch linear chain
    return Theorem(id="test/planted", title="planted", source=Source("test", "none"), notion="gdp", kind="upper",
                   bound=bound, setting=LINEAR_FULL, assumptions=(assumption,))


def _phase_counts(monkeypatch) -> Counter:
    counts: Counter = Counter()
    original = Search.evaluate

    def evaluate(self, name, u):
        score, margin = original(self, name, u)
        counts[(self.record.phase, score is not None)] += 1
        return score, margin

    monkeypatch.setattr(Search, "evaluate", evaluate)
    return counts


def test_a_run_no_draw_satisfies_stops_after_hopeless_rejections(monkeypatch, fresh_caches):
    # T >= 10^6 lies beyond every drawn T (at most 100,000): no draw is admissible
    counts = _phase_counts(monkeypatch)
    sound, _ = soundness(_planted(Assumption(sym.T >= 10**6, "T >= 10^6")), seed=0, budget=QUICK)
    runs = len(soundness_module._random_counts(QUICK.random, QUICK.random_blocks))
    assert counts[("random", True)] == 0
    # each run rejected HOPELESS draws and stopped; hypothesis alone would have drawn 459 per run
    assert counts[("random", False)] == runs * HOPELESS
    assert sound.status == "inconclusive"


def test_a_rare_admissible_region_is_still_found(monkeypatch, fresh_caches):
    # about one draw in eight admissible (per-step mu above 3): the runs go on and compare
    counts = _phase_counts(monkeypatch)
    mu_step = sym.Delta / (sym.n * sym.sigma)
    sound, _ = soundness(_planted(Assumption(mu_step >= 3, "mu_step >= 3")), seed=0, budget=QUICK)
    assert counts[("random", True)] >= QUICK.random // 2
    assert sound.status == "passed"


def test_a_draw_declares_what_it_reads_by_name():
    from verify.errors import InputError
    from verify.instances.registry import reads

    assert reads("Delta", "n")(lambda u, context: None).reads == {"Delta", "n"}
    for bad in ((3,), ("",), ("Delta", None)):
        with pytest.raises(InputError, match="reads point quantities by name"):
            reads(*bad)
    # a declaration set by hand is checked when the family is made (a string would read its letters)
    family = refs.families()["quadratic_chain"]
    keyword = next(iter(family.searched))

    def draw(u, context):
        return None

    draw.reads = "Delta"
    with pytest.raises(InputError, match="reads point quantities by name"):
        dataclasses.replace(family, searched={**family.searched, keyword: draw})
