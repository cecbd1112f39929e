"""Dask: a real LocalCluster on loopback gives exactly the serial samples, even when a worker dies."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from verify.simulate import audit, local_cluster, logistic_ball, simulate
from verify.simulate.engine import connect

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = local_cluster(2, timeout=60)
    c = distributed.Client(cluster, timeout=60)
    try:
        c.wait_for_workers(2, timeout=60)
        yield c
    finally:
        c.close()
        cluster.close(timeout=30)


def test_local_cluster_listens_on_loopback_only(client):
    addresses = [client.scheduler.address, *client.scheduler_info()["workers"]]
    assert all(a.startswith("tcp://127.0.0.1:") for a in addresses)


def test_cluster_samples_and_audit_equal_the_serial_run(client):
    sim = logistic_ball(d=4, n=20, b=5, T=6, batches="poisson")
    serial = simulate(sim, 5000, seed=42, block_size=700)
    remote = simulate(sim, 5000, seed=42, block_size=700, client=client, timeout=120)
    assert np.array_equal(serial.theta0, remote.theta0) and np.array_equal(serial.theta1, remote.theta1)
    a = audit(sim, runs=5000, seed=42, block_size=700)
    b = audit(sim, runs=5000, seed=42, block_size=700, client=client)
    assert (a.eps_lower, a.mu_lower, a.threshold) == (b.eps_lower, b.mu_lower, b.threshold)


def test_killing_a_worker_mid_run_still_gives_the_serial_samples(client):
    sim = logistic_ball(d=10, n=60, b=10, T=30, batches="uniform")
    runs, block = 8000, 500  # 16 blocks in 8 tasks: a kill at the first busy moment lands mid-run
    pids = client.run(os.getpid)  # worker address -> pid of the worker process
    killed: dict = {}

    def killer():
        deadline = time.time() + 60
        while time.time() < deadline and not killed:
            busy = {w: keys for w, keys in client.processing().items() if keys}
            if busy:
                worker = sorted(busy)[0]
                os.kill(pids[worker], signal.SIGKILL)
                killed.update(worker=worker, pid=pids[worker], at=time.time())
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    remote = simulate(sim, runs, seed=7, block_size=block, client=client, timeout=300)
    finished = time.time()
    thread.join(timeout=5)
    assert killed, "no worker was killed"
    assert killed["at"] < finished
    assert _dead(killed["pid"])  # the worker process is really gone (or a zombie awaiting its nanny)
    assert set(client.run(os.getpid).values()).isdisjoint({killed["pid"]})
    serial = simulate(sim, runs, seed=7, block_size=block)
    assert np.array_equal(serial.theta0, remote.theta0) and np.array_equal(serial.theta1, remote.theta1)


def _dead(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_workers_argument_starts_and_closes_its_own_cluster():
    sim = logistic_ball(d=2, n=10, b=5, T=3, batches="shuffle")
    serial = simulate(sim, 900, seed=1, block_size=200)
    remote = simulate(sim, 900, seed=1, block_size=200, workers=1, timeout=120)
    assert np.array_equal(serial.theta0, remote.theta0)


def test_unreachable_scheduler_is_a_value_error():
    start = time.time()
    with pytest.raises(ValueError, match="unreachable"):
        connect("tcp://127.0.0.1:9", timeout=1)
    assert time.time() - start < 30
