"""Mironov's RDP -> DP conversion with log(1/delta)/alpha for log(1/delta)/(alpha - 1): minimising
rho alpha + log(1/delta)/alpha over alpha gives 2 sqrt(rho log(1/delta)) (the rho term is lost), for noisy
GD with rho = T Delta^2/(2 n^2 sigma^2).

Unsound at large mu: n = 1, T = 25, Delta = sigma = 1 (mu = 5, rho = 12.5), delta = 1e-5: exact eps(delta)
of 5-GDP 33.1037 (mpmath), bound 2 sqrt(12.5 log(1e5)) = 23.9926.
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "RDP -> DP conversion with the wrong log term")
RHO = sym.T * sym.Delta**2 / (2 * sym.n**2 * sym.sigma**2)

MIRONOV_ALPHA = Theorem(
    id="user/gd-eps-mironov-alpha", title="noisy GD, RDP -> DP with log(1/delta)/alpha", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=2 * sp.sqrt(RHO * sp.log(1 / sym.delta)))
