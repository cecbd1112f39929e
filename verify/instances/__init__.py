"""Exact references: concrete instances whose last-iterate privacy is known exactly (DESIGN.md §6).

* :mod:`.profile`: :class:`PrivacyProfile` (Gaussian closed forms, discrete pairs, compositions);
* :mod:`.chain`: closed-form Gaussian chains (quadratic / linear losses, full or cyclic batches);
* :mod:`.grid`: exact density evolution of 1-D projected / subsampled runs on a grid;
* :mod:`.instance`: the :class:`Instance` record and :class:`Family`;
* :mod:`.families`: the families, :data:`FAMILIES`, including the papers' own constructions.
"""

from verify.instances.families import (FAMILIES, at22_thm41, bok_c16, bok_c17, bok_thm42, chourasia_thm3,
                                       composition_reference, dpsgd_worst_step, interval_walk, linear_chain,
                                       quadratic_chain, subsampled_linear)
from verify.instances.instance import Family, Instance
from verify.instances.profile import CompositionProfile, DiscreteProfile, GaussianProfile, PrivacyProfile

__all__ = [
    "FAMILIES", "CompositionProfile", "DiscreteProfile", "Family", "GaussianProfile", "Instance",
    "PrivacyProfile", "at22_thm41", "bok_c16", "bok_c17", "bok_thm42", "chourasia_thm3",
    "composition_reference", "dpsgd_worst_step", "interval_walk", "linear_chain", "quadratic_chain",
    "subsampled_linear",
]
