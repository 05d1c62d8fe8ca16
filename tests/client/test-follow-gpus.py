#!/usr/bin/python3
"""jetsonctl record --pid, measure --pid and jetsond.measure(pid=...) on a job that holds memory on
two discrete GPUs of the PC board's fake NVML: the tree's GPU columns
(tree.gpu_mem_kib, tree.gpus_busy) and measure's peak_gpu_mem_kib come from
jetsond's process.PID.dgpu.N.* keys, the PIDs translated by PidsFromCaller:

    test-follow-gpus.py JETSOND JETSONCTL FAKE_NVML

The job is a real process, and jetsonctl too; both are given entries in
the board's /proc in jetsond's own PID namespace, so that jetsond can tell
its caller's namespace (tests/integration/test-pid-namespaces.py does the
same with several)."""

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)

JETSOND, JETSONCTL, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
GIB = 1 << 30
HOST = 4026531836  # the initial PID namespace's inode, as the fake board's entries name it


def fake_process(root, pid):
    """PID's entry in the board's /proc, in jetsond's namespace: enough for
    PidsFromCaller to tell the caller's namespace."""
    d = os.path.join(root, "proc", str(pid))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "ns"))
    with open(os.path.join(d, "status"), "w") as f:
        f.write("Name:\tfake\nPid:\t%d\nPPid:\t1\nNSpid:\t%d\n" % (pid, pid))
    os.symlink("pid:[%d]" % HOST, os.path.join(d, "ns", "pid"))


def board_process(root, pid):
    """The fixture's python3 (PID 4242) as PID in the board's /proc, in
    jetsond's namespace: a process jetsond lists, with process.PID.gpu_mem
    once its slow tier has merged NVML's memory."""
    src, dst = os.path.join(root, "proc", "4242"), os.path.join(root, "proc", str(pid))
    shutil.copytree(src, dst)
    with open(os.path.join(dst, "stat")) as f:
        stat = f.read().replace("4242 (python3)", f"{pid} (python3)", 1)
    with open(os.path.join(dst, "stat"), "w") as f:
        f.write(stat)
    with open(os.path.join(dst, "status")) as f:
        status = f.read()
    for field in ("Pid", "Tgid", "NSpid"):
        status = status.replace(f"\n{field}:\t4242\n", f"\n{field}:\t{pid}\n")
    with open(os.path.join(dst, "status"), "w") as f:
        f.write(status)
    os.makedirs(os.path.join(dst, "ns"), exist_ok=True)
    os.symlink("pid:[%d]" % HOST, os.path.join(dst, "ns", "pid"))


def jetsonctl_seen(root, args, interrupt_after=None):
    """jetsonctl ARGS with its /proc entry in the board's /proc (sh execs it,
    keeping the PID); Ctrl-C after INTERRUPT_AFTER seconds if given."""
    p = subprocess.Popen(["sh", "-c", 'echo $$; read go; exec "$@"', "sh", JETSONCTL, *args],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())
    fake_process(root, pid)
    try:
        p.stdin.write("go\n")
        p.stdin.flush()
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        shutil.rmtree(os.path.join(root, "proc", str(pid)), ignore_errors=True)
    assert p.returncode == 0, f"jetsonctl {args}: exit {p.returncode}: {err}"
    return out


def test_gpu_columns(stack, job):
    rows = list(csv.DictReader(io.StringIO(jetsonctl_seen(
        stack.root, ["record", "-i", "50", "-d", "1.5", "--pid", str(job.pid), "-k", "dgpu.*.load"]))))
    gpu = [r for r in rows if r["tree.gpu_mem_kib"]]
    assert gpu, rows[:3]
    assert all(int(r["tree.gpu_mem_kib"]) == 3 * GIB // 1024 for r in gpu), gpu[:3]
    assert all(int(r["tree.gpus_busy"]) == 2 for r in gpu), gpu[:3]
    print(f"figure: {len(gpu)} of {len(rows)} records with the tree's GPU memory")
    # the job goes on: Ctrl-C ends following it
    doc = json.loads(jetsonctl_seen(stack.root, ["--json", "measure", "-i", "50", "--pid", str(job.pid)],
                                    interrupt_after=1.5))
    assert doc["followed_until"] == "stopped", doc
    assert doc["processes"]["peak_gpu_mem_kib"] == 3 * GIB // 1024, doc["processes"]


def test_python_measure(stack, job):
    """jetsond.measure(pid=...) gives the same figures (this test process is
    the caller: its entry in the board's /proc for as long as it asks)."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
    import jetsond
    fake_process(stack.root, os.getpid())
    try:
        with jetsond.measure(pid=job.pid) as m:
            assert not m.wait(timeout=1.0)   # the job goes on
    finally:
        shutil.rmtree(os.path.join(stack.root, "proc", str(os.getpid())), ignore_errors=True)
    rows = [r for r in m.result.tree if r["gpu_mem_kib"] is not None]
    assert rows and all(r["gpu_mem_kib"] == 3 * GIB // 1024 and r["gpus_busy"] == 2 for r in rows), m.result.tree
    assert m.result.processes["peak_gpu_mem_kib"] == 3 * GIB // 1024, m.result.processes


def main():
    job = subprocess.Popen(["sleep", "600"])
    status = 0
    try:
        with harness.Stack(JETSOND, None, board="x86-pc") as stack:
            config = os.path.join(stack.dir, "nvml.json")
            with open(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json")) as f:
                nvml = json.load(f)
            for gpu, mem, sm in ((0, 2 * GIB, 40), (1, GIB, 20)):
                nvml["devices"][gpu]["processes"].append({"pid": job.pid, "type": "compute", "used_memory": mem,
                                                           "sm": sm})
            with open(config, "w") as f:
                json.dump(nvml, f)
            os.environ["FAKE_NVML_CONFIG"] = config
            board_process(stack.root, job.pid)
            stack.start_daemon(["--nvml-library", FAKE_NVML])
            # jetsond's total for the job (its slow tier merges NVML's
            # memory) beside each GPU's share
            harness.wait_for(lambda: all(k in subprocess.run([JETSONCTL, "get", "process.*"], capture_output=True,
                                                             text=True).stdout
                                         for k in (f"process.{job.pid}.dgpu.1.mem", f"process.{job.pid}.gpu_mem")),
                             30, "the job on both GPUs, and its total")
            def test_gpu_columns_of_the_job(s):
                test_gpu_columns(s, job)

            def test_python_measure_of_the_job(s):
                test_python_measure(s, job)
            status = harness.run_on(stack, [test_gpu_columns_of_the_job, test_python_measure_of_the_job])
    finally:
        job.kill()
        job.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
