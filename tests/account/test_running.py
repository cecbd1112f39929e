"""``verify.Accountant``: the running accountant.

References are independent of the code under test: dp_accounting's own ``PLDAccountant`` on the same
heterogeneous schedule (``DpEvent`` composition, its own Gaussian discretisation), ``verify account`` for
constant schedules, the Gaussian closed form at 40 digits (mpmath), and Bok et al. 2024, Table 1.
"""

from __future__ import annotations

import json
import math

import dp_accounting
import pytest
from dp_accounting.pld import pld_privacy_accountant

import verify
from verify.account import account
from verify.account.running import Accountant
from verify.commands import main
from verify.errors import InputError

from .test_accountant import _gdp_eps_mpmath

VERIFIED = {"bu2020/thm3": "verified", "bu2020/thm3/eps": "verified", "bok2024/thm4.8": "verified",
            "baselines/noisy-gd/gdp": "verified"}
#: a warm-up, a main phase and a large-batch phase, then full-batch steps (q = 1)
SCHEDULE = [dict(noise_multiplier=2.0, sample_rate=0.005, steps=50),
            dict(noise_multiplier=1.1, sample_rate=0.01, steps=200),
            dict(noise_multiplier=0.9, sample_rate=0.04, steps=60),
            dict(noise_multiplier=8.0, batches="full", steps=5)]


def _dp_accounting_eps(schedule, delta: float) -> float:
    """eps of the schedule by dp_accounting's PLD accountant (add/remove, interval 1e-4, pessimistic); composed
    once per schedule and delta for the tests that compare against it."""
    key = (repr(schedule), delta)
    if key not in _REFERENCE:
        _REFERENCE[key] = _compose_with_dp_accounting(schedule, delta)
    return _REFERENCE[key]


_REFERENCE: dict = {}


def _compose_with_dp_accounting(schedule, delta: float) -> float:
    acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                               value_discretization_interval=1e-4)
    for phase in schedule:
        event = dp_accounting.GaussianDpEvent(phase["noise_multiplier"])
        if phase.get("batches", "poisson") == "poisson":
            event = dp_accounting.PoissonSampledDpEvent(phase["sample_rate"], event)
        acc.compose(event, phase["steps"])
    return acc.get_epsilon(delta)


def test_heterogeneous_schedule_matches_dp_accounting_pld_accountant():
    acc = Accountant.from_schedule(SCHEDULE, verdicts=VERIFIED)
    answer = acc.epsilon(1e-5)
    assert answer.value == pytest.approx(_dp_accounting_eps(SCHEDULE, 1e-5), rel=1e-6)
    assert (answer.theorem, answer.verdict, answer.adjacency, answer.steps) == (
        "bu2020/thm3", "verified", "add_remove", 315)
    lower, upper = answer.bracket
    assert lower < upper == answer.value and upper - lower < 0.05 * upper
    # delta(eps) is the same curve read the other way
    assert acc.delta(answer.value).value == pytest.approx(1e-5, rel=1e-3)


def test_steps_one_at_a_time_equal_one_call_and_compose_appends():
    one_by_one = Accountant(verdicts=VERIFIED)
    for _ in range(200):
        one_by_one.step(noise_multiplier=1.1, sample_rate=0.01)
    assert len(one_by_one.phases) == 1  # identical steps are one phase: step() is O(1)
    whole = Accountant(verdicts=VERIFIED).step(1.1, 0.01, steps=200)
    assert one_by_one.epsilon(1e-5).value == whole.epsilon(1e-5).value
    first = Accountant.from_schedule(SCHEDULE[:2], verdicts=VERIFIED)
    first.compose(Accountant.from_schedule(SCHEDULE[2:], verdicts=VERIFIED))
    assert first.epsilon(1e-5).value == pytest.approx(_dp_accounting_eps(SCHEDULE, 1e-5), rel=1e-6)


@pytest.mark.parametrize("batches, adjacency, theorem", [("poisson", "add_remove", "bu2020/thm3/eps"),
                                                        ("uniform", "replace", "bok2024/thm4.8")])
def test_constant_schedule_equals_verify_account(batches, adjacency, theorem):
    """A constant schedule is a run: the accountant and ``verify account`` give the same epsilon."""
    acc = Accountant(n=10000, verdicts=VERIFIED).step(1.0, 0.01, batches=batches, steps=300)
    answer = acc.epsilon(1e-5)
    assert answer.adjacency == adjacency  # the default follows the batching
    result = account(n=10000, b=100, batches=batches, T=300, z=1.0, Cclip=1.0, adjacency=adjacency, delta=1e-5,
                     verdicts=VERIFIED)
    reference, named = result.best, {row.id: row for row in result.rows}[theorem]
    # the named theorem is the best, or ties with it (bu2020/thm3 and its eps reading give the same eps; the
    # smaller id then wins)
    assert reference.eps == named.eps and reference.id <= theorem
    assert answer.value == pytest.approx(reference.eps, rel=1e-9)


def test_constant_schedule_equals_the_account_command(capsys, tmp_path):
    path = tmp_path / "verdicts.json"
    path.write_text(json.dumps({"theorems": [{"id": k, "verdict": v} for k, v in VERIFIED.items()]}))
    assert main(["account", "--n", "10000", "--b", "100", "--batches", "poisson", "--T", "300", "--z", "1.0",
                 "--Cclip", "1", "--adjacency", "add_remove", "--verdicts", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    acc = verify.Accountant(verdicts=str(path)).step(1.0, 0.01, steps=300)
    assert acc.epsilon(1e-5).value == pytest.approx(payload["best"]["eps"], rel=1e-9)


def test_full_batch_gaussian_is_exact_and_bracketed():
    """T full-batch steps under replace-one are G_{2 sqrt(T)/z} (Dong-Roth-Su 2022, Cor. 2): closed form;
    under add/remove G_{sqrt(T)/z}, which the PLD bracket must contain."""
    exact_replace = _gdp_eps_mpmath(2 * math.sqrt(10) / 8.0, 1e-5)
    answer = Accountant(verdicts=VERIFIED).step(8.0, batches="full", steps=10).epsilon(1e-5)  # default: replace
    assert answer.theorem == "baselines/noisy-gd/gdp"
    assert answer.value == pytest.approx(exact_replace, rel=1e-9)
    assert answer.bracket == (answer.value, answer.value)
    exact = _gdp_eps_mpmath(math.sqrt(10) / 8.0, 1e-5)
    full = Accountant(adjacency="add_remove", verdicts=VERIFIED).step(8.0, batches="full", steps=10)
    lower, upper = full.epsilon(1e-5).bracket
    assert lower <= exact <= upper and upper - lower < 1e-3


def test_history_is_non_decreasing_and_ends_at_the_answer():
    acc = Accountant.from_schedule(SCHEDULE[:3], verdicts=VERIFIED)
    history = acc.history(1e-5)
    assert [k for k, _ in history] == [50, 250, 310]  # one point per step() call
    values = [a.value for _, a in history]
    assert values == sorted(values) and values[-1] == acc.epsilon(1e-5).value
    loop = Accountant(verdicts=VERIFIED)
    for _ in range(40):
        loop.step(1.1, 0.01)
    points = loop.history(1e-5, points=4)
    assert [k for k, _ in points] == [1, 14, 27, 40]


def test_last_iterate_theorem_chosen_for_a_constant_run_bok_table_1():
    """Bok et al. 2024 Table 1, 50 epochs: NoisyCGD on MNIST gives eps 4.34 (Thm 4.5) against 30.51 for
    the composition (Thm 4.4); sigma = z Cclip / b = 0.01 with Cclip = 1, b = 1500."""
    verdicts = {"bok2024/thm4.4": "verified", "bok2024/thm4.5": "verified"}
    acc = Accountant(n=60000, Delta=10, m=0.002, M=32.002, verdicts=verdicts)
    acc.step(noise_multiplier=15.0, sample_rate=1500 / 60000, batches="cyclic", eta=0.05, steps=2000)
    answer = acc.epsilon(1e-5)
    assert (answer.theorem, round(answer.value, 2)) == ("bok2024/thm4.5", 4.34)
    assert [round(c.value, 2) for c in answer.candidates] == [4.34, 30.51]
    # a second, different phase: last-iterate theorems no longer apply, and no composition covers cyclic
    acc.step(noise_multiplier=15.0, sample_rate=1500 / 60000, batches="cyclic", eta=0.01, steps=40)
    with pytest.raises(InputError, match="changing schedule") as info:
        acc.epsilon(1e-5)
    assert info.value.parameter == "batches"


def test_unverified_composition_is_not_used_and_poisson_replace_is_refused():
    acc = Accountant(verdicts={"bu2020/thm3": "inconclusive"}).step(1.0, 0.01, steps=10)
    with pytest.raises(InputError, match="verdict inconclusive"):
        acc.epsilon(1e-5)
    assert Accountant(verdicts={"bu2020/thm3": "inconclusive"}, include_unverified=True).step(
        1.0, 0.01, steps=10).epsilon(1e-5).verdict == "inconclusive"
    with pytest.raises(InputError, match="adjacency='add_remove'"):
        Accountant(adjacency="replace", verdicts=VERIFIED).step(1.0, 0.01).epsilon(1e-5)


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(noise_multiplier=0.0, sample_rate=0.1), "noise_multiplier"),
    (dict(noise_multiplier=math.inf, sample_rate=0.1), "noise_multiplier"),
    (dict(noise_multiplier=1.0, sample_rate=1.5), "sample_rate"),
    (dict(noise_multiplier=1.0), "sample_rate"),
    (dict(noise_multiplier=1.0, sample_rate=0.5, batches="full"), "sample_rate"),
    (dict(noise_multiplier=1.0, sample_rate=0.1, steps=0), "steps"),
    (dict(noise_multiplier=1.0, sample_rate=0.1, batches="bogus"), "batches"),
    (dict(noise_multiplier=1.0, sample_rate=0.1, eta=-1.0), "eta"),
])
def test_bad_steps_name_the_parameter(kwargs, parameter):
    with pytest.raises(InputError) as info:
        Accountant().step(**kwargs)
    assert info.value.parameter == parameter


def test_bad_options_and_empty_queries():
    with pytest.raises(InputError) as info:
        Accountant(accuracy=0)
    assert info.value.parameter == "accuracy"
    with pytest.raises(InputError) as info:
        Accountant(bogus=1)
    assert info.value.parameter == "bogus"
    with pytest.raises(InputError) as info:
        Accountant().epsilon(1e-5)
    assert info.value.parameter == "steps"
    with pytest.raises(InputError) as info:
        Accountant(adjacency="add_remove").compose(Accountant(adjacency="replace"))
    assert info.value.parameter == "other"


# ---------------------------------------------------------------------------------------------------
# verify account: adjacency following the batching, --accuracy and the bracket
# ---------------------------------------------------------------------------------------------------


def test_poisson_runs_default_to_add_remove_and_say_so():
    result = account(n=10000, b=100, batches="poisson", T=300, z=1.0, Cclip=1.0, delta=1e-5, verdicts=VERIFIED)
    # bu2020/thm3 and its eps reading give the same eps (the smaller id wins the tie)
    assert result.run.adjacency == "add_remove" and result.best.id in ("bu2020/thm3", "bu2020/thm3/eps")
    assert result.best.eps == result.row("bu2020/thm3/eps").eps
    assert "add_remove (default for poisson batches)" in result.run.describe()
    given = account(n=10000, b=100, batches="poisson", T=300, z=1.0, Cclip=1.0, adjacency="add_remove",
                    delta=1e-5, verdicts=VERIFIED)
    assert "(default" not in given.run.describe() and given.best.eps == result.best.eps


def test_account_accuracy_brackets_the_composition():
    run = dict(n=10000, b=100, batches="poisson", T=300, z=1.0, Cclip=1.0, delta=1e-5, verdicts=VERIFIED)
    default = account(**run, accuracy=1e-4)
    assert default.pld["theorem"] == "bu2020/thm3"
    assert default.pld["eps"] == pytest.approx(default.row("bu2020/thm3/eps").eps, rel=1e-9)  # same grid
    lower, upper = default.pld["bracket"]
    finer = account(**run, accuracy=5e-5)
    fine = finer.pld
    assert finer.best.eps == pytest.approx(min(fine["eps"], default.best.eps), rel=1e-9)  # the smaller is chosen
    # the exact composition lies in both brackets, and the finer one is narrower
    assert lower <= fine["bracket"][1] and fine["bracket"][0] <= upper
    assert fine["bracket"][1] - fine["bracket"][0] < upper - lower
    assert fine["eps"] <= default.pld["eps"] * (1 + 1e-9)
    # a full-batch run under replace-one is G_mu: exact, against mpmath
    gd = account(n=1000, T=10, sigma=8.0 / 1000, Delta=2.0, delta=1e-5, verdicts=VERIFIED, accuracy=1e-4)
    assert gd.pld["eps"] == pytest.approx(_gdp_eps_mpmath(2 * math.sqrt(10) / 8.0, 1e-5), rel=1e-9)
    assert gd.pld["bracket"] == [gd.pld["eps"], gd.pld["eps"]]


def test_account_command_prints_the_bracket_and_refuses_a_bad_accuracy(capsys, tmp_path):
    path = tmp_path / "verdicts.json"
    path.write_text(json.dumps({"theorems": [{"id": k, "verdict": v} for k, v in VERIFIED.items()]}))
    flags = ["account", "--n", "10000", "--b", "100", "--batches", "poisson", "--T", "300", "--z", "1.0",
             "--Cclip", "1", "--verdicts", str(path)]
    assert main(flags) == 0
    out = capsys.readouterr().out
    assert "add_remove (default for poisson batches)" in out
    assert "PLD composition (bu2020/thm3, accuracy 0.0001): eps = " in out and "lies in [" in out
    assert main([*flags, "--accuracy", "0"]) == 2
    assert "accuracy" in capsys.readouterr().err
