"""Proof steps as records: every erratum has a software check (a record, a table, a proof step) or is labelled
notation only; every step reads as its record says; a wrong step is caught; a replay line reproduces it."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp

import theorems
from verify.check.steps import decide, points, proof_obligation, replay
from verify.check.verdict import Obligation, decide as decide_verdict
from verify.errors import InputError
from verify.proof import Reading, Step, event
from verify.theorem import Erratum, Source, Theorem, sym

WITH_STEPS = [t for t in theorems.all() if t.steps]


def _errata():
    """Every distinct erratum of the registry with the record that lists it first (as the report rows)."""
    seen, out = set(), []
    for t in theorems.all():
        for e in t.errata:
            key = (e.text, e.evidence, e.variant)
            if key not in seen:
                seen.add(key)
                out.append((t, e))
    return out


def test_every_erratum_has_a_check_or_is_notation_only():
    unchecked = [(t.id, e.text) for t, e in _errata() if not (e.variant or e.step or e.notation)]
    assert unchecked == []
    notation = [(t.id, e.text) for t, e in _errata() if e.notation]
    assert 0 < len(notation) <= 5
    assert all(len(e.notation) > 40 for _, e in _errata() if e.notation)  # says why


@functools.cache
def _proof(theorem_id: str) -> Obligation:
    """The proof obligation of a record (seed 0, 12 points per step), computed once for the two tests below (a
    step's exact side can be a grid density evolution: seconds)."""
    return proof_obligation(theorems.get(theorem_id), seed=0, count=12)


@pytest.mark.parametrize("theorem", WITH_STEPS, ids=[t.id for t in WITH_STEPS])
def test_every_step_reads_as_its_record_says(theorem):
    o = _proof(theorem.id)
    assert o.status == "passed", o.detail
    linked = {e.step for e in theorem.errata if e.step}
    for s in o.data.steps:
        assert s.as_expected, (s.step, s.printed, s.corrected)
        if s.step in linked:
            assert s.expected in ("fails", "loose")
            if s.expected == "fails":
                assert not s.printed.holds and s.replay.startswith(f"verify eval {theorem.id} --step {s.step}")
            else:
                assert s.printed.holds and s.ratio is not None and s.ratio > 1


@pytest.mark.parametrize("theorem", WITH_STEPS, ids=[t.id for t in WITH_STEPS])
def test_the_replay_line_reproduces_the_failing_reading(theorem):
    for s in _proof(theorem.id).data.steps:
        if s.expected != "fails":
            continue
        words = dict(w.split("=", 1) for w in s.replay.split(" --step ", 1)[1].split()[1:])
        again = replay(theorem, s.step, {k: float(v) for k, v in words.items()})
        assert not again.printed.holds and again.corrected.holds


def test_a_failed_proof_changes_no_verdict_of_the_statement():
    t = theorems.get("altschuler2022/thm4.1")
    sound = Obligation("soundness", "passed", "exact >= bound on 3 instances")
    proof = Obligation("proof", "failed", "a step fails")
    assert decide_verdict(t, [sound, proof]).verdict == "verified"


# ---------------------------------------------------------------------------------------------------
# an adversary's steps: every kind catches a wrong reading
# ---------------------------------------------------------------------------------------------------

x, y = sp.symbols("x y", positive=True)


@pytest.mark.parametrize("step", [
    Step("rel", "t", "relation", corrected=Reading("x^2 >= x", x**2, ">=", x), domain={"x": (0.1, 3.0)}),
    Step("val", "t", "value", corrected=Reading("sqrt(2) ~ 1.4143", sp.sqrt(2), "==", 1.4143, tolerance=0.5e-4)),
    Step("mono", "t", "monotone", corrected=Reading("x e^-x increasing", x * sp.exp(-x), "increasing"),
         domain={"x": (0.1, 3.0)}, var="x"),
    Step("range", "t", "range", corrected=Reading("1/(y - x) over x in 1..y", 1 / (y - x), "finite", low=1, high=y),
         domain={"y": (2, 50)}, integers=("y",), var="x"),
    Step("prob", "t", "probability",
         corrected=Reading("a fair coin lands heads with probability 0.52", event(
             lambda rng, v, runs: int(np.count_nonzero(rng.random(runs) < 0.5))), "==", 0.52), runs=100_000),
    Step("scale", "t", "scaling", corrected=Reading("eta <= D^2 (eta scales c^2, D^2 too): then eta <= D", sym.eta,
                                                    "<=", sym.D), domain={"eta": (0.1, 1.0), "D": (1.0, 2.0)}),
], ids=lambda s: s.kind)
def test_a_wrong_reading_is_caught_by_every_kind(step):
    outcome = decide(step, step.corrected, points(step, 0, 24), 0)
    assert not outcome.holds, outcome.detail


def test_a_step_that_fails_where_its_record_says_it_holds_is_a_finding():
    wrong = Step("wrong", "Lemma 0", "relation", corrected=Reading("x <= x/2", x, "<=", x / 2),
                 domain={"x": (0.1, 1.0)})
    t = Theorem(id="test/steps", title="t", source=Source("test", "none"), notion="rdp", kind="upper",
                bound=sym.alpha, steps=(wrong,))
    o = proof_obligation(t, 0, 6)
    assert o.status == "failed" and "NOT as recorded: wrong" in o.detail


def test_an_erratum_naming_a_missing_step_is_refused():
    with pytest.raises(InputError, match="names step 'nope'"):
        Theorem(id="test/steps", title="t", source=Source("test", "none"), notion="rdp", kind="upper",
                bound=sym.alpha, errata=(Erratum("x", step="nope"),))
    with pytest.raises(InputError, match="relation must be one of"):
        Step("bad", "t", "monotone", corrected=Reading("?", x, "<="), var="x")
    with pytest.raises(InputError, match="names its variable"):
        Step("bad", "t", "range", corrected=Reading("?", x, "finite", low=0, high=1))


# ---------------------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------------------


def test_eval_step_replays_an_erratum_and_exits_1(verify_cli):
    result = verify_cli("eval", "altschuler2022/thm4.1", "--step", "normal-tail")
    assert result.returncode == 1, result.stderr
    assert "FAILS: 0.9992173 == 0.999993 is false" in result.stdout and "as the record says" in result.stdout


@pytest.mark.parametrize("argv, message", [
    (["eval", "altschuler2022/thm4.1", "--step", "nope"], "unknown step 'nope'"),
    (["eval", "altschuler2022/eq3.7", "--step", "step-3a-bias", "eta=0.5"], "missing L"),
    (["eval", "altschuler2022/eq3.7", "--step", "step-3a-bias", "zz=1"], "'zz' is not one of them"),
])
def test_eval_step_bad_input_is_one_line_exit_2(argv, message, verify_cli):
    result = verify_cli(*argv)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
