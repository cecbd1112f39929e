"""Profiles of composed runs: T-fold compositions of a (subsampled) Gaussian step through ``dp_accounting``
(:class:`CompositionProfile`), and the transcript of T identical steps read by additivity (:class:`RepeatedStep`).
The other profiles (closed forms, discrete pairs) are in :mod:`verify.instances.profile`."""

from __future__ import annotations

import copy
from typing import Callable

import numpy as np

from verify import validate
from verify.errors import InputError, PointRefused
from verify.instances.profile import PrivacyProfile, _check_quantity, _refinement_gap
from verify.privacy.gaussian import gdp_delta, gdp_eps, tradeoff_gaussian
from verify.privacy.pld import Composition




def _check_composition(p, mu, T, sampling: str, adjacency: str) -> None:
    """The checks :meth:`verify.privacy.pld.Composition.subsampled_gaussian` makes, for a composition
    answered without it."""
    validate.probability("p", p)
    validate.nonnegative("mu", mu)
    validate.integer("T", T, low=0)
    validate.choice("sampling", sampling, ("poisson", "uniform"))
    validate.choice("adjacency", adjacency, ("add_remove", "replace", "symmetric"))
    if adjacency == "add_remove" and sampling != "poisson":
        raise InputError("adjacency='add_remove' needs sampling='poisson' (fixed-size batches change size)", "adjacency")


class CompositionProfile(PrivacyProfile):
    """T-fold composition of a (subsampled) Gaussian step, through :mod:`verify.privacy.pld`.

    ``delta``, ``eps`` and ``tradeoff`` come from ``Composition.subsampled_gaussian(p, mu, T, ...)``
    (``dp_accounting`` privacy-loss distributions); every ``direction`` reports what that glue
    computes (its own worst case over the two directions).  ``renyi`` is exact by additivity of the
    Rényi divergence over independent steps: ``renyi_fn(alpha, forward)`` supplies it when given
    (Poisson sampling: :func:`verify.privacy.rdp.sampled_gaussian_rdp`).  Without subsampling
    (``p = 1``) the composition is exactly ``G_{sqrt(T) mu}`` and every reading is the Gaussian closed
    form (no grid: finite and exact at any mu).
    """

    def __init__(self, p: float, mu: float, T: int, sampling: str = "poisson",
                 adjacency: str = "add_remove",
                 renyi_fn: Callable[[np.ndarray, bool], np.ndarray] | None = None, error: float = 0.0):
        if float(p) == 1.0:  # no subsampling: T steps of G_mu are exactly G_{sqrt(T) mu} (DRS22 Cor. 2)
            self.composition = None  # closed forms, finite at any mu (a PLD grid is refused beyond mu ~ 30)
            _check_composition(p, mu, T, sampling, adjacency)
        else:
            self.composition = Composition.subsampled_gaussian(p, mu, T, sampling=sampling, adjacency=adjacency)
        self.p, self.step_mu, self.T = float(p), float(mu), int(T)
        self.sampling, self.adjacency = sampling, adjacency
        self.renyi_fn = renyi_fn
        self.error = float(error)
        self.mu = float(np.sqrt(T) * mu) if p == 1 else None
        self._coarse: CompositionProfile | None = None  # the refinement companion (:meth:`error_of`)

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        if self.renyi_fn is None:
            if self.mu is not None:  # alpha mu^2 / 2 (Mironov 2017, Prop. 7)
                return 0.5 * alpha * self.mu ** 2
            raise NotImplementedError("renyi of this composition is not available")
        return np.asarray(self.renyi_fn(alpha, forward), dtype=float)

    def _delta(self, eps: np.ndarray, forward: bool) -> np.ndarray:
        if self.composition is None:
            return np.asarray(gdp_delta(self.mu, eps), dtype=float)
        return np.asarray(self.composition.delta(eps), dtype=float)

    def _eps(self, delta: np.ndarray, forward: bool) -> np.ndarray:
        out = np.zeros(delta.shape)
        inner = delta < 1
        if np.any(inner):
            if self.composition is None:
                out[inner] = np.asarray(gdp_eps(self.mu, delta[inner]), dtype=float) if self.mu > 0 else 0.0
            else:
                out[inner] = np.asarray(self.composition.eps(delta[inner]), dtype=float)
            out[inner] = np.maximum(out[inner], 0.0)
        return out

    def _tradeoff(self, a: np.ndarray, forward: bool) -> np.ndarray:
        if self.composition is None:
            return np.asarray(tradeoff_gaussian(a, self.mu), dtype=float)
        # explicit eps grid up to eps(1e-12): the PLD's own default reaches for delta < 1e-15, which a
        # pessimistic PLD with infinity mass ~1e-15 never attains (its grid then becomes too coarse)
        e_max = max(float(self.composition.eps(1e-12)), 1e-3)
        grid = np.linspace(-e_max, e_max, 4001)
        return np.asarray(self.composition.tradeoff(a, eps_grid=grid), dtype=float)

    def error_of(self, name: str, *args, **kwargs) -> float:
        """Error estimate of one quantity (``name`` in renyi/delta/eps/tradeoff; max over the arguments):
        ``|value - value at twice the discretisation interval|``, the refinement estimate (as
        :meth:`DiscreteProfile.error_of`); 0 for the closed forms (``p = 1``; Rényi by additivity).

        The pessimistic PLD lies above the exact curve and comes down to it as the interval shrinks, at second
        order in the interval where it is smooth (measured on the quick run's compositions: the differences
        shrink about four times per halving), so the value lies within this estimate of the exact one.  At the
        default interval it is not negligible at small sampling rates over thousands of steps (``p = 0.0043``,
        ``T = 23438``: eps(1e-5) = 28.29 within 1e-4, delta(4) = 0.68 within 5e-6, small deltas far more
        relatively), where the comparisons' floor of 1e-6 alone would let a violation be certified on the
        discretisation's own excess (:func:`verify.check.references.query_error` asks this estimate before
        certifying one)."""
        _check_quantity(name)
        if self.composition is None or name == "renyi":
            return 0.0
        if self._coarse is None:  # the same composition at twice the interval, built on the first estimate
            coarse = copy.copy(self)
            coarse.composition = Composition.subsampled_gaussian(
                self.p, self.step_mu, self.T, sampling=self.sampling, adjacency=self.adjacency,
                value_discretization_interval=2.0 * self.composition.interval)
            self._coarse = coarse
        fine = np.asarray(getattr(self, name)(*args, **kwargs), dtype=float)
        rough = np.asarray(getattr(self._coarse, name)(*args, **kwargs), dtype=float)
        gap = _refinement_gap(fine, rough)
        return float(np.max(gap)) if gap.size else 0.0

    def __repr__(self) -> str:
        return f"CompositionProfile(p={self.p}, mu={self.step_mu}, T={self.T})"


class RepeatedStep(PrivacyProfile):
    """The transcript of ``T`` independent, identically distributed steps, each the pair ``step`` (a profile of one
    step, e.g. a grid of one subsampled step): ``P^T`` against ``Q^T``.

    Read in Rényi DP, exactly by additivity over independent steps (``D_a(P^T || Q^T) = T D_a(P || Q)``), with
    the step's own error estimate scaled alike; the other readings need a composition of the step's privacy-loss
    distribution, which this profile does not build (they refuse, and the comparison is skipped as no evidence).
    """

    def __init__(self, step: PrivacyProfile, T: int):
        self.step, self.T = step, int(T)
        self.error = float(getattr(step, "error", 0.0) or 0.0)

    def _renyi(self, alpha: np.ndarray, forward: bool) -> np.ndarray:
        return self.T * np.asarray(self.step._renyi(alpha, forward), dtype=float)

    def _refuse(self, *args) -> np.ndarray:
        raise PointRefused("the transcript of repeated grid steps is read in Rényi DP only (by additivity)", "notion")

    _delta = _tradeoff = _eps = _refuse

    def error_of(self, name: str, *args, **kwargs) -> float:
        """``T`` times the step's error estimate (Rényi divergences add over the steps)."""
        _check_quantity(name)
        if name != "renyi":
            self._refuse()
        error_of = getattr(self.step, "error_of", None)
        return 0.0 if error_of is None else self.T * float(error_of(name, *args, **kwargs))


__all__ = ["CompositionProfile", "RepeatedStep"]
