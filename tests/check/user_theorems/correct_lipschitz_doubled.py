"""Noisy GD stated in the Lipschitz constant under replace adjacency, with the sensitivity 2L."""
import sympy as sp

from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "a correct bound that must never be flagged")

LIPSCHITZ = Theorem(
    id="user/gd-lipschitz-2L", title="noisy GD with sensitivity 2L (replace adjacency)", source=SRC,
    notion="gdp", kind="upper", setting=Setting(batches="full", loss="lipschitz", adjacency="replace"),
    bound=2 * sp.sqrt(sym.T) * sym.L / (sym.n * sym.sigma))
