"""A pytest entry point for users' own suites.

    from verify.testing import assert_sound

    def test_my_bound():
        assert_sound(MY_THEOREM, max_examples=50)
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from verify.check.suite import lookup_with as _lookup
from verify.check.engine import check_theorem, search_effort
from verify.check.verdict import Verdict
from verify.errors import InputError
from verify.theorem import Theorem
from verify.validate import integer


def check(theorem: Theorem, max_examples: int = 40, seed: int = 0, profile_name: str = "quick") -> Verdict:
    """Run every obligation on ``theorem`` and return the verdict (``max_examples``: the random draws of the
    soundness search, at most 100,000; ``seed``: a non-negative integer)."""
    where = "verify.testing.check"
    if not isinstance(theorem, Theorem):
        raise InputError(f"theorem must be a verify.Theorem record, got {type(theorem).__name__}", "theorem", where)
    max_examples = integer("max_examples", max_examples, where, high=100_000)
    seed = integer("seed", seed, where, low=0)
    effort = replace(search_effort(profile_name), examples=max_examples)
    if not theorem.origin and theorem.id not in _registry_ids():
        theorem = replace(theorem, origin=_defining_file(theorem))  # its replay lines name the file
    return check_theorem(theorem, _lookup([theorem]), effort, seed)


def _registry_ids() -> set[str]:
    import theorems

    return set(theorems.ids())


def _defining_file(theorem: Theorem) -> str:
    """The file of the module that holds ``theorem`` at module level (relative to the working folder when
    below it), so that ``verify eval FILE::ID`` finds it again; "" when no module does."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and any(value is theorem for value in list(vars(module).values())):
            path = Path(file).resolve()
            try:
                return str(path.relative_to(Path.cwd()))
            except ValueError:
                return str(path)
    return ""


def assert_sound(theorem: Theorem, max_examples: int = 40, seed: int = 0, require_verified: bool = False) -> Verdict:
    """Fail (AssertionError with the counterexample) when any obligation finds ``theorem`` violated.

    With ``require_verified`` an ``inconclusive`` verdict fails too: use it when the theorem's setting
    is covered by an exact reference and you want proof that it was compared.
    """
    verdict = check(theorem, max_examples=max_examples, seed=seed)
    if verdict.verdict in ("violated", "ill-formed"):
        replays = "".join(f"\n{what}, replay with:\n  {line}" for what, line in verdict.replay_lines())
        raise AssertionError(f"{theorem.id} is {verdict.verdict}: {verdict.reason}" + (replays or
                             f"\ncounterexample: {verdict.counterexample}"))
    if require_verified and verdict.verdict != "verified":
        raise AssertionError(f"{theorem.id} is {verdict.verdict}, not verified: {verdict.reason}")
    return verdict
