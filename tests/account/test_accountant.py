"""``verify.account``: applicability, the verdict policy, conversions, and Bok et al. Table 1."""

from __future__ import annotations

import math

import mpmath
import pytest

import verify
from verify.account import account, applicability
from verify.account.run import Run

from .records import (
    ALL,
    CONSTRAINED,
    GD_COMPOSITION,
    GD_RDP,
    GD_STRONGLY_CONVEX,
    NO_SIGMA,
    RUN,
    VERDICTS,
)


def _gdp_eps_mpmath(mu: float, delta: float) -> float:
    """eps with delta(eps) = delta for mu-GDP (Dong–Roth–Su Cor. 1), by bisection at 40 digits."""
    with mpmath.workdps(40):
        mu = mpmath.mpf(mu)

        def excess(e):
            return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2) - delta

        lo, hi = mpmath.mpf(0), mu * (mu / 2 + 10)
        if excess(lo) <= 0:
            return 0.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
        return float(hi)


# ---------------------------------------------------------------------------------------------------
# Bok et al. 2024, Table 1 (docs/papers/bok2024.md D.2): MNIST logistic regression, NoisyCGD, lambda = 0.002
# ---------------------------------------------------------------------------------------------------

MNIST = dict(n=60000, b=1500, batches="cyclic", eta=0.05, sigma=0.01, Delta=10, m=0.002,
             M=32.002)  # softmax cross-entropy with features of norm <= 8: M <= 64/2 + lambda; c = 1 - eta m
TABLE_1 = {50: (30.51, 5.82, 4.34), 100: (49.88, 7.61, 5.60), 200: (83.83, 9.88, 7.58)}
BOK_VERDICTS = {"bok2024/thm4.4": "verified", "bok2024/thm4.5": "verified", "bok2024/ys22/eps": "verified",
                "bok2024/ys22": "verified"}


@pytest.mark.parametrize("epochs", sorted(TABLE_1))
def test_bok2024_table_1_three_columns_and_our_bounds_chosen(epochs):
    gdp_composition, rdp, ours = TABLE_1[epochs]
    result = account(MNIST, epochs=epochs, delta=1e-5, verdicts=BOK_VERDICTS)
    assert round(result.row("bok2024/thm4.4").eps, 2) == gdp_composition
    assert round(result.row("bok2024/ys22/eps").eps, 2) == rdp
    assert round(result.row("bok2024/thm4.5").eps, 2) == ours
    assert result.best.id == "bok2024/thm4.5"
    assert result.composition.id == "bok2024/thm4.4"


def test_bok2024_table_3_mu_column():
    # Table 3 (GDP mu): composition 4.71, ours 0.99 at 50 epochs
    result = account(MNIST, epochs=50, verdicts=BOK_VERDICTS)
    assert round(result.row("bok2024/thm4.4").mu, 2) == 4.71
    assert round(result.row("bok2024/thm4.5").mu, 2) == 0.99


# ---------------------------------------------------------------------------------------------------
# conversions to the notions asked for
# ---------------------------------------------------------------------------------------------------


def test_conversions_match_independent_closed_forms():
    result = account(RUN, delta=1e-6, orders=(2, 16.5), theorems=[GD_COMPOSITION, GD_RDP], verdicts=VERDICTS)
    mu = math.sqrt(200) * 2.0 / 1000  # sqrt(T) Delta / (n sigma)
    row = result.row("test/gd-composition")
    assert row.mu == pytest.approx(mu, rel=1e-12)
    assert row.eps == pytest.approx(_gdp_eps_mpmath(mu, 1e-6), rel=1e-8)
    assert row.rdp == pytest.approx([2 * mu**2 / 2, 16.5 * mu**2 / 2], rel=1e-12)  # GDP -> RDP (Lemma A.4)
    rdp_row = result.row("test/gd-rdp")
    assert rdp_row.mu is None
    assert rdp_row.rdp == pytest.approx(row.rdp, rel=1e-12)
    # RDP -> (eps, delta) is valid but looser than the exact GDP conversion, and never below it
    assert row.eps < rdp_row.eps < 1.3 * row.eps
    assert result.best.id == "test/gd-composition"


def test_eps_of_the_strongly_convex_bound():
    result = account(RUN, theorems=[GD_STRONGLY_CONVEX], verdicts=VERDICTS)
    c, T = 1 - 0.1 * 0.1, 200
    mu = 2.0 / 1000 * math.sqrt((1 + c) / (1 - c) * (1 - c**T) / (1 + c**T))
    assert result.eps == pytest.approx(_gdp_eps_mpmath(mu, 1e-5), rel=1e-8)


# ---------------------------------------------------------------------------------------------------
# the verdict policy
# ---------------------------------------------------------------------------------------------------


def test_only_verified_theorems_are_chosen():
    result = account(RUN, theorems=ALL, verdicts=VERDICTS)
    status = {r.id: r.status for r in result.rows}
    assert status["test/too-good"] == "violated" and result.row("test/too-good").eps is None
    assert status["test/approximation"] == "approximate"
    assert status["test/unverified"] == "unverified"
    assert result.best.id == "test/gd-strongly-convex"
    # the approximation and the unverified bound are smaller but never chosen
    assert result.row("test/approximation").eps < result.best.eps
    assert result.row("test/unverified").eps < result.row("test/gd-composition").eps
    payload = result.to_json()
    assert [r["id"] for r in payload["approximations"]] == ["test/approximation"]
    assert {r["id"] for r in payload["not_used"]} == {"test/too-good", "test/unverified"}


def test_unverified_used_only_on_request():
    result = account(RUN, theorems=ALL, verdicts=VERDICTS, include_unverified=True)
    mu = math.sqrt(200) * 2.0 / 1000 / 2
    assert result.best.id == "test/unverified"
    assert result.best.eps == pytest.approx(_gdp_eps_mpmath(mu, 1e-5), rel=1e-8)
    assert result.row("test/too-good").status == "violated"  # never, even on request


def test_theorem_without_verdict_is_not_used():
    result = account(RUN, theorems=[GD_COMPOSITION], verdicts={})
    assert result.best is None and result.rows[0].verdict == "unchecked"
    assert any("no verified theorem" in n for n in result.notes)


def test_verdicts_read_from_a_baseline_file(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text('{"theorems": [{"id": "test/gd-composition", "verdict": "verified"}]}')
    result = account(RUN, theorems=[GD_COMPOSITION, GD_RDP], verdicts=str(path))
    assert result.best.id == "test/gd-composition"
    assert result.row("test/gd-rdp").status == "unverified"
    path.write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a verify run --json payload"):
        account(RUN, theorems=[GD_COMPOSITION], verdicts=str(path))


# ---------------------------------------------------------------------------------------------------
# applicability and its reasons
# ---------------------------------------------------------------------------------------------------


def test_reasons_for_theorems_that_do_not_apply():
    result = account({**RUN, "eta": 3.0}, theorems=ALL, verdicts=VERDICTS)
    reasons = {a.theorem.id: a.reason for a in result.not_applicable}
    assert reasons["test/gd-strongly-convex"] == "assumption violated: step size eta in (0, 2/M)"
    assert reasons["test/lower"] == "a lower bound, not a guarantee"
    assert reasons["test/constrained"] == "setting: the theorem needs a bounded constraint set"
    assert any("eta=3 is outside the step-size range" in n for n in result.notes)


@pytest.mark.parametrize("change, reason", [
    (dict(batches="cyclic", b=100), "setting: batches cyclic is not full"),
    (dict(adjacency="add_remove"), "setting: adjacency add_remove is not replace"),
    (dict(m=0.0), "setting: losses are not strongly convex"),
    (dict(D=1.0), "setting: the theorem is for unconstrained runs"),
    (dict(init="gaussian"), "setting: initialisation gaussian is not fixed"),
])
def test_setting_mismatch(change, reason):
    run = Run.from_mapping({**RUN, **change})
    a = applicability(GD_STRONGLY_CONVEX, run)
    assert not a.applies and a.reason == reason


def test_last_iterate_bounds_do_not_cover_a_run_that_releases_everything():
    run = Run.from_mapping({**RUN, "release": "all"})
    assert applicability(GD_STRONGLY_CONVEX, run).reason == \
        "setting: the run releases every iterate, the theorem bounds the last one"
    assert applicability(GD_COMPOSITION, run).applies


def test_missing_parameter_is_named():
    a = applicability(CONSTRAINED, Run.from_mapping({k: v for k, v in RUN.items() if k != "eta"} | {"D": 1.0}))
    assert a.reason == "the run description does not determine eta"
    assert applicability(NO_SIGMA, Run.from_mapping(RUN)).applies


def test_python_entry_point():
    result = verify.account(RUN, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    assert result.best.id == "test/gd-composition"


def test_bad_notion_parameters():
    with pytest.raises(ValueError, match="delta must lie in"):
        account(RUN, delta=1.5, theorems=[GD_COMPOSITION], verdicts=VERDICTS)
    with pytest.raises(ValueError, match="orders"):
        account(RUN, orders=(0.5,), theorems=[GD_COMPOSITION], verdicts=VERDICTS)


def test_without_a_baseline_the_engine_decides(monkeypatch, tmp_path):
    # no reports/baseline.json: the quick check runs on the applicable theorems, and says so
    import verify.account.verdicts as verdicts
    from .records import TOO_GOOD

    monkeypatch.setattr(verdicts, "baseline_path", lambda: tmp_path / "baseline.json")
    result = account(RUN, theorems=[GD_COMPOSITION, TOO_GOOD, CONSTRAINED])
    assert "baseline.json missing: verdicts from a quick check" in result.verdicts
    assert "of the 2 applicable theorems" in result.verdicts  # CONSTRAINED does not apply: not checked
    assert result.row("test/too-good").verdict == "violated"  # ten times too small: caught, never used
    assert result.best.id == "test/gd-composition"


# ---------------------------------------------------------------------------------------------------
# one rule for settings (verify.setting.Setting.covers); the accountant's own policy beside it
# ---------------------------------------------------------------------------------------------------


def test_a_one_step_run_releasing_everything_is_covered_by_a_last_iterate_bound():
    # one step: the last iterate is every iterate (the rule the engine and the audit use too)
    run = Run.from_mapping({**RUN, "T": 1, "release": "all"})
    assert applicability(GD_STRONGLY_CONVEX, run).applies


def test_dp_sgd_bounds_need_a_per_record_gradient_bound():
    from dataclasses import replace

    from verify.account.applicability import run_setting

    dp_sgd = replace(GD_COMPOSITION, id="test/dp-sgd", setting=replace(GD_COMPOSITION.setting, algorithm="dp_sgd"))
    assert applicability(dp_sgd, Run.from_mapping(RUN)).applies  # Delta known: clipping at it changes nothing
    clipped = Run.from_mapping({k: v for k, v in RUN.items() if k != "Delta"} | {"Cclip": 1.0})
    assert run_setting(clipped).algorithm == "dp_sgd" and applicability(dp_sgd, clipped).applies
    plain = Run.from_mapping({k: v for k, v in RUN.items() if k != "Delta"})
    assert run_setting(plain).algorithm == "noisy_gd"
    assert applicability(dp_sgd, plain).reason == "setting: algorithm noisy_gd is not dp_sgd"


def test_policy_refusals_come_before_the_setting():
    from dataclasses import replace

    conversion = replace(GD_COMPOSITION, id="test/conversion", setting=replace(GD_COMPOSITION.setting, algorithm="any"))
    assert applicability(conversion, Run.from_mapping(RUN)).reason == \
        "a conversion between notions, not a bound on a training run"


def test_composition_bounds_stated_for_the_last_iterate_are_data():
    import theorems

    from verify.account.accountant import is_composition

    assert is_composition(theorems.get("bok2024/thm4.4"))  # listed in theorems.tables.COMPOSITIONS
    assert is_composition(GD_COMPOSITION)  # release="all"
    assert not is_composition(GD_STRONGLY_CONVEX)


def test_mu_and_rdp_readings_follow_the_notion_records():
    from verify.account.accountant import guarantee_mu, guarantee_rdp

    params = Run.from_mapping(RUN).parameters()
    own = {p: params[p] for p in GD_COMPOSITION.parameters}
    mu = math.sqrt(200) * 2.0 / 1000
    assert guarantee_mu(GD_COMPOSITION, own) == pytest.approx(mu, rel=1e-12)
    assert guarantee_rdp(GD_COMPOSITION, own, [2.0]) == pytest.approx([2.0 * mu**2 / 2], rel=1e-12)  # alpha mu^2/2
    assert guarantee_mu(GD_RDP, own) is None
