"""Exact references: concrete instances whose last-iterate privacy is known exactly (docs/references.md).

* :mod:`.profile`: :class:`PrivacyProfile` (Gaussian closed forms, discrete pairs, compositions);
* :mod:`.chain`: closed-form Gaussian chains (quadratic / linear losses, full or cyclic batches);
* :mod:`.grid`: exact density evolution of 1-D projected / subsampled runs on a grid;
* :mod:`.instance`: the :class:`Instance` record and its :class:`RunDescription`;
* :mod:`.registry`: the family registry, :func:`register_family`, :data:`FAMILIES`, :func:`family`;
* :mod:`.families`: the families, including the papers' own constructions (registered on import).
"""

from verify.instances.families import (at22_thm41, bok_c16, bok_c17, bok_cor52, bok_thm42, chourasia_thm3,
                                       composition_reference, dpsgd_worst_step, gaussian_mechanism, interval_walk,
                                       langevin_quadratic, linear_chain, quadratic_chain, subsampled_linear)
from verify.instances.instance import Instance, RunDescription
from verify.instances.lsi import lsi_quadratic_chain  # noqa: F401 (registers its family)
from verify.instances.nonconvex import tanh_walk  # noqa: F401 (registers its family)
from verify.instances.shuffled import shuffled_chain  # noqa: F401 (registers its family)
from verify.instances.mechanisms import (at22_sampled_gaussian, dpsgd_full_batch, exp_mech_interval,  # noqa: F401
                                         sampled_gaussian)
from verify.instances.composed import CompositionProfile
from verify.instances.profile import DiscreteProfile, GaussianProfile, PrivacyProfile
from verify.instances.registry import COSTS, FAMILIES, Family, family, register_family
from verify.instances.utility import box_quadratic  # noqa: F401 (registers the utility families)

__all__ = [
    "COSTS", "FAMILIES", "CompositionProfile", "DiscreteProfile", "Family", "GaussianProfile", "Instance",
    "PrivacyProfile", "RunDescription", "at22_thm41", "bok_c16", "bok_c17", "bok_cor52", "bok_thm42",
    "chourasia_thm3", "composition_reference", "dpsgd_worst_step", "family", "gaussian_mechanism", "interval_walk",
    "langevin_quadratic", "linear_chain", "quadratic_chain", "register_family", "subsampled_linear",
]
