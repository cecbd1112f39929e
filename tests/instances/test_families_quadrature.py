"""The scalar integrand of the sampled Gaussian moment (verify/instances/mechanisms.py) against the numpy
formula it replaces in quad's loop, and the moment against the Gaussian closed form.

Reference: for ``q = 1`` the pair is ``N(0, s^2)`` vs ``N(1, s^2)`` and
``log E_P[(dQ/dP)^beta] = beta (beta - 1) / (2 s^2)`` (the Gaussian moment generating function).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.instances.mechanisms import SampledGaussianProfile


def _numpy_log_f(q: float, s: float, beta: float, x: float) -> float:
    """log of the integrand, written with numpy on a 0-d array (how the quadrature evaluated it before)."""
    x = np.asarray(x)
    u = (2.0 * x - 1.0) / (2.0 * (s * s))
    ratio = u if q == 1.0 else np.logaddexp(math.log1p(-q), math.log(q) + u)
    return float(-0.5 * (x / s) ** 2 - math.log(s * math.sqrt(2 * math.pi)) + beta * ratio)


@pytest.mark.parametrize("q, s, beta", [(0.01, 0.7, 3.0), (0.3, 2.5, -1.5), (1.0, 1.3, 4.0), (0.999, 0.4, 0.5),
                                        (1e-6, 12.0, -20.0)])
def test_scalar_integrand_gives_the_numpy_formula_bit_for_bit(q, s, beta):
    profile = SampledGaussianProfile(q, s)
    log_norm = math.log(s * math.sqrt(2 * math.pi))
    top = 0.25
    integrand = profile._scalar_integrand(beta, log_norm, top)
    xs = np.concatenate([np.linspace(-40 * s - 2, 40 * s + 2, 997), [0.0, 0.5, 1.0, beta, -1e-300]])
    with np.errstate(all="ignore"):
        for x in map(float, xs):
            expected = math.exp(_numpy_log_f(q, s, beta, x) - top)
            assert integrand(x) == expected, x
    # the equal-terms branch of logaddexp (log(1-q) == log(q) + u): q = 1/2 at x = 1/2
    assert math.log1p(-0.5) == math.log(0.5)
    half = SampledGaussianProfile(0.5, 1.0)._scalar_integrand(2.0, math.log(math.sqrt(2 * math.pi)), 0.0)
    assert half(0.5) == math.exp(_numpy_log_f(0.5, 1.0, 2.0, 0.5))


@pytest.mark.parametrize("s, beta", [(0.8, 3.0), (2.0, -2.0), (5.0, 0.5)])
def test_gaussian_moment_matches_closed_form(s, beta):
    profile = SampledGaussianProfile(1.0, s)
    assert profile.log_moment(beta) == pytest.approx(beta * (beta - 1) / (2 * s * s), rel=1e-9, abs=1e-12)
