"""The admissible samples the symbolic obligations draw (well-formed, scaling, limits) are those of plain
rejection sampling: each canonical point tested on its own with ``admissible``, in draw order, until
``count`` are found (the sampler may screen a whole draw at once, but must keep these points).

Reference: the rejection loop written out here with one ``admissible`` call per point.
"""

import pytest

import theorems
from verify.check.domain import admissible, admissible_points, canonical_points, restrict


def _one_at_a_time(theorem, count, seed, tries=40):
    cyclic = "E" in theorem.parameters or theorem.setting.batches == "cyclic"
    found = []
    for attempt in range(tries):
        for point in canonical_points(max(4 * count, 64), seed + 7919 * attempt, cyclic=cyclic):
            if admissible(theorem, restrict(theorem, point)):
                found.append(restrict(theorem, point))
                if len(found) >= count:
                    return found
    return found


# a bound whose admissible region is rare in the default ranges (every try drawn, few points found), cyclic
# batches (T = l E), numeric operators, free parameters, and a notion with a checked parameter
IDS = ["altschuler2022/thm4.1", "chourasia2021/thm2", "bu2020/thm3", "altschuler2022/b.3",
       "bok2024/thm4.5", "baselines/moments-accountant/eps-classical", "derived/shuffle/window"]


@pytest.mark.parametrize("theorem_id", IDS)
@pytest.mark.parametrize("count,seed", [(24, 0), (12, 0), (3, 5)])
def test_admissible_points_are_the_rejection_samples(theorem_id, count, seed):
    theorem = theorems.get(theorem_id)
    expected = _one_at_a_time(theorem, count, seed)
    got = admissible_points(theorem, count, seed)
    if expected:
        assert got == expected
    else:  # no sample in the ranges: the record's own parameter sets stand in (not sampled)
        assert all(admissible(theorem, p) for p in got)
