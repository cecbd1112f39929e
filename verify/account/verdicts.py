"""Which theorems the verifier has verified: the policy that decides what an accountant may use.

Verdicts come from ``reports/baseline.json`` (the committed regression baseline written by
``verify run --json``; format of ``verify.check.suite.run_payload``).  When that file is missing, the
engine's quick check is run on the candidate theorems instead, and the output says so.

Policy (docs/verdicts.md verdicts):

* ``verified``: used; the smallest such bound is the answer.
* ``approximate``: shown separately, never chosen (it may under-state the privacy loss).
* ``violated`` or ``ill-formed``: never used (a counterexample exists, or the bound is not a number).
* ``inconclusive`` or no verdict at all: listed as "unverified, not used"; the caller may opt in with
  ``include_unverified=True``, and the output then marks every such bound.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import theorems
import verify
from verify.check.engine import check_theorem, search_effort
from verify.check.verdict import VERDICTS
from verify.errors import InputError
from verify.theorem import Theorem

#: the policy in one line (part of every --json payload)
POLICY = ("verified: used, the smallest is the answer; approximate: shown separately, never chosen; "
          "violated or ill-formed: never used; inconclusive or unchecked: listed as unverified, not used "
          "(used, and marked, only with include_unverified)")


#: the verdicts of ``reports/baseline.json``, shipped inside the package (an installed wheel has no reports/);
#: written by :func:`package_verdicts` whenever the baseline is regenerated (a test compares the two)
PACKAGED = Path(__file__).with_name("verdicts.json")


def baseline_path() -> Path:
    """``reports/baseline.json`` of the repository this package lives in, else (an installed package) the copy of
    its verdicts the package ships."""
    repository = Path(verify.__file__).resolve().parents[1] / "reports" / "baseline.json"
    return repository if repository.is_file() else PACKAGED


def package_verdicts(baseline: Path, out: Path = PACKAGED) -> None:
    """Write the verdicts of ``baseline`` (a ``verify run --json`` payload) as the package's own copy."""
    payload = json.loads(baseline.read_text())
    table = {"profile": payload["profile"], "seed": payload["seed"], "source": "reports/baseline.json",
             "theorems": [{"id": r["id"], "verdict": r["verdict"]} for r in payload["theorems"]]}
    rows = ",\n".join("  " + json.dumps(r) for r in table.pop("theorems"))
    head = json.dumps(table)[:-1]
    out.write_text(f'{head}, "theorems": [\n{rows}\n]}}\n')


@dataclass(frozen=True)
class VerdictSource:
    """Verdicts by theorem id and where they come from (shown in every output)."""

    verdicts: Mapping[str, str]
    origin: str

    def of(self, theorem_id: str) -> str:
        return self.verdicts.get(theorem_id, "unchecked")


def read_baseline(path: Path) -> VerdictSource:
    """Verdicts from a ``verify run --json`` payload; ``InputError`` naming the file when it is malformed."""
    try:
        payload = json.loads(path.read_text())
        rows = payload["theorems"]
        verdicts = {str(r["id"]): str(r["verdict"]) for r in rows}
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}", "verdicts") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: not a verify run --json payload ({type(exc).__name__}: {exc})", "verdicts") from None
    bad = sorted({v for v in verdicts.values() if v not in VERDICTS})
    if bad:
        raise InputError(f"{path}: unknown verdict {bad[0]!r}", "verdicts")
    return VerdictSource(verdicts, f"verdicts from {path}")


def verdict_source(candidates: Iterable[Theorem], verdicts: Mapping[str, str] | str | Path | None = None,
                   seed: int = 0) -> VerdictSource:
    """The verdicts to use: an explicit mapping, a baseline file, ``reports/baseline.json``, or a quick check.

    The quick check (``verify.check.engine.check_theorem``, profile ``quick``) runs only on ``candidates``
    (the theorems that apply to the run), and only when no baseline file exists.
    """
    if isinstance(verdicts, Mapping):
        bad = sorted({v for v in verdicts.values() if v not in VERDICTS})
        if bad:
            raise InputError(f"verdicts: unknown verdict {bad[0]!r} (one of {', '.join(VERDICTS)})", "verdicts")
        return VerdictSource(dict(verdicts), "verdicts given by the caller")
    path = Path(verdicts) if verdicts is not None else baseline_path()
    if path.is_file():
        return read_baseline(path)
    if verdicts is not None:
        raise InputError(f"{path}: no such verdict file", "verdicts")
    effort = search_effort("quick")
    found = {t.id: check_theorem(t, theorems.get, effort, seed).verdict for t in candidates}
    return VerdictSource(found, f"{path} missing: verdicts from a quick check (seed {seed}) of the "
                                f"{len(found)} applicable theorems")

