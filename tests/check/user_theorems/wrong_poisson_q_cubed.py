"""Small-q bound on the Poisson-subsampled Gaussian's Renyi divergence with q^3 for q^2 (Altschuler-Talwar
Lemma 2.12 reads 2 alpha q^2/z^2).

Unsound: q = 0.1, z = 4, alpha = 2: the exact order-2 divergence is log(1 + q^2 (e^{1/z^2} - 1)) =
6.44737e-4 (closed form at alpha = 2, mpmath), bound 2*2*0.001/16 = 2.5e-4.
"""
import sympy as sp

from verify.theorem import Assumption, Setting, Source, Theorem, sym

SRC = Source("self-test", "sampling rate q^3 for q^2")

Q_CUBED = Theorem(
    id="user/poisson-q-cubed", title="sampled Gaussian RDP with q^3", source=SRC,
    notion="rdp", kind="upper", setting=Setting(algorithm="gaussian_mechanism", batches="poisson", adjacency="any"),
    bound=2 * sym.alpha * sym.q**3 / sym.z**2,
    assumptions=(Assumption(sym.q < sp.Rational(1, 5)), Assumption(sym.z >= 4), Assumption(sym.alpha <= 8)))
