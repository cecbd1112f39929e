"""The description of a training run in the canonical units of docs/conventions.md.

A :class:`Run` is what the practitioner knows about one run of
``theta <- Proj_C(theta - eta * (mean gradient over B_k + N(0, sigma^2 I)))``: dataset and batch sizes,
the batch scheme, the length (steps ``T`` or epochs), the step size, the noise (``sigma``, or the DP-SGD
noise multiplier ``z`` and clipping norm ``Cclip`` with ``sigma = z*Cclip/b``), the sensitivity (``Delta``,
or a Lipschitz constant ``L``), the geometry (``m``, ``M``, ``D``, ``d``) and the adjacency.  It is read
from a mapping, a TOML file or command-line flags, validated (contradictions raise :class:`RunError`),
and turned into the parameter values a theorem record asks for (:meth:`Run.parameters`).
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from verify.errors import InputError
from verify.vocabulary import check_curvatures, derive, epoch_steps, noise_multiplier, sensitivity_of_lipschitz


class RunError(InputError):
    """A run description that is incomplete, unknown or self-contradictory (exit status 2); ``parameter``
    names the key at fault."""


BATCHES = ("full", "cyclic", "poisson", "uniform", "shuffle")
ADJACENCIES = ("replace", "add_remove")
INITS = ("fixed", "gaussian", "stationary")
RELEASES = ("last", "all")
LOSSES = ("any", "lipschitz", "convex", "strongly_convex", "quadratic", "linear")

#: numeric keys of a run description, with their meaning (TOML keys and ``--flags`` use these names)
NUMERIC_KEYS: dict[str, str] = {
    "n": "dataset size",
    "b": "batch size (expected batch size for Poisson sampling)",
    "T": "number of steps",
    "epochs": "number of epochs (T = epochs * steps per epoch)",
    "eta": "step size",
    "sigma": "std of the Gaussian noise added to the averaged gradient",
    "z": "DP-SGD noise multiplier (sigma = z*Cclip/b)",
    "Cclip": "DP-SGD clipping norm",
    "Delta": "gradient sensitivity (replace: sup |grad l(x) - grad l(x')|, add/remove: sup |grad l(x)|)",
    "L": "Lipschitz constant of each loss",
    "m": "strong-convexity constant (0: convex)",
    "M": "smoothness constant",
    "D": "diameter of the constraint set (absent: unconstrained)",
    "d": "dimension",
}
#: categorical keys and their admissible values
CHOICE_KEYS: dict[str, tuple[str, ...]] = {
    "batches": BATCHES,
    "adjacency": ADJACENCIES,
    "init": INITS,
    "release": RELEASES,
    "loss": LOSSES,
}
KEYS: tuple[str, ...] = tuple(NUMERIC_KEYS) + tuple(CHOICE_KEYS)
#: the adjacency when none is given, by batching: add/remove for Poisson sampling (the convention of Bu et
#: al. 2020, Opacus and dp_accounting, and the only one with a composition theorem in the registry),
#: replace-one otherwise (fixed-size batches cannot change size)
DEFAULT_ADJACENCY: dict[str, str] = {b: "add_remove" if b == "poisson" else "replace" for b in BATCHES}
_INTEGER_KEYS = ("n", "b", "T", "epochs", "d")
_ALIASES = {"E": "epochs"}  # the vocabulary's name for epochs


def _sizes(num: Mapping[str, float], batches: str, where: str) -> tuple[int, int]:
    """The dataset size n and the batch size b of a run description (b = n for full batches)."""
    if "n" not in num:
        raise RunError(f"{where}: n (dataset size) is required", "n")
    n = int(num["n"])
    if batches == "full":
        if "b" in num and int(num["b"]) != n:
            raise RunError(f"{where}: full batches need b = n, got b={int(num['b'])}, n={n}", "b")
        b = n
    else:
        if "b" not in num:
            raise RunError(f"{where}: b (batch size) is required for {batches} batches", "b")
        b = int(num["b"])
    if b > n:
        raise RunError(f"{where}: batch size b={b} exceeds dataset size n={n}", "b")
    if batches == "cyclic" and n % b:
        raise RunError(f"{where}: cyclic batches need b to divide n (n={n}, b={b})", "b")
    return n, b


def _noise(num: Mapping[str, float], b: int, where: str) -> float | None:
    """The noise sigma of a run description: given, or z*Cclip/b from a noise multiplier (both: consistent)."""
    sigma, z, Cclip = num.get("sigma"), num.get("z"), num.get("Cclip")
    if z is None:
        return sigma
    if Cclip is None:
        raise RunError(f"{where}: the noise multiplier z needs the clipping norm Cclip (sigma = z*Cclip/b)", "Cclip")
    from_z = derive({"b": b, "z": z, "Cclip": Cclip})["sigma"]
    if sigma is not None and not math.isclose(sigma, from_z, rel_tol=1e-9):
        raise RunError(f"{where}: sigma={sigma:g} contradicts z*Cclip/b = {from_z:g}", "sigma")
    if not 0.0 < from_z < math.inf:  # z*Cclip/b under- or overflows the float range
        raise RunError(f"{where}: sigma = z*Cclip/b = {from_z:g} is outside the float range (z={z:g}, "
                       f"Cclip={Cclip:g}, b={b})", "z")
    return from_z


@dataclass(frozen=True)
class Run:
    """A validated run description (docs/conventions.md units); build it with :meth:`from_mapping`.

    Derived quantities (``q = b/n``, ``l = n/b``, ``T`` from epochs, ``sigma`` from ``z*Cclip/b``,
    ``Delta`` from ``L`` or ``Cclip``) are filled in; ``given`` keeps what was stated.
    """

    n: int
    b: int
    batches: str
    T: int
    epochs: float
    adjacency: str = "replace"  # from_mapping: DEFAULT_ADJACENCY by batching
    init: str = "fixed"
    release: str = "last"
    loss: str = "any"
    eta: float | None = None
    sigma: float | None = None
    z: float | None = None
    Cclip: float | None = None
    Delta: float | None = None
    L: float | None = None
    m: float | None = None
    M: float | None = None
    D: float | None = None
    d: int | None = None
    given: tuple[str, ...] = ()

    # -- construction --------------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, values: Mapping[str, object], *, require_sigma: bool = True,
                     where: str = "run description") -> "Run":
        """Validate a run description; raise :class:`RunError` naming the key and the violated condition.

        ``require_sigma=False`` is for calibration, which solves for ``sigma``.
        """
        raw = {_ALIASES.get(k, k): v for k, v in values.items() if v is not None}
        unknown = [k for k in raw if k not in KEYS]
        if unknown:
            raise RunError(f"{where}: unknown key {unknown[0]!r} (known keys: {', '.join(KEYS)})", unknown[0])
        num: dict[str, float] = {}
        for key in NUMERIC_KEYS:
            if key in raw:
                num[key] = _number(key, raw[key], where)
        choice: dict[str, str] = {}
        for key, allowed in CHOICE_KEYS.items():
            if key in raw:
                value = raw[key]
                if not isinstance(value, str) or value not in allowed:
                    raise RunError(f"{where}: {key} must be one of {', '.join(allowed)}, got {value!r}", key)
                choice[key] = value

        batches = choice.get("batches", "full")
        n, b = _sizes(num, batches, where)
        per_epoch = 1.0 if batches == "full" else n / b
        T, epochs = _length(num, per_epoch, where, whole=batches in ("full", "cyclic"))

        adjacency = choice.get("adjacency", DEFAULT_ADJACENCY[batches])
        eta = num.get("eta")
        sigma, z, Cclip = _noise(num, b, where), num.get("z"), num.get("Cclip")
        if require_sigma and sigma is None:
            raise RunError(f"{where}: the noise is missing: give sigma, or z and Cclip", "sigma")

        Delta, L = num.get("Delta"), num.get("L")
        if Delta is not None and L is not None and Delta > sensitivity_of_lipschitz(L, adjacency) * (1 + 1e-12):
            raise RunError(f"{where}: Delta={Delta:g} exceeds the {sensitivity_of_lipschitz(L, adjacency):g} that "
                           f"L-Lipschitz losses (L={L:g}) allow ({adjacency} adjacency)", "Delta")
        if Delta is None and L is not None:
            Delta = sensitivity_of_lipschitz(L, adjacency)
        if Delta is None and Cclip is not None:
            Delta = sensitivity_of_lipschitz(Cclip, adjacency)  # clipped per-example gradients: norm <= Cclip

        m, M = num.get("m"), num.get("M")
        if m is not None and M is not None:
            check_curvatures(m, M, where, RunError)
        loss = choice.get("loss") or ("strongly_convex" if m is not None and m > 0
                                      else "convex" if m is not None else "any")
        if loss == "strongly_convex" and m is not None and m <= 0:
            raise RunError(f"{where}: loss strongly_convex needs m > 0, got m={m:g}", "m")
        D = num.get("D")
        d = int(num["d"]) if "d" in num else None
        return cls(n=n, b=b, batches=batches, T=T, epochs=epochs, adjacency=adjacency,
                   init=choice.get("init", "fixed"), release=choice.get("release", "last"), loss=loss,
                   eta=eta, sigma=sigma, z=z, Cclip=Cclip, Delta=Delta, L=L, m=m, M=M, D=D, d=d,
                   given=tuple(k for k in KEYS if k in raw))

    @classmethod
    def from_toml(cls, path: str | Path, overrides: Mapping[str, object] | None = None, *,
                  require_sigma: bool = True) -> "Run":
        """Read a run description from a TOML file (flat ``key = value`` lines); ``overrides`` win."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text())
        except OSError as exc:
            raise RunError(f"{path}: cannot read: {exc.strerror}", "config") from None
        except tomllib.TOMLDecodeError as exc:
            raise RunError(f"{path}: not valid TOML: {str(exc).splitlines()[0]}", "config") from None
        for key, value in data.items():
            if isinstance(value, dict):
                raise RunError(f"{path}: unknown key {key!r} (tables are not part of a run description)", key)
        merged = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
        return cls.from_mapping(merged, require_sigma=require_sigma, where=str(path))

    # -- use -----------------------------------------------------------------------------------------

    @property
    def constrained(self) -> bool:
        return self.D is not None

    def with_sigma(self, sigma: float) -> "Run":
        """The same run with noise ``sigma`` (``z`` follows when a clipping norm is known)."""
        z = noise_multiplier(sigma, self.b, self.Cclip) if self.Cclip is not None else None
        return dataclasses.replace(self, sigma=float(sigma), z=z)

    def parameters(self) -> dict[str, float]:
        """Values of the canonical vocabulary this run determines (what theorem records are evaluated at).

        ``z`` is the *effective* noise multiplier of the summed gradient, ``b*sigma/Delta`` (Bu et al.'s
        sigma when ``Delta = Cclip``, add/remove); ``l`` and ``E`` are given only when they are whole.
        """
        # q = b/n; l = n/b and E = T/l whenever b divides n (a whole number of batches per epoch)
        whole = "cyclic" if self.n % self.b == 0 else None
        derived = derive({"n": self.n, "b": self.b, "T": self.T}, batches=whole)
        out = {k: float(derived[k]) for k in ("n", "b", "q", "T", "l", "E") if k in derived}
        for key in ("eta", "sigma", "Delta", "L", "m", "M", "D", "d", "Cclip"):
            value = getattr(self, key)
            if value is not None:
                out[key] = float(value)
        if self.sigma is not None and self.Delta is not None:
            out["z"] = float(noise_multiplier(self.sigma, self.b, self.Delta))
        return out

    def to_json(self) -> dict:
        record = {k: getattr(self, k) for k in ("n", "b", "batches", "T", "epochs", "adjacency", "init",
                                                 "release", "loss", "eta", "sigma", "z", "Cclip", "Delta",
                                                 "L", "m", "M", "D", "d")}
        record["given"] = list(self.given)
        return record

    def describe(self) -> str:
        parts = [f"n={self.n}", f"b={self.b}", f"{self.batches} batches", f"T={self.T}"]
        if self.batches != "full":
            parts.append(f"epochs={self.epochs:g}")
        for key in ("eta", "sigma", "z", "Cclip", "Delta", "L", "m", "M", "D", "d"):
            value = getattr(self, key)
            if value is not None:
                parts.append(f"{key}={value:g}")
        adjacency = self.adjacency if "adjacency" in self.given else f"{self.adjacency} (default for {self.batches} batches)"
        parts += [adjacency, f"init {self.init}", f"release {self.release}", f"loss {self.loss}"]
        return ", ".join(parts)


def _number(key: str, value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RunError(f"{where}: {key} must be a number, got {value!r}", key)
    try:
        x = float(value)
    except ValueError:
        raise RunError(f"{where}: {key} must be a number, got {value!r}", key) from None
    if not math.isfinite(x):
        raise RunError(f"{where}: {key} must be finite, got {value!r}", key)
    if key == "m":
        if x < 0:
            raise RunError(f"{where}: m must be >= 0 ({NUMERIC_KEYS[key]}), got {x:g}", key)
    elif x <= 0:
        raise RunError(f"{where}: {key} must be > 0 ({NUMERIC_KEYS[key]}), got {x:g}", key)
    if key in _INTEGER_KEYS and key != "epochs" and not x.is_integer():
        raise RunError(f"{where}: {key} must be a positive integer, got {value!r}", key)
    if key in _INTEGER_KEYS and x > MAX_STEPS:
        raise RunError(f"{where}: {key} must be <= 2**53 (exact in double precision), got {value!r}", key)
    return x


#: the most steps a run may have (integers above 2**53 are not exact in double precision)
MAX_STEPS = 2.0 ** 53


def _length(num: Mapping[str, float], per_epoch: float, where: str, *, whole: bool) -> tuple[int, float]:
    """Steps and epochs from whichever was given; they must agree (T = epochs * steps per epoch).

    ``whole``: full and cyclic batches, where an epoch is a whole number of steps.  Otherwise (sampled
    batches, ``n/b`` steps per epoch on average) epochs give ``ceil(epochs*n/b)`` steps — rounding up never
    under-counts the privacy cost — and a given ``T`` agrees when it is within one step of ``epochs*n/b``.
    """
    T, epochs = num.get("T"), num.get("epochs")
    if T is None and epochs is None:
        raise RunError(f"{where}: the length is missing: give T (steps) or epochs", "T")
    if epochs is None:
        return int(T), T / per_epoch
    steps = epochs * per_epoch
    if not steps <= MAX_STEPS:
        raise RunError(f"{where}: epochs={epochs:g} gives {steps:g} steps, more than {MAX_STEPS:g}", "epochs")
    if whole:
        if not math.isclose(steps, round(steps), rel_tol=0, abs_tol=1e-9 * max(1.0, steps)):
            raise RunError(f"{where}: epochs={epochs:g} is not a whole number of steps "
                           f"({per_epoch:g} steps per epoch)", "epochs")
        implied = max(1, round(steps))
        agrees = T is None or int(T) == implied
    else:
        implied = epoch_steps(epochs, per_epoch)
        agrees = T is None or abs(T - steps) < 1
    if not agrees:
        raise RunError(f"{where}: T={int(T)} and epochs={epochs:g} disagree "
                       f"(epochs give T={implied} at {per_epoch:g} steps per epoch)", "T")
    return (int(T) if T is not None else implied), float(epochs)
