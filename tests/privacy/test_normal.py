"""The standard normal of verify.privacy.gaussian (scipy.special) against scipy.stats.norm, bitwise.

scipy.stats is not imported by the package (0.6 s of import); its ``norm`` is the reference here.
"""

import numpy as np
import pytest
from scipy.stats import norm

from verify.privacy import gaussian

X = np.concatenate([
    -np.geomspace(1e-300, 1e300, 601), [0.0, -0.0], np.geomspace(1e-300, 1e300, 601),
    np.linspace(-40.0, 40.0, 8001), [np.inf, -np.inf, np.nan],
])
P = np.concatenate([np.geomspace(1e-320, 0.5, 700), 1.0 - np.geomspace(1e-16, 0.5, 300),
                    np.linspace(0.0, 1.0, 1001), [np.nan]])


@pytest.mark.parametrize("name, grid", [
    ("cdf", X), ("logcdf", X), ("sf", X), ("logsf", X), ("pdf", X), ("ppf", P), ("isf", P)])
def test_bitwise_equal_to_scipy_stats(name, grid):
    ours = np.asarray(getattr(gaussian, f"_norm_{name}")(grid))
    with np.errstate(over="ignore"):  # scipy.stats' pdf squares 1e300
        theirs = np.asarray(getattr(norm, name)(grid))
    assert ours.dtype == theirs.dtype == np.float64
    assert np.array_equal(ours, theirs, equal_nan=True)
    # the same bits, but for the sign of log(1) = 0 at x = +-inf (scipy.stats fills in +0.0 at the
    # support's ends, log_ndtr(inf) is -0.0); no caller can tell them apart
    same_bits = (ours.view(np.int64) == theirs.view(np.int64)) | np.isnan(theirs)
    assert np.array_equal(np.flatnonzero(~same_bits),
                          np.flatnonzero(np.isinf(grid) & (theirs == 0.0)) if name in ("logcdf", "logsf") else [])


def test_scalars_stay_scalars():
    assert np.ndim(gaussian._norm_cdf(0.3)) == 0 and gaussian._norm_cdf(0.3) == norm.cdf(0.3)
    assert gaussian._norm_isf(1e-10) == norm.isf(1e-10)


def test_registry_import_does_not_load_scipy_stats_or_dp_accounting(fresh_registry_import):
    assert fresh_registry_import["modules"] == []
