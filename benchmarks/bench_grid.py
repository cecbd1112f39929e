"""The 1-D grid engine against the committed one: CPU seconds on the engine calls that the
soundness searches of derived/shuffle/* and bok2024/thm4.6-4.10, C.7, C.16b, tables10-12 and
altschuler2022/eq3.7 make most (quick profile, seed 0; each call as recorded there), ratios in one run,
no assertions.

1. ``evolve_log`` on translations (full batch, cyclic, subsampled; C = 2048, T = 33-60): the banded exact
   convolution against the log-sum-exp over every column; and on affine maps (dense log matrices of two
   components, C = 512).
2. ``evolve_shuffled`` (C = 2048, l = 1-64): translations by direct convolutions of one kernel per step
   (the committed engine: dense matrices, each read once per step for every law it moves).
3. ``evolve_many`` (direct convolutions, C = 2048, T = 60): a kernel without zeros by its valid products.

Largest differences from the committed engine: relative, of the linear laws (where they exceed 1e-290),
and of the log masses (absolute in the log, i.e. relative in the mass, where above e^-700; relative of
the log below).

``--tree DIR`` compares with the engine of another checkout (e.g. ``git archive HEAD | tar -x -C DIR``)
instead of the committed one, and also times the soundness units of ``--theorems`` (quick profile, seed
0; each in a child process of its own, CPU seconds of the unit) in that tree and in this one, alternately
in one run, with whether their verdicts' text is identical.

    python benchmarks/bench_grid.py [--tree DIR] [--theorems derived/shuffle/window,derived/shuffle/composition]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import types  # noqa: E402

from bench_instances import committed_grid  # noqa: E402

from verify.instances import grid, grid_log  # noqa: E402

new = types.SimpleNamespace(**{**vars(grid), **vars(grid_log)})  # the engines of this tree, wherever they live

ZERO = ((1.0,), (0.0,))


def one(c: float):
    return (1.0,), (c,)


def affine(shift: float):
    return lambda theta: shift - 0.1 * theta


def cyclic(l: int, use: float) -> list:
    return [ZERO] * (l - 1) + [one(use)]


#: (engine, lo, hi, cells, x0, s, schedules, positional arguments)
CALLS = [
    ("evolve_log", -1.65827e-05, 1.65827e-05, 2048, -1.65827e-05, 1.07972e-07,
     [[one(0.0)], [one(2.706898952301866e-06)]], (60,)),
    ("evolve_log", -4.97481e-05, 4.97481e-05, 2048, -4.97481e-05, 3.23916e-07,
     [[((2 / 3, 1 / 3), (0.0, 0.0))], [((2 / 3, 1 / 3), (0.0, 8.120696856905598e-06))]], (60,)),
    ("evolve_log", -5.39572e-06, 5.39572e-06, 2048, 0.0, 1.88137e-08,
     [cyclic(22, 0.0), cyclic(22, 3.906254288901311e-07)], (44,)),
    ("evolve_log", -0.0224347, 0.0224347, 2048, 0.0, 0.000952286,
     [cyclic(3, 0.0), cyclic(3, 0.028568571428571426)], (60,)),
    ("evolve_log", -75.0, 75.0, 512, 0.0, 20.0,  # affine maps, uniform batches q = 1/2 (ex5.8's shape): dense
     [[((0.5, 0.5), (affine(0.0), affine(0.0)))], [((0.5, 0.5), (affine(0.0), affine(15.0)))]], (12,)),
    ("evolve_shuffled", -15.1529, 15.1529, 2048, -15.1529, 7.47309,
     [[ZERO, one(-0.19054215853267986)], [ZERO, one(0.021836298120375287)]], (2, 60)),
    ("evolve_shuffled", -0.00243917, 0.00243917, 2048, -2.2708e-05, 0.256262,
     [[ZERO, one(-0.14453152404662392)], [ZERO, one(1.2780838438927338)]], (1, 60)),
    ("evolve_shuffled", -0.547471, 0.547471, 2048, -0.54746, 0.0252437,
     [[ZERO, one(-2.783897541124713e-06)], [ZERO, one(0.00010165640548369148)]], (64, 60)),
    ("evolve_shuffled", -1.02611, 1.02611, 2048, 0.0, 0.205223,
     [[ZERO, one(-0.10261142699547827)], [ZERO, one(0.10261142699547827)]], (1, 10)),
    ("evolve_many", -0.029605085861404697, 0.029605085861404697, 2048, 0.0, 5.921009046000318,
     [[ZERO, one(0.0)], [ZERO, one(1.831750532059356)]], (60,)),
    ("evolve_many", -0.6195602711765466, 0.6195602711765466, 2048, 0.0, 123.9118841726164,
     [[ZERO, one(0.0)], [ZERO, one(38.33394916276829)]], (60,)),
    ("evolve_many", -9.955971806714032e-05, 9.955971806714032e-05, 2048, 0.0, 0.019911943613428063,
     [[one(0.0)], [one(0.003391512308321492)]], (60,)),
]


def run(module, call):
    engine, lo, hi, cells, x0, s, schedules, args = call
    grid = module.IntervalGrid(lo, hi, cells)
    if engine == "evolve_shuffled":
        schedules = [tuple(module.Mixture(*mx) for mx in sch) for sch in schedules]
    else:
        schedules = [[module.Mixture(*mx) for mx in sch] for sch in schedules]
    start = time.process_time()
    out = getattr(module, engine)(grid, x0, s, schedules, *args)
    return time.process_time() - start, out


def difference(engine: str, a, b) -> float:
    if engine == "evolve_log":
        f = np.isfinite(b)
        if not np.array_equal(np.isfinite(a), f):
            return np.inf
        shallow = b[f] > -700
        return max(np.abs(a[f] - b[f])[shallow].max(initial=0.0),
                   (np.abs(a[f] - b[f]) / np.abs(b[f]))[~shallow].max(initial=0.0))
    (a, _), (b, _) = a, b
    ok = np.maximum(a, b) > 1e-290
    return float((np.abs(a - b)[ok] / np.maximum(a, b)[ok]).max(initial=0.0))


HERE = Path(__file__).resolve().parent.parent
THEOREMS = "derived/shuffle/window,derived/shuffle/composition"


def tree_grid(tree: Path):
    """The grid module of the checkout ``tree``, imported under another name."""
    spec = importlib.util.spec_from_file_location("tree_grid", tree / "verify" / "instances" / "grid.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["tree_grid"] = module
    spec.loader.exec_module(module)
    return module


def unit_child(theorem_id: str) -> None:
    """In a child: CPU seconds of one soundness unit and its verdict's text, as one JSON line."""
    import theorems
    from verify.check.engine import check_unit, search_effort

    start = time.process_time()
    verdict = check_unit(theorems.get(theorem_id), theorems.get, search_effort("quick"), 0, "soundness")
    print(json.dumps({"cpu": time.process_time() - start, "verdict": repr(verdict)}))


def unit(tree: Path, theorem_id: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", theorem_id], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def units(tree: Path, theorem_ids: list[str]) -> None:
    total_new = total_old = 0.0
    for theorem_id in theorem_ids:
        old, fresh = unit(tree, theorem_id), unit(HERE, theorem_id)
        total_new, total_old = total_new + fresh["cpu"], total_old + old["cpu"]
        same = "identical" if old["verdict"] == fresh["verdict"] else "differs"
        print(f"{theorem_id} soundness: new {fresh['cpu']:.2f} s CPU, {tree} {old['cpu']:.2f} s, ratio "
              f"{old['cpu'] / fresh['cpu']:.1f}; verdict text {same}")
    print(f"soundness units: new {total_new:.2f} s CPU, {tree} {total_old:.2f} s, ratio {total_old / total_new:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, help="another checkout to compare with (default: the committed engine)")
    parser.add_argument("--theorems", default=THEOREMS, help="comma-separated theorems whose soundness units to time")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        unit_child(args.child)
        return
    old = committed_grid() if args.tree is None else tree_grid(args.tree.resolve())
    if old is None:
        print("not a git checkout: no committed engine to compare with")
        return
    label = "committed" if args.tree is None else str(args.tree)
    totals: dict = {}
    for call in CALLS:
        engine = call[0]
        if not hasattr(old, engine):  # the log engine lives in grid_log.py since it left grid.py
            print(f"{engine:16s} C={call[3]}: skipped, the compared grid.py has no {engine}")
            continue
        t_new, out_new = run(new, call)
        t_old, out_old = run(old, call)
        row = totals.setdefault(engine, [0.0, 0.0, 0.0])
        row[0] += t_new
        row[1] += t_old
        row[2] = max(row[2], difference(engine, out_new, out_old))
        print(f"{engine:16s} C={call[3]} args={call[7]}: new {t_new:.3f} s, {label} {t_old:.3f} s, "
              f"ratio {t_old / t_new:.1f}")
    for engine, (t_new, t_old, diff) in totals.items():
        print(f"{engine}: new {t_new:.2f} s, {label} {t_old:.2f} s, ratio {t_old / t_new:.2f}; "
              f"largest difference {diff:.2g}")
    t_new, t_old = sum(v[0] for v in totals.values()), sum(v[1] for v in totals.values())
    print(f"all: new {t_new:.2f} s CPU, {label} {t_old:.2f} s, ratio {t_old / t_new:.2f}")
    if args.tree is not None:
        units(args.tree.resolve(), [t for t in args.theorems.split(",") if t])


if __name__ == "__main__":
    main()
