"""This project's accountant inside Opacus: ``PrivacyEngine(accountant="verify")``.

    >>> import verify.account.opacus                      # registers the mechanism name "verify"
    >>> engine = opacus.PrivacyEngine(accountant="verify")   # doctest: +SKIP
    >>> ... train ...
    >>> engine.get_epsilon(1e-5)                          # the smallest verified bound, a float
    >>> engine.accountant.explain(1e-5)                   # with its theorem, verdict and bracket

:class:`VerifyAccountant` is an Opacus ``IAccountant``.  It keeps Opacus' history format (a list of
``(noise_multiplier, sample_rate, steps)``, as the PRV and RDP accountants do), so ``state_dict`` /
``load_state_dict`` and Opacus' ``get_noise_multiplier(accountant="verify")`` work unchanged.  Opacus
samples batches by Poisson sampling and clips per-example gradients (add/remove adjacency, noise
multiplier relative to the clipping norm): each query is a :class:`verify.Accountant` over the history,
whose answer is the PLD composition of the steps under the verified ``bu2020/thm3``.

Opacus (``pip install -e '.[opacus]'``: ``opacus==1.6.0``, ``torch==2.13.0``) is an optional extra;
nothing else in the package imports this module.
"""

from __future__ import annotations

from typing import Mapping

from opacus.accountants import IAccountant, register_accountant

from verify.account.running import Accountant, Answer
from verify.privacy.pld import DEFAULT_INTERVAL

#: the name Opacus knows this accountant by
MECHANISM = "verify"


class VerifyAccountant(IAccountant):
    """Opacus accountant answering with the smallest bound this project has verified (see module docstring).

    ``accuracy``: the PLD's loss discretisation (default 1e-4); ``verdicts``: as for
    :func:`verify.account.account`.  Opacus builds accountants with no arguments; both have defaults.
    """

    def __init__(self, *, accuracy: float = DEFAULT_INTERVAL, verdicts: Mapping[str, str] | str | None = None):
        super().__init__()
        self.accuracy = accuracy
        self.verdicts = verdicts

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            z, q, steps = self.history[-1]
            self.history[-1] = (z, q, steps + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def accountant(self) -> Accountant:
        """The :class:`verify.Accountant` of the steps so far (Poisson batches, add/remove adjacency)."""
        acc = Accountant(adjacency="add_remove", accuracy=self.accuracy, verdicts=self.verdicts)
        for z, q, steps in self.history:
            acc.step(noise_multiplier=z, sample_rate=q, batches="poisson", steps=steps)
        return acc

    def get_epsilon(self, delta: float, **kwargs) -> float:
        """The smallest verified epsilon at ``delta`` (Opacus' interface: a float)."""
        return float(self.accountant().epsilon(delta, bracket=False))

    def explain(self, delta: float) -> Answer:
        """The answer with its provenance (theorem, verdict) and its bracket ``[lower, upper]``."""
        return self.accountant().epsilon(delta)

    def __len__(self) -> int:
        return sum(steps for _, _, steps in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM


register_accountant(MECHANISM, VerifyAccountant, force=True)  # force: importing the module again re-registers

__all__ = ["MECHANISM", "VerifyAccountant"]
