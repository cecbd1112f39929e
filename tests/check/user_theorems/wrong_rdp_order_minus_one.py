"""Noisy GD's RDP with the order off by one: (alpha - 1) T Delta^2/(2 n^2 sigma^2) for alpha T Delta^2/(...).

Unsound: n = T = Delta = sigma = 1, alpha = 2: exact Renyi divergence of the Gaussian pair alpha mu^2/2 = 1,
bound 1/2.
"""
from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "Renyi order off by one")

ORDER = Theorem(
    id="user/gd-rdp-order-minus-one", title="noisy GD RDP with alpha - 1 for alpha", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="full", loss="any"),
    bound=(sym.alpha - 1) * sym.T * sym.Delta**2 / (2 * sym.n**2 * sym.sigma**2))
