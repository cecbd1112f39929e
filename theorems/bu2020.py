"""Bu, Dong, Long, Su, "Deep Learning with Gaussian Differential Privacy" (HDSR 2020).

Spec: ``docs/papers/bu2020.md``.  DP-SGD (Algorithms 1-2): clip per-example gradients to ``R``, add
``N(0, sigma_B^2 R^2)`` to the clipped sum, Poisson subsampling with probability ``p``, add/remove
neighbours.  Canonical translation (docs/conventions.md): ``sigma_B = z`` (noise multiplier), ``p = q``; one
un-subsampled step is ``1/z``-GDP.  Every bound below depends only on ``q``, ``z``, ``T`` (and the notion's
``eps``/``delta``), all invariant under theta -> c theta.
"""

from __future__ import annotations

import math

import sympy as sp

from verify.privacy.operators import (
    TF_PRIVACY_ORDERS,
    CLTMuUniform,
    GDPDelta,
    GDPEps,
    MomentsAccountantEps,
    PoissonSubsampledGaussianDelta,
    PoissonSubsampledGaussianEps,
    SampledGaussianRDPMax,
    accountant_eps,
)
from verify.theorem import Claim, Erratum, Reading, Setting, Source, Step, Theorem, sym

SEED = "002_30e4b5961549fb6c.txt"

q, z, T = sym.q, sym.z, sym.T
p_p, sigma_p, T_p, nu_p = sp.symbols("p sigma T nu", positive=True)
_CANON = {p_p: q, sigma_p: z, T_p: T}

_DPSGD = Setting(algorithm="dp_sgd", batches="poisson", loss="any", constraint="any", adjacency="add_remove",
                 release="all")
_ANY = Setting(algorithm="any", batches="any", loss="any", constraint="any", adjacency="add_remove")

_MU_CLT = q * sp.sqrt(T * (sp.exp(1 / z**2) - 1))

# Tables 1-4 (docs/papers/bu2020.md): q = B/n, T = ceil(epochs n / B), the table's delta
_TABLE_ROWS = tuple(
    {"q": B / n, "z": z_, "T": float(math.ceil(epochs * n / B)), "delta": d}
    for n, B, z_, epochs, d in [(60000, 256, 1.3, 15, 1e-5), (60000, 256, 1.1, 60, 1e-5), (60000, 256, 0.7, 45, 1e-5),
                                (60000, 256, 0.6, 62, 1e-5), (60000, 256, 0.55, 68, 1e-5), (60000, 256, 0.5, 100, 1e-5),
                                (29305, 256, 0.55, 18, 1e-5), (25000, 512, 0.56, 9, 1e-5),
                                (800167, 10000, 0.6, 20, 1e-6)]
)
#: the same rows with the epochs E = pT of the tables' CLT columns (T = ceil(E n / B) is what Thm 3 composes)
_TABLE_ROWS_EPOCHS = tuple(
    {**row, "E": epochs} for row, epochs in zip(_TABLE_ROWS, (15, 60, 45, 62, 68, 100, 18, 9, 20))
)
#: the MNIST settings of Table 1 (n = 60000, B = 256) under uniform batches of size b: q = b/n, and the
#: canonical sigma, Delta with Delta/(b sigma) = 1/z (Delta = 1), for the uniform composition C_q(G_{1/z})^T
_UNIFORM_ROWS = tuple(
    {"q": 256 / 60000, "z": z_, "T": float(math.ceil(epochs * 60000 / 256)), "delta": 1e-5,
     "n": 60000.0, "b": 256.0, "Delta": 1.0, "sigma": z_ / 256}
    for z_, epochs in ((1.3, 15), (1.1, 60), (0.7, 45))
)

GAUSSIAN_MECHANISM = Theorem(
    id="bu2020/gaussian-mechanism", title="One DP-SGD step without subsampling is 1/sigma-GDP",
    source=Source("bu2020", "Section 2.1 (Gaussian mechanism)", SEED),
    notion="gdp", kind="exact",
    setting=Setting(algorithm="gaussian_mechanism", batches="full", adjacency="add_remove"),
    bound=1 / z,
    paper_form=r"\theta(S)+N(0,\sigma^2\,\mathrm{sens}^2)\ \text{is}\ 1/\sigma\text{-GDP}",
    paper_bound=1 / sigma_p, translation=_CANON,
    claims=(Claim("exact_on", value="gaussian_mechanism", text="attained by the Gaussian mechanism"),)
)

FOOTNOTE_4 = Theorem(
    id="bu2020/footnote4", title="Composition of T Gaussian mechanisms (no subsampling)",
    source=Source("bu2020", "Footnote 4 (G_mu1 ⊗ ... ⊗ G_muT = G_sqrt(sum mu_i^2))", SEED),
    notion="gdp", kind="exact",
    setting=Setting(algorithm="dp_sgd", batches="full", adjacency="add_remove", release="all"),
    bound=sp.sqrt(T) / z,
    paper_form=r"G_{\mu_1}\otimes\cdots\otimes G_{\mu_T}=G_{\sqrt{\mu_1^2+\cdots+\mu_T^2}}",
    paper_bound=sp.sqrt(T_p) / sigma_p, translation=_CANON,
    claims=(Claim("exact_on", value="dpsgd_full_batch",
                  text="full-batch DP-SGD releasing every iterate: T Gaussian mechanisms"),),
    notes="Decided on dpsgd_full_batch: the T released noisy gradients form a T-dimensional Gaussian pair of "
          "equal covariance, whose exact mu is the Mahalanobis distance of the means (computed, not assumed).",
)

EQ_3_2 = Theorem(
    id="bu2020/eq3.2", title="mu-GDP -> (eps, delta(eps))-DP (primal-dual duality)",
    source=Source("bu2020", "Equation (3.2)", SEED),
    notion="fdp", kind="exact", setting=_ANY,
    bound=GDPDelta(sym.mu, sym.eps),
    paper_form=r"\delta(\varepsilon;\mu)=1+G_\mu^*(-e^{\varepsilon})=\Phi\Big(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\Big)"
               r"-e^{\varepsilon}\Phi\Big(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\Big)",
    notes="An equivalence: mu-GDP iff (eps, delta(eps; mu))-DP for every eps.",
    claims=(Claim("exact_on", value="gaussian_mechanism", text="attained by the Gaussian mechanism"),)
)

EQ_3_2_EPS = Theorem(
    id="bu2020/eq3.2/eps", title="mu-GDP -> eps(delta) (inverse of (3.2))",
    source=Source("bu2020", "Equation (3.2), footnotes 9-10", SEED),
    notion="eps_delta", kind="exact", setting=_ANY,
    bound=GDPEps(sym.mu, sym.delta),
    paper_form=r"\varepsilon(\delta;\mu):\ \delta(\varepsilon;\mu)=\delta,\ \ 0\ \text{if}\ \delta\ge2\Phi(\mu/2)-1",
    claims=(Claim("exact_on", value="gaussian_mechanism", text="attained by the Gaussian mechanism"),)
)

# Theorem 3's proof: with P = N(0, 1) (S) and Q = p N(mu, 1) + (1-p) N(0, 1) (S'), T(P, Q) = f = pG_mu + (1-p)Id
def _tradeoff_pq(v) -> float:
    """T(P, Q)(a): the Neyman-Pearson test of P against Q at level a rejects P above Phi^-1(1 - a)."""
    from scipy import stats  # the registry loads no scipy.stats (the command line's startup)

    t = stats.norm.ppf(1 - v["a"])
    return v["p"] * stats.norm.cdf(t - v["mu"]) + (1 - v["p"]) * stats.norm.cdf(t)


def _tradeoff_qp(v) -> float:
    """T(Q, P)(a): the test of Q against P at level a rejects Q below the a-quantile of Q."""
    from scipy import optimize, stats

    t = optimize.brentq(lambda x: v["p"] * stats.norm.cdf(x - v["mu"]) + (1 - v["p"]) * stats.norm.cdf(x) - v["a"],
                        -60.0, 60.0, xtol=1e-14)
    return float(stats.norm.sf(t))


def _inverse(v) -> float:
    """f^-1(a) for f = T(P, Q): the s with f(s) = a (f decreases from 1 to 0)."""
    from scipy import optimize

    return optimize.brentq(lambda s: _tradeoff_pq({**v, "a": s}) - v["a"], 0.0, 1.0, xtol=1e-15)


_THM3_STEPS = (
    Step("tradeoff-direction", "Theorem 3, proof (App. B.1)", "relation",
         printed=Reading("T(NoisySGD(S), NoisySGD(S')) >= f^-1", _tradeoff_pq, ">=", _inverse, tolerance=1e-8),
         corrected=Reading("T(NoisySGD(S'), NoisySGD(S)) >= f^-1", _tradeoff_qp, ">=", _inverse, tolerance=1e-8),
         domain={"p": (0.05, 0.95), "mu": (0.5, 3.0), "a": (0.02, 0.98)}),
)


THM_3 = Theorem(
    id="bu2020/thm3", title="Exact f-DP of NoisySGD / NoisyAdam: composed subsampled Gaussian tradeoffs",
    source=Source("bu2020", "Theorem 3 (App. B.1)", SEED),
    notion="fdp", kind="upper", setting=_DPSGD,
    bound=PoissonSubsampledGaussianDelta(q, 1 / z, T, sym.eps),
    claims=(Claim("exact_on", value="dpsgd_worst_step", text="cannot be improved in general"),),
    errata=(Erratum("In the proof, 'T(NoisySGD(S), NoisySGD(S')) >= f^-1' should read "
                    "T(NoisySGD(S'), NoisySGD(S)) >= f^-1.", evidence="T(S', S) is the inverse of T(S, S') = f; "
                    "f itself is below f^-1 somewhere whenever it is asymmetric (p < 1)", step="tradeoff-direction"),),
    steps=_THM3_STEPS,
    paper_form=r"\min\{f,f^{-1}\}^{**}\text{-DP},\quad f=\big(pG_{1/\sigma}+(1-p)\mathrm{Id}\big)^{\otimes T}",
    notes="delta(eps) of the symmetrised one-sided composition, by exact PLD composition (add/remove, both "
          "directions); the duality for an asymmetric f takes the max over f and f^-1 (docs/papers/bu2020.md).",
)

THM_3_EPS = Theorem(
    id="bu2020/thm3/eps", title="Exact f-DP of NoisySGD converted to eps(delta)",
    source=Source("bu2020", "Theorem 3 (App. B.1) with the duality of §2.1", SEED),
    notion="eps_delta", kind="upper", setting=_DPSGD,
    bound=PoissonSubsampledGaussianEps(q, 1 / z, T, sym.delta),
    claims=(Claim("le", value="bu2020/appB.3", text="exact composition beats the moments accountant at every T"),),
    paper_form=r"\varepsilon(\delta)\ \text{of}\ \min\{f,f^{-1}\}^{**}",
)

EQ_3_1 = Theorem(
    id="bu2020/eq3.1", title="CLT privacy parameter of NoisySGD / NoisyAdam (Poisson)",
    source=Source("bu2020", "Equation (3.1)", SEED),
    notion="gdp", kind="approximation", setting=_DPSGD,
    bound=_MU_CLT,
    claims=(Claim("approximates", value="bu2020/thm3", text="CLT limit of the exact composition of Thm 3"),),
    examples=_TABLE_ROWS,
    paper_form=r"\mu_{\rm CLT}=p\sqrt{T(e^{1/\sigma^2}-1)}",
    paper_bound=p_p * sp.sqrt(T_p * (sp.exp(1 / sigma_p**2) - 1)), translation=_CANON,
    notes="Asymptotic (p sqrt(T) -> nu, T -> oo), not a bound at finite T: exact eps exceeds the CLT eps in 8 of "
          "the 9 table rows (docs/papers/bu2020.md).",
)

# The tables count epochs = pT (T = epochs n/B need not be an integer): mu_CLT = sqrt(p epochs (e^{1/sigma^2} - 1)).
_MU_CLT_EPOCHS = sp.sqrt(q * sym.E * (sp.exp(1 / z**2) - 1))

EQ_3_1_EPOCHS = Theorem(
    id="bu2020/eq3.1/epochs", title="CLT privacy parameter of NoisySGD in epochs (Tables 1-4)",
    source=Source("bu2020", "Equation (3.1), epochs form (Table 1 caption: epochs = pT)", SEED),
    notion="gdp", kind="approximation", setting=_DPSGD,
    bound=_MU_CLT_EPOCHS,
    claims=(Claim("equals", value="bu2020/eq3.1", subs={"E": q * T}, text="epochs = pT"),
            Claim("approximates", value="bu2020/thm3", text="the exact composition of Thm 3 at T = ceil(E n/B)")),
    examples=_TABLE_ROWS_EPOCHS,
    paper_form=r"\mu_{\rm CLT}=\sqrt{p\cdot\text{epochs}\cdot(e^{1/\sigma^2}-1)}",
    notes="The form TF-Privacy's compute_mu_poisson evaluates, with T = epochs n/B as a real number; the tables' "
          "CLT columns reproduce only with this form (IMDb: T = 439.45).  Its error is measured on the tables' "
          "rows, which carry both E and the T = ceil(E n/B) that Thm 3 composes (sampled points carry no T).",
)

EQ_3_1_EPS = Theorem(
    id="bu2020/eq3.1/eps", title="CLT eps(delta) of NoisySGD: (3.1) carried over by (3.2)",
    source=Source("bu2020", "Equations (3.1)-(3.2); Tables 1-4 'CLT eps' columns", SEED),
    notion="eps_delta", kind="approximation", setting=_DPSGD,
    bound=GDPEps(_MU_CLT_EPOCHS, sym.delta),
    claims=(Claim("approximates", value="bu2020/thm3", text="the exact composition of Thm 3 at T = ceil(E n/B)"),),
    examples=_TABLE_ROWS_EPOCHS,
    paper_form=r"\varepsilon_{\rm CLT}(\delta)=\varepsilon(\delta;\mu_{\rm CLT})",
    notes="In epochs (see bu2020/eq3.1/epochs); its error is measured on the tables' rows (E with T = ceil(E n/B)).",
)

_THM_5_PRINTED = Theorem(
    id="bu2020/thm5/as-printed", title="CLT limit of NoisySGD, as printed (extra T under the root)",
    source=Source("bu2020", "Theorem 5 (App. B.2), as printed", SEED),
    notion="gdp", kind="approximation", setting=_DPSGD,
    bound=q * sp.sqrt(T) * sp.sqrt(T * (sp.exp(1 / z**2) - 1)),
    printed_of="bu2020/thm5",
    expect_fail=("claims",),
    claims=(Claim("equals", value="bu2020/eq3.1", text="the theorem's limit, with nu = p sqrt(T), is (3.1)"),),
    paper_form=r"\mu=\nu\cdot\sqrt{T(e^{1/\sigma^2}-1)}",
    paper_bound=nu_p * sp.sqrt(T_p * (sp.exp(1 / sigma_p**2) - 1)),
    translation={**_CANON, nu_p: q * sp.sqrt(T)},
)

THM_5 = Theorem(
    id="bu2020/thm5", title="CLT limit of NoisySGD (typo-corrected)",
    source=Source("bu2020", "Theorem 5 (App. B.2)", SEED),
    notion="gdp", kind="approximation", setting=_DPSGD,
    bound=_MU_CLT,
    claims=(Claim("equals", value="bu2020/eq3.1", text="the theorem's limit, with nu = p sqrt(T), is (3.1)"),
            Claim("approximates", value="bu2020/thm3")),
    errata=(Erratum("Printed '(pG + (1-p)Id)^{⊗T} = G_mu with mu = nu sqrt(T(e^{1/sigma^2}-1))': '=' should be "
                    "'->' (uniform convergence) and the T under the root is a typo; mu = nu sqrt(e^{1/sigma^2}-1).",
                    evidence="follows from Thm 6 with Lemma B.1 and App. A's wording (docs/papers/bu2020.md, Thm 5)",
                    variant="bu2020/thm5/as-printed"),),
    variants=(_THM_5_PRINTED,),
    paper_form=r"\big(pG_{1/\sigma}+(1-p)\mathrm{Id}\big)^{\otimes T}\to G_\mu,\ \mu=\nu\sqrt{e^{1/\sigma^2}-1},"
               r"\ p\sqrt{T}\to\nu",
    paper_bound=nu_p * sp.sqrt(sp.exp(1 / sigma_p**2) - 1),
    translation={**_CANON, nu_p: q * sp.sqrt(T)},
)

APP_B_3_RDP = Theorem(
    id="bu2020/appB.3/rdp", title="Moments accountant: T alpha_GM as an RDP curve",
    source=Source("bu2020", "Appendix B.3 (alpha_GM(lambda; sigma, p), order alpha = lambda + 1)", SEED),
    notion="rdp", kind="upper", setting=_DPSGD,
    bound=SampledGaussianRDPMax(q, z, sym.alpha, T),
    paper_form=r"T\,\alpha_{GM}(\lambda)/\lambda,\ \ \alpha_{GM}=\max\{\lambda D_{\lambda+1}(GM\|P),"
               r"\lambda D_{\lambda+1}(P\|GM)\}",
)

def _ma_eps(shift: float):
    """The moments accountant's eps(delta) (Table 1's 'MA eps') over TF-Privacy's listed values + ``shift``
    read as Rényi orders."""
    def eps(v) -> float:
        return accountant_eps(v["q"], v["z"], v["T"], v["delta"], TF_PRIVACY_ORDERS + shift, "classical")
    eps.__qualname__ = f"_ma_eps({shift!r})"  # its text names the shift (records are keyed by text)
    return eps


#: Table 1, last row: q = 256/60000, z = 0.5, 100 epochs (T = ceil(100/q)), delta = 1e-5, printed MA eps 32.40
_TABLE1_ROW6 = dict(q=256 / 60000, z=0.5, T=23438, delta=1e-5)
_APPB3_STEPS = (
    Step("order-grid", "Appendix B.3, footnote 13", "value",
         printed=Reading("the listed values are lambda: Rényi orders lambda + 1; Table 1's last MA eps is 32.40",
                         _ma_eps(1.0), "==", 32.40, tolerance=0.005),
         corrected=Reading("the listed values are TF-Privacy's Rényi orders themselves", _ma_eps(0.0), "==", 32.40,
                           tolerance=0.005),
         fixed=_TABLE1_ROW6),
)


APP_B_3 = Theorem(
    id="bu2020/appB.3", title="Moments accountant eps(delta) as used in the paper",
    source=Source("bu2020", "Appendix B.3 and footnote 13; Tables 1-4 'MA eps' columns", SEED),
    notion="eps_delta", kind="upper", setting=_DPSGD,
    bound=MomentsAccountantEps(q, z, T, sym.delta),
    errata=(Erratum("Footnote 13 lists the discretisation as values of lambda; in TF-Privacy they are Renyi "
                    "orders lambda + 1.", evidence="the listed values are the orders: read as lambda, Table 1's last "
                    "MA eps (32.40) does not come out", step="order-grid"),),
    steps=_APPB3_STEPS,
    paper_form=r"\varepsilon_{MA}(\delta)=\min_a\Big[T D_a(GM\|P)+\frac{\log(1/\delta)}{a-1}\Big]",
    notes="Classical conversion over TF-Privacy's orders (1 + x/10, x = 1..99, and 12..63); the tables use "
          "T = ceil(epochs n / B).  With the exact fractional-order RDP (quadrature) all nine printed MA values "
          "reproduce, MNIST row 6 included (32.40); dp_accounting 0.6.0's fractional-order series over-states "
          "D_1.8 (7.95e-4 vs 7.68e-4 for q = 256/60000, z = 0.5) and gives 33.03, docs/papers/bu2020.md's "
          "'not reproducible' value.",
)

UNIFORM_CLT = Theorem(
    id="bu2020/uniform-clt", title="CLT for NoisySGD with uniform subsampling (Dong et al. §5)",
    source=Source("bu2020", "Section 3.1 (uniform subsampling, cited from Dong-Roth-Su §5)", SEED,
                  note="formula not printed in this paper; TF-Privacy compute_mu_uniform"),
    notion="gdp", kind="approximation",
    setting=Setting(algorithm="dp_sgd", batches="uniform", adjacency="replace", release="all"),
    bound=CLTMuUniform(q, T, z),
    claims=(Claim("approximates", value="bok2024/thm4.8",
                  text="CLT limit of C_q(G_{1/z})^T, the exact composition of uniformly subsampled steps"),),
    examples=_UNIFORM_ROWS,
    paper_form=r"\mu=\sqrt2\,p\sqrt{T}\sqrt{e^{1/\sigma^2}\Phi(1.5/\sigma)+3\Phi(-0.5/\sigma)-2}",
    notes="(ext) The paper only says uniform sampling gives 'a privacy bound that is different'.  Its error is "
          "measured against C_q(G_{1/z})^T by exact PLD composition (Bok et al. Thm 4.8's operator, with "
          "Delta/(b sigma) = 1/z) on Table 1's MNIST settings under uniform batches (not printed rows).",
)
