"""Poisson-subsampled Gaussian, order-2 Renyi divergence in closed form: log(1 + q^2 (e^{1/z^2} - 1)) is the
exact value at alpha = 2 of the ordered pair (Mironov et al. 2019, Sec. 3.3), and by monotonicity of the
Renyi divergence in the order it bounds every order alpha <= 2.  Under add/remove adjacency only: under replace
the pair is (1 - q) N(0, z^2) + q N(1, z^2) against (1 - q) N(0, z^2) + q N(-1, z^2), whose D_2 at q = 0.5, z = 1
is 0.8309 > 0.3574 (tests/check/test_coverage.py)."""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "a correct bound that must never be flagged")

ORDER_2 = Theorem(
    id="user/poisson-order-2", title="sampled Gaussian, RDP of order alpha <= 2 from the order-2 closed form",
    source=SRC, notion="rdp", kind="upper", setting=Setting(algorithm="gaussian_mechanism", batches="poisson",
                                               adjacency="add_remove"),
    bound=sp.log(1 + sym.q**2 * (sp.exp(1 / sym.z**2) - 1)),
    assumptions=(Assumption(sym.alpha <= 2), Assumption(sym.q < 1)))
