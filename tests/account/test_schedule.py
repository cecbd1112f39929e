"""Schedule files in ``verify account`` / ``verify calibrate`` and schedule calibration.

The reference for every epsilon is dp_accounting's own PLD accountant on the same phases.
"""

from __future__ import annotations

import json

import pytest

from verify.account.calibration import calibrate_schedule
from verify.account.running import Accountant
from verify.account.schedule import read_schedule
from verify.commands import main
from verify.errors import InputError

from .test_running import VERIFIED, _dp_accounting_eps

TOML = """
n = 20000
[[phases]]          # warm-up: small batches, more noise
z = 2.0
b = 100
steps = 40
[[phases]]
noise_multiplier = 1.1
sample_rate = 0.01
epochs = 0.5
"""
PHASES = [dict(noise_multiplier=2.0, sample_rate=0.005, steps=40),
          dict(noise_multiplier=1.1, sample_rate=0.01, steps=50)]


@pytest.fixture
def files(tmp_path):
    toml = tmp_path / "schedule.toml"
    toml.write_text(TOML)
    js = tmp_path / "schedule.json"
    js.write_text(json.dumps({"n": 20000, "phases": [{"z": 2.0, "q": 0.005, "T": 40},
                                                      {"z": 1.1, "b": 200, "steps": 50}]}))
    verdicts = tmp_path / "verdicts.json"
    verdicts.write_text(json.dumps({"theorems": [{"id": k, "verdict": v} for k, v in VERIFIED.items()]}))
    return toml, js, verdicts


def test_toml_and_json_schedules_read_the_same_phases(files):
    toml, js, _ = files
    for path in (toml, js):
        options, steps = read_schedule(path)
        assert options == {"n": 20000}
        assert [(s["noise_multiplier"], s["sample_rate"], s["steps"]) for s in steps] == [
            (p["noise_multiplier"], p["sample_rate"], p["steps"]) for p in PHASES]  # epochs 0.5 at q=0.01: 50


def test_account_schedule_command_matches_dp_accounting(files, capsys):
    toml, _, verdicts = files
    assert main(["account", "--schedule", str(toml), "--verdicts", str(verdicts), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["answer"]["value"] == pytest.approx(_dp_accounting_eps(PHASES, 1e-5), rel=1e-6)
    assert (payload["answer"]["theorem"], payload["answer"]["verdict"]) == ("bu2020/thm3", "verified")
    assert payload["schedule"]["adjacency"] == "add_remove"


def test_calibrated_schedule_meets_the_target_and_no_less_noise_does(files, capsys):
    toml, _, verdicts = files
    assert main(["calibrate", "--schedule", str(toml), "--eps", "1.0", "--delta", "1e-5", "--rtol", "1e-3",
                 "--verdicts", str(verdicts), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    factor = payload["factor"]
    scaled = [dict(p, noise_multiplier=p["noise_multiplier"] * factor) for p in PHASES]
    eps = _dp_accounting_eps(scaled, 1e-5)  # independent: dp_accounting's accountant
    assert 1.0 * (1 - 1e-3) - 1e-6 <= eps <= 1.0 + 1e-6
    less = [dict(p, noise_multiplier=p["noise_multiplier"] * factor * 0.99) for p in PHASES]
    assert _dp_accounting_eps(less, 1e-5) > 1.0


def test_calibration_reuses_coarse_work():
    """Coarse to fine: two or three compositions at the fine accuracy suffice (the rest are coarse)."""
    acc = Accountant(verdicts=VERIFIED).step(1.0, 0.01, steps=200)
    result = calibrate_schedule(acc, eps=1.0, delta=1e-5)
    assert result.within_tolerance and 1.0 * (1 - 1e-4) <= result.eps <= 1.0
    assert result.fine_evaluations <= 3
    assert result.eps == pytest.approx(_dp_accounting_eps(
        [dict(noise_multiplier=result.factor, sample_rate=0.01, steps=200)], 1e-5), rel=1e-6)


@pytest.mark.parametrize("text, parameter", [
    ("[[phases]]\nz = 1.0\nq = 0.1\n", "steps"),
    ("[[phases]]\nz = 1.0\nb = 10\nsteps = 5\n", "n"),
    ("[[phases]]\nq = 0.1\nsteps = 5\n", "noise_multiplier"),
    ("[[phases]]\nz = 1.0\nq = 0.1\nsteps = 5\nbogus = 1\n", "bogus"),
    ("n = 100\nphases = []\n", "phases"),
    ("sigma = 1.0\n[[phases]]\nz = 1.0\nq = 0.1\nsteps = 5\n", "sigma"),
    ("[[phases]]\nz = 1.0\nq = 0.1\nsteps = 5\nepochs = 1\n", "epochs"),
    ("[[phases\n", "schedule"),
])
def test_bad_schedules_name_the_key(tmp_path, text, parameter):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_schedule(path)
    assert info.value.parameter == parameter


def test_schedule_flag_refuses_run_flags(files, capsys):
    toml, _, _ = files
    assert main(["account", "--schedule", str(toml), "--n", "10"]) == 2
    assert "--n" in capsys.readouterr().err
