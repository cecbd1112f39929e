"""A symbolic-plus-numeric verifier for privacy theorems of noisy gradient methods.

``verify.Theorem`` (with ``verify.sym``, ``verify.Setting``, ``verify.Assumption``, ``verify.Source``) writes a
theorem record; ``verify.testing.assert_sound`` checks one from a test; ``verify.Accountant`` accounts a
training run with the verified theorems.  The architecture: ``docs/architecture.md``.
"""

__version__ = "0.1.0"


#: what a theorem file needs, read lazily from ``verify.theorem`` (importing ``verify`` stays cheap)
RECORDS = ("Theorem", "Assumption", "Claim", "Erratum", "FreeParameter", "Setting", "Source", "Step", "Reading",
           "Exact", "sym")


def __getattr__(name: str):
    """Lazy ``verify.account(...)``, ``verify.calibrate(...)``, ``verify.Accountant`` and the record types
    (``verify.Theorem``, ``verify.sym``, ...), without import-time cost."""
    if name in ("account", "calibrate", "Accountant"):
        from verify.account import Accountant, account, calibrate

        return {"account": account, "calibrate": calibrate, "Accountant": Accountant}[name]
    if name in RECORDS:
        from verify import theorem

        return getattr(theorem, name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(["account", "calibrate", "Accountant", "__version__", *RECORDS])
