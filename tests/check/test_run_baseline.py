"""`verify run --baseline`: a selection is compared only with its own part of the baseline, and a changed
verdict fails the run (exit 1)."""

import json
from pathlib import Path

from verify.commands import main

BASELINE = Path(__file__).resolve().parents[2] / "reports" / "baseline.json"


def test_selected_theorems_match_their_part_of_the_committed_baseline():
    assert main(["run", "--only", "bok2024/thm4.1", "--workers", "1", "--baseline", str(BASELINE)]) == 0


def test_a_changed_verdict_fails_the_run(tmp_path, capsys):
    baseline = json.loads(BASELINE.read_text())
    for record in baseline["theorems"]:
        if record["id"] == "bok2024/thm4.1":
            record["verdict"] = "inconclusive"
    edited = tmp_path / "baseline.json"
    edited.write_text(json.dumps(baseline))
    assert main(["run", "--only", "bok2024/thm4.1", "--workers", "1", "--baseline", str(edited)]) == 1
    assert "verdict inconclusive -> verified" in capsys.readouterr().out
