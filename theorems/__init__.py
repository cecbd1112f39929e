"""The theorem registry: every result of the four papers and the classical baselines.

One module per paper (``chourasia2021``, ``bu2020``, ``bok2024``, ``altschuler2022``) and
``baselines``; each holds module-level :class:`verify.theorem.Theorem` records.

    >>> import theorems
    >>> theorems.get("bok2024/thm4.2").evaluate(...)
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from verify.registry import Registry
from verify.theorem import Theorem, theorems_in

#: the registry's order (``verify list``, ``verify run`` and the report show the papers in it); a paper module not
#: named here follows, by name
ORDER: tuple[str, ...] = ("baselines", "chourasia2021", "bu2020", "bok2024", "altschuler2022", "derived")
#: modules of this package that hold data for the report, not theorems
DATA: tuple[str, ...] = ("findings", "tables")


def _discovered() -> tuple[str, ...]:
    """The paper modules of this package, in :data:`ORDER` first: discovered, so a new paper needs no list and a
    misspelt or deleted one is an error, never a paper silently left out."""
    found = {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")} - set(DATA)
    lost = [name for name in ORDER if name not in found]
    if lost:
        raise ImportError(f"theorems.ORDER names modules the package does not have: {', '.join(lost)}")
    return ORDER + tuple(sorted(found - set(ORDER)))


MODULES: tuple[str, ...] = _discovered()


@functools.cache
def _registry() -> Registry[Theorem]:
    registry: Registry[Theorem] = Registry("theorem id", "theorem")
    for name in MODULES:
        module = importlib.import_module(f"theorems.{name}")
        for theorem in theorems_in(vars(module)):
            registry.add(theorem.id, theorem, where=f"theorems.{name}")
    return registry


def all(printed: bool = True) -> list[Theorem]:  # noqa: A001 - docs/architecture.md names it theorems.all()
    """Every registered theorem, in registry order; ``printed=False`` drops the "as printed" variants."""
    return [t for t in _registry().values() if printed or not t.is_printed_variant]


def get(theorem_id: str) -> Theorem:
    """The theorem with this id; ``KeyError`` naming close matches when there is none."""
    registry = _registry()
    try:
        return registry[theorem_id]
    except (KeyError, TypeError):
        raise KeyError(registry.unknown(theorem_id)) from None


def ids() -> list[str]:
    return list(_registry())
