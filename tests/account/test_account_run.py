"""The run description: canonical units, derived quantities, contradictions ("Bad input")."""

from __future__ import annotations

import math

import pytest

from verify.account.run import Run, RunError


def test_cyclic_epochs_give_steps_and_batches_per_epoch():
    run = Run.from_mapping(dict(n=60000, b=1500, batches="cyclic", epochs=50, sigma=0.01, Delta=10))
    assert run.T == 2000  # l = n/b = 40 batches per epoch (Bok et al. D.2)
    p = run.parameters()
    assert (p["l"], p["E"], p["q"]) == (40.0, 50.0, 0.025)


def test_steps_give_epochs():
    run = Run.from_mapping(dict(n=100, b=10, batches="cyclic", T=30, sigma=1.0))
    assert run.epochs == 3.0


def test_poisson_epochs_round_the_step_count_up():
    # 60000/256 = 234.375 steps per epoch; 2 epochs = 468.75 -> 469 steps (never fewer)
    run = Run.from_mapping(dict(n=60000, b=256, batches="poisson", epochs=2, sigma=1.0))
    assert run.T == 469
    assert "E" not in run.parameters() and "l" not in run.parameters()


def test_dp_sgd_noise_multiplier_and_clipping_norm():
    run = Run.from_mapping(dict(n=1000, b=100, batches="poisson", T=10, z=1.2, Cclip=3.0, adjacency="add_remove"))
    assert math.isclose(run.sigma, 1.2 * 3.0 / 100)  # sigma = z*Cclip/b (docs/conventions.md)
    assert run.Delta == 3.0  # add/remove: sup |clipped gradient|
    assert math.isclose(run.parameters()["z"], 1.2)


def test_lipschitz_constant_gives_the_sensitivity():
    assert Run.from_mapping(dict(n=10, T=1, sigma=1.0, L=1.5)).Delta == 3.0  # replace: 2L
    assert Run.from_mapping(dict(n=10, T=1, sigma=1.0, L=1.5, adjacency="add_remove")).Delta == 1.5


def test_loss_class_follows_m():
    assert Run.from_mapping(dict(n=10, T=1, sigma=1.0, m=0.5, M=1.0)).loss == "strongly_convex"
    assert Run.from_mapping(dict(n=10, T=1, sigma=1.0, m=0.0, M=1.0)).loss == "convex"
    assert Run.from_mapping(dict(n=10, T=1, sigma=1.0)).loss == "any"


def test_toml_file_and_overrides(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('n = 60000\nb = 1500\nbatches = "cyclic"\nepochs = 50\neta = 0.05\nsigma = 0.01\n'
                    'Delta = 10\nm = 0.002\nM = 32.002\n')
    run = Run.from_toml(path)
    assert (run.T, run.loss, run.D) == (2000, "strongly_convex", None)
    assert Run.from_toml(path, {"epochs": 100}).T == 4000


@pytest.mark.parametrize("values, message", [
    (dict(n=10, b=20, batches="cyclic", T=1, sigma=1.0), "exceeds dataset size"),
    (dict(n=10, b=5, batches="cyclic", T=5, epochs=3, sigma=1.0), "disagree"),
    (dict(n=60000, b=256, batches="poisson", T=400, epochs=2, sigma=1.0), "disagree"),
    (dict(n=10, b=5, batches="full", T=1, sigma=1.0), "full batches need b = n"),
    (dict(n=10, b=3, batches="cyclic", T=1, sigma=1.0), "b to divide n"),
    (dict(n=10, b=5, batches="cyclic", epochs=0.3, sigma=1.0), "whole number of steps"),
    (dict(n=10, T=1), "noise is missing"),
    (dict(n=10, T=1, z=1.0), "needs the clipping norm"),
    (dict(n=10, b=5, batches="uniform", T=1, z=1.0, Cclip=1.0, sigma=3.0), "contradicts"),
    (dict(n=10, T=1, sigma=1.0, m=2.0, M=1.0), "need M >= m"),
    (dict(n=10, T=1, sigma=1.0, Delta=3.0, L=1.0), "exceeds"),
    (dict(n=10, T=1, sigma=-1.0), "sigma must be > 0"),
    (dict(n=10.5, T=1, sigma=1.0), "n must be a positive integer"),
    (dict(n=10, T=1, sigma="x"), "sigma must be a number"),
    (dict(n=10, T=1, sigma=1.0, batches="random"), "batches must be one of"),
    (dict(n=10, T=1, sigma=1.0, loss="strongly_convex", m=0.0), "needs m > 0"),
    (dict(n=10, sigma=1.0), "length is missing"),
    (dict(n=10, T=1, sigma=1.0, lr=0.1), "unknown key 'lr'"),
])
def test_bad_descriptions_name_the_problem(values, message):
    with pytest.raises(RunError, match=message):
        Run.from_mapping(values)


def test_unknown_toml_key_is_named(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text("n = 100\nT = 5\nsigma = 1.0\nlearning_rate = 0.1\n")
    with pytest.raises(RunError, match="unknown key 'learning_rate'"):
        Run.from_toml(path)
    path.write_text("n = 100\n[optimizer]\neta = 0.1\n")
    with pytest.raises(RunError, match="unknown key 'optimizer'"):
        Run.from_toml(path)
    path.write_text("n = = 100\n")
    with pytest.raises(RunError, match="not valid TOML"):
        Run.from_toml(path)


@pytest.mark.parametrize("values, parameter", [
    (dict(n=10, T=1, sigma=-1.0), "sigma"),
    (dict(n=10, b=20, batches="cyclic", T=1, sigma=1.0), "b"),
    (dict(n=10, T=1, sigma=1.0, Delta=3.0, L=1.0), "Delta"),
    (dict(n=10, T=1, sigma=1.0, lr=0.1), "lr"),
    (dict(n=10, sigma=1.0), "T"),
    (dict(n=100, b=10, batches="cyclic", epochs=1e308, sigma=1.0), "epochs"),  # overflowed to inf steps
    (dict(n=100, b=10, batches="cyclic", T=1e300, sigma=1.0), "T"),
])
def test_run_errors_are_input_errors_naming_the_key(values, parameter):
    from verify.errors import InputError

    with pytest.raises(InputError) as info:
        Run.from_mapping(values)
    assert isinstance(info.value, RunError) and info.value.parameter == parameter


def test_sensitivity_and_noise_follow_the_vocabulary_relations():
    # Delta <= 2L (replace) or L (add/remove); sigma = z*Cclip/b (docs/conventions.md), written out here by hand
    run = Run.from_mapping(dict(n=100, b=10, batches="uniform", T=5, z=2.0, Cclip=0.5, adjacency="replace"))
    assert (run.sigma, run.Delta) == (2.0 * 0.5 / 10, 1.0)
    assert run.parameters()["z"] == pytest.approx(10 * 0.1 / 1.0)  # effective multiplier b*sigma/Delta
    assert run.with_sigma(0.2).z == pytest.approx(0.2 * 10 / 0.5)
