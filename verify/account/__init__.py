"""The best valid bound for a training run, and the noise a privacy target needs.

    >>> import verify
    >>> verify.account(n=60000, b=1500, batches="cyclic", epochs=50, eta=0.05, sigma=0.01,
    ...                Delta=10, m=0.002, M=32.002).best.id          # doctest: +SKIP
    'bok2024/thm4.5'
    >>> verify.calibrate(n=..., eps=4.0, delta=1e-5).sigma           # doctest: +SKIP

* :mod:`verify.account.run`: the run description (canonical units, flags or TOML) and its validation.
* :mod:`verify.account.applicability`: which theorems apply to a run (``Setting.covers``, the one rule, plus
  the accountant's policy), and why the others do not.
* :mod:`verify.account.verdicts`: which verdicts may be used (only ``verified`` ones are chosen).
* :mod:`verify.account.accountant`: conversion to the notions asked for, and the best valid bound.
* :mod:`verify.account.calibration`: the smallest sigma meeting a target, never overshooting.
* :mod:`verify.account.running`: :class:`Accountant`, a running accountant for changing schedules;
  :mod:`verify.account.composition` its phases as PLDs; :mod:`verify.account.schedule` schedule files;
  :mod:`verify.account.stepsizes` Altschuler-Talwar's eq. (5.7) for step sizes that change across phases.
* :mod:`verify.account.constants`: m, M, L, Delta of regularised logistic, ridge and Huber regression from data.
* :mod:`verify.account.opacus`: the Opacus adapter (``PrivacyEngine(accountant="verify")``; the opacus extra).
* ``verify account`` and ``verify calibrate`` are in :mod:`verify.commands.account`.
"""

import sys
import types

from verify.account.accountant import Accounting, BoundRow, account
from verify.account.applicability import Applicability, applicability
from verify.account.calibration import Calibration, CalibrationError, Target, calibrate, smallest_sigma
from verify.account.run import Run, RunError
from verify.account.running import Accountant, Answer
from verify.account.verdicts import VerdictSource, baseline_path, verdict_source

__all__ = ["Accountant", "Accounting", "Answer", "Applicability", "BoundRow", "Calibration", "CalibrationError",
           "Run", "RunError",
           "Target", "VerdictSource", "account", "applicability", "baseline_path", "calibrate",
           "smallest_sigma", "verdict_source"]


class _CallablePackage(types.ModuleType):
    """Importing ``verify.account`` binds the package to the name ``verify.account``; calling it runs
    :func:`account`, so ``verify.account(...)`` works whether or not the package was imported first."""

    def __call__(self, *args, **kwargs) -> Accounting:
        return account(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
