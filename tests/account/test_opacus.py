"""The Opacus adapter: ``PrivacyEngine(accountant="verify")`` on the example's training run.

Needs the ``opacus`` extra (``pip install -e '.[opacus]'``); the README's test command installs it, so this
is never a silent skip.  References: ``verify.account`` on the same constant run, dp_accounting's own PLD
accountant on the same history, and Opacus' PRV accountant (its upper estimate) on the same history.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import pytest
from opacus.accountants import PRVAccountant, create_accountant
from opacus.accountants.utils import get_noise_multiplier

from verify.account import account
from verify.account.opacus import VerifyAccountant

from .test_running import _dp_accounting_eps

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "opacus_logistic.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("opacus_logistic", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def two_epochs(example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return example.train(epochs=2, seed=0)


def test_registered_under_its_own_name():
    assert isinstance(create_accountant("verify"), VerifyAccountant)
    assert VerifyAccountant.mechanism() == "verify"


def test_example_run_matches_dp_accounting_and_is_below_prv_upper(example, two_epochs):
    history = two_epochs["history"]
    assert history == [(1.3, 0.025, 40), (1.0, 0.025, 40)]  # two phases: the noise drops after epoch 1
    phases = [dict(noise_multiplier=z, sample_rate=q, steps=s) for z, q, s in history]
    assert two_epochs["verify"] == pytest.approx(_dp_accounting_eps(phases, example.DELTA), rel=1e-6)
    assert two_epochs["verify"] <= two_epochs["prv"]  # Opacus PRV's upper estimate on the same run
    assert two_epochs["verify"] < two_epochs["rdp"]
    answer = two_epochs["answer"]
    assert (answer.theorem, answer.verdict, answer.value) == ("bu2020/thm3", "verified", two_epochs["verify"])
    assert answer.bracket[0] <= answer.bracket[1] == answer.value


def test_constant_run_equals_verify_account():
    """One epoch of the example's first phase: the adapter's epsilon is ``verify account``'s best bound."""
    adapter = VerifyAccountant()
    for _ in range(40):
        adapter.step(noise_multiplier=1.3, sample_rate=50 / 2000)
    assert len(adapter) == 40 and adapter.history == [(1.3, 0.025, 40)]
    best = account(n=2000, b=50, batches="poisson", T=40, z=1.3, Cclip=1.0, delta=1e-5).best
    assert best.id in ("bu2020/thm3", "bu2020/thm3/eps")  # the same composition, read as f-DP or eps(delta)
    assert adapter.get_epsilon(1e-5) == pytest.approx(best.eps, rel=1e-9)
    prv = PRVAccountant()
    prv.history = list(adapter.history)
    assert adapter.get_epsilon(1e-5) <= prv.get_epsilon(1e-5)


def test_state_dict_round_trip_and_opacus_calibration():
    adapter = VerifyAccountant()
    adapter.step(noise_multiplier=1.0, sample_rate=0.02)
    restored = VerifyAccountant()
    restored.load_state_dict(adapter.state_dict())
    assert restored.history == adapter.history
    z = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.02, steps=50, accountant="verify")
    check = VerifyAccountant()
    check.history = [(z, 0.02, 50)]
    assert 2.0 - 0.01 <= check.get_epsilon(1e-5) <= 2.0  # Opacus' bisection tolerance, never above the target


def test_training_is_deterministic(example, two_epochs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = example.train(epochs=2, seed=0)
    assert again["history"] == two_epochs["history"] and again["accuracy"] == two_epochs["accuracy"]
    assert again["verify"] == two_epochs["verify"]
