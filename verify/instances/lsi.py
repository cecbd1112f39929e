"""Quadratic chains with the log-Sobolev constant of their laws (Chourasia et al. 2021, Theorem 2).

Theorem 2 assumes both *tracing diffusions* satisfy c-LSI at every time ``0 <= t <= eta T``.  For losses
``1/2 theta^T H theta - h_i^T theta`` with a shared ``H`` every law along the way is Gaussian, and a
Gaussian ``N(m, Sigma)`` satisfies c-LSI exactly for ``c <= 1/lambda_max(Sigma)`` (Bakry–Émery; the
bound is attained by linear test functions).  Between steps ``k eta`` and ``(k+1) eta`` the tracing
diffusion ``theta_k - s grad L(theta_k) + sqrt(2) sigma_C W_s`` (``2 sigma_C^2 = eta sigma^2``, docs/conventions.md)
has, along each eigenvector of ``H`` with eigenvalue ``lam``, the variance
``v(s) = (1 - s lam)^2 v_k + eta sigma^2 s``: convex in ``s``, so its largest value on the step is at an
end.  Across steps ``v_{k+1} = (1 - eta lam)^2 v_k + eta^2 sigma^2`` is an affine map with slope <= 1,
so ``v_k`` is monotone in ``k``: the largest variance along the whole path is ``max(v_0, v_T)``, and
the exact LSI constant of the path is ``c = 1 / max_i max(v_{0,i}, v_{T,i})``.  Both diffusions (D and
D') have the same covariances (a shared ``H``), hence the same ``c``.  The same holds for linear losses
(``lam = 0``: ``v_k = v_0 + k eta^2 sigma^2``) and for the concave quadratics of
:func:`~verify.instances.families.nonconvex_chain` (``lam = -rho``: ``v(s)`` is convex in ``s`` and the slope
``(1 + eta rho)^2 > 1`` makes ``v_k`` increasing from ``v_0 >= 0``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from verify.instances.families import draw_init_var, linear_chain, nonconvex_chain, quadratic_chain
from verify.instances.instance import Instance
from verify.instances.registry import register_family
from verify.setting import Setting


def lsi_quadratic_chain(n, eta, sigma, T, m=None, M=None, Delta=None, d=None, init="fixed", init_var=None,
                        direction="m", release="last", name=None) -> Instance:
    """A :func:`~verify.instances.families.quadratic_chain` (full batch) that also states ``clsi``.

    ``clsi`` is the exact LSI constant shared by every law of both tracing diffusions on ``[0, eta T]``:
    ``1 / max_i max(v_{0,i}, v_{T,i})`` (module docstring), with ``v_T`` the chain's own closed-form
    variances and ``v_0`` the start's (0 for a fixed start: a point mass satisfies every LSI).
    """
    where = "lsi_quadratic_chain"
    chain = quadratic_chain(n, eta, sigma, T, m=m, M=M, Delta=Delta, d=d, init=init, init_var=init_var,
                            direction=direction, release=release,
                            name=name or f"{where}(n={n}, T={T}, eta={eta}, sigma={sigma})",
                            _family=where)
    return _with_lsi(chain, where)


def _with_lsi(chain: Instance, family: str) -> Instance:
    """``chain`` (of family ``family``) stating ``clsi = 1 / max(v_0, v_T)``, the exact LSI constant of its path
    (module docstring)."""
    start = float(chain.run.init_var or 0.0)
    last = np.asarray(chain.profile().cov0, dtype=float)
    largest = max(start, float(np.max(last if last.ndim == 1 else np.linalg.eigvalsh(last))))
    return dataclasses.replace(chain, family=family, constants={**chain.constants, "clsi": 1.0 / largest},
                               run=dataclasses.replace(chain.run, source="Chourasia et al. 2021, Theorem 2 "
                                                                         "(c-LSI of Gaussian laws)"))


def lsi_linear_chain(n, eta, sigma, T, Delta, init="fixed", init_var=None, release="last", name=None) -> Instance:
    """A full-batch :func:`~verify.instances.families.linear_chain` that also states ``clsi``."""
    where = "lsi_linear_chain"
    return _with_lsi(linear_chain(n, eta, sigma, T, Delta, init=init, init_var=init_var, release=release,
                                  name=name or f"{where}(n={n}, T={T}, eta={eta}, sigma={sigma})"), where)


def lsi_nonconvex_chain(n, eta, sigma, T, rho, Delta, M=None, init="fixed", init_var=None, release="last",
                        name=None) -> Instance:
    """A full-batch :func:`~verify.instances.families.nonconvex_chain` that also states ``clsi``."""
    where = "lsi_nonconvex_chain"
    return _with_lsi(nonconvex_chain(n, eta, sigma, T, rho, Delta, M=M, init=init, init_var=init_var, release=release,
                                     name=name or f"{where}(n={n}, T={T}, eta={eta}, sigma={sigma})"), where)


register_family("lsi_quadratic_chain", lsi_quadratic_chain, cost="closed_form", run_kind="gaussian_chain",
                exactness="Gaussian chain (closed forms in T); the LSI constant 1/largest variance along the path "
                          "is exact for Gaussian laws",
                setting=Setting(batches="full", loss="quadratic", constraint="none", init="any"),
                source="Chourasia et al. 2021, Theorem 2", searched={"init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, m=0.5, M=2.0, Delta=1.0))

register_family("lsi_linear_chain", lsi_linear_chain, cost="closed_form", run_kind="gaussian_chain",
                exactness="Gaussian chain (closed forms in T); the LSI constant 1/largest variance along the path "
                          "is exact for Gaussian laws",
                setting=Setting(batches="full", loss="linear", constraint="none", init="any"),
                source="Chourasia et al. 2021, Theorem 2", searched={"init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, Delta=1.0))
register_family("lsi_nonconvex_chain", lsi_nonconvex_chain, cost="closed_form", run_kind="gaussian_chain",
                exactness="Gaussian chain with a negative curvature (closed forms in T); the LSI constant 1/largest "
                          "variance along the path is exact for Gaussian laws",
                setting=Setting(batches="full", loss="concave_quadratic", constraint="none", init="any"),
                source="Chourasia et al. 2021, Theorem 2", searched={"init_var": draw_init_var},
                example=dict(n=10, eta=0.1, sigma=1.0, T=5, rho=0.5, Delta=1.0))

__all__ = ["lsi_linear_chain", "lsi_nonconvex_chain", "lsi_quadratic_chain"]
