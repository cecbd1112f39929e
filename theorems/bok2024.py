"""Bok, Su, Altschuler, "Shifted Interpolation for Differential Privacy" (ICML 2024).

Spec: ``docs/papers/bok2024.md``.  The paper's algorithm is the canonical one (noise ``sigma`` added
to the averaged gradient), and its ``L`` is the *gradient sensitivity*, i.e. the canonical ``Delta``
(docs/papers/bok2024.md).  NoisyGD: full batch; NoisyCGD: ``l = n/b`` fixed batches cycled ``E`` times; NoisySGD:
uniform size-``b`` batches, sampling ratio ``b/n``.  ``c = max(|1 - eta m|, |1 - eta M|)`` (Lemma 2.8).
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from verify.privacy.operators import (
    BokLinearRDPEps,
    CLTMuSymmetric,
    GDPDelta,
    GDPEps,
    SwitchAt,
    SymmSubsampledGaussianDelta,
    SymmSubsampledGaussianShiftDelta,
)
from verify.theorem import (
    Assumption,
    Claim,
    Erratum,
    Exact,
    FreeParameter,
    Reading,
    Setting,
    Source,
    Step,
    Theorem,
    contraction,
    sym,
)

SEED = "003_103c3a04b5c7620c.txt"

# paper symbols (for paper_bound / translation): L is their gradient sensitivity
L_p, n_p, b_p, sigma_p, eta_p, T_p, D_p, E_p, l_p = sp.symbols("L n b sigma eta T D E l", positive=True)
c_p = sp.Symbol("c", positive=True)

Delta, n, b, l, T, E = sym.Delta, sym.n, sym.b, sym.l, sym.T, sym.E
eta, sigma, m, M, D = sym.eta, sym.sigma, sym.m, sym.M, sym.D
c = contraction()

_CANON = {L_p: Delta, n_p: n, b_p: b, sigma_p: sigma, eta_p: eta, T_p: T, D_p: D, E_p: E, l_p: l, c_p: c}

STRONGLY_CONVEX = (
    Assumption(m > 0, "m-strongly convex losses (m > 0)"),
    Assumption(M >= m, "M-smooth losses, M >= m"),
    Assumption(eta < 2 / M, "step size eta in (0, 2/M)"),
)
SMOOTH_CONVEX = (Assumption(eta <= 2 / M, "convex M-smooth losses, step size eta in (0, 2/M]"),)
BATCH_LE_N = (Assumption(b <= n, "batch size b <= n"),)

# effective per-step sensitivities (docs/papers/bok2024.md): eta cancels
MU_GD = Delta / (n * sigma)
MU_B = Delta / (b * sigma)

# ---------------------------------------------------------------------------------------------------
# §4.1 NoisyGD
# ---------------------------------------------------------------------------------------------------

THM_4_1 = Theorem(
    id="bok2024/thm4.1", title="NoisyGD: GDP composition",
    source=Source("bok2024", "Theorem 4.1", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="any", constraint="any", adjacency="replace", release="all"),
    bound=sp.sqrt(T) * MU_GD,
    claims=(Claim("exact_on", value="linear_chain", text="tight for linear losses (no geometry used)"),),
    paper_form=r"\mu=\frac{L}{n\sigma}\sqrt{T}",
    paper_bound=L_p / (n_p * sigma_p) * sp.sqrt(T_p),
    translation=_CANON,
)

THM_4_2 = Theorem(
    id="bok2024/thm4.2", title="NoisyGD, strongly convex, unconstrained (exact)",
    source=Source("bok2024", "Theorem 4.2", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="strongly_convex", constraint="none", adjacency="replace", init="fixed"),
    bound=MU_GD * sp.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T)),
    assumptions=STRONGLY_CONVEX,
    claims=(
        Claim("equals", value="bok2024/thm4.1", subs={"T": 1}, text="equals composition at T = 1"),
        Claim("le", value="bok2024/thm4.1", text="improves on composition for all T"),
        Claim("limit", var="T", point=sp.oo, value=MU_GD * sp.sqrt((1 + c) / (1 - c))),
        Claim("exact_on", value="bok_thm42", text="tight for eta <= 2/(M+m): quadratics with a linear shift"),
    ),
    paper_form=r"\mu=\frac{L}{n\sigma}\sqrt{\frac{1+c}{1-c}\cdot\frac{1-c^{T}}{1+c^{T}}}",
    paper_bound=L_p / (n_p * sigma_p) * sp.sqrt((1 + c_p) / (1 - c_p) * (1 - c_p**T_p) / (1 + c_p**T_p)),
    translation=_CANON,
    notes="Optimality condition eta <= 2/(M+m) reconstructed (docs/papers/bok2024.md, Thm 4.2).",
)

_WINDOW_GD = (D + eta * Delta * sym.nu / n) / (eta * sigma * sp.sqrt(sym.nu))

THM_C_7 = Theorem(
    id="bok2024/thmC.7", title="NoisyGD, constrained convex, any window nu <= T",
    source=Source("bok2024", "Theorem C.7 (with Lemma C.8)", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="convex", constraint="bounded", adjacency="replace"),
    bound=_WINDOW_GD,
    assumptions=SMOOTH_CONVEX,
    free=(FreeParameter("nu", 1, T, integer=True),),
    claims=(Claim("le", value="bok2024/thm4.3", text="the optimised window is at most the boxed Thm 4.3"),),
    paper_form=r"\mu=\frac{D+s\nu}{\sigma\sqrt{\nu}},\quad s=\eta L/n,\ \sigma\to\eta\sigma,\ \nu\le t",
    paper_bound=(D_p + eta_p * L_p / n_p * sp.Symbol("nu", positive=True))
    / (eta_p * sigma_p * sp.sqrt(sp.Symbol("nu", positive=True))),
    translation={**_CANON, sp.Symbol("nu", positive=True): sym.nu},
    notes="Valid for every window nu in {1..T}; the engine minimises over nu (also valid for T < ceil(Dn/(L eta))).",
)

THM_4_3 = Theorem(
    id="bok2024/thm4.3", title="NoisyGD, constrained convex (convergent)",
    source=Source("bok2024", "Theorem 4.3", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="full", loss="convex", constraint="bounded", adjacency="replace"),
    bound=sp.sqrt(3 * Delta * D / (n * eta) + (Delta / n) ** 2 * sp.ceiling(D * n / (Delta * eta))) / sigma,
    assumptions=SMOOTH_CONVEX + (Assumption(T >= sp.ceiling(D * n / (Delta * eta)), "T >= ceil(Dn/(L eta))"),),
    paper_form=r"\mu=\frac{1}{\sigma}\sqrt{\frac{3LD}{n\eta}+\Big(\frac{L}{n}\Big)^2\Big\lceil\frac{Dn}{L\eta}\Big\rceil}",
    paper_bound=sp.sqrt(3 * L_p * D_p / (n_p * eta_p) + (L_p / n_p) ** 2 * sp.ceiling(D_p * n_p / (L_p * eta_p)))
    / sigma_p,
    translation=_CANON,
    notes="Tight up to a constant factor (Thm C.16(a), bok2024/thmC.16a).",
)

# ---------------------------------------------------------------------------------------------------
# §4.2 NoisyCGD
# ---------------------------------------------------------------------------------------------------

_CGD = Setting(batches="cyclic", loss="any", constraint="any", adjacency="replace")

THM_4_4 = Theorem(
    id="bok2024/thm4.4", title="NoisyCGD: GDP composition",
    source=Source("bok2024", "Theorem 4.4", SEED),
    notion="gdp", kind="upper", setting=_CGD,
    bound=sp.sqrt(E) * MU_B,
    paper_form=r"\mu=\frac{L}{b\sigma}\sqrt{E}",
    paper_bound=L_p / (b_p * sigma_p) * sp.sqrt(E_p),
    translation=_CANON,
)

_CGD_SC_TERM = c ** (2 * l - 2) * (1 - c**2) / (1 - c**l) ** 2
THM_4_5 = Theorem(
    id="bok2024/thm4.5", title="NoisyCGD, strongly convex, unconstrained",
    source=Source("bok2024", "Theorem 4.5", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="cyclic", loss="strongly_convex", constraint="none", adjacency="replace", init="fixed"),
    bound=MU_B * sp.sqrt(1 + _CGD_SC_TERM * (1 - c ** (l * (E - 1))) / (1 + c ** (l * (E - 1)))),
    assumptions=STRONGLY_CONVEX,
    claims=(
        Claim("equals", value=MU_B, subs={"E": 1}, text="one epoch: a single sensitive step"),
        Claim("limit", var="E", point=sp.oo, value=MU_B * sp.sqrt(1 + _CGD_SC_TERM)),
        Claim("ge", value="bok2024/thmC.17", text="upper bound above the C.17 construction"),
    ),
    paper_form=r"\mu=\frac{L}{b\sigma}\sqrt{1+\frac{c^{2l-2}(1-c^2)}{(1-c^l)^2}\cdot"
    r"\frac{1-c^{l(E-1)}}{1+c^{l(E-1)}}}",
    paper_bound=L_p / (b_p * sigma_p) * sp.sqrt(1 + c_p ** (2 * l_p - 2) * (1 - c_p**2) / (1 - c_p**l_p) ** 2
                                                 * (1 - c_p ** (l_p * (E_p - 1))) / (1 + c_p ** (l_p * (E_p - 1)))),
    translation=_CANON,
    notes="Upper bound, not claimed tight; the C.17 quadratics give a lower bound.",
)

_THM_4_6_MU = sp.sqrt((Delta / b) ** 2 + 3 * Delta * D / (b * eta * l)
                      + (Delta / b) ** 2 / l * sp.ceiling(D * b / (Delta * eta))) / sigma

THM_4_6 = Theorem(
    id="bok2024/thm4.6", title="NoisyCGD, constrained convex (convergent)",
    source=Source("bok2024", "Theorem 4.6", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="cyclic", loss="convex", constraint="bounded", adjacency="replace"),
    bound=_THM_4_6_MU,
    assumptions=SMOOTH_CONVEX + (
        Assumption(E >= 1 + sp.ceiling(D * b / (Delta * eta)), "E >= 1 + ceil(Db/(L eta)) (inferred range)"),),
    claims=(Claim("ge", value="bok2024/thm4.6/window", text="the boxed form bounds the optimised window"),),
    paper_form=r"\mu=\frac{1}{\sigma}\sqrt{\Big(\frac{L}{b}\Big)^2+\frac{3LD}{b\eta l}+"
    r"\frac{(L/b)^2}{l}\Big\lceil\frac{Db}{L\eta}\Big\rceil}",
    paper_bound=sp.sqrt((L_p / b_p) ** 2 + 3 * L_p * D_p / (b_p * eta_p * l_p)
                        + (L_p / b_p) ** 2 / l_p * sp.ceiling(D_p * b_p / (L_p * eta_p))) / sigma_p,
    translation=_CANON,
    notes="Validity range in E is lost in the extraction; E >= 1 + ceil(Db/(L eta)) is docs/papers/bok2024.md's "
          "inference from the window argument (Lemma C.11) [U].",
)

THM_4_6_WINDOW = Theorem(
    id="bok2024/thm4.6/window", title="NoisyCGD, constrained convex, any window of N full epochs",
    source=Source("bok2024", "Theorem 4.6 (proof, Lemma C.11)", SEED,
                  note="docs/papers/bok2024.md derivation: window of N epochs before the last sensitive step"),
    notion="gdp", kind="upper",
    setting=Setting(batches="cyclic", loss="convex", constraint="bounded", adjacency="replace"),
    bound=sp.sqrt(MU_B**2 + (D + sym.nu * eta * Delta / b) ** 2 / (l * sym.nu * (eta * sigma) ** 2)),
    assumptions=SMOOTH_CONVEX + (Assumption(E >= 2, "at least two epochs (a window before the last step)"),),
    free=(FreeParameter("nu", 1, E - 1, integer=True),),
    paper_form=r"\mu(N)^2=\Big(\frac{L}{b\sigma}\Big)^2+\frac{(D+N\eta L/b)^2}{lN(\eta\sigma)^2},\ 1\le N\le E-1",
    notes="Reconstructed (docs/papers/bok2024.md, Thm 4.6) and consistent with the authors' code; N = ceil(Db/(L eta)) "
          "gives a value <= the boxed Thm 4.6.",
)

# Tables 10-12 report (E*, mu*): mu* = Thm 4.6, E* = first epoch where Thm 4.6 beats Thm 4.4 (Fig. 9 plots the min).
_E_STAR_PRINTED = sp.ceiling((3 * (Delta / b) * D / (eta * l) + (Delta / b) ** 4 / l * sp.ceiling(D * b / (Delta * eta)))
                             / (Delta / b) ** 2)
_MU_4_4 = sp.sqrt(E) * MU_B

THM_4_6_MIN_PRINTED = Theorem(
    id="bok2024/tables10-12/as-printed", title="NoisyCGD constrained, min(Thm 4.4, Thm 4.6) switched at the printed E*",
    source=Source("bok2024", "Tables 10-12 (E* column, released code)", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="cyclic", loss="convex", constraint="bounded", adjacency="replace"),
    bound=SwitchAt(E, _E_STAR_PRINTED, _MU_4_4, _THM_4_6_MU),
    assumptions=SMOOTH_CONVEX,
    printed_of="bok2024/tables10-12",
    expect_fail=("scaling",),
    paper_form=r"E^*=\Big\lceil\Big(\frac{3\mu}{\eta l}+\frac{\mu^4}{l}\Big\lceil\frac{1}{\mu\eta}\Big\rceil\Big)"
               r"\Big/\mu^2\Big\rceil,\ \mu=L/b,\ D=1",
    notes="The code's E* has (L/b)^4 where (L/b)^2 belongs and omits the +1 term: it reproduces the printed E* "
          "column but is not invariant under theta -> c theta.",
)

TABLES_10_12 = Theorem(
    id="bok2024/tables10-12", title="NoisyCGD constrained, min(Thm 4.4, Thm 4.6) as plotted in Fig. 9",
    source=Source("bok2024", "Tables 10-12 and Figure 9", SEED),
    notion="gdp", kind="upper",
    setting=Setting(batches="cyclic", loss="convex", constraint="bounded", adjacency="replace"),
    bound=sp.Min(_MU_4_4, _THM_4_6_MU),
    assumptions=SMOOTH_CONVEX,
    claims=(Claim("le", value="bok2024/thm4.4"),),
    errata=(Erratum("The E* column of Tables 10-12 comes from a code expression with (L/b)^4 instead of (L/b)^2 "
                    "and without the +1 term; the true crossing of Thm 4.6 with Thm 4.4 is "
                    "ceil(1 + 3Db/(L eta l) + ceil(Db/(L eta))/l), e.g. 41 instead of 31 (l=10, L/b=0.25, eta=0.04).",
                    evidence="docs/papers/bok2024.md (Tables 10/11/12 caveat)",
                    variant="bok2024/tables10-12/as-printed"),),
    variants=(THM_4_6_MIN_PRINTED,),
    notes="Uses Thm 4.6 wherever it is smaller, as the paper's figure does; Thm 4.6's own validity range in E is "
          "uncertain [U] (see bok2024/thm4.6).",
)

# ---------------------------------------------------------------------------------------------------
# §4.3 NoisySGD (uniform size-b batches, sampling ratio b/n)
# ---------------------------------------------------------------------------------------------------

_SGD = Setting(batches="uniform", loss="any", constraint="any", adjacency="replace")
_p = b / n

THM_4_8 = Theorem(
    id="bok2024/thm4.8", title="NoisySGD: composition of subsampled GDP",
    source=Source("bok2024", "Theorem 4.8", SEED),
    notion="fdp", kind="upper", setting=_SGD,
    bound=SymmSubsampledGaussianDelta(_p, MU_B, T, sym.eps),
    assumptions=BATCH_LE_N,
    paper_form=r"f=C_{b/n}\big(G_{L/(b\sigma)}\big)^{\otimes T}",
    notes="delta(eps) of the symmetric C_p(G_mu)^{⊗T} by exact PLD composition (the D.5 PRV).  One-step optimal "
          "(§C.4.1): C_p(G_mu) is the pointwise minimum over theta of the tradeoffs of constant-gradient "
          "instances, no single instance attains it everywhere.",
)

LEMMA_A_5 = Theorem(
    id="bok2024/lemmaA.5", title="NoisySGD composition: CLT approximation",
    source=Source("bok2024", "Lemma A.5 (applied to Theorem 4.8)", SEED),
    notion="gdp", kind="approximation", setting=_SGD,
    bound=CLTMuSymmetric(_p, MU_B, T),
    assumptions=BATCH_LE_N,
    claims=(Claim("approximates", value="bok2024/thm4.8", text="CLT limit of C_p(G_mu)^{⊗T}"),),
    examples=tuple({"Delta": 10.0, "b": 1500, "n": 60000, "sigma": 0.01, "T": 40.0 * e, "delta": 1e-5}
                   for e in (50, 100, 200)),  # Table 3 / Table 4 'Comp. NoisySGD
    paper_form=r"\mu_{\rm CLT}=\sqrt2\,p_0\sqrt{e^{\mu^2}\Phi(1.5\mu)+3\Phi(-0.5\mu)-2},\ p_0=\tfrac bn\sqrt T,"
               r"\ \mu=\tfrac{L}{b\sigma}",
    notes="Asymptotic (p sqrt(T) -> p0); used for the 'Comp. NoisySGD' column of Table 3.",
)

# every tau in {0..T-1} is valid; the free parameter is the window nu = T - tau (a geometric grid of windows
# then favours the short, cheap and usually optimal ones)
_MU2_SC = 2 * sp.sqrt(2) * MU_B * (c**sym.nu - c**T) / (1 - c)
_WINDOW = (FreeParameter("nu", 1, T, integer=True, max_points=8),)

THM_4_9 = Theorem(
    id="bok2024/thm4.9", title="NoisySGD, strongly convex (conservative reading)",
    source=Source("bok2024", "Theorem 4.9", SEED),
    notion="fdp", kind="upper",
    setting=Setting(batches="uniform", loss="strongly_convex", constraint="none", adjacency="replace", init="fixed"),
    bound=SymmSubsampledGaussianShiftDelta(_p, 2 * sp.sqrt(2) * MU_B, sym.nu, _MU2_SC, sym.eps),
    assumptions=STRONGLY_CONVEX + BATCH_LE_N,
    free=_WINDOW,
    paper_form=r"f_\tau=C_{b/n}\big(G_{2\sqrt2L/(b\sigma)}\big)^{\otimes(T-\tau)}\otimes"
               r"G\Big(\frac{2\sqrt2L}{b\sigma}\frac{c^{T-\tau}-c^{T}}{1-c}\Big)",
    notes="The statement is lost [U]; this is the conservative reading (2 sqrt 2 inside C_p), pointwise "
          "below every candidate reading.  The authors' code reading is bok2024/thm4.9/reading-code.",
)

THM_4_9_CODE = Theorem(
    id="bok2024/thm4.9/reading-code", title="NoisySGD, strongly convex (authors' code reading)",
    source=Source("bok2024", "Theorem 4.9", SEED, note="form implied by gdp_clt_sc / nsgd_fdp_sc in the released code"),
    notion="fdp", kind="upper",
    setting=Setting(batches="uniform", loss="strongly_convex", constraint="none", adjacency="replace", init="fixed"),
    bound=SymmSubsampledGaussianShiftDelta(_p, 2 * MU_B, sym.nu, _MU2_SC, sym.eps),
    assumptions=STRONGLY_CONVEX + BATCH_LE_N,
    free=_WINDOW,
    paper_form=r"f_\tau=C_{b/n}\big(G_{2L/(b\sigma)}\big)^{\otimes(T-\tau)}\otimes"
               r"G\Big(2\sqrt2\frac{L}{b\sigma}\frac{c^{T-\tau}(1-c^{\tau})}{1-c}\Big)",
    notes="Catalogue [U]: factor 2 (Lemma C.12) inside C_p; the noise split of the last step (footnote 10) may also "
          "require 2 sqrt 2 there, which is the conservative reading bok2024/thm4.9.",
)

THM_4_10 = Theorem(
    id="bok2024/thm4.10", title="NoisySGD, constrained convex",
    source=Source("bok2024", "Theorem 4.10", SEED),
    notion="fdp", kind="upper",
    setting=Setting(batches="uniform", loss="convex", constraint="bounded", adjacency="replace"),
    bound=SymmSubsampledGaussianShiftDelta(_p, 2 * sp.sqrt(2) * MU_B, sym.nu,
                                           sp.sqrt(2) * D / (eta * sigma * sp.sqrt(sym.nu)), sym.eps),
    assumptions=SMOOTH_CONVEX + BATCH_LE_N,
    free=_WINDOW,
    paper_form=r"f_\tau=C_{b/n}\Big(G_{\frac{2\sqrt2L}{b\sigma}}\Big)^{\otimes(T-\tau)}\otimes"
               r"G\Big(\frac{\sqrt2D}{\eta\sigma\sqrt{T-\tau}}\Big)",
    notes="[R]: matches gdp.gdp_clt_proj of the released code; every tau is valid, the engine minimises delta "
          "over the window nu = T - tau.",
)

# ---------------------------------------------------------------------------------------------------
# §5 Langevin and the exponential mechanism (n = 1, sigma = sqrt(2/eta); L = gradient-difference bound)
# ---------------------------------------------------------------------------------------------------

PROP_5_1 = Theorem(
    id="bok2024/prop5.1", title="Langevin Monte Carlo, strongly convex potentials",
    source=Source("bok2024", "Proposition 5.1", SEED),
    notion="gdp", kind="upper",
    setting=Setting(algorithm="langevin", batches="full", loss="strongly_convex", constraint="none", init="fixed"),
    bound=Delta * sp.sqrt(eta / 2) * sp.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T)),
    assumptions=STRONGLY_CONVEX,
    paper_form=r"\mu=L\sqrt{\tfrac{\eta}{2}}\sqrt{\frac{1+c}{1-c}\cdot\frac{1-c^T}{1+c^T}}",
    paper_bound=L_p * sp.sqrt(eta_p / 2) * sp.sqrt((1 + c_p) / (1 - c_p) * (1 - c_p**T_p) / (1 + c_p**T_p)),
    translation=_CANON,
    notes="LMC is NoisyGD with n = 1 and sigma = sqrt(2/eta); L bounds the gradient of f - f' (= Delta).  Tight "
          "for eta <= 2/(M+m) on the Remark 5.3 quadratics (the Thm 4.2 family with n = 1, sigma = sqrt(2/eta)).",
)

COR_5_2 = Theorem(
    id="bok2024/cor5.2", title="Exponential mechanism, strongly log-concave",
    source=Source("bok2024", "Corollary 5.2", SEED),
    notion="gdp", kind="upper",
    setting=Setting(algorithm="exp_mech", batches="full", loss="strongly_convex", constraint="none", init="stationary"),
    bound=Delta / sp.sqrt(m),
    assumptions=(Assumption(m > 0, "m-strongly convex potentials"),),
    claims=(Claim("exact_on", value="bok_cor52", text="tight: Remark 5.3 quadratics, N(0, I/m) vs N(-Lv/m, I/m)"),),
    paper_form=r"T(\pi,\pi')\ge G\big(L/\sqrt{m}\big)",
    paper_bound=L_p / sp.sqrt(sp.Symbol("m", positive=True)),
    translation={L_p: Delta, sp.Symbol("m", positive=True): m},
)

_COR_5_4_NOTE = ("The hypothesis of Cor 5.4 is lost in the extraction [U]: reading-a takes f - f' L-Lipschitz "
                 "(mu = sqrt(2 L D)); reading-b takes f, f' each L-Lipschitz (gradient difference <= 2L, "
                 "mu = 2 sqrt(L D)); the extraction's wording suggests reading-b.  Decided on exp_mech_interval: "
                 "linear potentials on [0, D] tilted by Delta (truncated exponential laws; monotone likelihood ratio "
                 "gives delta(eps) in closed form).  On the symmetric tilt (each potential Delta/2-Lipschitz) both "
                 "readings give sqrt(2 Delta D); the kept examples (Delta D = 10, 30, 60) show exact/bound rising "
                 "towards 1 (0.64, 0.84, 0.91): asymptotically tight.")
#: kept instances of Cor 5.4's tilt with a large Delta D (where the bound is nearly attained)
_COR_5_4_EXAMPLES = tuple({"family": "exp_mech_interval", "Delta": 1.0, "D": D_} for D_ in (10.0, 30.0, 60.0))
COR_5_4_A = Theorem(
    id="bok2024/cor5.4/reading-a", title="Exponential mechanism on a convex body (f - f' L-Lipschitz)",
    source=Source("bok2024", "Corollary 5.4", SEED),
    notion="gdp", kind="upper",
    setting=Setting(algorithm="exp_mech", loss="convex", constraint="bounded", init="stationary"),
    bound=sp.sqrt(2 * Delta * D),
    paper_form=r"T(\pi,\pi')\ge G\big(\sqrt{2LD}\big)",
    examples=_COR_5_4_EXAMPLES,
    notes=_COR_5_4_NOTE,
)
COR_5_4_B = Theorem(
    id="bok2024/cor5.4/reading-b", title="Exponential mechanism on a convex body (f, f' each L-Lipschitz)",
    source=Source("bok2024", "Corollary 5.4", SEED),
    notion="gdp", kind="upper",
    setting=Setting(algorithm="exp_mech", loss="convex", constraint="bounded", init="stationary"),
    bound=2 * sp.sqrt(sym.L * D),
    paper_form=r"T(\pi,\pi')\ge G\big(2\sqrt{LD}\big)",
    examples=_COR_5_4_EXAMPLES,
    notes=_COR_5_4_NOTE,
)

# ---------------------------------------------------------------------------------------------------
# Appendix A: conversions
# ---------------------------------------------------------------------------------------------------

_GDP_ANY = Setting(algorithm="any", batches="any", loss="any", constraint="any")

LEMMA_A_3 = Theorem(
    id="bok2024/lemmaA.3", title="mu-GDP -> (eps, delta(eps))-DP (tight)",
    source=Source("bok2024", "Lemma A.3", SEED),
    notion="fdp", kind="exact", setting=_GDP_ANY,
    bound=GDPDelta(sym.mu, sym.eps),
    paper_form=r"\delta(\varepsilon)=\Phi\Big(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\Big)-"
               r"e^{\varepsilon}\Phi\Big(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\Big)",
    claims=(Claim("exact_on", value="gaussian_mechanism", text="attained by the Gaussian mechanism"),)
)

LEMMA_A_3_EPS = Theorem(
    id="bok2024/lemmaA.3/eps", title="mu-GDP -> eps(delta) (inverse of Lemma A.3)",
    source=Source("bok2024", "Lemma A.3", SEED, note="inverted in eps by root finding, as in the paper's tables"),
    notion="eps_delta", kind="exact", setting=_GDP_ANY,
    bound=GDPEps(sym.mu, sym.delta),
    paper_form=r"\varepsilon(\delta):\ \delta(\varepsilon)=\delta\ \text{in Lemma A.3}",
    claims=(Claim("exact_on", value="gaussian_mechanism", text="attained by the Gaussian mechanism"),)
)

LEMMA_A_4 = Theorem(
    id="bok2024/lemmaA.4", title="mu-GDP -> (alpha, alpha mu^2/2)-RDP",
    source=Source("bok2024", "Lemma A.4", SEED),
    notion="rdp", kind="upper", setting=_GDP_ANY,
    bound=sym.alpha * sym.mu**2 / 2,
    paper_form=r"\big(\alpha,\ \tfrac{\alpha\mu^2}{2}\big)\text{-RDP for every }\alpha>1",
    notes="Tight for the Gaussian mechanism (D_alpha(N(mu,1) || N(0,1)) = alpha mu^2/2).",
)

# [YS22, Thm 3.3], the prior RDP bound for strongly convex NoisyCGD that Bok et al. compare with (§4.4, App. D.2)
_RHO_YS22 = MU_B**2 / 2 * (1 + c ** (l - 2) * (1 - c**2) / (1 - c**l) ** 2 * (1 - c ** (l * (E - 1))))

YS22_RDP = Theorem(
    id="bok2024/ys22", title="Prior RDP bound for strongly convex NoisyCGD [YS22 Thm 3.3], as Bok et al. use it",
    source=Source("bok2024", "Section 4.4 / Appendix D.2 (RDP column: [YS22, Thm 3.3])", SEED),
    notion="rdp", kind="upper",
    setting=Setting(batches="cyclic", loss="strongly_convex", constraint="none", adjacency="replace"),
    bound=sym.alpha * _RHO_YS22,
    assumptions=STRONGLY_CONVEX,
    paper_form=r"\rho=\frac{(L/(b\sigma))^2}{2}\Big(1+\frac{c^{l-2}(1-c^2)}{(1-c^l)^2}(1-c^{l(E-1)})\Big),"
               r"\ (\alpha,\rho\alpha)\text{-RDP}",
    notes="Implemented as in the authors' code (docs/papers/bok2024.md, D.2).",
)

YS22_EPS = Theorem(
    id="bok2024/ys22/eps", title="[YS22] RDP bound converted to (eps, delta) as in Bok et al. App. A.1",
    source=Source("bok2024", "Appendix A.1 (conversions) applied to [YS22, Thm 3.3]", SEED),
    notion="eps_delta", kind="upper",
    setting=Setting(batches="cyclic", loss="strongly_convex", constraint="none", adjacency="replace"),
    bound=BokLinearRDPEps(_RHO_YS22, sym.delta),
    assumptions=STRONGLY_CONVEX,
    paper_form=r"\min\{\text{[BS16]},\text{[Mir17]},\text{[BBG+20]},\text{[ALC+21]}\}",
)

# ---------------------------------------------------------------------------------------------------
# Appendix C.5: lower bounds
# ---------------------------------------------------------------------------------------------------

# Thm C.16 states its lower bounds with a universal constant c_0 and parameter ranges that the extraction
# lost: the records are the statements with c_0 = 1, marked up to a constant, and the engine reports the largest
# constant the exact mu of the construction allows (min exact/bound over the searched instances).  Measured on
# the construction (bok_c16 grid, full batch, per-step mu Delta/(n sigma) = 0.1, T = 3 Dn/(eta Delta)), exact/bound
# against x = 2 Delta D/(n eta sigma^2), the tilt of the biased walk's stationary law across the interval:
#   x      0.1   0.3   1     3     10    30
#   ratio  0.54  0.44  0.54  0.80  1.19  1.29
# (0.24 at x = 0.1 with per-step mu 0.03: in the continuum limit the ratio tends to 0 like 0.4 sqrt(x), since the
# law's log-likelihood ratio is x u, u uniform on [-1/2, 1/2]; at large x the stationary mu grows only like
# sqrt(log x)).  Below T ~ Dn/(eta Delta) the exact mu is the composition's, exact/bound = sqrt(T eta Delta/(Dn)).
_C16_RANGE = ("the lost statement must restrict T >= Dn/(eta Delta) (below, exact/bound = sqrt(T eta Delta/(Dn)) -> 0) "
              "and 2 Delta D/(n eta sigma^2) to a bounded range away from 0 (the ratio tends to 0 at both ends; "
              "0.44 to 1.3 on [0.1, 30] at per-step mu 0.1): its constant is the minimum over that range")
_C16_LOST = Erratum("the universal constant c_0 and the parameter ranges of Theorem C.16 are lost in the extraction",
                    _C16_RANGE, step="lost-range")
_C16_BOUND = 1 / sigma * sp.sqrt(Delta * D / (n * eta))
_u = sp.Symbol("u", positive=True)
_C16_EXACT = Exact("bok_c16", ("n", "eta", "sigma", "T", "Delta", "D"))
_C16_STEPS = (
    Step("lost-range", "Theorem C.16(a)", "relation",
         printed=Reading("no restriction on T: exact mu >= c_0 (1/sigma) sqrt(Delta D/(n eta)) with the range's "
                         "constant c_0 = 0.44 (its minimum on 2 Delta D/(n eta sigma^2) in [0.1, 30])", _C16_EXACT,
                         ">=", sp.Float("0.44") * _C16_BOUND),
         corrected=Reading("below T = Dn/(eta Delta) the walks barely feel the projection: exact mu = sqrt(T eta "
                           "Delta/(Dn)) times the bound -> 0, so the statement needs T >= Dn/(eta Delta)", _C16_EXACT,
                           "==", sp.sqrt(T * eta * Delta / (D * n)) * _C16_BOUND, tolerance=1e-3),
         # the construction at per-step mu Delta/(n sigma) = 0.1, 2 Delta D/(n eta sigma^2) = 10; T = u Dn/(eta Delta)
         fixed=dict(n=10, eta=0.1, sigma=1.0, Delta=1.0, D=5.0), domain={"u": (0.002, 0.2)},
         derived={"T": sp.Max(1, sp.floor(_u * D * n / (eta * Delta) + sp.Rational(1, 2)))}, draws=4),
)
_C16_CONSTRUCTION = ("Construction (family bok_c16): symmetric vs biased projected Gaussian walk on an interval of "
                     "length D, x0 = 0, the differing record linear with slope Delta.")

THM_C_16_A = Theorem(
    id="bok2024/thmC.16a", title="Lower bound, constrained convex NoisyGD (up to a lost constant)",
    source=Source("bok2024", "Theorem C.16(a)", SEED),
    notion="gdp", kind="lower",
    setting=Setting(batches="full", loss="linear", constraint="bounded", adjacency="replace", init="fixed"),
    bound=_C16_BOUND,
    steps=_C16_STEPS,
    assumptions=(Assumption(T >= D * n / (eta * Delta), "T >= Dn/(eta Delta) ('for all large T': the biased walk "
                            "has crossed the interval)"),),
    claims=(Claim("witness", value="bok_c16", text="the construction of Theorem C.16"),),
    errata=(_C16_LOST,),
    up_to_constant=True,
    paper_form=r"\text{not }\mu\text{-GDP for }\mu<c_0\frac{1}{\sigma}\sqrt{\frac{LD}{n\eta}}",
    notes="Stated with a universal constant c_0 whose value and parameter ranges are lost in the extraction [U]; "
          "the bound is the statement with c_0 = 1 and the engine reports the largest c_0 the exact values allow. "
          "The record keeps docs/papers/bok2024.md's 'T large enough' as T >= Dn/(eta Delta); " + _C16_RANGE + ". "
          + _C16_CONSTRUCTION + " Matches Thm 4.3 up to constants.",
)

THM_C_16_B = Theorem(
    id="bok2024/thmC.16b", title="Lower bound, constrained convex NoisyCGD (up to a lost constant)",
    source=Source("bok2024", "Theorem C.16(b)", SEED),
    notion="gdp", kind="lower",
    setting=Setting(batches="cyclic", loss="linear", constraint="bounded", adjacency="replace", init="fixed"),
    bound=1 / sigma * sp.sqrt(Delta * D / (b * l * eta)),
    assumptions=(Assumption(T >= D * b * l / (eta * Delta), "T >= D b l/(eta Delta) ('for all large T': drift "
                            "eta Delta/b once per epoch of l steps)"),
                 Assumption(sp.Eq(T, l * E), "whole epochs, T = l E (NoisyCGD runs E epochs; in a partial last epoch the "
                                    "record of the last batch was last used up to l - 1 steps before the end, and "
                                    "a walk whose noise dwarfs D forgets it: exact mu 0)")),
    claims=(Claim("witness", value="bok_c16", text="the construction of Theorem C.16, differing record in the "
                  "last batch"),),
    errata=(dataclasses.replace(_C16_LOST, step=None),),  # the step decides it on (a)
    up_to_constant=True,
    paper_form=r"\text{not }\mu\text{-GDP for }\mu<c_0\frac{1}{\sigma}\sqrt{\frac{LD}{bl\eta}}",
    notes="Cyclic analogue of C.16(a) with n = b l, up to the same lost constant [U]; " + _C16_RANGE + ". "
          + _C16_CONSTRUCTION,
)

THM_C_17 = Theorem(
    id="bok2024/thmC.17", title="Lower bound, strongly convex NoisyCGD (quadratics, differing record last)",
    source=Source("bok2024", "Theorem C.17", SEED),
    notion="gdp", kind="lower",
    setting=Setting(batches="cyclic", loss="quadratic", constraint="none", adjacency="replace", init="fixed"),
    bound=MU_B * sp.sqrt((1 - (1 - eta * m) ** 2) * (1 - (1 - eta * m) ** (l * E))
                         / ((1 - (1 - eta * m) ** l) ** 2 * (1 + (1 - eta * m) ** (l * E)))),
    assumptions=(Assumption(m > 0, "m-strongly convex quadratics"),
                 Assumption(eta * m < 1, "c = 1 - eta m in (0, 1)")),
    claims=(Claim("exact_on", value="bok_c17", text="attained when the differing record is in the last batch"),),
    paper_form=r"\mu_l=\frac{L}{b\sigma}\sqrt{\frac{(1-c^2)(1-c^{lE})}{(1-c^l)^2(1+c^{lE})}},\ c=1-\eta m",
    notes="Value derived in the docs/papers/bok2024.md from the exact Gaussian iterates (worst position j = l).",
)
