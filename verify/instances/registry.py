"""The family registry: every family of exact-reference instances, declared once as a record.

In the spirit of Opacus' ``register_accountant``: a family is registered with :func:`register_family`
and found through :data:`FAMILIES` (a read-only view) or :func:`family`.  The record says what the
family is (its general :class:`~verify.setting.Setting`), what its exact reference costs (:data:`COSTS`),
why that reference is exact and where the construction comes from, which kind of run
description its instances carry (how they are simulated), and which of its keywords the soundness
search draws (:attr:`Family.searched`: the worst case of an assumption class is often not at the
keyword's default, e.g. records with gradients +L and -L under replace adjacency).  Nothing else
keeps a list of families.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

from verify.errors import InputError
from verify.instances.instance import RUN_KINDS, Instance
from verify.registry import Registry
from verify.setting import Setting
from verify.validate import choice

#: what one exact reference costs: ``closed_form`` (independent of T), ``grid`` (grows with T: the
#: 1-D density evolution steps through T, as does the T-step composition of ``dpsgd_worst_step``),
#: ``composition`` (a privacy-loss-distribution composition), ``quadrature`` (numerical integration)
COSTS = ("closed_form", "grid", "composition", "quadrature")

#: how a searched keyword is drawn: ``draw(u, context)`` maps a unit draw ``u`` in [0, 1] and the
#: context of the build (the builder's defaults, the canonical point, then the keywords already chosen)
#: to the keyword's value, or None to leave the keyword at its default (e.g. not meaningful there)
Draw = Callable[[float, Mapping[str, object]], object]


def reads(*names: str) -> Callable[[Draw], Draw]:
    """Declare the point quantities a :data:`Draw` reads from its context (``draw.reads``): the soundness
    search then draws only the unit coordinates that move them or what the theorem and the builders read.
    A draw without the declaration is taken to read the whole point (every coordinate is drawn)."""
    checked = _read_names(names, "reads")

    def mark(draw: Draw) -> Draw:
        draw.reads = checked
        return draw
    return mark


def _read_names(names, where: str) -> frozenset[str]:
    """``names`` as the frozenset of point quantities a draw reads; InputError unless they are names (strings)."""
    if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
        raise InputError(f"a draw reads point quantities by name (non-empty strings), got {names!r}", "reads",
                         where)
    return frozenset(names)


@dataclass(frozen=True)
class Family:
    """A parametric family of instances: ``build(**canonical params, **family keywords)``.

    * ``setting``: the (possibly general) setting covering every instance the family builds;
    * ``cost``: one of :data:`COSTS`;
    * ``exactness``: why its reference is exact (and what error estimate it carries);
    * ``source``: the paper construction it reproduces ("" for the general families);
    * ``run_kind``: the ``kind`` of its instances' :class:`~verify.instances.instance.RunDescription`,
      which says how they are simulated;
    * ``searched``: the family keywords the soundness search draws, by name, each a :data:`Draw`
      (applied in this order, so a later draw sees an earlier one's value in its context);
    * ``example``: the keywords of one valid build (as scipy's ``typical`` values): tests and the tour draw
      from the declaration, so a new family brings its own example (:meth:`example_build`).
    """

    name: str
    builder: Callable[..., Instance] = field(repr=False)
    setting: Setting
    cost: str
    exactness: str
    run_kind: str
    source: str = ""
    searched: Mapping[str, Draw] = field(default_factory=dict, compare=False, repr=False)
    example: Mapping[str, object] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"family {self.name}"
        choice("cost", self.cost, COSTS, where)
        choice("run_kind", self.run_kind, RUN_KINDS, where)
        if not isinstance(self.searched, Mapping):
            raise InputError("searched must map keyword names to draws", "searched", where)
        for name, draw in self.searched.items():
            if name not in self.parameters:
                raise InputError(f"searched keyword {name!r} is not a keyword of the builder (accepts "
                                 f"{', '.join(self.parameters)})", "searched", where)
            if not callable(draw):
                raise InputError(f"the draw of searched keyword {name!r} is not callable", "searched", where)
            if getattr(draw, "reads", None) is not None:
                _read_names(draw.reads, where)
        object.__setattr__(self, "searched", MappingProxyType(dict(self.searched)))
        if not isinstance(self.example, Mapping):
            raise InputError("example must map the builder's keywords to values", "example", where)
        unknown = sorted(set(self.example) - set(self.parameters))
        if unknown:
            raise InputError(f"example keyword {unknown[0]!r} is not a keyword of the builder", "example", where)
        object.__setattr__(self, "example", MappingProxyType(dict(self.example)))

    def __getstate__(self) -> dict:
        """Picklable: the fields only (read-only views and the cached signature are rebuilt)."""
        state = {f: getattr(self, f) for f in self.__dataclass_fields__}
        state["searched"], state["example"] = dict(self.searched), dict(self.example)
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, MappingProxyType(value) if name in ("searched", "example") else value)

    @functools.cached_property
    def _signature(self) -> Mapping[str, inspect.Parameter]:
        """The builder's parameters, read once (``build`` runs for every drawn instance)."""
        return inspect.signature(self.builder).parameters

    @property
    def description(self) -> str:
        """The first line of the builder's docstring."""
        return (self.builder.__doc__ or "").strip().split("\n")[0]

    @functools.cached_property
    def parameters(self) -> tuple[str, ...]:
        """The keywords :meth:`build` accepts (canonical names first, then family keywords)."""
        return tuple(p for p in self._signature if not p.startswith("_"))

    @functools.cached_property
    def required(self) -> tuple[str, ...]:
        """The keywords :meth:`build` cannot do without."""
        return tuple(p for p, v in self._signature.items() if v.default is inspect.Parameter.empty)

    @property
    def defaults(self) -> dict[str, object]:
        """The keywords that have a default, with it."""
        return {p: v.default for p, v in self._signature.items()
                if v.default is not inspect.Parameter.empty and not p.startswith("_")}

    def example_build(self) -> Instance:
        """The instance of :attr:`example` (InputError when the family declares none)."""
        if not self.example:
            raise InputError(f"family {self.name!r} declares no example build", "example", self.name)
        return self.build(**self.example)

    def build(self, **params) -> Instance:
        """Build one instance; :class:`~verify.errors.InputError` naming the problem for invalid (or
        unknown, or missing) parameters."""
        unknown = [k for k in params if k not in self.parameters]
        if unknown:
            raise InputError(f"unknown parameter(s) {', '.join(unknown)} (accepts {', '.join(self.parameters)})",
                             unknown[0], self.name)
        missing = [k for k in self.required if k not in params]
        if missing:
            raise InputError(f"missing parameter(s) {', '.join(missing)}", missing[0], self.name)
        return self.builder(**params)


#: the registered families by name (read-only; register with :func:`register_family`)
FAMILIES: Registry[Family] = Registry("family")


def register_family(name: str, builder: Callable[..., Instance], *, setting: Setting, cost: str, exactness: str,
                    run_kind: str, source: str = "", searched: Mapping[str, Draw] | None = None,
                    example: Mapping[str, object] | None = None, replace: bool = False) -> Family:
    """Register the family ``name`` built by ``builder`` (see :class:`Family` for the fields).

    A name is registered once; ``replace=True`` swaps the record of an existing name.
    """
    record = Family(name=name, builder=builder, setting=setting, cost=cost, exactness=exactness,
                    run_kind=run_kind, source=source, searched=dict(searched or {}), example=dict(example or {}))
    return FAMILIES.add(name, record, replace=replace, where="register_family")


def family(name: str) -> Family:
    """The registered family ``name``; :class:`~verify.errors.InputError` naming the known ones otherwise."""
    return FAMILIES.lookup(name)


__all__ = ["COSTS", "Draw", "FAMILIES", "Family", "family", "reads", "register_family"]
