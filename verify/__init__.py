"""A symbolic-plus-numeric verifier for privacy theorems of noisy gradient methods.

See ``DESIGN.md`` in the shared folder for the architecture; ``verify.theorem`` holds the
theorem record, ``verify.privacy`` the exact privacy calculus.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy ``verify.account(...)``, ``verify.calibrate(...)`` and ``verify.Accountant``,
    without import-time cost."""
    if name in ("account", "calibrate", "Accountant"):
        from verify.account import Accountant, account, calibrate

        return {"account": account, "calibrate": calibrate, "Accountant": Accountant}[name]
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
