"""Honest semantics: special functions evaluate in every phase; NaN is ill-formed, not a violation; an internal
error never leaves a theorem verified; (eps, delta) bounds compare with the signed epsilon; a cancellation in a
closed form is not certified as a violation."""

import math

import mpmath as mp
import numpy as np
import sympy as sp

import theorems
from verify.check import certify
from verify.check.verdict import Obligation, decide
from verify.instances.profile import GaussianProfile
from verify.privacy.notions import exact_against, notion, signed_eps
from verify.testing import check
from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "semantics")
FULL_ALL = Setting(batches="full", loss="any", constraint="any", release="all")
MU = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)


def test_special_functions_evaluate_on_arrays():
    t = Theorem(id="sem/erf", title="erf", source=SRC, notion="gdp", kind="upper", setting=FULL_ALL,
                bound=MU * (1 + sp.erf(sym.T)) + sp.erfc(sym.T) + sp.loggamma(sym.T + 1) * 0)
    values = t.evaluate(n=np.array([1.0, 2.0]), T=np.array([1.0, 3.0]), sigma=1.0, Delta=1.0)
    expected = [math.sqrt(T) / n * (1 + math.erf(T)) + math.erfc(T) for n, T in ((1, 1), (2, 3))]
    assert np.allclose(values, expected, rtol=1e-14)
    verdict = check(t, max_examples=10)
    assert verdict.verdict == "verified" and not any(o.name == "internal-error" for o in verdict.obligations)


def test_nan_at_an_admissible_point_is_ill_formed_not_violated():
    t = Theorem(id="sem/nan", title="0/0 at T = 1", source=SRC, notion="gdp", kind="upper", setting=FULL_ALL,
                bound=MU * (sym.T - 1) ** 2 / (sym.T ** 2 - 2 * sym.T + 1))
    verdict = check(t, max_examples=10)
    assert verdict.verdict == "ill-formed" and "ill-formed at" in verdict.reason and "T=1" in verdict.reason
    assert not verdict.as_expected


def test_an_internal_error_never_leaves_a_theorem_verified():
    t = theorems.get("baselines/noisy-gd/gdp")
    passed = Obligation("soundness", "passed", "held")
    assert decide(t, [passed]).verdict == "verified"
    crashed = Obligation("internal-error", "inconclusive", "TypeError: boom")
    verdict = decide(t, [passed, crashed])
    assert verdict.verdict == "inconclusive" and "TypeError: boom" in verdict.reason


def test_signed_epsilon_at_a_large_delta():
    nearly = GaussianProfile(0.0, 1.0, 1e-3, 1.0)
    assert nearly.eps(0.5) == 0.0  # the floored reading
    assert abs(signed_eps(nearly, 0.5) + math.log(2)) < 1e-3  # delta(eps) -> 1 - e^eps as mu -> 0
    mu = 1.0  # independent root of mu-GDP's delta(eps) = 1/2 on eps < 0 (mpmath)
    mp.mp.dps = 30
    root = mp.findroot(lambda e: mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2) - 0.5, -0.3)
    assert abs(signed_eps(GaussianProfile(0.0, 1.0, mu, 1.0), 0.5) - float(root)) < 1e-10
    record = notion("eps_delta")
    profile = GaussianProfile(0.0, 1.0, mu, 1.0)
    assert exact_against(record, profile, 0.5, bound=-0.2) == signed_eps(profile, 0.5)  # a negative bound: signed
    assert exact_against(record, profile, 0.5, bound=0.3) == 0.0  # a non-negative bound: the floored value


def test_a_valid_negative_conversion_is_not_violated_and_a_wrong_one_is():
    # for delta >= 1/4 the signed eps(delta) of mu-GDP lies below log(1 - delta) + 3 mu + mu^2 (checked on a grid of
    # mu in [1e-4, 30] and delta in [1/4, 1/2] against mpmath-free signed roots: largest gap -3e-4), a bound that is
    # negative for small mu; twice log(1 - delta) is below the exact value for small mu (delta(eps) -> 1 - e^eps)
    gm = Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="any")
    mu = sym.Delta / (sym.n * sym.sigma)
    large = (Assumption(sym.delta >= sp.Rational(1, 4)),)
    valid = Theorem(id="sem/eps-signed", title="signed", source=SRC, notion="eps_delta", kind="upper", setting=gm,
                    bound=sp.log(1 - sym.delta) + 3 * mu + mu ** 2, assumptions=large)
    wrong = Theorem(id="sem/eps-signed-wrong", title="signed, too small", source=SRC, notion="eps_delta",
                    kind="upper", setting=gm, bound=2 * sp.log(1 - sym.delta), assumptions=large)
    verdict = check(valid, max_examples=20)
    assert verdict.verdict == "verified"
    assert verdict.max_ratio is None or verdict.max_ratio <= 1.0  # no ratio of two negative numbers in the summary
    assert check(wrong, max_examples=20).verdict == "violated"


def test_a_cancellation_is_not_certified():
    """1 - exp(-x) at x ~ 6e-283 reads 0 at 50 digits: the certified value is the one higher precisions agree on."""
    t = theorems.get("chourasia2021/thm2")
    params = {"n": 1, "T": 299, "eta": 19.998, "sigma": 100.0, "Delta": 0.01, "alpha": 1.01,
              "clsi": 9.996681147843898e-292}
    mp.mp.dps = 600
    x = mp.mpf(299) * mp.mpf(params["clsi"]) * mp.mpf(19.998) ** 2 * mp.mpf(100.0) ** 2 / 2
    reference = 2 * mp.mpf(0.01) ** 2 * mp.mpf(1.01) * (-mp.expm1(-x)) / (
        mp.mpf(params["clsi"]) * mp.mpf(19.998) ** 2 * mp.mpf(100.0) ** 4)
    mp.mp.dps = 15
    value = certify._closed_form_value(t, params)
    assert value is not None and math.isclose(value, float(reference), rel_tol=1e-14)
    assert float(t.evaluate(**params)) == 0.0  # the double-precision bound cancels to 0


def test_a_theorem_no_family_covers_says_why():
    """A bound in a quantity no family defines is refused by name, not by a bare 'no family'."""
    from verify.vocabulary import Variable, add_variable

    kappa = add_variable(Variable("kappa_semantics", "a paper's own constant (test)"))
    t = Theorem(id="sem/unknown-quantity", title="kappa", source=SRC, notion="gdp", kind="upper", setting=FULL_ALL,
                bound=MU * kappa)
    verdict = check(t, max_examples=5)
    assert verdict.verdict == "inconclusive"
    assert "no exact reference family covers this setting (instance does not define kappa_semantics" in verdict.reason
