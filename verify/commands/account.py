"""``verify account`` and ``verify calibrate``: argument parsing and output.

Both read the run from flags and/or ``--config FILE.toml`` (flags win).  Bad input — an unknown key, a
contradiction, a target no sigma can reach — raises ``InputError`` with a one-line message: exit status 2.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

from verify.account.accountant import APPROXIMATE, BEST, FAILED, UNVERIFIED, USED, VIOLATED, Accounting, account
from verify.account.calibration import RTOL, Calibration, calibrate, calibrate_schedule
from verify.account.running import Accountant, Answer
from verify.account.constants import MODELS, Constants, constants, load_matrix
from verify.account.run import CHOICE_KEYS, DEFAULT_ADJACENCY, NUMERIC_KEYS
from verify.commands.options import UsageError, emit, emit_json


def _add_run_arguments(p: argparse.ArgumentParser, *, with_sigma: bool) -> None:
    p.add_argument("--config", metavar="FILE", help="TOML file with the run description (flat key = value)")
    p.add_argument("--schedule", metavar="FILE",
                   help="TOML or JSON schedule: phases with their own noise, sampling rate or batch size, steps "
                        "(verify.account.schedule); composed exactly, with the provenance of the answer")
    g = p.add_argument_group("run description (canonical units, docs/conventions.md; flags override --config)")
    for key, meaning in NUMERIC_KEYS.items():
        if key == "sigma" and not with_sigma:
            continue
        if key == "z" and not with_sigma:
            continue
        g.add_argument(f"--{key}", metavar="X", help=meaning)
    for key, allowed in CHOICE_KEYS.items():
        g.add_argument(f"--{key}", metavar="|".join(allowed), help=f"one of {', '.join(allowed)}")
    d = p.add_argument_group("loss constants from data (verify.account.constants): m, M, Delta (and D for ridge)")
    d.add_argument("--data", metavar="X.npy", help="data matrix (records x features) of the model below")
    d.add_argument("--model", metavar="|".join(MODELS), help="L2-regularised model: one of " + ", ".join(MODELS))
    d.add_argument("--lam", metavar="X", help="L2 regularisation strength (m = lam)")
    d.add_argument("--feature-bound", metavar="R", help="bound on every record's feature norm (default: the data's)")
    d.add_argument("--radius", metavar="RHO", help="ridge: iterates projected onto |theta| <= RHO")
    d.add_argument("--label-bound", metavar="B", help="ridge: labels |y| <= B")
    d.add_argument("--huber", metavar="K", help="huber: the threshold k")
    p.add_argument("--verdicts", metavar="FILE",
                   help="verdict file (verify run --json output; default reports/baseline.json)")
    p.add_argument("--include-unverified", action="store_true",
                   help="also use theorems whose verdict is inconclusive (marked in the output)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _run_fields(args: argparse.Namespace, *, with_sigma: bool) -> dict:
    keys = [k for k in (*NUMERIC_KEYS, *CHOICE_KEYS) if with_sigma or k not in ("sigma", "z")]
    return {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}


def _float(raw: str | None, name: str) -> float | None:
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        raise UsageError(f"--{name} must be a number, got {raw!r}", f"--{name}") from None


# ---------------------------------------------------------------------------------------------------
# verify account
# ---------------------------------------------------------------------------------------------------


def add_account_arguments(p: argparse.ArgumentParser) -> None:
    _add_run_arguments(p, with_sigma=True)
    p.add_argument("--delta", default="1e-5", metavar="X", help="report epsilon at this delta (default 1e-5)")
    p.add_argument("--orders", metavar="A,B,...", help="also report RDP epsilon at these Rényi orders")
    p.add_argument("--accuracy", default="1e-4", metavar="H",
                   help="discretisation of the privacy loss for the run's PLD composition, reported with its "
                        "bracket [lower, upper] (default 1e-4; finer is tighter and slower)")


def _with_data_constants(args: argparse.Namespace, fields: dict) -> Constants | None:
    """With ``--data``: the model's constants, added to ``fields`` (flags given explicitly win)."""
    if args.data is None:
        for flag in ("model", "lam", "feature_bound", "radius", "label_bound", "huber"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} needs --data", f"--{flag.replace('_', '-')}")
        return None
    if args.model is None or args.lam is None:
        missing = "--model" if args.model is None else "--lam"
        raise UsageError(f"--data needs {missing}", missing)
    X = load_matrix(args.data)
    adjacency = fields.get("adjacency") or DEFAULT_ADJACENCY.get(str(fields.get("batches", "full")), "replace")
    c = constants(X, args.model, lam=_float(args.lam, "lam"), adjacency=adjacency,
                  feature_bound=_float(args.feature_bound, "feature-bound"), radius=_float(args.radius, "radius"),
                  label_bound=_float(args.label_bound, "label-bound"), huber=_float(args.huber, "huber"))
    if "n" in fields and int(float(fields["n"])) != c.n:
        raise UsageError(f"--n {fields['n']} contradicts the {c.n} records of {args.data}", "--n")
    fields.setdefault("n", c.n)
    for key, value in c.run_fields().items():
        fields.setdefault(key, value)
    return c


def _format_constants(c: Constants) -> str:
    lines = [f"constants ({c.model}, n={c.n}, d={c.d}, {c.adjacency}): m = {c.m:.6g}, M = {c.M:.6g}, "
             f"L = {c.L:.6g}, Delta = {c.Delta:.6g}" + ("" if c.D is None else f", D = {c.D:g}")
             + f"   (average-loss smoothness from the data's second moment: {c.M_data:.6g}, not used)"]
    lines += [f"  assumes: {a}" for a in c.assumptions]
    return "\n".join(lines)


def _schedule_accountant(args: argparse.Namespace, *, with_sigma: bool):
    """The accountant of ``--schedule FILE`` (run flags other than --adjacency cannot be combined with it)."""
    fields = _run_fields(args, with_sigma=with_sigma)
    extra = sorted(set(fields) - {"adjacency"}) + (["config"] if args.config else [])
    if extra:
        raise UsageError(f"--schedule describes the run: drop --{extra[0]}", f"--{extra[0]}")
    accuracy = _float(getattr(args, "accuracy", None), "accuracy")
    return Accountant.from_file(args.schedule, adjacency=fields.get("adjacency"), verdicts=args.verdicts,
                                include_unverified=args.include_unverified,
                                **({"accuracy": accuracy} if accuracy is not None else {}))


def format_answer(acc: Accountant, answer: Answer) -> str:
    """The schedule, the answer and its provenance, the other candidates."""
    lines = [f"schedule: {acc.steps} steps in {len(acc.phases)} phase(s), {answer.adjacency} adjacency"
             + ("" if acc.adjacency_given else " (default for the first phase's batches)")]
    for i, p in enumerate(acc.phases, 1):
        eta = "" if p.eta is None else f", eta={p.eta:g}"
        lines.append(f"  phase {i}: {p.steps} steps, z={p.noise_multiplier:g}, q={p.sample_rate:g}, {p.batches}{eta}")
    lower = "none known" if answer.bracket[0] is None else f"{answer.bracket[0]:.6g}"
    lines += ["", f"eps = {answer.value:.6g} at delta = {answer.delta:g}   under {answer.theorem} "
                  f"(verdict {answer.verdict})", f"  how: {answer.method}",
              f"  bracket: the exact value lies in [{lower}, {answer.bracket[1]:.6g}]"]
    others = [c for c in answer.candidates[1:]]
    if others:
        lines += ["", "other valid bounds:"] + [f"  {c.theorem:34} {c.value:.6g}  ({c.verdict})" for c in others]
    return "\n".join(lines)


def run_account(args: argparse.Namespace) -> int:
    if args.schedule:
        acc = _schedule_accountant(args, with_sigma=True)
        answer = acc.epsilon(_float(args.delta, "delta"))
        if args.json:
            emit_json({"schedule": acc.to_json(), "answer": answer.to_json()})
        else:
            emit(format_answer(acc, answer))
        return 0
    orders = ()
    if args.orders:
        try:
            orders = tuple(float(x) for x in args.orders.split(",") if x.strip())
        except ValueError:
            raise UsageError(f"--orders must be comma-separated numbers, got {args.orders!r}", "--orders") from None
    fields = _run_fields(args, with_sigma=True)
    data = _with_data_constants(args, fields)
    result = account(args.config, delta=_float(args.delta, "delta"), orders=orders, verdicts=args.verdicts,
                     include_unverified=args.include_unverified, accuracy=_float(args.accuracy, "accuracy"),
                     **fields)
    if args.json:
        emit_json({**result.to_json(), **({"constants": data.to_json()} if data else {})})
    else:
        emit((_format_constants(data) + "\n" if data else "") + format_accounting(result))
    return 0


def format_accounting(a: Accounting) -> str:
    """The human-readable account: the bounds used, the best one, the others and why."""
    lines = [f"run: {a.run.describe()}", f"verdicts: {a.verdicts}", ""]
    head = f"  {'':2}{'theorem':34} {'notion':9} {'verdict':12} {'eps(delta=' + format(a.delta, 'g') + ')':>16}"
    head += f" {'mu':>10}" + "".join(f" {'rdp(' + format(x, 'g') + ')':>11}" for x in a.orders)

    def line(r) -> str:
        mark = "*" if r.status == BEST else ""
        text = f"  {mark:2}{r.id:34} {r.notion:9} {r.verdict:12} {_num(r.eps):>16} {_num(r.mu):>10}"
        text += "".join(f" {_num(v):>11}" for v in (r.rdp or [None] * len(a.orders)))
        if r.status in (BEST, USED) and r.verdict != "verified":
            text += "  [unverified, used on request]"
        if r.composition:
            text += "  (composition)"
        return text

    used = [r for r in a.rows if r.status in (BEST, USED)]
    eligible = "verified theorems" + (" (and, on request, unverified ones)" if a.include_unverified else "")
    lines.append(f"valid bounds ({eligible} that apply; * = smallest):" if used
                 else "valid bounds: none (no verified theorem applies to this run)")
    if used:
        lines.append(head)
        lines += [line(r) for r in sorted(used, key=lambda r: (r.eps, r.id))]
    if a.best is not None:
        lines.append("")
        lines.append(f"best valid bound: {a.best.id}  eps = {a.best.eps:.4g} at delta = {a.delta:g}")
        if a.composition is not None and a.composition is not a.best:
            lines.append(f"composition baseline: {a.composition.id}  eps = {a.composition.eps:.4g} "
                         f"({a.composition.eps / a.best.eps:.3g} x the best)")
    if a.pld is not None:
        p = a.pld
        if p["error"]:
            lines.append(f"PLD composition ({p['theorem']}, accuracy {p['accuracy']:g}): {p['error']}")
        else:
            lower = "none known" if p["bracket"][0] is None else f"{p['bracket'][0]:.6g}"
            lines.append(f"PLD composition ({p['theorem']}, accuracy {p['accuracy']:g}): eps = {p['eps']:.6g}; "
                         f"the exact composition lies in [{lower}, {p['bracket'][1]:.6g}]")
    approx = [r for r in a.rows if r.status == APPROXIMATE]
    if approx:
        lines += ["", "approximations (may under-state the privacy loss; shown, never chosen):", head]
        lines += [line(r) for r in approx]
    unused = [r for r in a.rows if r.status in (UNVERIFIED, VIOLATED, FAILED)]
    if unused:
        lines += ["", "applicable but not used:"]
        for r in unused:
            why = {UNVERIFIED: f"unverified (verdict {r.verdict}), not used",
                   VIOLATED: "verdict violated: never used",
                   FAILED: f"could not be evaluated: {r.error}"}[r.status]
            value = f"  [eps would be {r.eps:.4g}]" if r.status == UNVERIFIED and r.eps is not None else ""
            lines.append(f"    {r.id}: {why}{value}")
        if any(r.status == UNVERIFIED for r in unused):
            lines.append("    (--include-unverified uses the unverified ones, marked as such)")
    lines += ["", "not applicable:"] + _grouped(a.not_applicable)
    if a.notes:
        lines += [""] + [f"note: {n}" for n in a.notes]
    return "\n".join(lines)


def _grouped(items) -> list[str]:
    """One line per reason; reasons about this run's values and setting first, generic ones last."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for item in items:
        by_reason[item.reason].append(item.theorem.id)
    specific = ("assumption", "setting", "needs", "the run", "parameter", "bounds the last")
    order = sorted(by_reason, key=lambda reason: not reason.startswith(specific))
    return [f"    {reason}: {', '.join(by_reason[reason])}" for reason in order]


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    if not math.isfinite(x):
        return "inf"
    return f"{x:.4g}"


# ---------------------------------------------------------------------------------------------------
# verify calibrate
# ---------------------------------------------------------------------------------------------------


def add_calibrate_arguments(p: argparse.ArgumentParser) -> None:
    _add_run_arguments(p, with_sigma=False)
    t = p.add_argument_group("target (give --eps and --delta, or --mu)")
    t.add_argument("--eps", metavar="X", help="target epsilon")
    t.add_argument("--delta", metavar="X", help="target delta")
    t.add_argument("--mu", metavar="X", help="target GDP mu")
    p.add_argument("--accuracy", metavar="H",
                   help="with --schedule: the PLD's discretisation of the privacy loss (default 1e-4)")
    p.add_argument("--rtol", default=str(RTOL), metavar="X",
                   help=f"relative tolerance: the bound at the answer is in [target*(1-rtol), target] "
                        f"(default {RTOL:g})")


def run_calibrate(args: argparse.Namespace) -> int:
    if args.schedule:
        if args.mu is not None:
            raise UsageError("--schedule calibrates an (eps, delta) target: give --eps and --delta", "--mu")
        acc = _schedule_accountant(args, with_sigma=False)
        result = calibrate_schedule(acc, eps=_float(args.eps, "eps"), delta=_float(args.delta, "delta"),
                                    rtol=_float(args.rtol, "rtol"))
        if args.json:
            emit_json(result.to_json())
        else:
            zs = ", ".join(f"{z:.6g}" for z in result.noise_multipliers)
            emit(f"noise scale = {result.factor:.6g} x the schedule's noise multipliers: z = {zs}\n"
                 f"eps = {result.eps:.6g} at delta = {result.target.delta:g} (target {result.target.eps:g}, "
                 f"rtol {result.rtol:g}; never above the target)\n\n" + format_answer(result.accountant, result.answer))
        return 0
    if args.accuracy is not None:  # the run's calibration uses the registry's bounds: no PLD to discretise
        raise UsageError("--accuracy applies with --schedule only", "--accuracy")
    fields = _run_fields(args, with_sigma=False)
    data = _with_data_constants(args, fields)
    result = calibrate(args.config, eps=_float(args.eps, "eps"), delta=_float(args.delta, "delta"),
                       mu=_float(args.mu, "mu"), rtol=_float(args.rtol, "rtol"), verdicts=args.verdicts,
                       include_unverified=args.include_unverified, **fields)
    if args.json:
        emit_json({**result.to_json(), **({"constants": data.to_json()} if data else {})})
    else:
        emit((_format_constants(data) + "\n" if data else "") + format_calibration(result))
    return 0


def format_calibration(c: Calibration) -> str:
    """The human-readable calibration: the sigma, the bound behind it, the composition baseline's sigma."""
    t = c.target
    lines = [f"run: {c.run.describe()}", f"verdicts: {c.verdicts}",
             f"target: {t.notion} <= {t.value:g}   tolerance: the bound at sigma lies in "
             f"[{t.value * (1 - c.rtol):.6g}, {t.value:g}] (rtol {c.rtol:g}); sigma never overshoots", ""]
    lines.append(f"sigma = {c.sigma:.6g}" + (f"   (z = {c.z:.6g} at Cclip = {c.run.Cclip:g})" if c.z else "")
                 + f"   under {c.best.id}, which gives {c.best.value:.6g}")
    if c.composition is not None and c.composition is not c.best:
        lines.append(f"composition baseline {c.composition.id} needs sigma = {c.composition.sigma:.6g} "
                     f"({c.composition.sigma / c.sigma:.3g} x more noise)")
    elif c.composition is None:
        lines.append("composition baseline: no verified composition bound applies to this run")
    lines += ["", f"  {'':2}{'theorem':34} {'verdict':12} {'sigma needed':>14} {'bound there':>12}"]
    for r in sorted(c.rows, key=lambda r: (r.sigma is None, r.sigma or 0.0, r.id)):
        mark = "*" if r.status == "best" else ""
        if r.status in ("best", USED):
            extra = ("  [unverified, used on request]" if r.verdict != "verified" else "")
            extra += "  (composition)" if r.composition else ""
            extra += f"  {r.note}" if r.note and r.needs_more_than is None else ""
            needed = f"> {r.needs_more_than:.4g}" if r.sigma is None and r.needs_more_than else _num(r.sigma)
            lines.append(f"  {mark:2}{r.id:34} {r.verdict:12} {needed:>14} {_num(r.value):>12}{extra}")
        else:
            why = {APPROXIMATE: "approximation, never chosen", UNVERIFIED: "unverified, not used",
                   VIOLATED: "violated, never used"}.get(r.status, r.status)
            lines.append(f"  {'':2}{r.id:34} {r.verdict:12} {'-':>14} {'-':>12}  {why}")
    lines += ["", "not applicable:"] + _grouped(c.not_applicable)
    if c.notes:
        lines += [""] + [f"note: {n}" for n in c.notes]
    return "\n".join(lines)
