"""Self-test of the cross-check engine: deliberately wrong user theorems must come back `violated`,
their correct versions `verified` ("Must show")."""

import json
import shlex
from pathlib import Path

import pytest

from tests.sweeps import sweep
from verify.check.suite import load_user_theorems
from verify.testing import check

HERE = Path(__file__).parent
USER = HERE / "user_theorems"
WRONG = sorted(USER.glob("wrong_*.py"))
CORRECT = sorted(USER.glob("correct_*.py"))


def test_there_are_two_dozen_wrong_theorems_and_ten_correct_ones():
    assert len(WRONG) >= 24 and len(CORRECT) >= 10


def test_each_wrong_theorem_states_its_unsound_instance():
    """The hand-verified instance and the two numbers are in each new wrong file's docstring."""
    for path in WRONG:
        text = path.read_text()
        if text.startswith('"""'):
            assert "Unsound" in text.split('"""')[1], path.name


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_wrong_theorem_is_violated(path):
    (theorem,) = load_user_theorems(str(path))
    verdict = check(theorem, max_examples=25, seed=1)
    assert verdict.verdict == "violated", verdict.reason
    failed = [o for o in verdict.obligations if o.status == "failed"]
    assert failed
    soundness = [o for o in failed if o.name in ("soundness", "exactness")]
    for o in soundness:  # a soundness failure carries a replayable counterexample
        assert o.counterexample.exact > o.counterexample.bound


@pytest.mark.sweep
@pytest.mark.parametrize("path", sweep(CORRECT, keep=lambda p: p.stem != "correct_cyclic_composition"),
                         ids=lambda p: p.stem)
def test_correct_theorem_is_verified(path):
    """Kept in the suite: every correct file but correct_cyclic_composition (cyclic batches, GDP: a second of
    search; cyclic batches stay through correct_cyclic_rdp), which the full sweep adds."""
    (theorem,) = load_user_theorems(str(path))
    verdict = check(theorem, max_examples=25, seed=1)
    assert verdict.verdict == "verified", verdict.reason
    sound = next(o for o in verdict.obligations if o.name == "soundness")
    assert sound.data.examples > 0


def test_check_command_json_and_exit_status(verify_cli):
    path = str(USER / "wrong_scaled_down.py")
    result = verify_cli("check", path, "--json", "--examples", "15")
    assert result.returncode == 1, result.stderr
    (record,) = json.loads(result.stdout)  # a list of records, each the schema of a verify run --json theorem
    run_keys = {"id", "verdict", "obligations", "counterexample", "max_ratio", "reason", "printed_of"}
    assert run_keys <= set(record)
    assert record["id"] == "user/gd-composition-95"
    assert record["verdict"] == "violated"
    assert record["counterexample"]["exact"] > record["counterexample"]["bound"]
    assert {"name", "status", "detail", "data"} <= set(record["obligations"][0])
    assert record["max_ratio"] > 1
    soundness = next(o for o in record["obligations"] if o["name"] == "soundness")
    assert {"cells", "budget", "examples", "replay", "largest_margin"} <= set(soundness["data"])
    # the replay lines name the user's file and reproduce the violation (exit 1)
    for line in soundness["data"]["replay"]:
        words = shlex.split(line)
        assert words[:3] == ["verify", "eval", f"{path}::user/gd-composition-95"], line
        again = verify_cli(*words[1:])
        assert again.returncode == 1 and "VIOLATED" in again.stdout, again.stdout + again.stderr


def test_check_prints_the_largest_margin_counterexample_first_with_its_replay_line(verify_cli):
    path = str(USER / "wrong_scaled_down.py")
    result = verify_cli("check", path, "--examples", "15")
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert out.index("largest-margin counterexample: replay") < out.index("smallest counterexample: replay")
    assert f"verify eval {path}::user/gd-composition-95 --family" in out


@pytest.mark.parametrize("name,message", [
    ("syntax_error.py", "syntax error"), ("no_theorem.py", "no module-level Theorem"),
    ("unknown_symbol.py", "outside the vocabulary"), ("wrong_notion.py", "unknown notion 'zcdp'"),
])
def test_check_command_bad_files_exit_2_with_one_line(name, message, verify_cli):
    result = verify_cli("check", str(HERE / "bad_files" / name))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
