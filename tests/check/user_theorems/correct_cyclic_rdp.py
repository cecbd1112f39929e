"""Cyclic noisy GD in RDP: alpha E Delta^2/(2 b^2 sigma^2), the RDP of Bok et al. Thm 4.4's
sqrt(E) Delta/(b sigma)-GDP."""
from verify.theorem import Setting, Source, Theorem, sym

SRC = Source("self-test", "a correct bound that must never be flagged")

CYCLIC_RDP = Theorem(
    id="user/cyclic-rdp", title="cyclic noisy GD, RDP composition", source=SRC,
    notion="rdp", kind="upper", setting=Setting(batches="cyclic", loss="any"),
    bound=sym.alpha * sym.E * sym.Delta**2 / (2 * sym.b**2 * sym.sigma**2))
