import sympy as sp
from verify.theorem import Source, Theorem, sym
T1 = Theorem(id="u/x", title="x", source=Source("u", "x"), notion="gdp", kind="upper", bound=sp.Symbol("kappa") * sym.Delta)
