"""jetsond.measure(pid=...): a running job that forks, followed until it
exits, its tree's CPU time, memory and writes as the job itself says
(tests/client/forking-workload.py); the tree's GPU figures from a sample's
process keys; bad PIDs. Run by meson as python-measure-pid (JETSOND in the
environment)."""

import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack  # noqa: E402

import jetsond  # noqa: E402
from test_service import JETSOND  # noqa: E402

WORKLOAD = os.path.join(HERE, "..", "client", "forking-workload.py")


@pytest.fixture(scope="module")
def orin():
    with Stack(JETSOND, None) as s:
        s.start_daemon()
        yield s


def test_follow_forking_job(orin, tmp_path):
    """Three children of 32 MiB, 0.3 s of CPU and 4 MiB synced each, that
    appear 0.5 s after the start: followed from before them to the end."""
    job = subprocess.Popen(["/usr/bin/python3", WORKLOAD, str(tmp_path), "3", "32", "0.3", "4"],
                           stdout=subprocess.PIPE)
    with jetsond.measure(pid=job.pid, address=orin.address) as m:
        assert m.wait(60), "the job did not end within 60 s"
        time.sleep(0.2)  # the block goes on after the exit: the measurement does not
    did = json.loads(job.communicate()[0])
    r = m.result
    p = r.processes
    cpu = p["cpu_user_s"] + p["cpu_system_s"]
    print("figure: measure(pid=): %.3f s, CPU %.2f s (the job's %.2f s), peak RSS %.1f MiB, written %d B"
          % (r.duration_s, cpu, did["cpu_s"], p["peak_rss_bytes"] / 2**20, p["write_bytes"]))
    assert did["cpu_s"] - 0.05 <= cpu <= did["cpu_s"] + 1.0, (cpu, did)
    held = did["mem_kib_held"] * 1024
    assert p["peak_rss_bytes"] >= 0.95 * held and p["peak_pss_bytes"] >= 0.9 * held, (p, did)
    assert did["write_bytes"] <= p["write_bytes"] <= did["write_bytes"] + 2**20, (p, did)
    # Until the exit, not the block's end: at least the job's 1.5 s of sleeps.
    assert 1.4 <= r.duration_s < 30
    tree = r.tree
    assert max(row["processes"] for row in tree) == 4 and tree[-1]["processes"] == 1, tree
    assert [row["time_s"] for row in tree] == sorted(row["time_s"] for row in tree)
    last = tree[-1]
    assert last["cpu_user_s"] + last["cpu_system_s"] >= did["cpu_s"] - 0.05
    assert max(row["pss_kib"] for row in tree) >= 0.9 * did["mem_kib_held"]
    assert last["write_bytes"] >= did["write_bytes"]
    # jetsond lists no GPU process on this board: none, known to be none.
    assert last["gpu_mem_kib"] == 0 and last["gpus_busy"] == 0, last


def _readable(path):
    try:
        with open(path) as f:
            return bool(f.read())
    except OSError:
        return False


def test_hidden_figures(orin):
    """PID 1's tree: what the test may not read itself (/proc/1/io,
    smaps_rollup: another user's, or capabilities a sandbox lacks) is None,
    never 0; the CPU time, from the world-readable stat, is there."""
    with jetsond.measure(pid=1, address=orin.address) as m:
        time.sleep(0.3)
    last = m.result.tree[-1]
    assert last["processes"] >= 1 and last["cpu_user_s"] is not None, last
    if not _readable("/proc/1/io"):
        assert last["read_bytes"] is None and m.result.processes["write_bytes"] is None, last
    if not _readable("/proc/1/smaps_rollup"):
        assert last["pss_kib"] is None and m.result.processes["peak_pss_bytes"] is None, last


def test_bad_pids(orin):
    with pytest.raises(TypeError):
        jetsond.measure(pid="123")
    with pytest.raises(ValueError):
        jetsond.measure(pid=0)
    done = subprocess.Popen(["true"])
    done.wait()
    with pytest.raises(ProcessLookupError):
        with jetsond.measure(pid=done.pid, address=orin.address):
            pass


def test_gpu_figures():
    """The tree's GPU figures from a sample's process keys (by the
    caller's PIDs): memory summed over the tree, GPU memory beyond the
    discrete GPUs' counted as the integrated GPU's, SM use known only when
    every context of the tree has it."""
    from jetsond.proctree import _gpu
    values = {"dgpu.0.load": 50.0, "dgpu.1.load": 10.0,
              "process.10.gpu_mem": 1048576, "process.10.dgpu.0.mem": 1048576, "process.10.dgpu.0.sm": 35.0,
              "process.11.gpu_mem": 2048, "process.11.dgpu.1.mem": 1024, "process.11.dgpu.1.sm": 2.0,
              "process.99.gpu_mem": 4096, "process.99.dgpu.0.mem": 4096, "process.99.dgpu.0.sm": 50.0}
    assert _gpu([10, 11, 12], values) == {"gpu_mem_kib": 1050624, "gpus_busy": 3, "gpu_sm_percent": 37.0}
    assert _gpu([10], values) == {"gpu_mem_kib": 1048576, "gpus_busy": 1, "gpu_sm_percent": 35.0}
    del values["process.11.dgpu.1.sm"]  # a context NVML has not read yet
    assert _gpu([10, 11], values)["gpu_sm_percent"] is None
    assert _gpu([12], values) == {"gpu_mem_kib": 0, "gpus_busy": 0, "gpu_sm_percent": 0.0}
    # A Jetson: no discrete GPU, the integrated one's memory (nvmap).
    assert _gpu([5], {"process.5.gpu_mem": 512}) == {"gpu_mem_kib": 512, "gpus_busy": 1, "gpu_sm_percent": None}
