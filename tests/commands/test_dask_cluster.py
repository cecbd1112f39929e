"""The suite on Dask: an existing cluster started with Dask's own programs (``dask scheduler``,
``dask worker``) on loopback gives byte for byte the JSON of a run in one process, and so does a local
cluster one of whose workers is killed mid-run.  The reference is the in-process run (``--workers 1``),
an independent path: no cluster, no pickling, the units of each theorem one after the other."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from verify.commands import main

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
#: three cheap closed forms, each with a soundness search, an audit and mutants (a job per theorem)
CHEAP = "baselines/gaussian-mechanism/*"


@pytest.fixture(scope="module")
def serial(tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("serial") / "run.json"
    assert main(["run", "--only", CHEAP, "--workers", "1", "--no-cache", "--json", str(out)]) == 0
    return out.read_bytes()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (a free port: the scheduler picks
    it and writes its address in a scheduler file); stopped, with their process groups, at the end."""
    if not DASK.exists():
        pytest.skip("the dask command-line program is not installed")
    folder = tmp_path_factory.mktemp("cluster")
    file = folder / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    common = dict(cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(file), "--idle-timeout", "300s"], **common)]
    try:
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            assert procs[0].poll() is None, "dask scheduler exited"
            assert time.monotonic() < deadline, "dask scheduler did not start within 60 s"
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written in one go, but read it once it is complete
        address = json.loads(file.read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen([str(DASK), "worker", "--scheduler-file", str(file), "--nthreads", "1",
                                           "--nworkers", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                           "--death-timeout", "60"], **common))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            with _suppress_gone():
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with _suppress_gone():
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def _suppress_gone():
    import contextlib

    return contextlib.suppress(ProcessLookupError, PermissionError)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups")
def test_run_on_an_existing_cluster_gives_the_json_of_one_process(scheduler, serial, tmp_path):
    assert scheduler.startswith("tcp://127.0.0.1:")
    out = tmp_path / "cluster.json"
    assert main(["run", "--only", CHEAP, "--scheduler", scheduler, "--no-cache", "--json", str(out)]) == 0
    assert out.read_bytes() == serial
    # the work went to the cluster's workers, not to this process
    with distributed.Client(scheduler, timeout=30) as client:
        executed = client.run(_executed)
    assert len(executed) == 2 and sum(executed.values()) >= 3  # three theorems (then their mutants)


def _executed(dask_worker) -> int:
    return dask_worker.state.executed_count


@pytest.mark.skipif(sys.platform == "win32", reason="process groups")
def test_ctrl_c_cancels_the_clusters_futures_within_2_seconds(scheduler):
    def terminal_sigint():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen([sys.executable, "-m", "verify", "run", "--scheduler", scheduler, "--only", "baselines/*",
                             "--no-cache"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=terminal_sigint)
    try:
        seen = []
        while not (seen and seen[-1].startswith("verify: checked 1/")) and len(seen) < 200:
            seen.append(proc.stderr.readline())
            if not seen[-1]:
                break
        assert seen[-1].startswith("verify: checked 1/"), "".join(seen) + proc.stderr.read()
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=10)
        elapsed = time.monotonic() - start
        err = proc.stderr.read()
        assert proc.returncode == 130 and err.strip().splitlines()[-1] == "verify: interrupted", err
        assert elapsed < 2.0, f"took {elapsed:.1f} s"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with distributed.Client(scheduler, timeout=30) as client:  # the run's tasks are gone from the scheduler
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _run_tasks(client):
            time.sleep(0.1)
        assert not _run_tasks(client)


def _run_tasks(client) -> list:
    return [key for key in client.run_on_scheduler(_task_keys) if str(key).startswith("verify-")]


def _task_keys(dask_scheduler) -> list:
    return [str(key) for key in dask_scheduler.tasks]


def test_a_worker_killed_mid_run_changes_nothing(serial, tmp_path):
    """A local cluster of two workers, one killed (SIGKILL) while it runs a unit: its units run again
    elsewhere (its nanny starts a new worker) and the JSON is the one of one process."""
    from verify.check import parallel

    killed: dict = {}
    original = parallel.Execution.client

    def client_then_killer(self, size=None):
        client = original(self, size)
        if not killed.get("armed"):
            killed["armed"] = True
            threading.Thread(target=_kill_a_busy_worker, args=(client, self._cluster, killed), daemon=True).start()
        return client

    out = tmp_path / "killed.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel.Execution, "client", client_then_killer)
        assert main(["run", "--only", CHEAP, "--workers", "2", "--no-cache", "--json", str(out)]) == 0
    assert killed.get("pid"), "no worker was killed"
    assert killed.get("replaced"), "the killed worker was not replaced during the run"
    assert out.read_bytes() == serial


def _kill_a_busy_worker(client, cluster, killed: dict) -> None:
    from verify.simulate.cluster import worker_pids

    pids = client.run(os.getpid)  # worker address -> process id
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = sorted(address for address, keys in client.processing().items() if keys)
        if busy:
            killed["pid"] = pids[busy[0]]
            os.kill(killed["pid"], signal.SIGKILL)
            while time.monotonic() < deadline and "replaced" not in killed:  # its nanny starts a new one
                alive = worker_pids(cluster)
                if len(alive) == 2 and killed["pid"] not in alive:
                    killed["replaced"] = True
                time.sleep(0.05)
            return
        time.sleep(0.02)


def test_an_unreachable_scheduler_is_one_line_and_exit_2(capsys):
    start = time.monotonic()
    assert main(["run", "--only", CHEAP, "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unreachable" in err[0] and "tcp://127.0.0.1:9" in err[0], err
    assert time.monotonic() - start < 30


def test_workers_running_other_code_are_refused():
    from verify.check.parallel import _check_same_code, code_fingerprint
    from verify.errors import InputError

    class Workers:
        def __init__(self, digests):
            self.digests = digests

        def run(self, function):
            assert function is code_fingerprint
            return self.digests

    _check_same_code(Workers({"tcp://a:1": code_fingerprint()}), "tcp://s:1")
    with pytest.raises(InputError, match="tcp://b:2 .*another version"):
        _check_same_code(Workers({"tcp://a:1": code_fingerprint(), "tcp://b:2": "0" * 16}), "tcp://s:1")
    with pytest.raises(InputError, match="no workers"):
        _check_same_code(Workers({}), "tcp://s:1")


def test_workers_and_scheduler_together_are_refused(capsys):
    assert main(["run", "--only", CHEAP, "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "either --workers or --scheduler" in capsys.readouterr().err
    assert main(["run", "--only", CHEAP, "--scheduler", ""]) == 2
