"""What the soundness search reaches (H9): the far ends of the drawn ranges, the overshooting-step corner early in
the corner list, and the core draws left as they were.

Reference values are the former closed-form draws (2000^u, 40^u, 4^u, 1 + 10^(-2 + 3.8 u), 10 u^2,
10^(-10 + 9 u)) and the step persistence a = 1 - eta m, computed here, never read from the search."""

from __future__ import annotations

import pytest

from verify.check import domain
from verify.check.domain import (
    KNEE,
    corner_units,
    search_coordinates,
    search_point,
    with_steps,
)

COORDINATES = search_coordinates()


def test_the_ranges_reach_their_far_ends():
    top = search_point(dict.fromkeys(COORDINATES, 1.0))
    assert top["T"] == 100_000 and top["E"] == 1000 and top["d"] == 16
    assert top["alpha"] == pytest.approx(256.0) and top["eps"] == pytest.approx(50.0)
    assert top["delta"] == pytest.approx(0.5)
    assert search_point(dict.fromkeys(COORDINATES, 0.0))["delta"] == pytest.approx(1e-15)
    whole = search_point({**dict.fromkeys(COORDINATES, 1.0), "Tmod": 0.0}, cyclic=True)
    assert whole["T"] == 64 * 1000 and whole["E"] == 1000  # T = l*E
    partial = search_point(dict.fromkeys(COORDINATES, 1.0), cyclic=True)  # the last step of a partial epoch
    assert partial["T"] == 64 * 1000 + 63 and "E" not in partial


def test_the_structural_axes_are_drawn():
    """The differing record's batch follows the families' draw of their position; T mod l is a coordinate."""
    base = {**dict.fromkeys(COORDINATES, 0.5), "l": domain.l_unit(3), "E": 0.0}
    first = search_point({**base, "u_position": 0.0, "Tmod": 0.0}, cyclic=True)
    last = search_point({**base, "u_position": 1.0, "Tmod": 0.0}, cyclic=True)
    assert (first["tpos"], last["tpos"], first["T"]) == (1.0, 3.0, 3.0)
    assert search_point({**base, "Tmod": 0.5}, cyclic=True)["T"] == 4.0


@pytest.mark.parametrize("u", [0.0, 0.1, 0.25, 0.3, 0.5, 0.75, KNEE])
def test_draws_inside_the_knee_are_the_core_ranges(u):
    p = search_point(dict.fromkeys(COORDINATES, u))
    assert p["T"] == min(max(round(2000 ** u), 1), 2000)
    assert p["E"] == min(max(round(40 ** u), 1), 40)
    assert p["d"] == min(max(round(4 ** u), 1), 4)
    assert p["alpha"] == pytest.approx(1 + 10 ** (-2 + 3.8 * u))
    assert p["eps"] == pytest.approx(10 * u * u)
    if u >= 1 - KNEE:
        assert p["delta"] == pytest.approx(10 ** (-10 + 9 * u))


@pytest.mark.parametrize("steps", [1, 3, 935, 936, 2000, 5001, 10_000, 100_000])
def test_saturation_corners_beyond_the_core_are_kept(steps):
    base = corner_units(COORDINATES)[0]
    moved = with_steps(base, steps, cyclic=False)
    assert moved is not None and search_point(moved)["T"] == steps
    if steps <= 1000:
        cyclic = with_steps(base, steps, cyclic=True)
        assert search_point(cyclic, cyclic=True)["T"] == steps
    assert with_steps(base, 100_001, cyclic=False) is None


def _overshoot(point) -> bool:
    return point["m"] == point["M"] and 1 - point["eta"] * point["m"] < 0


def test_an_overshooting_step_is_an_early_corner_at_odd_steps():
    """m = M with eta M > 1 (persistence a = 1 - eta m < 0) among the first corners a costly family tries (it
    takes the first 8 whose mu_step is below 5, or whose T is 1), at T = 1; and again at T = 3."""
    points = [search_point(u, full_batch=True) for u in corner_units(COORDINATES)]
    early = [p for p in points[:8] if _overshoot(p)]
    assert early and early[0]["T"] == 1
    assert 1 - early[0]["eta"] * early[0]["m"] == pytest.approx(-0.6, rel=1e-2)
    assert any(_overshoot(p) and p["T"] == 3 for p in points)
    assert not any(_overshoot(p) for p in points[:5])  # the former first corners are kept as they were


def test_the_added_corners_leave_the_others_notion_parameters_alone():
    """The notion parameters cycle over the former corners as before; an added corner takes its successor's."""
    units = corner_units(COORDINATES)
    former = [u for u, corner in zip(units, domain.CORNERS) if not any(corner is c for c in domain._UNROTATED)]
    assert [u["alpha"] for u in former] == [domain.NOTION_CORNERS[i % 5] for i in range(len(former))]
    assert len(units) - len(former) == len(domain._UNROTATED)


def test_the_far_ends_of_the_steps_and_the_dimension_are_an_early_corner():
    points = [search_point(u) for u in corner_units(COORDINATES)[:7]]
    assert any(p["T"] == 100_000 and p["d"] == 16 for p in points)
    cyclic = [search_point(u, cyclic=True) for u in corner_units(COORDINATES)[:7]]
    assert any(p["E"] == 1000 for p in cyclic)


def test_a_costly_family_tries_the_overshooting_corner_besides_its_first_corners():
    """Families with a costly reference try only their first corners, the strong contraction, and the overshoot
    (placed after the first five corners, which stay those of the search before it was added)."""
    import theorems
    from verify.check import references as refs
    from verify.check.soundness import Budget, Record, Search

    search = Search(theorems.get("bok2024/thm4.2"), [], Record(), Budget(costly_corners=4))
    family = next(iter(refs.families().values()))
    units = search._costly_corners(family)
    assert any(u["mM"] == 1.0 and u["etaM"] == domain.OVERSHOOT["etaM"] and u["T"] == 0.0 for u in units)
