"""Modules imported at their first use, so that start-up (``verify list``, ``show``, ``--help``) does not
pay for libraries only a computation needs."""

from __future__ import annotations

import importlib
from typing import Any, MutableMapping


class OnFirstUse:
    """A stand-in for module ``name`` bound to ``alias`` in ``namespace`` (a module's ``globals()``): the
    first attribute read imports the module and rebinds ``alias`` to it, so later reads cost nothing more.

        special = OnFirstUse("scipy.special", globals(), "special")
    """

    def __init__(self, name: str, namespace: MutableMapping[str, Any], alias: str):
        self._name, self._namespace, self._alias = name, namespace, alias

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attribute)


__all__ = ["OnFirstUse"]
