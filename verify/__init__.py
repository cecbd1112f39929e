"""A symbolic-plus-numeric verifier for privacy theorems of noisy gradient methods.

See ``DESIGN.md`` in the shared folder for the architecture; ``verify.theorem`` holds the
theorem record, ``verify.privacy`` the exact privacy calculus.
"""

__version__ = "0.1.0"
