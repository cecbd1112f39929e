"""Classical baselines: the Gaussian mechanism and composition bounds, in the canonical convention.

One noisy gradient step releases the averaged gradient (sensitivity ``Delta/b``) plus ``N(0, sigma^2 I)``,
so it is the Gaussian mechanism with ``mu = Delta/(b sigma)`` (``b = n`` for full batches).  For Poisson
subsampling (probability ``b/n``) the noise multiplier of the summed gradient is ``z_eff = b sigma / Delta``.
"""

from __future__ import annotations

import sympy as sp

from verify.privacy.operators import (
    GDPEps,
    LinearRDPEpsImproved,
    RDPAccountantEpsClassical,
    RDPAccountantEpsImproved,
    SampledGaussianRDPMax,
)
from verify.theorem import Assumption, Claim, Setting, Source, Theorem, sym

Delta, n, b, T, sigma = sym.Delta, sym.n, sym.b, sym.T, sym.sigma
alpha, delta = sym.alpha, sym.delta

_MU_STEP = Delta / (n * sigma)  # one full-batch step
_MU_GD = sp.sqrt(T) * _MU_STEP  # T full-batch steps
_RHO_GD = _MU_GD**2 / 2  # (alpha, rho alpha)-RDP
_Z_EFF = b * sigma / Delta  # noise multiplier of the summed gradient (Poisson, denominator b)

_GM = Setting(algorithm="gaussian_mechanism", batches="full", loss="any", constraint="any", adjacency="replace")
_GD = Setting(algorithm="noisy_gd", batches="full", loss="any", constraint="any", adjacency="replace", release="all")
_SGD = Setting(algorithm="noisy_gd", batches="poisson", loss="any", constraint="any", adjacency="add_remove",
               release="all")
_POISSON = (Assumption(b <= n, "expected batch size b <= n (sampling probability b/n)"),)


def _source(statement: str, note: str = "") -> Source:
    return Source("baselines", statement, "", note)


GAUSSIAN_MECHANISM_GDP = Theorem(
    id="baselines/gaussian-mechanism/gdp", title="Gaussian mechanism (one noisy full-batch step) in GDP",
    source=_source("Dong-Roth-Su 2022, Theorem 1"),
    notion="gdp", kind="exact", setting=_GM,
    bound=_MU_STEP,
    claims=(Claim("exact_on", value="gaussian_mechanism"),),
    paper_form=r"\mu=\frac{\Delta/n}{\sigma}",
)

GAUSSIAN_MECHANISM_RDP = Theorem(
    id="baselines/gaussian-mechanism/rdp", title="Gaussian mechanism in RDP",
    source=_source("Mironov 2017, Proposition 7"),
    notion="rdp", kind="exact", setting=_GM,
    bound=alpha * _MU_STEP**2 / 2,
    claims=(Claim("exact_on", value="gaussian_mechanism"),),
    paper_form=r"\varepsilon(\alpha)=\frac{\alpha\Delta^2}{2n^2\sigma^2}",
)

GAUSSIAN_MECHANISM_EPS = Theorem(
    id="baselines/gaussian-mechanism/eps-delta", title="Gaussian mechanism in (eps, delta)-DP (analytic, tight)",
    source=_source("Balle-Wang 2018, Theorem 8"),
    notion="eps_delta", kind="exact", setting=_GM,
    bound=GDPEps(_MU_STEP, delta),
    claims=(Claim("exact_on", value="gaussian_mechanism"),),
    paper_form=r"\delta=\Phi\Big(-\frac{\varepsilon}{\mu}+\frac{\mu}{2}\Big)-e^{\varepsilon}"
               r"\Phi\Big(-\frac{\varepsilon}{\mu}-\frac{\mu}{2}\Big),\ \mu=\frac{\Delta}{n\sigma}",
)

NOISY_GD_GDP = Theorem(
    id="baselines/noisy-gd/gdp", title="T full-batch noisy-GD steps: GDP composition",
    source=_source("Dong-Roth-Su 2022, Corollary 2"),
    notion="gdp", kind="upper", setting=_GD,
    bound=_MU_GD,
    claims=(Claim("equals", value="bok2024/thm4.1", text="same as Bok et al. Thm 4.1"),
            Claim("exact_on", value="linear_chain")),
    paper_form=r"\mu=\sqrt{T}\frac{\Delta}{n\sigma}",
)

NOISY_GD_RDP = Theorem(
    id="baselines/noisy-gd/rdp", title="T full-batch noisy-GD steps: RDP composition",
    source=_source("Mironov 2017, Proposition 1 and Proposition 7"),
    notion="rdp", kind="upper", setting=_GD,
    bound=alpha * _RHO_GD,
    claims=(Claim("exact_on", value="linear_chain"),),
    paper_form=r"\varepsilon(\alpha)=\frac{\alpha T\Delta^2}{2n^2\sigma^2}",
)

NOISY_GD_EPS_CLASSICAL = Theorem(
    id="baselines/noisy-gd/eps-classical", title="Noisy-GD RDP composition -> (eps, delta), classical conversion",
    source=_source("Mironov 2017, Proposition 3 (optimised over a continuous order)"),
    notion="eps_delta", kind="upper", setting=_GD,
    bound=_RHO_GD + 2 * sp.sqrt(_RHO_GD * sp.log(1 / delta)),
    claims=(Claim("ge", value="baselines/noisy-gd/eps-improved"),),
    paper_form=r"\varepsilon=\min_{\alpha>1}\rho\alpha+\frac{\log(1/\delta)}{\alpha-1}"
               r"=\rho+2\sqrt{\rho\log(1/\delta)}",
    notes="Closed-form minimum at alpha = 1 + sqrt(log(1/delta)/rho).",
)

NOISY_GD_EPS_IMPROVED = Theorem(
    id="baselines/noisy-gd/eps-improved", title="Noisy-GD RDP composition -> (eps, delta), improved conversion",
    source=_source("Balle et al. 2020, Theorem 21; Canonne-Kamath-Steinke 2020"),
    notion="eps_delta", kind="upper", setting=_GD,
    bound=LinearRDPEpsImproved(_RHO_GD, delta),
    paper_form=r"\varepsilon=\min_\alpha\rho\alpha+\log\frac{\alpha-1}{\alpha}-\frac{\log\delta+\log\alpha}{\alpha-1}",
)

MOMENTS_ACCOUNTANT_RDP = Theorem(
    id="baselines/moments-accountant/rdp", title="Poisson-subsampled Gaussian steps: RDP composition",
    source=_source("Abadi et al. 2016; Mironov-Talwar-Zhang 2019"),
    notion="rdp", kind="upper", setting=_SGD,
    bound=SampledGaussianRDPMax(b / n, _Z_EFF, alpha, T),
    assumptions=_POISSON,
    paper_form=r"\varepsilon(\alpha)=T\max\{D_\alpha(qN(1,z^2)+(1-q)N(0,z^2)\|N(0,z^2)),\ \text{reverse}\}",
)

MOMENTS_ACCOUNTANT_EPS_CLASSICAL = Theorem(
    id="baselines/moments-accountant/eps-classical",
    title="Poisson-subsampled Gaussian RDP -> (eps, delta), classical conversion",
    source=_source("Mironov 2017, Proposition 3"),
    notion="eps_delta", kind="upper", setting=_SGD,
    bound=RDPAccountantEpsClassical(b / n, _Z_EFF, T, delta),
    assumptions=_POISSON,
    claims=(Claim("ge", value="baselines/moments-accountant/eps-improved"),),
    paper_form=r"\varepsilon=\min_\alpha T\varepsilon_1(\alpha)+\frac{\log(1/\delta)}{\alpha-1}",
)

MOMENTS_ACCOUNTANT_EPS_IMPROVED = Theorem(
    id="baselines/moments-accountant/eps-improved",
    title="Poisson-subsampled Gaussian RDP -> (eps, delta), improved conversion",
    source=_source("Balle et al. 2020, Theorem 21"),
    notion="eps_delta", kind="upper", setting=_SGD,
    bound=RDPAccountantEpsImproved(b / n, _Z_EFF, T, delta),
    assumptions=_POISSON,
    paper_form=r"\varepsilon=\min_\alpha T\varepsilon_1(\alpha)+\log\frac{\alpha-1}{\alpha}"
               r"-\frac{\log\delta+\log\alpha}{\alpha-1}",
)
