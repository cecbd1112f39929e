"""Calibration speed against Opacus' RDP calibration on the same targets: ratios in one run.

For each DP-SGD target (Poisson sampling, add/remove; the noise multiplier z for eps at delta = 1e-5):

* **Opacus RDP**: ``opacus.accountants.utils.get_noise_multiplier(accountant="rdp")`` (bisection to an
  absolute eps tolerance of 0.01).
* **verify, schedule calibration** (:func:`verify.account.calibration.calibrate_schedule`, what
  ``verify calibrate --schedule`` and the Python API use): the RDP model aims a Newton step on the PLD at
  1e-3, solved to 1e-2; the PLDs at 2e-3, 1e-3 and 5e-4 there extrapolate the grid error to the accountant's
  accuracy, whose curve is then evaluated (usually once: the "fine" column).  Every curve is the accountant's
  own (dp_accounting's pessimistic PLD and its ``self_compose``: one composition path).  Two settings: the
  default (PLD accuracy 1e-4, rtol 1e-4) and the tolerance Opacus uses (rtol = 0.01/eps, PLD accuracy 1e-3:
  the pessimistic bound at 1e-3 is as valid).
* **verify calibrate** (:func:`verify.account.calibrate`, every registry theorem), now started at the
  composition's answer; and once more without that start (as before the fast start), for the speed-up.

Printed per target: seconds, z, and the ratios (ours / Opacus RDP) in time and in noise; then the check
that every returned z meets the target under dp_accounting's own PLD accountant (never overshooting).
Every call starts from cold PLD caches (cleared before it), all measured in one run.  Seconds are process
CPU time (the machine may be shared: wall time then measures the other processes); the wall-time ratios are
printed too.

    python benchmarks/bench_calibration.py
"""

from __future__ import annotations

import time
import warnings

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from verify.account import calibrate, calibration
from verify.account.calibration import calibrate_schedule
from verify.account.running import Accountant

#: (sample rate, steps, target eps): the issue's DP-SGD settings (MNIST-sized, b = 256 and 600)
TARGETS = [(256 / 60000, 2344, 1.0), (256 / 60000, 2344, 4.0), (0.01, 1000, 1.0), (0.01, 1000, 8.0),
           (600 / 60000, 6000, 2.0)]
DELTA = 1e-5
VERDICTS = {"bu2020/thm3": "verified", "bu2020/thm3/eps": "verified"}


WALL: dict[str, float] = {}


def timed(f, name: str = ""):
    """CPU seconds of ``f()`` from cold PLD caches (no composition built by an earlier call is reused); the
    wall seconds are kept in :data:`WALL` under ``name``."""
    from verify.privacy import pld

    pld.CACHE.clear()
    start, wall = time.process_time(), time.perf_counter()
    out = f()
    WALL[name] = time.perf_counter() - wall
    return out, time.process_time() - start


def dp_accounting_eps(z: float, q: float, steps: int, h: float = 1e-4) -> float:
    acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                               value_discretization_interval=h)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    return acc.get_epsilon(DELTA)


def main() -> None:
    from opacus.accountants.utils import get_noise_multiplier

    import theorems

    theorems.all()  # registry import: start-up cost, not calibration
    print(f"{'q':>9} {'T':>5} {'eps':>4} | {'Opacus RDP s':>12} {'z':>7} | {'verify 1e-4 s':>13} {'z':>7} "
          f"{'t/Opacus':>8} {'z/Opacus':>8} | {'verify tol s':>12} {'z':>7} {'t/Opacus':>8} | "
          f"{'calibrate s':>11} {'t/Opacus':>8}")
    ratios, befores, walls, evaluations = [], [], [], []
    for q, steps, eps in TARGETS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z_rdp, t_rdp = timed(lambda: get_noise_multiplier(target_epsilon=eps, target_delta=DELTA,
                                                              sample_rate=q, steps=steps, accountant="rdp"), "rdp")
        fine, t_fine = timed(lambda: calibrate_schedule(
            Accountant(verdicts=VERDICTS).step(1.0, q, steps=steps), eps=eps, delta=DELTA), "fine")
        walls.append(WALL["fine"] / WALL["rdp"])
        evaluations.append((fine.fine_evaluations, fine.coarse_evaluations))
        loose, t_loose = timed(lambda: calibrate_schedule(
            Accountant(verdicts=VERDICTS, accuracy=1e-3).step(1.0, q, steps=steps), eps=eps, delta=DELTA,
            rtol=0.01 / eps))
        n = 60000 if q < 0.01 or steps == 6000 else 10000
        full, t_full = timed(lambda: calibrate(n=n, b=round(q * n), batches="poisson", T=steps, Cclip=1.0,
                                               eps=eps, delta=DELTA, verdicts=VERDICTS))
        z_full = full.z
        # the same without the fast composition start (calibrate as it was before the fast start)
        hint, calibration._composition_hint = calibration._composition_hint, lambda *a, **k: None
        try:
            _, t_before = timed(lambda: calibrate(n=n, b=round(q * n), batches="poisson", T=steps, Cclip=1.0,
                                                  eps=eps, delta=DELTA, verdicts=VERDICTS))
        finally:
            calibration._composition_hint = hint
        befores.append(t_before / t_full)
        ratios.append((t_fine / t_rdp, t_loose / t_rdp, t_full / t_rdp, fine.factor / z_rdp))
        print(f"{q:9.5f} {steps:5d} {eps:4g} | {t_rdp:12.2f} {z_rdp:7.4f} | {t_fine:13.2f} {fine.factor:7.4f} "
              f"{t_fine / t_rdp:8.2f} {fine.factor / z_rdp:8.4f} | {t_loose:12.2f} {loose.factor:7.4f} "
              f"{t_loose / t_rdp:8.2f} | {t_full:11.2f} {t_full / t_rdp:8.2f}")
        for name, z in (("verify 1e-4", fine.factor), ("verify tol", loose.factor), ("calibrate", z_full)):
            check = dp_accounting_eps(z, q, steps)
            if check > eps * (1 + 1e-9):
                print(f"    OVERSHOOT: {name} z={z:.6g} gives eps {check:.6g} > {eps} (dp_accounting)")
    k = len(ratios)
    geo = [1.0] * 4
    for r in ratios:
        geo = [g * x ** (1 / k) for g, x in zip(geo, r)]
    print(f"geometric means of the ratios to Opacus RDP: time verify 1e-4 {geo[0]:.2f}, time verify at Opacus' "
          f"tolerance {geo[1]:.2f}, time verify calibrate {geo[2]:.2f}; noise verify/Opacus {geo[3]:.4f}")
    print("every z checked against dp_accounting's PLD accountant (no OVERSHOOT line: none overshoots)")
    print("verify 1e-4, wall time / Opacus RDP wall time: " + ", ".join(f"{r:.2f}" for r in walls)
          + "; PLD compositions (fine, coarse): " + ", ".join(f"({a}, {b})" for a, b in evaluations))
    print("verify calibrate without the composition start / with it (time): "
          + ", ".join(f"{r:.2f}" for r in befores))
    accounting()


#: a changing schedule (warm-up, main phase, larger batches): (noise multiplier, sample rate, steps)
SCHEDULE = [(2.0, 256 / 60000, 500), (1.1, 256 / 60000, 2000), (0.9, 1024 / 60000, 500)]


def accounting() -> None:
    """eps of one changing schedule at delta = 1e-5: verify.Accountant against dp_accounting's PLD
    accountant and Opacus' PRV and RDP accountants, seconds and ratios in one run (cold caches)."""
    from opacus.accountants import PRVAccountant, RDPAccountant

    def ours(bracket: bool):
        acc = Accountant(verdicts=VERDICTS)
        for z, q, steps in SCHEDULE:
            acc.step(z, q, steps=steps)
        return acc.epsilon(DELTA, bracket=bracket)

    def dp():
        acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                   value_discretization_interval=1e-4)
        for z, q, steps in SCHEDULE:
            acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
        return acc.get_epsilon(DELTA)

    def opacus(kind):
        acc = kind()
        acc.history = list(SCHEDULE)
        return acc.get_epsilon(DELTA)

    rows = [("verify.Accountant (bound only)", *timed(lambda: ours(False))),
            ("verify.Accountant (with bracket)", *timed(lambda: ours(True))),
            ("dp_accounting PLDAccountant", *timed(dp)),
            ("Opacus PRV (upper estimate)", *timed(lambda: opacus(PRVAccountant))),
            ("Opacus RDP", *timed(lambda: opacus(RDPAccountant)))]
    base = rows[2][2]
    print(f"\naccounting {sum(s for _, _, s in SCHEDULE)} steps in {len(SCHEDULE)} phases, eps at delta={DELTA:g}:")
    for name, value, seconds in rows:
        eps = float(value)
        extra = f"  bracket [{value.bracket[0]:.4f}, {value.bracket[1]:.4f}]" if hasattr(value, "bracket") and \
            value.bracket[0] is not None else ""
        print(f"  {name:34} eps {eps:8.4f}   {seconds:6.2f} s   time / dp_accounting {seconds / base:5.2f}{extra}")


if __name__ == "__main__":
    main()
