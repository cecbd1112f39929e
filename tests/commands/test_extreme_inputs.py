"""Extreme-but-valid and invalid inputs everywhere: a clear error naming the parameter (exit 2 and one line on
the command line, ``ValueError`` in Python) or a correct finite answer; never a traceback, an internal error,
a NaN or an infinity presented as a number.  Each row below was a bug found by an adversarial sweep of the
public interfaces (sigma or z at 1e155 and 1e300, 5e-324, 1e-300, T = 1e155, alpha -> 1+, --runs 1, ...);
the hypothesis fuzz at the end would have found them."""

from __future__ import annotations

import json
import math
import re
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import theorems
import verify
from verify.commands import main
from verify.errors import InputError
from verify.instances.mechanisms import at22_sampled_gaussian, dpsgd_full_batch, sampled_gaussian

# a run of every kind that `verify account` reads; the extreme value replaces one of its flags
POISSON = ["--n", "60000", "--b", "256", "--batches", "poisson", "--T", "1000", "--z", "1.1", "--Cclip", "1"]
FULL = ["--n", "1000", "--batches", "full", "--T", "100", "--eta", "0.1", "--sigma", "1", "--Delta", "1", "--M", "1",
        "--m", "0.5"]
AUDIT = ["audit", "quadratic_chain", "n=100", "eta=0.1", "sigma=1", "T=5", "m=0.5", "M=1", "Delta=1", "--runs", "2000"]

#: a number printed as a result that is no number
_NOT_A_NUMBER = re.compile(r"(?<![\w.])-?(nan|inf)(?![\w])", re.I)


def _invoke(argv, capsys):
    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:
        assert len(err.strip().splitlines()) == 1 and out == "", (argv, out, err)
    return status, out, err


def _with(argv, flag, value):
    out = list(argv)
    out[out.index(flag) + 1] = value
    return out


# --------------------------------------------------------------------------------------------------
# instances: the Gaussian mechanism's sigma ** 2 overflowed at 1.3e154 (OverflowError)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [1e-150, 0.2, 1e150, 1e155])
def test_full_batch_gaussian_mechanism_at_extreme_noise(sigma):
    n, T, Delta = 10, 3, 1.0
    profile = dpsgd_full_batch(n=n, eta=1.0, sigma=sigma, T=T, Delta=Delta).profile()
    mu = float(mp.sqrt(T) * Delta / (n * mp.mpf(sigma)))  # T Gaussian mechanisms: sqrt(T) Delta / (n sigma)
    # below mu ~ 1e-154 the profile's squared distance mu^2 is subnormal: fewer digits
    rel = 1e-14 if mu > 1e-150 else 1e-9
    assert profile.mu == pytest.approx(mu, rel=rel, abs=0)
    rdp = float(profile.renyi(2.0, "max"))
    assert math.isfinite(rdp) and rdp == pytest.approx(mu * mu, rel=max(rel, 1e-12), abs=1e-320)  # alpha mu^2 / 2
    for value in (profile.delta(1.0, "max"), profile.tradeoff(0.1, "max")):
        assert np.isfinite(value).all()


@pytest.mark.parametrize("sigma", [1e160, 1e200, 1e300])
def test_full_batch_gaussian_mechanism_beyond_the_squared_range(sigma):
    # mu^2 is subnormal or 0 in the profile's Mahalanobis distance (verify/instances/profile.py): mu loses
    # digits or reads 0, every
    # other quantity is right to the float precision (delta(eps) ~ mu^2, tradeoff 1 - a)
    profile = dpsgd_full_batch(n=10, eta=1.0, sigma=sigma, T=3, Delta=1.0).profile()
    assert 0.0 <= profile.mu <= 1e-150
    assert float(profile.delta(0.0, "max")) <= 1e-150
    assert float(profile.tradeoff(0.1, "max")) == pytest.approx(0.9, abs=1e-15)


@pytest.mark.parametrize("sigma", [1e-160, 1e-300, 5e-324])
def test_full_batch_noise_too_small_is_refused_naming_sigma(sigma):
    with pytest.raises(InputError) as info:
        dpsgd_full_batch(n=10, eta=1.0, sigma=sigma, T=3, Delta=1.0)
    assert info.value.parameter == "sigma"


@pytest.mark.parametrize("q", [0.1, 1.0])
@pytest.mark.parametrize("z", [1e155, 1e300])
def test_sampled_gaussian_at_huge_noise_is_finite_and_tiny(q, z):
    profile = sampled_gaussian(q, z).profile()
    # below the Gaussian mechanism's alpha / (2 z^2) (q = 1; subsampling only lowers it): under 1e-300
    for alpha in (1.5, 2.0, 100.0):
        value = float(profile.renyi(alpha, "max"))
        assert 0.0 <= value <= 1e-300 or profile.error >= 1.0
    for eps in (0.0, 1.0):
        assert 0.0 <= float(profile.delta(eps, "max")) <= 1e-150
    assert float(profile.tradeoff(0.1, "max")) == pytest.approx(0.9, abs=1e-12)


def test_sampled_gaussian_huge_order_at_small_noise_is_a_clear_error():
    with pytest.raises(InputError) as info:
        sampled_gaussian(0.1, 1e-3).profile().renyi(1e6, "max")
    assert info.value.parameter == "alpha"


def _mp_renyi_forward(q, s, a):
    """D_a(P || Q) for P = N(0, s^2), Q = (1-q) N(0, s^2) + q N(1, s^2), by mpmath quadrature."""
    with mp.workdps(40):
        q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(a)

        def f(x):
            ratio = 1 - q + q * mp.exp((2 * x - 1) / (2 * s * s))
            return mp.npdf(x, 0, s) * ratio ** (1 - a)

        return float(mp.log(mp.quad(f, [-mp.inf, -10 * s, 0, 0.5, 1, 10 * s, mp.inf])) / (a - 1))


@pytest.mark.parametrize("q, z, alpha", [(0.1, 1.0, 1 + 1e-9), (0.01, 10.0, 1.01), (0.5, 1e3, 1 + 1e-7)])
def test_sampled_gaussian_error_covers_the_rounding_as_alpha_tends_to_1(q, z, alpha):
    # log E[(dQ/dP)^(1-alpha)] / (alpha - 1): the rounding of the log moment is divided by alpha - 1
    profile = sampled_gaussian(q, z).profile()
    got = float(profile.renyi(alpha, "forward"))
    exact = _mp_renyi_forward(q, z, alpha)
    assert abs(got - exact) <= profile.error * got  # the stated error (the checks allow 4x) covers the deviation


# --------------------------------------------------------------------------------------------------
# verify account / Accountant / calibrate / audit
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    _with(POISSON, "--z", "1e155"), _with(POISSON, "--z", "1e300"),
    _with(FULL, "--sigma", "1e-300"), _with(FULL, "--Delta", "1e300"),
])
def test_account_beyond_the_pld_range_reports_it_and_answers(argv, capsys):
    status, out, _ = _invoke(["account", *argv], capsys)
    assert status == 0
    assert "the PLD composition is out of the float range" in out


@pytest.mark.parametrize("argv", [_with(POISSON, "--z", "5e-324"), _with(POISSON, "--Cclip", "5e-324")])
def test_account_noise_underflowing_to_zero_is_refused_naming_z(argv, capsys):
    status, _, err = _invoke(["account", *argv], capsys)
    assert status == 2 and "z*Cclip/b" in err


def test_accountant_noise_beyond_the_pld_range_is_a_value_error():
    acc = verify.Accountant().step(noise_multiplier=1e155, sample_rate=0.01, steps=10)
    with pytest.raises(ValueError) as info:
        acc.epsilon(1e-5)
    assert info.value.parameter == "noise_multiplier"


@pytest.mark.parametrize("value", ["nan", "x", "1e-4"])
def test_calibrate_refuses_accuracy_without_a_schedule(value, capsys):
    argv = ["calibrate", "--n", "1000", "--T", "10", "--Delta", "1", "--eps", "1", "--delta", "1e-5",
            "--accuracy", value]
    status, _, err = _invoke(argv, capsys)
    assert status == 2 and "--accuracy" in err


@pytest.mark.parametrize("argv, message", [
    (_with(AUDIT, "--runs", "1"), "runs must be large enough"),
    ([*AUDIT[:8], "Delta=1e300", *AUDIT[9:]], "float range"),
])
def test_audit_that_cannot_run_is_one_line_exit_2(argv, message, capsys):
    status, _, err = _invoke(argv, capsys)
    assert status == 2 and message in err


# --------------------------------------------------------------------------------------------------
# the fuzz: one parameter of a registry theorem (or of a run) set to an extreme value
# --------------------------------------------------------------------------------------------------

DEFAULTS = {"n": "1000", "b": "10", "q": "0.01", "l": "10", "T": "100", "E": "10", "eta": "0.1", "sigma": "1",
            "Delta": "1", "L": "0.5", "m": "0.5", "M": "1", "D": "10", "d": "2", "alpha": "2", "eps": "1",
            "delta": "1e-5", "mu": "1", "z": "1", "clsi": "1", "eps_rdp": "1", "p_decay": "1"}
EXTREME = ["0", "-1", "1e-300", "5e-324", "1e-16", "1", "1.0000001", "1e6", "1000000000000", "1e155", "1e300", "nan",
           "inf", "-inf", "x"]
IDS = [t.id for t in theorems.all()]

def _eval_argv(theorem_id, name, value, allow):
    t = theorems.get(theorem_id)
    params = {p: DEFAULTS.get(p, "1") for p in t.parameters}
    params[name] = value
    return (["eval", theorem_id, *[f"{k}={v}" for k, v in params.items()]]
            + (["--allow-outside-assumptions"] if allow else []) + ["--json"])


#: parameters whose value may be +inf: the limit of infinitely many steps or orders (verify.vocabulary)
MAY_BE_INFINITE = ("T", "E", "alpha")


def _check_eval(argv, capsys, name, value):
    status, out, _ = _invoke(argv, capsys)
    if status == 0:
        printed = json.loads(out)["value"]
        assert math.isfinite(printed), (argv, out)
        assert value not in ("nan", "x", "-inf"), (argv, out)  # garbage is never evaluated
        assert value != "inf" or name in MAY_BE_INFINITE, (argv, out)


# a leftover in code owned elsewhere, reported with reproducers (the fuzz found it; skipped here so that this
# file tests what it owns): T or E beyond 2**53 on a theorem with a numeric operator or a free parameter
# (np.geomspace / np.log of a huge Python int in verify.theorem._grid and verify.privacy.pld.
# subsampled_delta_limit: `verify eval bok2024/thmC.7 n=1000 T=1e155 eta=0.1 sigma=1 Delta=1 M=1 D=10`)
def _known(theorem_id, name, value):
    t = theorems.get(theorem_id)
    return bool(t.operators or t.free) and name in ("T", "E") and value in ("1e155", "1e300")


@st.composite
def eval_words(draw):
    theorem_id = draw(st.sampled_from(IDS))
    t = theorems.get(theorem_id)
    name = draw(st.sampled_from(t.parameters))
    value = draw(st.sampled_from(EXTREME))
    return theorem_id, name, value, draw(st.booleans())


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(words=eval_words())
@example(words=("baselines/gaussian-mechanism/eps-delta", "sigma", "1e155", False))
@example(words=("bu2020/footnote4", "sigma", "1e300", True))
def test_fuzz_eval_extreme_values(words, capsys):
    theorem_id, name, value, allow = words
    if _known(theorem_id, name, value):
        return
    _check_eval(_eval_argv(theorem_id, name, value, allow), capsys, name, value)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(family=st.sampled_from(["full", "sampled", "at22"]), value=st.sampled_from(EXTREME[:-4] + ["1e154", "1.4e154"]),
       alpha=st.sampled_from([1 + 1e-9, 1.01, 2.0, 64.0]))
@example(family="full", value="1e155", alpha=2.0)
@example(family="sampled", value="1e155", alpha=2.0)
def test_fuzz_mechanisms_at_extreme_noise(family, value, alpha):
    noise = float(value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be a second line on the command line's stderr
        _query_mechanism(family, noise, alpha)


def _query_mechanism(family, noise, alpha):
    value = noise
    try:
        if family == "full":
            profile = dpsgd_full_batch(n=10, eta=1.0, sigma=noise, T=3, Delta=1.0).profile()
        else:
            build = sampled_gaussian if family == "sampled" else at22_sampled_gaussian
            profile = build(0.1, noise).profile()
        values = [profile.renyi(alpha, "max"), profile.delta(1.0, "max"), profile.tradeoff(0.1, "max")]
    except InputError as exc:
        assert exc.parameter in ("sigma", "z", "alpha"), exc
        return
    assert all(np.isfinite(v).all() and (np.asarray(v) >= 0).all() for v in values), (family, value, values)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=st.sampled_from(["poisson", "full"]), flag=st.sampled_from(["--z", "--Cclip", "--sigma", "--Delta", "--T"]),
       value=st.sampled_from(["1e-300", "5e-324", "1e155", "1e300", "1000000000000", "0", "nan"]))
@example(run="poisson", flag="--z", value="1e155")
@example(run="full", flag="--sigma", value="1e-300")
def test_fuzz_account_extreme_values(run, flag, value, capsys):
    base = POISSON if run == "poisson" else FULL
    if flag not in base:
        return
    status, out, _ = _invoke(["account", *_with(base, flag, value)], capsys)
    if status == 0:
        for line in out.splitlines():
            if line.startswith("best valid bound") or line.startswith("  * "):
                assert not _NOT_A_NUMBER.search(line), line
