"""``verify account`` / ``verify calibrate`` on the command line: Table 1, JSON, exit status 2 on bad input."""

from __future__ import annotations

import json

import pytest

from verify.commands import main

MNIST_FLAGS = ["--n", "60000", "--b", "1500", "--batches", "cyclic", "--epochs", "50", "--eta", "0.05",
               "--Delta", "10", "--m", "0.002", "--M", "32.002"]
BOK = ["bok2024/thm4.4", "bok2024/thm4.5", "bok2024/ys22", "bok2024/ys22/eps", "bok2024/thm4.1",
       "bok2024/thm4.2"]


@pytest.fixture
def verdict_file(tmp_path):
    """A ``verify run --json`` payload in which the Bok et al. records are verified."""
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"profile": "quick", "seed": 0,
                                "theorems": [{"id": i, "verdict": "verified"} for i in BOK]}))
    return str(path)


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # exactly one line
    return err


def test_table_1_json(capsys, verdict_file):
    assert main(["account", *MNIST_FLAGS, "--sigma", "0.01", "--verdicts", verdict_file, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    eps = {r["id"]: r["eps"] for r in payload["bounds"]}
    assert (round(eps["bok2024/thm4.4"], 2), round(eps["bok2024/ys22/eps"], 2), round(eps["bok2024/thm4.5"], 2)) \
        == (30.51, 5.82, 4.34)  # Bok et al. 2024, Table 1, 50 epochs
    assert payload["best"]["id"] == "bok2024/thm4.5"
    assert payload["composition"]["id"] == "bok2024/thm4.4"
    assert payload["verdict_source"].startswith("verdicts from")
    reasons = {r["id"]: r["reason"] for r in payload["not_applicable"]}
    assert reasons["bok2024/thm4.2"] == "setting: batches cyclic is not full"


def test_table_1_text_from_toml(tmp_path, capsys, verdict_file):
    config = tmp_path / "mnist.toml"
    config.write_text('n = 60000\nb = 1500\nbatches = "cyclic"\nepochs = 50\neta = 0.05\nsigma = 0.01\n'
                      'Delta = 10\nm = 0.002\nM = 32.002\n')
    assert main(["account", "--config", str(config), "--verdicts", verdict_file, "--orders", "2,8"]) == 0
    out = capsys.readouterr().out
    assert "best valid bound: bok2024/thm4.5  eps = 4.339 at delta = 1e-05" in out
    assert "composition baseline: bok2024/thm4.4  eps = 30.51" in out
    assert "rdp(8)" in out


def test_eta_outside_every_range_is_reported_not_refused(capsys, verdict_file):
    flags = ["--n", "1000", "--T", "100", "--eta", "5", "--sigma", "1", "--Delta", "1", "--m", "0.1", "--M", "1"]
    assert main(["account", *flags, "--verdicts", verdict_file]) == 0
    out = capsys.readouterr().out
    assert "eta=5 is outside the step-size range" in out
    assert "bok2024/thm4.2" in out.split("not applicable:")[1]


def test_calibrate_json(capsys, verdict_file):
    assert main(["calibrate", *MNIST_FLAGS, "--eps", "4.34", "--delta", "1e-5", "--verdicts", verdict_file,
                 "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["best"]["id"] == "bok2024/thm4.5"
    assert payload["sigma"] <= 0.01 * (1 + 1e-3)  # Table 1's run has sigma = 0.01 and eps 4.34 (rounded)
    assert 4.34 * (1 - payload["rtol"]) <= payload["best"]["value"] <= 4.34
    assert payload["composition"]["id"] == "bok2024/thm4.4"
    assert payload["sigma_ratio"] > 4


@pytest.mark.parametrize("argv, message", [
    (["account", "--n", "10", "--b", "20", "--batches", "cyclic", "--T", "1", "--sigma", "1"], "exceeds dataset"),
    (["account", "--n", "10", "--b", "5", "--batches", "cyclic", "--T", "5", "--epochs", "3", "--sigma", "1"],
     "disagree"),
    (["account", "--n", "10", "--T", "1", "--sigma", "1", "--delta", "2"], "delta must lie in"),
    (["account", "--n", "10", "--T", "1", "--sigma", "one"], "sigma must be a number"),
    (["account", "--n", "10", "--T", "1", "--sigma", "1", "--learning-rate", "3"], "unrecognized arguments"),
    (["calibrate", "--n", "10", "--T", "1", "--Delta", "1", "--eps", "1"], "give eps and delta"),
    (["calibrate", "--n", "10", "--T", "1", "--sigma", "1", "--mu", "1"], "unrecognized arguments"),
])
def test_bad_input_exit_2_one_line(capsys, argv, message):
    assert main(argv) == 2
    assert message in _error_line(capsys)


def test_unknown_toml_key_exit_2(tmp_path, capsys):
    config = tmp_path / "run.toml"
    config.write_text("n = 100\nT = 10\nsigma = 1.0\nlr = 0.1\n")
    assert main(["account", "--config", str(config)]) == 2
    assert "unknown key 'lr'" in _error_line(capsys)


def test_unreachable_target_exit_2(capsys, verdict_file):
    flags = ["--n", "1000", "--T", "100", "--eta", "0.1", "--Delta", "1", "--m", "0.1", "--M", "1"]
    assert main(["calibrate", *flags, "--mu", "1e-9", "--verdicts", verdict_file]) == 2
    assert "target unreachable" in _error_line(capsys)
