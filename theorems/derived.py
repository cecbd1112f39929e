"""Theorems derived in this project from the papers' cyclic results: shuffled batches.

Shuffled batches (docs/conventions.md, ``batches="shuffle"``): a fresh uniform permutation of the ``n`` records every
epoch, cut into ``l = n/b`` batches of ``b``.  None of the four papers states a bound for them (Bu et al. 2020
§5 mention shuffling without a formula); the records below derive one from a cyclic theorem by the argument
each record repeats in its ``notes``:

1. **Mixture over orders.**  The permutations are drawn independently of the data, with the same law on the
   neighbouring datasets D and D'.  Conditionally on the sequence of permutations pi, the run is a run with a
   fixed order, with laws P_pi (on D) and Q_pi (on D'); unconditionally the output laws are the mixtures
   sum_pi w_pi P_pi and sum_pi w_pi Q_pi, with the *same* weights.
2. **Joint convexity.**  Every hockey-stick divergence H_{e^eps}(P || Q) is jointly convex in (P, Q), so
   delta_mixture(eps) <= max_pi delta_pi(eps): a mu-GDP bound that holds for every order holds for the
   shuffled run (and a Rényi bound too, Rényi divergence being jointly quasi-convex).
3. **The worst order.**  For a fixed order the differing record is used once per epoch (``ceil(T/l)`` times
   in ``T`` steps), at a position that may change from epoch to epoch; the cyclic bound is taken at the
   worst position (the record in the last batch used), which bounds every order.

What the engine checks: the records are registered like the papers' theorems, and the soundness obligation
compares them with the exact shuffled instances (``linear_chain(batches="shuffle")``,
``subsampled_linear(batches="shuffle")`` with partial epochs, the projected walk ``interval_walk`` through
``verify.instances.grid.evolve_shuffled``).  ``verify.Accountant`` and ``verify account`` use them for shuffled
runs once their verdict is ``verified``.
"""

from __future__ import annotations

import sympy as sp

from verify.theorem import Assumption, Claim, FreeParameter, Setting, Source, Theorem, sym

Delta, b, l, T = sym.Delta, sym.b, sym.l, sym.T
eta, sigma, M, D, nu = sym.eta, sym.sigma, sym.M, sym.D, sym.nu

#: per-step GDP parameter of a step whose batch holds the differing record: sensitivity eta Delta / b over
#: the noise eta sigma (Bok et al. 2024 §0: eta cancels)
MU_B = Delta / (b * sigma)
#: epochs begun in T steps: the record is used at most once in each (the worst position of the partial one)
USES = sp.ceiling(T / l)

_ARGUMENT = ("Derivation: the permutations are independent of the data, so the output laws on D and D' are "
             "mixtures over the sequence of orders with the same weights; hockey-stick divergences are jointly "
             "convex, so the mixture is at least as private as the worst order; for a fixed order the record is "
             "used once per epoch begun, at a position that may change between epochs, and the bound below "
             "holds at every position (the worst one).")

SHUFFLE_COMPOSITION = Theorem(
    id="derived/shuffle/composition", title="Shuffled batches: GDP composition over the epochs begun",
    source=Source("derived", "Bok et al. 2024, Theorem 4.4 (NoisyCGD composition) + joint convexity over orders"),
    notion="gdp", kind="upper",
    setting=Setting(batches="shuffle", loss="any", constraint="any", adjacency="replace", release="all"),
    bound=sp.sqrt(USES) * MU_B,
    claims=(Claim("equals", value=MU_B, subs={"T": 1}, text="one step: at most one use of the record"),),
    # a partial epoch (T < l): the record is used with probability T/l, so the bound must count one use
    examples=({"family": "subsampled_linear", "n": 4, "b": 2, "T": 1, "eta": 0.5, "sigma": 1.0, "Delta": 1.0,
               "batches": "shuffle"},),
    paper_form=r"\mu=\frac{L}{b\sigma}\sqrt{\lceil T/l\rceil}",
    notes=_ARGUMENT + " For a fixed order, each of the ceil(T/l) steps that use the record is a Gaussian "
          "mechanism of GDP parameter Delta/(b sigma) and the other steps are post-processing: adaptive "
          "composition (Dong-Roth-Su 2022, Cor. 2) gives sqrt(ceil(T/l)) Delta/(b sigma) for every iterate, "
          "hence for the last.  Bok et al.'s Thm 4.4 with E = ceil(T/l); no position enters it.",
)

# the Bok et al. 2024 Thm 4.6 window (Lemma C.11; docs/papers/bok2024.md): N epochs before the record's last use
_WINDOW_MU = sp.sqrt(MU_B**2 + (D + nu * eta * Delta / b) ** 2 / (l * nu * (eta * sigma) ** 2))

SHUFFLE_WINDOW = Theorem(
    id="derived/shuffle/window", title="Shuffled batches, constrained convex: the cyclic window at the worst position",
    source=Source("derived", "Bok et al. 2024, Theorem 4.6 (window form, Lemma C.11) + joint convexity over orders"),
    notion="gdp", kind="upper",
    setting=Setting(batches="shuffle", loss="convex", constraint="bounded", adjacency="replace"),
    bound=_WINDOW_MU,
    assumptions=(Assumption(eta <= 2 / M, "convex M-smooth losses, step size eta in (0, 2/M]"),
                 Assumption(T >= 2 * l, "at least two whole epochs (a window before the last use)")),
    free=(FreeParameter("nu", 1, sp.floor(T / l) - 1, integer=True),),
    claims=(Claim("ge", value=MU_B, text="at least one sensitive step"),),
    paper_form=r"\mu(N)^2=\Big(\frac{L}{b\sigma}\Big)^2+\frac{(D+N\eta L/b)^2}{lN(\eta\sigma)^2},"
               r"\ 1\le N\le\lfloor T/l\rfloor-1",
    notes=_ARGUMENT + " For a fixed order, let t be the step of the record's last use; the steps after t use "
          "only common records (post-processing), and the t >= l (floor(T/l) - 1) steps before it are "
          "covered by windows of l N steps, N <= floor(T/l) - 1, each holding at most N uses of the record "
          "(consecutive steps meet at most N epochs other than the last use's, one use each).  Bok et al.'s "
          "shifted interpolation over the window (Lemma C.11: the shift D plus N drifts of eta Delta/b spread "
          "over l N noisy non-expansive steps) and the last use's own step give mu(N); the cyclic record "
          "bok2024/thm4.6/window is the case of a fixed order with the record in the last batch.",
)
