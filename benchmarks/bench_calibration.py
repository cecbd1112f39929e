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

Then :func:`accounting` (one changing schedule accounted by each library) and :func:`against_dp_accounting`
(10,000 Poisson steps at q = 0.01, eps = 8: our schedule calibration against dp_accounting's own PLD
calibration, ``calibrate_dp_mechanism``); the latter alone:

    python benchmarks/bench_calibration.py
    python benchmarks/bench_calibration.py --dp-accounting
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from verify.account import calibrate, calibration
from verify.account.calibration import calibrate_schedule
from verify.account.running import Accountant

from figures import record

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
    overshoots = 0
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
                overshoots += 1
                print(f"    OVERSHOOT: {name} z={z:.6g} gives eps {check:.6g} > {eps} (dp_accounting)")
    k = len(ratios)
    geo = [1.0] * 4
    for r in ratios:
        geo = [g * x ** (1 / k) for g, x in zip(geo, r)]
    print(f"geometric means of the ratios to Opacus RDP: time verify 1e-4 {geo[0]:.2f}, time verify at Opacus' "
          f"tolerance {geo[1]:.2f}, time verify calibrate {geo[2]:.2f}; noise verify/Opacus {geo[3]:.4f}")
    print("every z checked against dp_accounting's PLD accountant (no OVERSHOOT line: none overshoots)")
    record("bench_calibration", "opacus", f"calibrate_schedule at PLD accuracy 1e-4, rtol 1e-4, against Opacus' "
           f"get_noise_multiplier(accountant='rdp') on the {k} targets of TARGETS (delta = {DELTA:g})",
           f"`benchmarks/bench_calibration.py`: {geo[0]:.2f}x the CPU time of Opacus' RDP calibration over its "
           f"{k} targets (geometric mean), {100 * (1 - geo[3]):.1f}% less noise, "
           + ("never overshooting" if not overshoots else f"{overshoots} overshooting"),
           {"time_ratio": round(geo[0], 3), "noise_ratio": round(geo[3], 5), "overshoots": overshoots})
    print("verify 1e-4, wall time / Opacus RDP wall time: " + ", ".join(f"{r:.2f}" for r in walls)
          + "; PLD compositions (fine, coarse): " + ", ".join(f"({a}, {b})" for a, b in evaluations))
    print("verify calibrate without the composition start / with it (time): "
          + ", ".join(f"{r:.2f}" for r in befores))
    accounting()
    against_dp_accounting()


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


#: the comparison with dp_accounting's calibration: (sample rate, steps, target eps) at DELTA
AGAINST = (0.01, 10000, 8.0)
#: dp_accounting's calibration setting: PLD value discretization interval and tolerance on z (absolute)
DP_INTERVAL, DP_TOL = 1e-3, 1e-3
#: the discretization at which every returned z is checked under dp_accounting's own pessimistic PLD accountant
CHECK_INTERVAL = 1e-5


def against_dp_accounting(repeats: int = 3) -> None:
    """10,000 Poisson steps (q = 0.01, add/remove), eps = 8 at delta = 1e-5: the noise multiplier z from

    * dp_accounting's own calibration, ``calibrate_dp_mechanism`` with a fresh ``PLDAccountant`` per trial (value
      discretization interval 1e-3, ``tol`` 1e-3 on z): with its default bracket (``LowerEndpointAndGuess(0,
      1)``) and with the bracket of ``benchmarks/bench_account.py`` (``LowerEndpointAndGuess(0.3, 1.0)``);
    * ours, :func:`calibrate_schedule` at the accountant's default (pessimistic PLD at accuracy 1e-4, eps within
      rtol 1e-4 of the target: more accurate than dp_accounting's setting), and at dp_accounting's setting
      (accuracy 1e-3; rtol 1e-3 on eps, finer than its tol 1e-3 on z);
    * Opacus' RDP calibration (``get_noise_multiplier``, as in the table above), when Opacus is installed.

    CPU seconds are the median of ``repeats`` interleaved runs, each from cold PLD caches, after one untimed
    warm-up call of each library (first-call imports are not calibration).  Printed: seconds, z, the time
    and noise ratios ours/theirs, and the overshoot check of every z under dp_accounting's own pessimistic PLD
    accountant at interval 1e-5 (an upper bound on the exact eps at any interval).
    """
    from dp_accounting import calibrate_dp_mechanism, mechanism_calibration

    q, steps, eps = AGAINST
    trials: list[float] = []

    def event(z: float):
        trials.append(z)
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)

    def theirs(bracket):
        def fresh():
            return pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                        value_discretization_interval=DP_INTERVAL)
        trials.clear()
        return calibrate_dp_mechanism(fresh, event, eps, DELTA, bracket, tol=DP_TOL)

    def ours(accuracy: float | None = None, rtol: float = calibration.RTOL):
        options = {} if accuracy is None else {"accuracy": accuracy}
        return calibrate_schedule(Accountant(verdicts=VERDICTS, **options).step(1.0, q, steps=steps), eps=eps,
                                  delta=DELTA, rtol=rtol)

    try:
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:
        get_noise_multiplier = None

    def opacus():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return get_noise_multiplier(target_epsilon=eps, target_delta=DELTA, sample_rate=q, steps=steps,
                                        accountant="rdp")

    rows = {  # name -> (call, z of its result)
        "dp_accounting, bracket (0, 1)": (lambda: theirs(None), float),
        "dp_accounting, bracket (0.3, 1.0)": (lambda: theirs(mechanism_calibration.LowerEndpointAndGuess(0.3, 1.0)),
                                              float),
        "verify, accuracy 1e-4, rtol 1e-4": (ours, lambda r: r.factor),
        "verify, accuracy 1e-3, rtol 1e-3": (lambda: ours(DP_INTERVAL, 1e-3), lambda r: r.factor),
    }
    if get_noise_multiplier is not None:
        rows["Opacus RDP"] = (opacus, float)
    calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, lambda z: dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), 10), eps, DELTA, tol=DP_TOL)
    calibrate_schedule(Accountant(verdicts=VERDICTS).step(1.0, q, steps=10), eps=eps, delta=DELTA)  # warm-ups
    seconds: dict[str, list[float]] = {name: [] for name in rows}
    results: dict[str, object] = {}
    counts: dict[str, str] = {}
    for _ in range(repeats):
        for name, (call, _) in rows.items():
            results[name], spent = timed(call)
            seconds[name].append(spent)
            if name.startswith("dp_accounting"):
                counts[name] = f"{len(trials)} PLD accountings at {DP_INTERVAL:g}"
            elif name.startswith("verify"):
                r = results[name]
                counts[name] = f"PLD compositions: {r.fine_evaluations} at the accuracy, {r.coarse_evaluations} coarser"
    cpu = {name: statistics.median(s) for name, s in seconds.items()}
    z = {name: get(results[name]) for name, (_, get) in rows.items()}
    print(f"\ncalibration against dp_accounting: q={q:g}, {steps} steps, eps={eps:g} at delta={DELTA:g} (CPU s: median "
          f"of {repeats}, cold caches)")
    for name in rows:
        print(f"  {name:36} {cpu[name]:6.3f} s   z {z[name]:.6f}   {counts.get(name, '')}")
    ours_name = "verify, accuracy 1e-4, rtol 1e-4"
    for theirs_name in ("dp_accounting, bracket (0, 1)", "dp_accounting, bracket (0.3, 1.0)"):
        for mine in (ours_name, "verify, accuracy 1e-3, rtol 1e-3"):
            print(f"  {mine} / {theirs_name}: time {cpu[mine] / cpu[theirs_name]:.2f}, "
                  f"noise {z[mine] / z[theirs_name]:.5f}")
    if "Opacus RDP" in rows:
        print(f"  {ours_name} / Opacus RDP: time {cpu[ours_name] / cpu['Opacus RDP']:.2f}, "
              f"noise {z[ours_name] / z['Opacus RDP']:.5f}")
    else:
        print("  Opacus not installed: its RDP calibration skipped")
    print(f"  overshoot check, eps at delta={DELTA:g} under dp_accounting's pessimistic PLD at interval "
          f"{CHECK_INTERVAL:g} (target {eps:g}):")
    met = {}
    for name in rows:
        check = dp_accounting_eps(z[name], q, steps, CHECK_INTERVAL)
        met[name] = check <= eps
        print(f"    {name:36} z {z[name]:.6f}: eps {check:.6f}  {'meets the target' if met[name] else 'OVERSHOOT'}")
    theirs_name = "dp_accounting, bracket (0, 1)"
    time_ratio, noise_ratio = cpu[ours_name] / cpu[theirs_name], z[ours_name] / z[theirs_name]
    record("bench_calibration", "dp_accounting",
           f"q={q:g}, {steps} steps, eps={eps:g}, delta={DELTA:g}: calibrate_schedule (PLD accuracy 1e-4, rtol 1e-4) "
           f"against dp_accounting's calibrate_dp_mechanism (PLD interval {DP_INTERVAL:g}, tol {DP_TOL:g}, its default "
           f"bracket); CPU median of {repeats}, cold caches",
           f"`benchmarks/bench_calibration.py --dp-accounting`: at {steps:,} Poisson steps (q = {q:g}, eps = {eps:g}, "
           f"delta = {DELTA:g}) {time_ratio:.2f}x the CPU time of dp_accounting's own PLD calibration, "
           f"{100 * (1 - noise_ratio):.2f}% less noise, " + ("never overshooting" if met[ours_name] else "OVERSHOOTING"),
           {"time_ratio": round(time_ratio, 3), "noise_ratio": round(noise_ratio, 6), "overshoot": not met[ours_name]})


if __name__ == "__main__":
    if "--dp-accounting" in sys.argv[1:]:
        against_dp_accounting()
    else:
        main()
