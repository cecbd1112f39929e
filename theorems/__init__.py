"""The theorem registry: every result of the four papers and the classical baselines.

One module per paper (``chourasia2021``, ``bu2020``, ``bok2024``, ``altschuler2022``) and
``baselines``; each holds module-level :class:`verify.theorem.Theorem` records.

    >>> import theorems
    >>> theorems.get("bok2024/thm4.2").evaluate(...)
"""

from __future__ import annotations

import functools
import importlib

from verify.theorem import Theorem, theorems_in

MODULES: tuple[str, ...] = ("baselines", "chourasia2021", "bu2020", "bok2024", "altschuler2022", "derived")


@functools.cache
def _registry() -> dict[str, Theorem]:
    registry: dict[str, Theorem] = {}
    for name in MODULES:
        try:
            module = importlib.import_module(f"theorems.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"theorems.{name}":
                continue  # paper not encoded yet
            raise
        for theorem in theorems_in(vars(module)):
            if theorem.id in registry:
                raise ValueError(f"duplicate theorem id {theorem.id!r} in theorems.{name}")
            registry[theorem.id] = theorem
    return registry


def all(printed: bool = True) -> list[Theorem]:  # noqa: A001 - the DESIGN names it theorems.all()
    """Every registered theorem, in registry order; ``printed=False`` drops the "as printed" variants."""
    return [t for t in _registry().values() if printed or not t.is_printed_variant]


def get(theorem_id: str) -> Theorem:
    """The theorem with this id; ``KeyError`` naming close matches when there is none."""
    registry = _registry()
    try:
        return registry[theorem_id]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(theorem_id, registry, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise KeyError(f"unknown theorem id {theorem_id!r}{hint}") from None


def ids() -> list[str]:
    return list(_registry())
