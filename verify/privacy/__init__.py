"""The exact privacy calculus: Gaussian DP / f-DP, Rényi DP, (eps, delta), PLD composition, CLT.

One small module per notion (STYLE.md); every function broadcasts over numpy arrays, validates its
inputs (:class:`verify.errors.InputError`, a ValueError naming the parameter), returns the correct limit
at extreme parameters or raises InputError (never a NaN, never a silently smaller number, no numpy
warning) and cites the statement it implements:

* :mod:`.gaussian` — ``G_mu``, GDP <-> (eps, delta), GDP -> RDP, the Gaussian mechanism.
* :mod:`.rdp` — RDP -> (eps, delta) (classical and improved), the sampled Gaussian mechanism, AT22.
* :mod:`.fdp` — ``f_{eps,delta}``, tradeoff -> delta by convex duality, the subsampling operator ``C_p``.
* :mod:`.pld` — exact (pessimistic) composition of subsampled Gaussians via ``dp_accounting``.
* :mod:`.clt` — CLT approximations (Bu et al.; Bok et al.).

:mod:`.pld` is imported on first use of its names: ``dp_accounting`` loads scipy.signal and scipy.stats
(0.7 s), which the registry and ``verify list`` never need.
"""

from verify.privacy.clt import clt_mu_poisson, clt_mu_symmetric, clt_mu_uniform
from verify.privacy.fdp import (
    PiecewiseLinearTradeoff,
    delta_from_tradeoff,
    subsample_tradeoff,
    subsampled_gaussian_delta,
    subsampled_gaussian_tradeoff,
    tradeoff_eps_delta,
)
from verify.privacy.gaussian import (
    gaussian_mechanism_delta,
    gaussian_mechanism_eps,
    gaussian_mechanism_mu,
    gaussian_mechanism_rdp,
    gdp_delta,
    gdp_eps,
    gdp_log_delta,
    gdp_to_rdp,
    tradeoff_gaussian,
    tradeoff_gaussian_inverse,
)
from verify.privacy.rdp import (
    at22_alpha_star,
    at22_S,
    rdp_to_delta,
    rdp_to_dp_classical,
    rdp_to_dp_continuous,
    rdp_to_dp_improved,
    sampled_gaussian_rdp,
)

__all__ = [
    "Composition",
    "PiecewiseLinearTradeoff",
    "at22_S",
    "at22_alpha_star",
    "clt_mu_poisson",
    "clt_mu_symmetric",
    "clt_mu_uniform",
    "delta_from_tradeoff",
    "gaussian_mechanism_delta",
    "gaussian_mechanism_eps",
    "gaussian_mechanism_mu",
    "gaussian_mechanism_rdp",
    "gdp_delta",
    "gdp_eps",
    "gdp_log_delta",
    "gdp_to_rdp",
    "rdp_to_delta",
    "rdp_to_dp_classical",
    "rdp_to_dp_continuous",
    "rdp_to_dp_improved",
    "sampled_gaussian_rdp",
    "subsample_tradeoff",
    "subsampled_gaussian_delta",
    "subsampled_gaussian_tradeoff",
    "symmetric_subsampled_gaussian_pld",
    "tradeoff_eps_delta",
    "tradeoff_gaussian",
    "tradeoff_gaussian_inverse",
]


def __getattr__(name: str):
    if name in ("Composition", "symmetric_subsampled_gaussian_pld"):
        from verify.privacy import pld

        return getattr(pld, name)
    raise AttributeError(f"module 'verify.privacy' has no attribute {name!r}")
