"""Nothing of the user's is lost, a link is written through, not replaced: the output paths of ``verify report``
and ``--json`` as an adversary would set them up (each case: exit status 2 with one line naming the problem,
or the output where the user pointed, and the user's files as they were).

The commands run in this process (the ``verify_cli`` fixture: ``verify.commands.main``, a second of registry
start-up saved per call; a bound that never returns runs in the child or the workers the command forks from
it, which it stops); the memory check reads the limit of a process started with one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CHEAP = "baselines/gaussian-mechanism/gdp"


def _folder_with_figure(tmp: Path) -> Path:
    out = tmp / "o"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "diagram.svg").write_text("<svg/>")
    return out


def _folder_with_report_md(tmp: Path) -> Path:
    out = tmp / "o"
    out.mkdir()
    (out / "report.md").write_text("my notes")
    return out


def _figures_linked_outside(tmp: Path) -> Path:
    mine = tmp / "mine"
    mine.mkdir()
    (mine / "plot.svg").write_text("<svg id='mine'/>")
    out = tmp / "o"
    out.mkdir()
    (out / ".verify-report.json").write_text(json.dumps({"generator": "verify report",
                                                         "files": ["report.md", "figures/plot.svg"]}))
    (out / "figures").symlink_to(mine, target_is_directory=True)
    return out


@pytest.mark.parametrize("setup, message", [
    (_folder_with_figure, "not a previous report"),
    (_folder_with_report_md, "not a previous report"),
    (_figures_linked_outside, "symbolic link"),
], ids=["unmarked-figures", "unmarked-report-md", "figures-link"])
def test_report_never_touches_a_folder_it_does_not_own(tmp_path, setup, message, verify_cli):
    out = setup(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = verify_cli("report", "--out", str(out), "--only", CHEAP, "--no-cache")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_json_through_a_link_reaches_its_target(tmp_path, verify_cli):
    target = tmp_path / "results.json"
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    result = verify_cli("run", "--only", CHEAP, "--workers", "1", "--no-mutation", "--json", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["theorems"][0]["id"] == CHEAP


HEAD = ("import sympy as sp\nfrom verify.theorem import Theorem, Source, Setting, sym\n"
        "def record(bound, id='u/x'):\n"
        "    return Theorem(id=id, title='t', source=Source('u', '1'), notion='gdp', kind='upper',\n"
        "                   setting=Setting(batches='full', loss='linear'), bound=bound)\n"
        "GOOD = sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)\n")


@pytest.mark.parametrize("body, message", [
    ("A = record(GOOD * (1 + sp.I))", "imaginary part"),
    ("A = record(GOOD * sp.zoo)", "infinity or NaN"),
    ("A = record(sp.Add(*(sym.n ** k for k in range(10000))))", "more than 5000 operations"),
    ("e = sym.n\nfor _ in range(120):\n    e = sp.sqrt(e + 1)\nA = record(e)", "nested deeper than 80"),
    ("A = record(sp.Rational(10**5000 + 1, 10**5000) * GOOD)", "more than 400 digits"),
    ("A = record(GOOD, id=12345)", "id must be a non-empty string"),
    ("A = record(GOOD)\nB = record(GOOD * 0.5)", "names two records"),
], ids=["imaginary", "zoo", "huge-sum", "nested", "huge-rational", "id-not-a-string", "duplicate-id"])
def test_an_ill_formed_record_is_refused_before_any_search(tmp_path, body, message, verify_cli):
    path = tmp_path / "mine.py"
    path.write_text(HEAD + body + "\n")
    result = verify_cli("check", str(path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert "checked" not in result.stderr  # nothing was searched


# ---------------------------------------------------------------------------------------------------
# the cache's word: an entry verifies itself, and the library versions are part of every key
# ---------------------------------------------------------------------------------------------------

from verify.cache import ResultCache  # noqa: E402
from verify.report.incremental import code_version, library_versions  # noqa: E402


@pytest.mark.parametrize("tamper", [
    lambda e: {**e, "value": {**e["value"], "verdict": "violated"}},  # a verdict changed by hand
    lambda e: {},
    lambda e: [1, 2],
    lambda e: "x",
    lambda e: {**e, "key": "another"},  # copied under another key
], ids=["edited-verdict", "empty", "list", "string", "other-key"])
def test_an_edited_or_misshapen_cache_entry_is_a_miss(tmp_path, tamper):
    cache = ResultCache.open(tmp_path)
    cache.put("k", {"verdict": "verified", "reason": "r"})
    assert ResultCache(tmp_path).get("k") == {"verdict": "verified", "reason": "r"}
    path = tmp_path / "k.json"
    path.write_text(json.dumps(tamper(json.loads(path.read_text()))))
    again = ResultCache(tmp_path)
    assert again.get("k") is None and again.misses == 1


def test_the_library_versions_key_every_cached_result():
    line = library_versions()
    assert all(name in line for name in ("python", "sympy", "numpy", "scipy", "dp-accounting"))
    assert len(code_version()) == 64


def test_an_empty_registry_index_is_not_read_as_no_theorems(tmp_path):
    from verify.commands import registry

    key = registry.index_key()
    ResultCache.open(tmp_path).put(key, [])
    assert len(registry.summaries(tmp_path)) > 90


# ---------------------------------------------------------------------------------------------------
# bad input: one line, exit 2 (schedules, a user file in another encoding, an empty --only)
# ---------------------------------------------------------------------------------------------------

PHASE = '[[phases]]\nnoise_multiplier = 1.0\nsample_rate = 0.01\nsteps = 10\n'


@pytest.mark.parametrize("name, content, message", [
    ("bytes.toml", bytes(range(256)) * 4, "not UTF-8 text"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("epochs.toml", b'n = 1000\n[[phases]]\nnoise_multiplier = 1.0\nsample_rate = 0.01\nepochs = 1e308\n',
     "more than 2^53 steps"),
    ("delta.toml", ('n = 1000\nDelta = "big"\n' + PHASE).encode(), "Delta must be a number"),
    ("cclip.toml", ("n = 1000\nCclip = 0\nDelta = 1\n" + PHASE).encode(), "Cclip must be finite and > 0"),
    ("tiny.toml", b'n = 1000\n[[phases]]\nnoise_multiplier = 1e-300\nbatches = "full"\nsteps = 10\n',
     "noise_multiplier is too small"),
], ids=["random-bytes", "deep-json", "huge-epochs", "delta-string", "cclip-zero", "tiny-z"])
def test_a_bad_schedule_is_one_line_exit_2(tmp_path, name, content, message, verify_cli):
    path = tmp_path / name
    path.write_bytes(content)
    result = verify_cli("account", "--schedule", str(path), "--delta", "1e-5")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_four_hundred_phases_compose_without_recursion():
    from verify.account.composition import Phase, schedule_pld

    phases = [Phase(1.0 + 0.001 * i, 0.01, "poisson", 1) for i in range(400)]
    pld = schedule_pld(phases, "add_remove", 1.0, 0.05)
    assert pld is not None and 0 < pld.eps(1e-5) < 10


def test_a_latin1_user_file_with_a_coding_line_is_read(tmp_path, verify_cli):
    path = tmp_path / "mine.py"
    body = HEAD.replace("title='t'", "title='d\xe9j\xe0 vu'") + "A = record(GOOD)\n"
    path.write_bytes(("# -*- coding: latin-1 -*-\n" + body).encode("latin-1"))
    result = verify_cli("check", str(path), "--examples", "5")
    assert result.returncode == 0, result.stderr


def test_what_a_user_file_prints_does_not_corrupt_the_json(tmp_path, verify_cli):
    path = tmp_path / "mine.py"
    path.write_text(HEAD + "print('hello from the file')\nA = record(GOOD)\n")
    result = verify_cli("check", str(path), "--examples", "5", "--json")
    assert json.loads(result.stdout)[0]["id"] == "u/x" and "hello from the file" in result.stderr


def test_an_empty_only_is_refused(verify_cli):
    result = verify_cli("run", "--only", "", "--no-mutation")
    assert result.returncode == 2 and "empty pattern" in result.stderr


def test_a_step_does_no_work_proportional_to_the_phases_recorded(monkeypatch):
    """Accountant.step is O(1): it never sums over the recorded phases (40,000 alternating steps took 14 s)."""
    import verify
    from verify.account import running

    acc = verify.Accountant(n=60000)
    for i in range(50):
        acc.step(noise_multiplier=1.0 if i % 2 else 1.1, sample_rate=0.01, steps=2)
    monkeypatch.setattr(running.Accountant, "steps", property(lambda self: pytest.fail("step summed the phases")))
    acc.step(noise_multiplier=1.2, sample_rate=0.01, steps=3)
    assert acc._events[-1] == 103 and sum(p.steps for p in acc._phases) == 103


def test_a_file_that_sleeps_at_import_is_refused_in_time(tmp_path, verify_cli):
    path = tmp_path / "sleepy.py"
    path.write_text("import time\ntime.sleep(600)\n")
    result = verify_cli("check", str(path), "--import-timeout", "1")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "more than 1 s" in result.stderr


def test_a_killed_reports_temporary_folder_is_cleaned_later(tmp_path):
    from verify.report.generate import remove_stale_temporaries

    old, young = tmp_path / ".o-tmp-abc", tmp_path / ".o-tmp-def"
    for folder in (old, young):
        folder.mkdir()
        (folder / "report.md").write_text("x")
    os.utime(old, (0, 0))
    remove_stale_temporaries(tmp_path, "o")
    assert not old.exists() and young.exists()


def test_the_memory_check_reads_the_process_limit():
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (2**31, resource.RLIM_INFINITY)); "
            "from verify.simulate.engine import machine_memory; print(machine_memory() <= 2**31)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


def test_markup_in_an_id_is_shown_as_written(tmp_path, verify_cli):
    path = tmp_path / "mine.py"
    path.write_text(HEAD + "A = record(GOOD, id='u/[bold]x[/bold]')\n")
    result = verify_cli("check", str(path), "--examples", "5")
    assert result.returncode == 0 and "[bold]x[/bold]" in result.stdout.replace("\n", "").replace(" ", "")


def test_a_check_of_a_billion_examples_is_refused(verify_cli):
    result = verify_cli("check", Path(__file__).resolve().parents[1] / "check" / "user_theorems" /
                        "correct_gd_composition.py", "--examples", "1000000000")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "at most 100000" in result.stderr


# ---------------------------------------------------------------------------------------------------
# a bound that never returns: each job of a theorem is limited (verify check --timeout)
# ---------------------------------------------------------------------------------------------------

SLOW = ("import time\nimport numpy as np\nimport sympy as sp\n"
        "from verify.privacy.operators import numeric_operator\n"
        "from verify.theorem import Theorem, Source, Setting, sym\n"
        "def _slow(x):\n{body}\n    return np.asarray(x, dtype=float)\n"
        "Slow = numeric_operator('SlowForTest', _slow, ('x',), 'never returns')\n"
        "A = Theorem(id='u/hangs', title='t', source=Source('u', '1'), notion='gdp', kind='upper',\n"
        "            setting=Setting(batches='full', loss='linear'),\n"
        "            bound=Slow(sp.sqrt(sym.T) * sym.Delta / (sym.n * sym.sigma)))\n")


@pytest.mark.parametrize("body, workers", [
    ("    time.sleep(1000)", "1"),  # interrupted by the timer of the process running it
    ("    sum(range(10**14))", "1"),  # stuck in C: the child running it is stopped
    ("    while True:\n        pass", "2"),  # a Dask worker's thread: the exception is set on it
    ("    time.sleep(1000)", "2"),  # a sleep there: the parent sees no job finish and stops the workers
], ids=["sleep", "stuck-in-C", "loop-on-a-worker", "sleep-on-a-worker"])
def test_a_bound_that_never_returns_is_stopped_at_the_time_limit(tmp_path, body, workers, verify_cli):
    """In this process: the file's jobs run in a child forked from it (one worker) or on a local cluster's
    workers forked from it (two), which the command stops; the operator the file registers here is removed
    afterwards (the next case's file registers it again)."""
    from verify.privacy.operators import OPERATORS

    path = tmp_path / "hangs.py"
    path.write_text(SLOW.format(body=body))
    try:
        result = verify_cli("check", str(path), "--timeout", "1", "--workers", workers)
    finally:
        OPERATORS.remove("SlowForTest")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "checking u/hangs took more than 1 s" in result.stderr and "--timeout" in result.stderr


def test_time_limits_nest_and_reach_other_threads():
    import threading
    import time

    from verify.check.limits import TookTooLong, time_limit

    with pytest.raises(TookTooLong), time_limit(0.3):
        with time_limit(5):  # an inner limit keeps the outer one running
            time.sleep(0.1)
        time.sleep(5)
    caught = []

    def loop():
        try:
            with time_limit(0.2):
                while True:
                    pass
        except TookTooLong:
            caught.append(True)

    def races():  # a limit that ends as its code finishes raises nothing in the code after it
        for _ in range(300):
            try:
                with time_limit(1e-4):
                    sum(range(3000))
            except TookTooLong:
                pass
            sum(range(3000))
        caught.append("after")

    for target in (loop, races):
        worker = threading.Thread(target=target)
        worker.start()
        worker.join(10)
    assert caught == [True, "after"]
