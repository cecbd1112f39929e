"""The full sweeps of the test suite: every setting of each test marked ``sweep`` (tests/sweeps.py).

    python benchmarks/bench_sweeps.py [-k EXPRESSION] [any other pytest option]

The default ``python -m pytest`` runs a representative subset of each sweep (each test's docstring says which
settings, and which code path, regime or kind each covers); this script runs the same tests, with the same
assertions, over every setting (``VERIFY_FULL_SWEEPS=1``), so that nothing the suite checked before the subsets
is lost.  It prints each test's time and pytest's summary, and exits with pytest's status (0: every setting
passed).  The sweeps (``grep -rn "mark.sweep" tests``), with what only this script runs:

* tests/check/test_blocks.py, ``verify run`` on two workers against one process: three theorems, a job each;
* tests/check/test_refound.py, errata re-found without their kept instances: altschuler2022/b.2, b.3 and
  ex5.8/constant-1;
* tests/check/test_self_test.py, correct user theorems verified: correct_cyclic_composition;
* tests/external/test_published.py, published results and their wrong variants: fmtt18/thm22,
  drs22/cor3.3/cyclic, drs22/cor3.3/cyclic-T, mtz19/order2, shuffle/joint-convexity/sc;
* tests/instances/test_mechanisms.py, exact mu of the truncated exponential pair: Delta D = 10 and 60;
* tests/privacy/test_limits.py, sampled-Gaussian RDP against mpmath: sigma = 1e-3 at order 2.5;
* tests/privacy/test_pld_shortcuts.py, untruncated few-step compositions against dp_accounting: three steps at
  p = 0.025, mu = 5;
* tests/privacy/test_pld_vectorised.py, one-step PMFs against dp_accounting's: (0.3, 2.5, add/remove) and
  (1.0, 1.3, replace);
* tests/privacy/test_rdp.py, the batched RDP quadrature against mpmath: a second order near 1 and (0.01, 3,
  20.5, remove).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    env = {**os.environ, "VERIFY_FULL_SWEEPS": "1"}
    command = [sys.executable, "-m", "pytest", "-m", "sweep", "-p", "no:cacheprovider", "-q", "--durations=0",
               "--durations-min=0.5", *argv]
    start, cpu = time.perf_counter(), os.times()
    status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    after = os.times()
    used = (after.children_user - cpu.children_user) + (after.children_system - cpu.children_system)
    print(f"full sweeps: {used:.1f} s CPU, {time.perf_counter() - start:.1f} s wall, pytest exit status {status}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
