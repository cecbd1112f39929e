"""``verify audit INSTANCE-OR-THEOREM [name=value ...] [--runs N] [--steps T] [--backend B] [--seed S] [--json]``.

* INSTANCE: a scenario (``logistic_ball``, ``huber_box``) or an instance family of
  ``verify.instances``, built from the ``name=value`` parameters: prints the audited lower bounds.
* THEOREM: a registry id; the audit runs on the first simulated instance its setting covers and
  checks that the theorem's bound is not below the audited lower bound (exit 1 when it is).

Every input is validated before any simulation starts (including an estimate of the memory and time
the simulation needs), and output is printed only at the end, so bad input gives one line on stderr,
exit status 2, and nothing half-written.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

import theorems
from verify.commands.options import (UsageError, add_execution, add_seed, emit, emit_json, execution_of, half_open_unit,
                                     number_or_word, parse_assignments, positive_int, unit_interval)
from verify.errors import InputError
from verify.simulate.api import audit, compare_with_theorem, instances_for, resolve
from verify.simulate.backend import get_backend
from verify.simulate.engine import check_resources


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", help="instance family, scenario (logistic_ball, huber_box) or theorem id")
    p.add_argument("params", nargs="*", metavar="name=value", help="instance parameters")
    p.add_argument("--runs", type=positive_int, default=100_000, help="runs per dataset (default 100000)")
    p.add_argument("--steps", type=positive_int, default=None, help="number of steps T (instance parameter)")
    p.add_argument("--backend", default="numpy", help="numpy (default), torch or cupy")
    p.add_argument("--device", default=None, help="device of the backend, e.g. cpu, cuda, cuda:1")
    add_seed(p)
    p.add_argument("--confidence", type=unit_interval, default=0.95, help="joint confidence level (default 0.95)")
    p.add_argument("--delta", type=half_open_unit, default=1e-5, help="delta of the eps lower bound (default 1e-5)")
    add_execution(p, default="1, in this process")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def run(args: argparse.Namespace) -> int:
    # overflow at extreme parameters shows as non-finite iterates, refused on one line (numpy's warnings,
    # from the instance's profile or the engine's threads, would add more; errstate alone is per thread)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give either --workers or --scheduler, not both", "--workers")
    get_backend(args.backend, args.device)
    params = parse_assignments(args.params, number_or_word)
    if args.steps is not None:
        params["T"] = args.steps
    theorem = None
    if "/" in args.target:
        try:
            theorem = theorems.get(args.target)
        except KeyError as exc:
            raise UsageError(exc.args[0], "target") from None
        sim = next(iter(instances_for(theorem, params)), None)
        if sim is None:
            raise UsageError(f"{theorem.id}: no simulated instance fits its setting {theorem.setting}"
                             + (f" with {' '.join(args.params)}" if args.params else
                                f"; give an instance's parameters as name=value ({', '.join(theorem.parameters)})"),
                             "target")
    else:
        sim = resolve(args.target, params)
    check_resources(sim, args.runs)
    with execution_of(args, default_workers=1) as where:  # the one execution layer: local or existing cluster
        client = where.client() if where.distributed else None
        try:
            result = audit(sim, runs=args.runs, seed=args.seed, confidence=args.confidence, delta=args.delta,
                           backend=args.backend, device=args.device, client=client)
        except InputError as exc:  # too few runs, or iterates beyond the float range: said with the command's words
            if exc.parameter not in ("theta0", "statistic"):
                raise
            runs = exc.parameter == "theta0"
            words = "".join(f" {w}" for w in args.params)
            raise UsageError(f"{args.target}{words} with --runs {args.runs}: cannot be audited: {_one_line(exc)}"
                             + ("" if runs else " (a parameter beyond the float range?)"),
                             "--runs" if runs else "target") from None
    record = result.to_json()
    status = 0
    if theorem is not None:
        verdict = compare_with_theorem(result, theorem, sim.constants())
        record["theorem"] = verdict.to_json() if verdict is not None else {"theorem": theorem.id, "ok": None,
                                                                           "note": "not evaluable on this instance"}
        if verdict is not None and not verdict.ok:
            status = 1
    if args.json:
        emit_json(record)
        return status
    lines = [f"audit of {record['target']}: {result.runs} runs per dataset, seed {args.seed}, "
             f"backend {args.backend}, confidence {result.confidence}",
             f"  statistic   {result.statistic}",
             f"  eps  >= {result.eps_lower:.6g}  at delta = {result.delta:g}",
             f"  mu   >= {result.mu_lower:.6g}",
             f"  test        threshold {result.threshold:.6g}, FPR {result.fpr:.6g} (<= {result.fpr_upper:.6g}), "
             f"FNR {result.fnr:.6g} (<= {result.fnr_upper:.6g})"]
    if theorem is not None:
        v = record["theorem"]
        if v.get("ok") is None:
            lines.append(f"  {theorem.id}: not evaluable on this instance")
        else:
            lines.append(f"  {theorem.id} ({v['notion']}): bound {v['bound']} vs lower {v['lower']}: "
                         + ("consistent" if v["ok"] else "VIOLATED"))
    emit("\n".join(lines))
    if status:
        print(f"verify audit: {theorem.id} is below the audited lower bound", file=sys.stderr)
    return status


__all__ = ["add_arguments", "run"]
