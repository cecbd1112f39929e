"""``verify audit``: output, theorem checks, and bad input -> exit 2 with one line and no output."""

from __future__ import annotations

import json

import pytest

from verify.commands import main


def _run(capsys, *argv):
    code = main(["audit", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_audit_of_a_family_instance_json(capsys):
    # linear chain, full batch: exact mu = sqrt(T) Delta / (n sigma) = 1 (Bok et al. 2024, Thm 4.1, tight)
    code, out, err = _run(capsys, "linear_chain", "n=4", "eta=0.5", "sigma=1", "Delta=2", "--steps", "4",
                          "--runs", "50000", "--seed", "3", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert 0.8 < record["mu_lower"] <= 1.0
    assert record["runs"] == 50000 and record["confidence"] == 0.95 and record["statistic"] == "exact_llr"


def test_audit_of_a_scenario_text(capsys):
    code, out, err = _run(capsys, "huber_box", "d=3", "n=12", "b=3", "--steps", "5", "--runs", "4000")
    assert code == 0, err
    assert "eps  >=" in out and "mu   >=" in out and "huber_box" in out


def test_audit_of_a_theorem_checks_its_bound(capsys):
    code, out, err = _run(capsys, "bok2024/thm4.1", "d=3", "n=20", "--steps", "5", "--runs", "20000", "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["theorem"]["ok"] is True and record["theorem"]["theorem"] == "bok2024/thm4.1"
    assert record["theorem"]["bound"] >= record["mu_lower"]


@pytest.mark.parametrize("argv,match", [
    (["logistic_ball", "--runs", "0"], "--runs"),
    (["logistic_ball", "--runs", "-3"], "--runs"),
    (["logistic_ball", "--backend", "cupy"], "not installed"),
    (["logistic_ball", "--backend", "torch", "--device", "cuda:5"], "does not exist"),
    (["logistic_ball", "--device", "tpu"], "does not exist"),
    (["logistic_ball", "--runs", "100", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"],
     "unreachable"),
    (["no_such_instance"], "unknown instance"),
    (["nobody/thm1"], "unknown theorem"),
    (["logistic_ball", "d"], "name=value"),
    (["logistic_ball", "colour=3"], "colour"),
    (["logistic_ball", "--confidence", "1.5"], "confidence"),
])
def test_bad_input_exits_2_with_one_line_and_nothing_written(capsys, argv, match):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert match in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------------
# the cost estimate behind the refusals of huge audits (verify.simulate.engine.check_resources)
# ---------------------------------------------------------------------------------------------------


def test_the_memory_estimate_bounds_what_a_simulation_allocates():
    import tracemalloc

    from verify.simulate.api import resolve
    from verify.simulate.engine import estimate_cost, simulate

    sim = resolve("huber_box", {"d": 20, "n": 30, "b": 30, "T": 3})
    tracemalloc.start()  # numpy reports its allocations to tracemalloc
    try:
        simulate(sim, 20000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = estimate_cost(sim, 20000).memory
    assert peak <= estimate <= 3 * peak  # an upper estimate, and not a wild one


def test_a_simulation_beyond_the_machine_is_refused_before_it_starts():
    import time

    from verify.errors import InputError
    from verify.simulate.api import resolve
    from verify.simulate.engine import machine_memory, simulate

    sim = resolve("logistic_ball", {"T": 5})
    runs = int(machine_memory() // (8 * sim.d)) + 1  # the kept iterates alone exceed the memory
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        simulate(sim, runs)
    assert info.value.parameter == "runs" and time.monotonic() - start < 1.0
