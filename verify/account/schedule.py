"""Schedule files: a training run whose noise, sampling rate, batch size or step size change.

A schedule is a TOML or JSON file (``.json``: JSON, anything else: TOML) with optional run keys at the top
(``n``, ``adjacency``, and what :class:`~verify.account.running.Accountant` accepts: ``Cclip``,
``Delta``, ``m``, ``M``, ...) and a list ``phases`` of tables, each a run of identical steps::

    n = 60000
    [[phases]]                 # warm-up
    z = 2.0                    # noise multiplier (also: noise_multiplier)
    b = 256                    # batch size (needs n), or q / sample_rate
    steps = 500                # or epochs (needs n): ceil(epochs * n / b) steps
    [[phases]]
    noise_multiplier = 1.1
    sample_rate = 0.01
    epochs = 20
    batches = "poisson"        # default poisson; also uniform, full, cyclic, shuffle
    eta = 0.05                 # optional step size

The phases become :meth:`Accountant.step` calls; a bad key or value raises ``InputError`` naming it.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Mapping

from verify import validate
from verify.errors import InputError
from verify.vocabulary import epoch_steps

#: phase keys and their aliases (the vocabulary's names first)
PHASE_ALIASES = {"z": "noise_multiplier", "q": "sample_rate", "T": "steps"}
PHASE_KEYS = ("noise_multiplier", "sample_rate", "b", "batches", "steps", "epochs", "eta")
#: top-level keys besides ``phases``
TOP_KEYS = ("n", "adjacency", "Cclip", "Delta", "L", "m", "M", "D", "d", "loss", "init", "release")


#: the largest schedule file read (a schedule of a million phases is a few tens of MiB)
MAX_SCHEDULE_BYTES = 64 * 2**20


def read_schedule(path: str | Path) -> tuple[dict, list[dict]]:
    """``(options, steps)``: the accountant's keyword options and the :meth:`Accountant.step` arguments of
    each phase, read from a TOML or JSON schedule file."""
    path = Path(path)
    kind = "JSON" if path.suffix == ".json" else "TOML"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SCHEDULE_BYTES + 1)  # /dev/zero and the like: never read without end
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}", "schedule") from None
    if len(raw) > MAX_SCHEDULE_BYTES:
        raise InputError(f"{path}: larger than {MAX_SCHEDULE_BYTES // 2**20} MiB: not a schedule", "schedule")
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}): not a {kind} schedule", "schedule") from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{path}: not valid {kind}: {str(exc).splitlines()[0]}", "schedule") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a schedule", "schedule") from None
    return schedule_steps(data, where=str(path))


def schedule_steps(data: object, where: str = "schedule") -> tuple[dict, list[dict]]:
    """:func:`read_schedule` for an already parsed mapping."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: a schedule is a table with a list 'phases'", "schedule")
    unknown = sorted(set(data) - set(TOP_KEYS) - {"phases"})
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: phases, {', '.join(TOP_KEYS)})", unknown[0])
    phases = data.get("phases")
    if not isinstance(phases, list) or not phases:
        raise InputError(f"{where}: 'phases' must be a non-empty list of tables", "phases")
    options = {k: v for k, v in data.items() if k != "phases"}
    n = validate.integer("n", options["n"], where) if "n" in options else None
    return options, [_phase(p, i + 1, n, where) for i, p in enumerate(phases)]


def _phase(raw: object, index: int, n: int | None, where: str) -> dict:
    at = f"{where}, phase {index}"
    if not isinstance(raw, Mapping):
        raise InputError(f"{at}: a phase must be a table, got {raw!r}", "phases")
    values = {PHASE_ALIASES.get(k, k): v for k, v in raw.items()}
    unknown = sorted(set(values) - set(PHASE_KEYS))
    if unknown:
        raise InputError(f"{at}: unknown key {unknown[0]!r} (known: {', '.join(PHASE_KEYS)}, z, q, T)", unknown[0])
    batches = values.get("batches", "poisson")
    step = {"noise_multiplier": values.get("noise_multiplier"), "batches": batches}
    if "noise_multiplier" not in values:
        raise InputError(f"{at}: the noise multiplier z is required", "noise_multiplier")
    q = values.get("sample_rate")
    if "b" in values:
        b = validate.integer("b", values["b"], at)
        if n is None:
            raise InputError(f"{at}: a batch size b needs the dataset size n at the top of the schedule", "n")
        if b > n:
            raise InputError(f"{at}: batch size b={b} exceeds n={n}", "b")
        if q is not None and not math.isclose(validate.number("sample_rate", q, at), b / n, rel_tol=1e-9):
            raise InputError(f"{at}: sample_rate={q} contradicts b/n = {b / n:g}", "sample_rate")
        q = b / n
    if batches != "full":
        step["sample_rate"] = q
    if "steps" in values and "epochs" in values:
        raise InputError(f"{at}: give steps or epochs, not both", "epochs")
    if "epochs" in values:
        epochs = validate.positive("epochs", values["epochs"], at)
        rate = 1.0 if batches == "full" else (validate.probability("sample_rate", q, at) if q is not None else None)
        if rate is None:
            raise InputError(f"{at}: epochs need the sampling rate (q, sample_rate, or b with n)", "sample_rate")
        if not epochs / rate <= 2.0 ** 53:
            raise InputError(f"{at}: epochs={epochs:g} gives more than 2^53 steps", "epochs")
        step["steps"] = epoch_steps(epochs, 1.0 / rate)
    elif "steps" in values:
        step["steps"] = values["steps"]
    else:
        raise InputError(f"{at}: the length is missing: give steps or epochs", "steps")
    if "eta" in values:
        step["eta"] = values["eta"]
    return step


__all__ = ["PHASE_KEYS", "TOP_KEYS", "read_schedule", "schedule_steps"]
