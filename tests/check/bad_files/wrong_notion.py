from verify.theorem import Source, Theorem, sym
T1 = Theorem(id="u/x", title="x", source=Source("u", "x"), notion="zcdp", kind="upper", bound=sym.Delta / sym.sigma)
