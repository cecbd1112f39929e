"""``verify eval ID --family NAME k=v ...``: a theorem on one family instance, and replay lines."""

from __future__ import annotations

import json
import shlex

import pytest

import theorems
from verify.check import certify
from verify.check import references as refs
from verify.check.evidence import Witness
from verify.commands import main

#: the kept counterexample of the "as printed" altschuler2022/b.3 (S_alpha in one direction only)
KEPT = ["n=2", "b=1", "T=1", "eta=1.0", "sigma=1.0", "Delta=2.0", "D=10.0", "m=0.1", "M=1.0", "cells=1024"]
#: exact and bound the engine recorded for it (``verify run --json``, quick, seed 0, session 3)
RECORDED_EXACT, RECORDED_BOUND = 2.626321916318591, 0.6836260749054235


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_a_certified_violation_exits_1_and_reports_exact_bound_ratio(capsys):
    status = main(["eval", "altschuler2022/b.3", "--family", "projected_quadratic", *KEPT, "alpha=2.0", "--json"])
    out = _json(capsys)
    assert status == 1
    assert out["exact"] == pytest.approx(RECORDED_EXACT, rel=1e-12)
    assert out["bound"] == pytest.approx(RECORDED_BOUND, rel=1e-12)
    assert out["ratio"] == pytest.approx(RECORDED_EXACT / RECORDED_BOUND, rel=1e-12)
    assert out["holds"] is False and out["certified_margin"] > 0
    assert out["build"]["cells"] == 1024 and out["parameters"]["alpha"] == 2.0


def test_a_bound_that_holds_exits_0_with_text_output(capsys):
    status = main(["eval", "altschuler2022/b.3/both-directions", "--family", "projected_quadratic", *KEPT,
                   "alpha=2.0"])
    text = capsys.readouterr().out
    assert status == 0
    assert "holds" in text and "exact = 2.626321916" in text


def test_the_replay_line_of_a_witness_reproduces_it(capsys):
    t = theorems.get("altschuler2022/b.3")
    keywords = {k: certify.read_word(v) for k, v in (w.split("=", 1) for w in KEPT)}
    instance = refs.build_from(refs.families()["projected_quadratic"], keywords)
    witness = Witness(instance=instance.name, family=instance.family, parameters=dict(instance.params()), at=2.0,
                      exact=RECORDED_EXACT, bound=RECORDED_BOUND, parameter="alpha",
                      build=certify.build_keywords(instance))
    line = certify.replay_line(t.id, witness)
    words = shlex.split(line)
    assert words[0] == "verify"
    assert main([*words[1:], "--json"]) == 1
    out = _json(capsys)
    assert out["exact"] == pytest.approx(witness.exact, rel=1e-12)
    assert out["bound"] == pytest.approx(witness.bound, rel=1e-12)


def test_the_replay_line_of_a_run_counterexample_without_build_keywords(capsys):
    """chourasia2021/thm3 (as printed): its counterexample in ``verify run --json`` of session 3, as
    recorded there (no build keywords: the family's keywords are read off its parameters)."""
    recorded = {"alpha": 1.5, "bound": 46865.626249872366, "exact": 0.0075000000000000015, "family": "chourasia_thm3",
                "instance": "chourasia_thm3(n=1, T=1, eta=0.0004, sigma=0.1)",
                "parameters": {"Delta": 0.01, "M": 1.0, "T": 1, "b": 1, "d": 1, "eta": 0.0004, "m": 1.0, "n": 1,
                               "q": 1.0, "sigma": 0.1}}
    witness = Witness.from_json(recorded)
    words = shlex.split(certify.replay_line("chourasia2021/thm3/as-printed", witness))
    assert main([*words[1:], "--json"]) == 1  # a lower bound far above the exact value
    out = _json(capsys)
    assert out["exact"] == pytest.approx(recorded["exact"], rel=1e-12)
    assert out["bound"] == pytest.approx(recorded["bound"], rel=1e-12)


@pytest.mark.parametrize("words,named", [
    (["--family", "projected_quadratic", *KEPT], "alpha"),  # the notion parameter is required
    (["--family", "projected_quadratic", *KEPT[:-1], "cellz=1024", "alpha=2"], "cellz"),
    (["--family", "no_such_family", "alpha=2"], "no_such_family"),
    (["--family", "projected_quadratic", *KEPT[1:], "alpha=2"], "n"),  # a required build keyword missing
    (["--family", "projected_quadratic", *KEPT, "alpha=0.5"], "alpha"),  # alpha must be > 1
    (["--family", "projected_quadratic", *KEPT, "alpha=two"], "alpha"),
    (["--family", "gaussian_mechanism", "sigma=1.0", "Delta=1.0", "alpha=2"], "gaussian_mechanism"),  # not covered
])
def test_bad_input_is_exit_2_with_one_line_naming_it(capsys, words, named):
    assert main(["eval", "altschuler2022/b.3", *words]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0], err


def test_eval_without_family_is_unchanged(capsys):
    assert main(["eval", "baselines/gaussian-mechanism/gdp", "n=1", "Delta=1", "sigma=2", "--json"]) == 0
    out = _json(capsys)
    assert out["value"] == 0.5 and out["quantity"] == "mu"


def test_rounding_noise_of_a_grid_is_never_certified_as_a_violation(capsys):
    """At sigma = 1e12 the exact Renyi divergence is ~1e-24 and the grid reads its rounding (~3e-16): above
    the bound, but below what double-precision masses resolve (references.ROUNDING_FLOOR): not a violation."""
    words = ["n=2", "b=1", "T=1", "eta=1", "sigma=1e12", "Delta=2", "D=10", "m=0.1", "M=1", "alpha=2"]
    status = main(["eval", "altschuler2022/b.3/both-directions", "--family", "projected_quadratic", *words, "--json"])
    out = _json(capsys)
    assert out["exact"] > out["bound"] and out["exact"] < refs.ROUNDING_FLOOR
    assert status == 0 and out["holds"] and out["certified_margin"] is None
