"""Published results from papers outside the four encoded ones, written as a user would write them, with wrong
variants nobody designed the search around.  Each record gives the paper's statement, its translation into the
canonical convention (theta <- theta - eta (mean gradient + N(0, sigma^2 I)), per-step parameter noise eta sigma,
Delta the gradient sensitivity) and, in ``tests/external/test_published.py``, the verdict it must get.
"""
import sympy as sp

from verify.theorem import Assumption, FreeParameter, Setting, Source, Theorem, sym

T, n, b, l, E, sigma, Delta, alpha, eta, M = (sym.T, sym.n, sym.b, sym.l, sym.E, sym.sigma, sym.Delta, sym.alpha,
                                              sym.eta, sym.M)
tpos, rho, delta, mu, eps = sym.tpos, sym.rho, sym.delta, sym.mu, sym.eps

# --- Feldman, Mironov, Talwar, Thakurta 2018, "Privacy amplification by iteration", Theorem 22 -----------------
# Paper: one pass of projected noisy SGD (batch size 1, n steps) on convex, beta-smooth, L-Lipschitz losses with
# eta <= 2/beta and noise N(0, (eta sigma_F)^2) per step: the record used at step t is
# (alpha, alpha 2 L^2 / (sigma_F^2 (n - t + 1)))-RDP.  Canonical: b = 1, one epoch (E = 1, so T = l = n), the record
# in batch tpos = t, gradient difference Delta = 2L, noise std sigma = sigma_F: alpha Delta^2 / (2 sigma^2 (T - tpos
# + 1)).  The paper's 2L^2 with Delta = 2L reads Delta^2/2.
_ABI_SETTING = Setting(batches="cyclic", loss="convex", constraint="any", init="any")
_ABI_ASSUMPTIONS = (Assumption(sym.b <= 1, "batch size 1"), Assumption(E <= 1, "one pass"),
                    Assumption(eta <= 2 / M, "eta <= 2/beta"))
ABI = Theorem(
    id="fmtt18/thm22", title="amplification by iteration: the record at step t",
    source=Source("Feldman et al. 2018", "Theorem 22"), notion="rdp", kind="upper", setting=_ABI_SETTING,
    bound=alpha * Delta**2 / (2 * sigma**2 * (T - tpos + 1)), assumptions=_ABI_ASSUMPTIONS)
# wrong: the position shifted by one (t -> t - 1 in n - t + 1), tight at the first record
ABI_SHIFTED = Theorem(
    id="fmtt18/thm22/shifted", title="amplification by iteration, n - t + 2", source=ABI.source, notion="rdp",
    kind="upper", setting=_ABI_SETTING, bound=alpha * Delta**2 / (2 * sigma**2 * (T - tpos + 2)),
    assumptions=_ABI_ASSUMPTIONS)
# wrong: the same amplification claimed for smooth, possibly non-convex losses (the proof needs contractive
# steps): an expanding step keeps the first record's shift while the noise after it is expanded alike
ABI_NONCONVEX = Theorem(
    id="fmtt18/thm22/smooth", title="amplification by iteration claimed for smooth losses", source=ABI.source,
    notion="rdp", kind="upper", setting=Setting(batches="cyclic", loss="smooth", constraint="any", init="any"),
    bound=ABI.bound, assumptions=_ABI_ASSUMPTIONS)
# wrong: the amplification squared (a reading of 'n - t + 1 noisy steps' as a variance reduction twice)
ABI_SQUARED = Theorem(
    id="fmtt18/thm22/squared", title="amplification by iteration, (n - t + 1)^2", source=ABI.source, notion="rdp",
    kind="upper", setting=_ABI_SETTING, bound=alpha * Delta**2 / (2 * sigma**2 * (T - tpos + 1)**2),
    assumptions=_ABI_ASSUMPTIONS)

# --- Dong, Roth, Su 2022, "Gaussian differential privacy", Corollary 3.3 (composition) + Abadi et al. 2016 --------
# Paper: the T-fold composition of mu-GDP mechanisms is sqrt(T) mu-GDP.  Noisy GD with batch b releases every
# iterate; each step whose batch holds the record is a Gaussian mechanism with sensitivity Delta/b and noise sigma:
# cyclic batches use it E times (whole epochs): sqrt(E) Delta / (b sigma).
_ALL_CYCLIC = Setting(batches="cyclic", loss="any", constraint="none", release="all")
GDP_TRANSCRIPT = Theorem(
    id="drs22/cor3.3/cyclic", title="cyclic noisy GD, every iterate: sqrt(E) Delta/(b sigma)",
    source=Source("Dong, Roth, Su 2022", "Corollary 3.3"), notion="gdp", kind="upper", setting=_ALL_CYCLIC,
    bound=sp.sqrt(E) * Delta / (b * sigma))
# the same stated in T, for any number of steps: the record in batch tpos is used floor((T - tpos)/l) + 1 times
GDP_TRANSCRIPT_T = Theorem(
    id="drs22/cor3.3/cyclic-T", title="cyclic noisy GD, every iterate, T steps", source=GDP_TRANSCRIPT.source,
    notion="gdp", kind="upper", setting=_ALL_CYCLIC,
    bound=sp.sqrt(sp.floor((T - tpos) / l) + 1) * Delta / (b * sigma), assumptions=(Assumption(tpos <= T),),
    # a kept instance in a partial epoch (T = 7, l = 3, the record in the first batch: used 3 times)
    examples=({"family": "linear_chain", "n": 6, "b": 2, "batches": "cyclic", "position": 0, "T": 7, "eta": 0.5,
               "sigma": 1.0, "Delta": 1.0, "release": "all"},))
# wrong: the last iterate's value (linear losses) claimed for the transcript: sqrt(E/l) Delta/(b sigma)
GDP_TRANSCRIPT_AS_LAST = Theorem(
    id="drs22/cor3.3/cyclic-last", title="cyclic noisy GD, every iterate: sqrt(E/l) Delta/(b sigma)",
    source=GDP_TRANSCRIPT.source, notion="gdp", kind="upper", setting=_ALL_CYCLIC,
    bound=sp.sqrt(E / l) * Delta / (b * sigma))
# wrong only for a partial last epoch: stated in T with floor(T/l) uses of the record
GDP_WHOLE_EPOCHS_ONLY = Theorem(
    id="drs22/cor3.3/floor", title="cyclic noisy GD, every iterate: sqrt(floor(T/l)) Delta/(b sigma)",
    source=GDP_TRANSCRIPT.source, notion="gdp", kind="upper", setting=_ALL_CYCLIC,
    bound=sp.sqrt(sp.floor(T / l)) * Delta / (b * sigma))

# --- Mironov 2017, "Renyi differential privacy", Proposition 3 (RDP -> (eps, delta)) ------------------------------
# Paper: (alpha, eps_R)-RDP implies (eps_R + log(1/delta)/(alpha - 1), delta)-DP.  The Gaussian mechanism (mu =
# Delta/(n sigma)) is (alpha, alpha mu^2/2)-RDP at every alpha > 1 (Prop. 7), so eps(delta) <= min over alpha.
_GM = Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="any")
_MU = Delta / (n * sigma)
_ALPHA = FreeParameter("alpha", sp.Integer(1), sp.Integer(1000), open_lo=True)
RDP_TO_DP = Theorem(
    id="mironov17/prop3", title="RDP -> (eps, delta) for the Gaussian mechanism",
    source=Source("Mironov 2017", "Propositions 3 and 7"), notion="eps_delta", kind="upper", setting=_GM,
    bound=alpha * _MU**2 / 2 + sp.log(1 / delta) / (alpha - 1), free=(_ALPHA,))
# wrong: log(1/delta)/alpha (the order, not alpha - 1)
RDP_TO_DP_ALPHA = Theorem(
    id="mironov17/prop3/alpha", title="RDP -> (eps, delta), log(1/delta)/alpha", source=RDP_TO_DP.source,
    notion="eps_delta", kind="upper", setting=_GM, bound=alpha * _MU**2 / 2 + sp.log(1 / delta) / alpha,
    free=(_ALPHA,))
# Balle, Barthe, Gaboardi, Hsu, Sato 2020, Theorem 21:
# eps_R + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1)
RDP_TO_DP_BALLE = Theorem(
    id="balle20/thm21", title="RDP -> (eps, delta), the improved conversion",
    source=Source("Balle et al. 2020", "Theorem 21"), notion="eps_delta", kind="upper", setting=_GM,
    bound=alpha * _MU**2 / 2 + sp.log((alpha - 1) / alpha) - (sp.log(delta) + sp.log(alpha)) / (alpha - 1),
    free=(_ALPHA,))
# wrong: the last denominator alpha instead of alpha - 1
RDP_TO_DP_BALLE_ALPHA = Theorem(
    id="balle20/thm21/alpha", title="RDP -> (eps, delta), improved, over alpha", source=RDP_TO_DP_BALLE.source,
    notion="eps_delta", kind="upper", setting=_GM,
    bound=alpha * _MU**2 / 2 + sp.log((alpha - 1) / alpha) - (sp.log(delta) + sp.log(alpha)) / alpha,
    free=(_ALPHA,))

# --- the hidden-state contraction bound of strongly convex GD, claimed for smooth non-convex losses ---------------
# Chourasia et al. 2021 / Bok et al. 2024 (Thm 4.2 with m = M): for M-smooth, M-strongly convex losses and
# eta M < 1, full-batch noisy GD's last iterate is Delta/(n sigma) sqrt((2 - eta M)/(eta M))-GDP (uniformly in T).
# Stated for smooth (possibly non-convex) losses, as the non-convex literature warns against (Kong & Ribero;
# Annamalai 2024): an expanding step keeps the past, and the concave quadratic -M/2 theta^2 refutes it.
_SMOOTH = Setting(batches="full", loss="smooth", constraint="none", init="fixed")
CONTRACTION_NONCONVEX = Theorem(
    id="contraction/smooth-nonconvex", title="uniform-in-T last-iterate GDP claimed for smooth losses",
    source=Source("Bok et al. 2024 (read for non-convex losses)", "Theorem 4.2, m = M"), notion="gdp",
    kind="upper", setting=_SMOOTH, bound=Delta / (n * sigma) * sp.sqrt((2 - eta * M) / (eta * M)),
    assumptions=(Assumption(eta * M < 1),))
# correct for any loss: the composition (every iterate, hence the last) sqrt(T) Delta / (n sigma)
COMPOSITION_NONCONVEX = Theorem(
    id="drs22/cor3.3/smooth-last", title="full-batch noisy GD, last iterate of smooth losses: sqrt(T) Delta/(n sigma)",
    source=GDP_TRANSCRIPT.source, notion="gdp", kind="upper", setting=_SMOOTH, bound=sp.sqrt(T) * Delta / (n * sigma))

# --- Mironov, Talwar, Zhang 2019, "Renyi DP of the sampled Gaussian mechanism", Section 3 + Abadi et al. 2016 ------
# Paper: the RDP of T Poisson-subsampled Gaussian steps (rate q, noise multiplier z) is T eps_SGM(alpha); for
# integer alpha, eps_SGM = log(sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k)/(2 z^2)))/(alpha - 1).
# Encoded at alpha = 2 (k = 0, 1, 2) as a function of T and the canonical z = b sigma / Delta, q = b/n; RDP is
# non-decreasing in the order, so the value at 2 bounds every order in (1, 2].  Stated for long runs (T >= 1000,
# the regime of DP-SGD training), which the search must reach.
_DPSGD = Setting(algorithm="dp_sgd", batches="poisson", loss="any", constraint="any", adjacency="add_remove",
                 release="all")
_Q, _Z = sym.q, sym.z
_SGM2 = sp.log((1 - _Q)**2 + 2 * _Q * (1 - _Q) + _Q**2 * sp.exp(1 / _Z**2))
SGM_ORDER2 = Theorem(
    id="mtz19/order2", title="Poisson-subsampled Gaussian, order 2, T steps",
    source=Source("Mironov, Talwar, Zhang 2019", "Section 3.3 (integer orders)"), notion="rdp", kind="upper",
    setting=_DPSGD, bound=T * _SGM2, assumptions=(Assumption(alpha <= 2), Assumption(T >= 1000)))
# wrong: one step fewer composed (T - 1 steps: the first step read as the initialisation), by 1/T relatively
SGM_ORDER2_OFF_BY_ONE = Theorem(
    id="mtz19/order2/off-by-one", title="Poisson-subsampled Gaussian, order 2, T - 1 steps", source=SGM_ORDER2.source,
    notion="rdp", kind="upper", setting=_DPSGD, bound=(T - 1) * _SGM2,
    assumptions=(Assumption(alpha <= 2), Assumption(T >= 1000)))

# --- shuffled batches on strongly convex losses: joint convexity + composition ------------------------------------
# A fresh permutation every epoch makes the run a mixture over orders; by joint convexity of every divergence the
# mixture is at most as distinguishable as its worst order, a cyclic run, whose transcript is E Gaussian mechanisms
# (Dong, Roth, Su 2022, Cor. 3.3): the last iterate is sqrt(E) Delta/(b sigma)-GDP.
_SHUFFLE_SC = Setting(batches="shuffle", loss="strongly_convex", constraint="any", init="fixed")
SHUFFLE_COMPOSITION = Theorem(
    id="shuffle/joint-convexity/sc", title="shuffled noisy GD, strongly convex: sqrt(E) Delta/(b sigma)",
    source=Source("Dong, Roth, Su 2022 (composition) with joint convexity", "Corollary 3.3"), notion="gdp",
    kind="upper", setting=_SHUFFLE_SC, bound=sp.sqrt(E) * Delta / (b * sigma),
    assumptions=(Assumption(sym.m > 0), Assumption(eta <= 1 / M)))
# wrong: 'amplification by shuffling' read as averaging the record's step over the l positions of an epoch,
# sqrt(E/l) Delta/(b sigma): a strongly convex step forgets the past, so the record in the last step of an epoch
# (probability 1/l) is seen almost whole
SHUFFLE_AMPLIFIED = Theorem(
    id="shuffle/joint-convexity/sc-averaged", title="shuffled noisy GD, strongly convex: sqrt(E/l) Delta/(b sigma)",
    source=SHUFFLE_COMPOSITION.source, notion="gdp", kind="upper", setting=_SHUFFLE_SC,
    bound=sp.sqrt(E / l) * Delta / (b * sigma), assumptions=SHUFFLE_COMPOSITION.assumptions)

# --- Dwork & Roth 2014, Theorem A.1: the classical Gaussian mechanism calibration -------------------------------
# Paper: for eps in (0, 1) and c^2 > 2 ln(1.25/delta), noise sigma >= c Delta_2 / eps gives (eps, delta)-DP.  With
# mu = Delta/(n sigma) (the mechanism's GDP parameter): eps(delta) <= mu sqrt(2 ln(1.25/delta)) whenever that is < 1.
_DR = sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta))
GAUSSIAN_CLASSICAL = Theorem(
    id="dr14/thmA.1", title="classical Gaussian mechanism calibration", source=Source("Dwork & Roth 2014",
                                                                                      "Theorem A.1"),
    notion="eps_delta", kind="upper", setting=_GM, bound=_MU * _DR, assumptions=(Assumption(_MU * _DR < 1),))
# wrong: the factor 2 under the root dropped
GAUSSIAN_CLASSICAL_HALF = Theorem(
    id="dr14/thmA.1/no-2", title="classical calibration without its 2", source=GAUSSIAN_CLASSICAL.source,
    notion="eps_delta", kind="upper", setting=_GM, bound=_MU * _DR / sp.sqrt(2),
    assumptions=(Assumption(_MU * _DR / sp.sqrt(2) < 1),))

# --- Balle & Wang 2018, Theorem 8: the analytic Gaussian mechanism (exact delta(eps)) ------------------------------
# Paper: the Gaussian mechanism with sensitivity Delta and noise sigma is (eps, delta)-DP iff
# delta >= Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta); canonical
# mu = Delta/(n sigma) for the mean of n records: delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).
_PHI = lambda x: (1 + sp.erf(x / sp.sqrt(2))) / 2  # noqa: E731
ANALYTIC = Theorem(
    id="bw18/thm8", title="analytic Gaussian mechanism, delta(eps)", source=Source("Balle & Wang 2018", "Theorem 8"),
    notion="fdp", kind="upper", setting=_GM,
    bound=_PHI(_MU / 2 - eps / _MU) - sp.exp(eps) * _PHI(-_MU / 2 - eps / _MU))
# wrong: the sensitivity read as Delta/sqrt(2) (a variance for a standard deviation): the curve of mu/sqrt(2)
_MU_SLIP = _MU / sp.sqrt(2)
ANALYTIC_SLIP = Theorem(
    id="bw18/thm8/sqrt2", title="analytic Gaussian mechanism at mu/sqrt(2)", source=ANALYTIC.source, notion="fdp",
    kind="upper", setting=_GM,
    bound=_PHI(_MU_SLIP / 2 - eps / _MU_SLIP) - sp.exp(eps) * _PHI(-_MU_SLIP / 2 - eps / _MU_SLIP))

# --- Mironov 2017, Proposition 7: the RDP of the Gaussian mechanism ----------------------------------------------
GAUSSIAN_RDP = Theorem(
    id="mironov17/prop7", title="Gaussian mechanism, RDP alpha mu^2 / 2", source=Source("Mironov 2017",
                                                                                       "Proposition 7"),
    notion="rdp", kind="upper", setting=_GM, bound=alpha * _MU**2 / 2)
# wrong: the variance read as the standard deviation (alpha mu / 2)
GAUSSIAN_RDP_STD = Theorem(
    id="mironov17/prop7/std", title="Gaussian mechanism, RDP alpha mu / 2", source=GAUSSIAN_RDP.source,
    notion="rdp", kind="upper", setting=_GM, bound=alpha * _MU / 2)
