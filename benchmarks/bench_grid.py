"""The 1-D grid engine against the committed one (issue 12): CPU seconds on the engine calls that the
soundness searches of derived/shuffle/* and bok2024/thm4.6-4.10, C.7, C.16b, tables10-12 and
altschuler2022/eq3.7 make most (quick profile, seed 0; each call as recorded there), ratios in one run,
no assertions.

1. ``evolve_log`` on translations (full batch, cyclic, subsampled; C = 2048, T = 33-60): the banded exact
   convolution against the log-sum-exp over every column.
2. ``evolve_shuffled`` (C = 2048, l = 1-64): dense matrices of translations from one kernel, each matrix
   read once per step for every law it moves.
3. ``evolve_many`` (direct convolutions, C = 2048, T = 60): a kernel without zeros by its valid products.

Largest differences from the committed engine: relative, of the linear laws (where they exceed 1e-290),
and of the log masses (absolute in the log, i.e. relative in the mass, where above e^-700; relative of
the log below).

    python benchmarks/bench_grid.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_instances import committed_grid  # noqa: E402

from verify.instances import grid as new  # noqa: E402

ZERO = ((1.0,), (0.0,))


def one(c: float):
    return (1.0,), (c,)


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


def main() -> None:
    old = committed_grid()
    if old is None:
        print("not a git checkout: no committed engine to compare with")
        return
    totals: dict = {}
    for call in CALLS:
        t_new, out_new = run(new, call)
        t_old, out_old = run(old, call)
        engine = call[0]
        row = totals.setdefault(engine, [0.0, 0.0, 0.0])
        row[0] += t_new
        row[1] += t_old
        row[2] = max(row[2], difference(engine, out_new, out_old))
        print(f"{engine:16s} C={call[3]} args={call[7]}: new {t_new:.3f} s, committed {t_old:.3f} s, "
              f"ratio {t_old / t_new:.1f}")
    for engine, (t_new, t_old, diff) in totals.items():
        print(f"{engine}: new {t_new:.2f} s, committed {t_old:.2f} s, ratio {t_old / t_new:.2f}; "
              f"largest difference {diff:.2g}")
    t_new, t_old = sum(v[0] for v in totals.values()), sum(v[1] for v in totals.values())
    print(f"all: new {t_new:.2f} s CPU, committed {t_old:.2f} s, ratio {t_old / t_new:.2f}")


if __name__ == "__main__":
    main()
