"""The composition operators keep their results by argument values in the PLD cache (verify.privacy.pld.CACHE):
a repeated point is answered without recomputing, with the same values, and the cache's clearing clears them."""

from __future__ import annotations

import numpy as np

from verify.privacy import operators, pld


def test_a_repeated_point_is_answered_from_the_cache_with_the_same_values(monkeypatch):
    calls = []
    direct = operators._symm_subsampled_shift_delta

    def counted(*args):
        calls.append(1)
        return direct(*args)

    remembered = operators._remembered("test-shift", counted)
    p, mu, k = 0.05, 1.2, np.array([1.0, 3.0, 6.0])
    mu_last, eps = np.array([2.0, 1.0, 0.5]), 1.0
    pld.CACHE.clear()
    first = remembered(p, mu, k, mu_last, eps)
    np.testing.assert_array_equal(first, direct(p, mu, k, mu_last, eps))
    first[:] = -1.0  # the caller's copy: the kept values are not changed through it
    second = remembered(p, mu, k, mu_last, eps)
    assert len(calls) == 1
    np.testing.assert_array_equal(second, direct(p, mu, k, mu_last, eps))
    assert remembered(p, mu, k, mu_last, 1.5).shape == (3,) and len(calls) == 2  # another point: computed
    scalar = remembered(p, mu, 2.0, 0.7, eps)
    assert np.shape(scalar) == () and len(calls) == 3  # scalars keep their shape
    pld.CACHE.clear()
    remembered(p, mu, k, mu_last, eps)
    assert len(calls) == 4


def test_registered_composition_operators_are_remembered():
    for name in ("SymmSubsampledGaussianDelta", "SymmSubsampledGaussianShiftDelta",
                 "PoissonSubsampledGaussianDelta", "PoissonSubsampledGaussianEps"):
        numeric = operators.OPERATORS[name].numeric
        assert numeric.__qualname__.startswith("_remembered"), name


def test_rdp_accountant_operators_are_remembered_apart_from_plds():
    """The RDP operators keep their values in the small-values cache (importing no PLD machinery): a
    repeated grid is answered from it, with the values of the direct computation."""
    for name in ("SampledGaussianRDPMax", "RDPAccountantEpsClassical", "RDPAccountantEpsImproved"):
        assert operators.OPERATORS[name].numeric.__qualname__.startswith("_remembered"), name
    remembered = operators.OPERATORS["SampledGaussianRDPMax"].numeric
    q, z, alpha, steps = 0.05, np.array([[0.8], [1.3]]), np.array([1.5, 2.0, 8.0, 64.0]), 100.0
    operators._VALUES.clear()
    first = remembered(q, z, alpha, steps)
    direct = operators._sampled_gaussian_rdp(q, z, alpha, steps)
    assert first.shape == (2, 4)
    np.testing.assert_array_equal(first, direct)
    hits = operators._VALUES.hits
    first[:] = -1.0  # the caller's copy
    np.testing.assert_array_equal(remembered(q, z, alpha, steps), direct)
    assert operators._VALUES.hits == hits + 1
    eps = operators.OPERATORS["RDPAccountantEpsImproved"].numeric(0.05, 1.1, 1000.0, np.array([1e-5, 1e-6]))
    assert eps.shape == (2,) and eps[0] < eps[1]  # a smaller delta costs more eps
