"""The classical RDP -> DP conversion rho + 2 sqrt(rho log(1/delta)) with its factor 2 dropped, for noisy GD
(rho = T Delta^2/(2 n^2 sigma^2)).

Unsound already at mu = 1: n = T = Delta = sigma = 1 (rho = 1/2), delta = 1e-5: exact eps(delta) of 1-GDP
4.37718 (mpmath), bound 1/2 + sqrt(log(1e5)/2) = 2.89926 (the correct conversion gives 5.29853).
"""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "RDP -> DP conversion with a factor dropped")
RHO = sym.T * sym.Delta**2 / (2 * sym.n**2 * sym.sigma**2)

MISSING_2 = Theorem(
    id="user/gd-eps-classical-missing-2", title="noisy GD, rho + sqrt(rho log(1/delta))", source=SRC,
    notion="eps_delta", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=RHO + sp.sqrt(RHO * sp.log(1 / sym.delta)))
