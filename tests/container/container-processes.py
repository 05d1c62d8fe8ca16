#!/usr/bin/python3
"""The host side of scripts/test-container.sh's process part: a program in
a container with its own PID namespace finds its own processes, by its
own PIDs, in what jetsond (on the host) says.

    container-processes.py ROOT WORK JETSOND JETSONCTL FAKE_NVML

ROOT is an unpacked Debian 12 root with jetsonctl and python3-jetsond
installed, WORK a scratch directory. On the host: a private system bus
and JETSOND with --sysroot / (this machine's own /proc, whose PIDs are
the real ones a container's processes have on the host) and the fake NVML
library FAKE_NVML, whose GPU 0 the test gives the workload: a thread
watches the host's /proc for the workload's processes (their command name
is jd-gpu-job: a copy of sleep) and lists each in the fake NVML's
processes with 256 MiB, beside a host process (this test's own sleep)
with 128 MiB that no container may see. Its energy counter runs at 300 W.

In `podman run --network=none --cap-drop=ALL --user 1000:1000` with only
the bus socket (its own PID namespace), and again with --pid=host:
- `jetsonctl --json measure -- sh -c JOB`: the tree's peak GPU memory is
  the job's 256 MiB, its energy that of 300 W over the run;
- the same measure run on the host: the same GPU memory and power;
- the Python jetsond.measure() around the job, and a Collector with
  root_pids={its own PID}: the job's GPU memory under the job's PID as the
  container knows it (printed by the job itself); the same on the host,
  and measure()'s GPU power, load and memory and the tree's CPU alike;
- `jetsonctl record --keys 'process.*.gpu_mem,...'`: the job's column by
  its container PID, the host's process none, its 256 MiB in every record;
- `jetsonctl --json status`, `jetsonctl top` (on a terminal podman gives
  it) and the jtop shim's processes: the job by its container PID, the
  host's process never;
- `jetsonctl doctor --json`: jetsond reached over the socket, the caller's
  PID namespace said to be another (the same with --pid=host), the GPU
  found.
Prints each run's wall time as a `figure:` line. Exit 0 when every check
passes, 1 otherwise."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402
from checks import Checks  # noqa: E402

UID = 1000
JOB_MIB, HOST_MIB, WATTS = 256, 128, 300
# The job: a GPU user (jd-gpu-job, a copy of sleep) beside a second of CPU
# in the shell's tree; it prints the GPU user's PID as its namespace knows
# it. JD_HOLD seconds the GPU user lives.
JOB = ('cp /bin/sleep /tmp/jd-gpu-job; /tmp/jd-gpu-job "${JD_HOLD:-4}" & echo "job-pid $!"; '
       'timeout 1 sh -c "while :; do :; done" || true; wait')
# In the container: the Python measure() and a Collector around the job.
PYTHON = r"""
import json, os, subprocess, sys, time
import jetsond
from jetsond.jtop import jtop
out = {}
col = jetsond.Collector(interval=0.1, root_pids={os.getpid()})
with jetsond.measure() as m:
    with col("job"):
        p = subprocess.Popen(["sh", "-c", sys.argv[1]], stdout=subprocess.PIPE, text=True, env=dict(os.environ, JD_HOLD="5"))
        job_pid = int(p.stdout.readline().split()[1])
        # Every process jetsond names must be one of this namespace's.
        board = jetsond.Jetson()
        deadline = time.monotonic() + 20
        while "process.%d.gpu_mem" % job_pid not in board.snapshot():
            assert time.monotonic() < deadline, "jetsond never named the job by its PID here"
            time.sleep(0.1)
        out["snapshot_pids"] = sorted({int(k.split(".")[1]) for k in board.snapshot() if k.startswith("process.")})
        with jtop() as j:
            out["jtop_pids"] = sorted(int(row[0]) for row in j.processes)
        time.sleep(1.0)
        out["collected"] = {k: v for k, v in col.collect().items() if "pid:" in k}
        p.wait()
out["job_pid"] = job_pid
out["measure"] = m.result.to_dict()
out["pid_ns_self"] = os.readlink("/proc/self/ns/pid")
print(json.dumps(out))
"""


def find_job_pids():
    """The host PIDs of the processes named jd-gpu-job."""
    found = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open("/proc/%s/comm" % e) as f:
                    if f.read().strip() == "jd-gpu-job":
                        found.append(int(e))
            except OSError:
                pass
    return found


class FakeGpu:
    """The fake NVML's config: GPU 0 with the job's processes on it."""

    def __init__(self, path, host_pid):
        self.path, self.host_pid = path, host_pid
        base = json.load(open(os.path.join(SOURCE_DIR, "tests/fixtures/x86-pc.nvml.json")))
        self.device = base["devices"][0]
        self.device["energy_rate_mw"] = WATTS * 1000
        self.device.pop("processes", None)
        self.stop = threading.Event()
        self.write([])
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def write(self, job_pids):
        procs = [{"pid": self.host_pid, "type": "compute", "used_memory": HOST_MIB << 20}]
        procs += [{"pid": p, "type": "compute", "used_memory": JOB_MIB << 20, "sm": 10} for p in job_pids]
        self.device["processes"] = procs
        with open(self.path + ".new", "w") as f:
            json.dump({"devices": [self.device]}, f)
        os.rename(self.path + ".new", self.path)

    def watch(self):
        last = None
        while not self.stop.wait(0.05):
            pids = find_job_pids()
            if pids != last:
                self.write(pids)
                last = pids


def screen_text(raw):
    """A terminal's output as text: ECMA-48's REP (ESC [ N b) repeats the
    last character, a cursor move starts a new line, other controls go."""
    out, last, i = [], " ", 0
    control = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z@]|\([A-Z0-9]|[=>])")
    while i < len(raw):
        m = control.match(raw, i)
        if m:
            seq = m.group(0)
            if seq.endswith("b") and seq.startswith("\x1b["):
                out.append(last * int(seq[2:-1] or 1))
            elif seq[-1] in "HdfG":
                out.append("\n")
            i = m.end()
            continue
        last = raw[i]
        out.append(last)
        i += 1
    return "".join(out)


def podman(root, socket_path, command, pid_host=False):
    return ["podman", "--runtime", "/usr/sbin/runc", "run", "--rm", "--network=none", "--cap-drop=ALL",
            "--user", f"{UID}:{UID}", *(["--pid=host"] if pid_host else []),
            "-v", f"{socket_path}:/run/dbus/system_bus_socket", "--rootfs", root, *command]


def run(argv, what, env=None, ok=(0,)):
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
    print(f"   figure: container run \"{what}\" {time.monotonic() - started:.1f} s", flush=True)
    assert r.returncode in ok, f"{what}: exit {r.returncode}\n$ {' '.join(argv)}\n{r.stdout}{r.stderr}"
    return r


def main():
    root, work, jetsond, jetsonctl, fake_nvml = sys.argv[1:6]
    checked = Checks()
    sleeper = subprocess.Popen(["sleep", "600"])
    config = os.path.join(work, "nvml.json")
    gpu = FakeGpu(config, sleeper.pid)
    with harness.Stack(jetsond, None) as stack:
        env = dict(os.environ, FAKE_NVML_CONFIG=config)
        log = open(os.path.join(stack.dir, "jetsond.log"), "ab")
        # This machine's /proc and /sys (read only: no write method is
        # called), the fake NVML for its GPU.
        stack.daemon = subprocess.Popen([jetsond, "--sysroot", "/", "--system", "--interval", "100",
                                         "--nvml-library", fake_nvml], stderr=log, env=env)
        stack.daemon_log = log
        harness.wait_for(stack.name_owned, 30, "jetsond on the bus")
        socket_path = os.path.join(stack.dir, "system_bus_socket")

        checked = Checks()
        results = {}

        def measure_in(where, pid_host=False):
            def go():
                cmd = ["jetsonctl", "--json", "measure", "--", "sh", "-c", JOB]
                if where == "host":
                    r = run([jetsonctl, *cmd[1:]], "measure on the host")
                else:
                    r = run(podman(root, socket_path, cmd, pid_host), f"measure in {where}")
                doc = json.loads(r.stdout.splitlines()[-1])
                results[where] = doc
                procs = doc["processes"] if "processes" in doc else doc
                assert procs.get("peak_gpu_mem_kib") == JOB_MIB * 1024, \
                    f"peak GPU memory {procs.get('peak_gpu_mem_kib')} KiB, want {JOB_MIB * 1024}: {json.dumps(doc)[:2000]}"
            return go

        checked("jetsonctl measure on the host", measure_in("host"))
        checked("jetsonctl measure in a container (its own PID namespace)", measure_in("a container"))
        checked("jetsonctl measure in a container with --pid=host", measure_in("--pid=host", True))

        def gpu_watts(doc):
            rails = {k: v for k, v in doc["power"].items() if k.startswith("dgpu.0")}
            assert rails, f"no power of GPU 0 in {sorted(doc['power'])}"
            return [v["mean_power_mw"] / 1000 for v in rails.values()]

        def same_as_host():
            host = results["host"]
            for where in ("host", "a container", "--pid=host"):
                doc = results[where]
                watts = gpu_watts(doc)
                assert all(abs(w - WATTS) <= 0.05 * WATTS for w in watts), f"{where}: GPU 0 at {watts} W"
                assert sorted(doc["power"]) == sorted(host["power"]), f"{where}: rails {sorted(doc['power'])}"
                # The GPU's load and memory are the fake's constants: equal.
                # (This machine's own CPU loads differ from run to run.)
                for field in ("load_percent", "mem_used_max_kib", "temp_max_celsius"):
                    assert doc["dgpus"]["dgpu.0"][field] == host["dgpus"]["dgpu.0"][field], \
                        f"{where}: dgpu.0 {field} {doc['dgpus']['dgpu.0'][field]}, host {host['dgpus']['dgpu.0'][field]}"
                # The job burns a second of CPU in its own tree, wherever it runs.
                cpu = doc["processes"]["cpu_user_s"] + doc["processes"]["cpu_system_s"]
                assert 0.2 <= cpu <= 5, f"{where}: the tree's CPU time {cpu} s"
                print(f"   {where}: GPU 0 at {watts} W, tree CPU {cpu:.2f} s, "
                      f"peak GPU memory {doc['processes']['peak_gpu_mem_kib']} KiB")
        checked("the containers' measure equals the host's", same_as_host)

        py_results = {}

        def python_in(where, pid_host=False):
            def go():
                if where == "host":
                    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"))
                    r = run(["/usr/bin/python3", "-c", PYTHON, JOB], "Python measure(), Collector and jtop on the host",
                            env=env)
                else:
                    r = run(podman(root, socket_path, ["python3", "-c", PYTHON, JOB], pid_host),
                            f"Python measure(), Collector and jtop in {where}")
                out = json.loads(r.stdout.splitlines()[-1])
                py_results[where] = out
                job = out["job_pid"]
                shares_host = pid_host or where == "host"
                assert out["snapshot_pids"] == [job] or (shares_host and job in out["snapshot_pids"]), \
                    f"the snapshot names {out['snapshot_pids']}, the job is {job}"
                if not shares_host:
                    assert sleeper.pid not in out["snapshot_pids"] or sleeper.pid == job
                assert job in out["jtop_pids"], f"jtop's processes {out['jtop_pids']}, the job is {job}"
                assert out["measure"]["processes"]["peak_gpu_mem_kib"] == JOB_MIB * 1024, out["measure"]
                key = f"job/pid:{job}/gpu:0/gpu_memory (MiB)/max"
                assert out["collected"].get(key) == JOB_MIB, f"Collector: {key} not {JOB_MIB}: {out['collected']}"
            return go

        checked("Python measure(), Collector and the jtop shim on the host", python_in("host"))
        checked("Python measure(), Collector and the jtop shim in a container", python_in("a container"))
        checked("Python measure(), Collector and the jtop shim with --pid=host", python_in("--pid=host", True))

        def python_same_as_host():
            host = py_results["host"]["measure"]
            for where in ("host", "a container", "--pid=host"):
                m = py_results[where]["measure"]
                watts = gpu_watts(m)
                assert all(abs(w - WATTS) <= 0.05 * WATTS for w in watts), f"{where}: GPU 0 at {watts} W"
                for field in ("load_percent", "mem_used_max_kib"):
                    assert m["dgpus"]["dgpu.0"][field] == host["dgpus"]["dgpu.0"][field], f"{where}: dgpu.0 {field}"
                cpu = m["processes"]["cpu_user_s"] + m["processes"]["cpu_system_s"]
                assert cpu >= 0.2, f"{where}: the tree's CPU time {cpu} s"
                print(f"   Python measure() {where}: GPU 0 at {watts} W, tree CPU {cpu:.2f} s")
        checked("the containers' Python measure() equals the host's", python_same_as_host)

        def status_in(pid_host=False):
            def go():
                r = run(podman(root, socket_path, ["sh", "-c", JOB.replace("wait", "jetsonctl --json status; wait")],
                               pid_host), "jetsonctl status in a container" + (" with --pid=host" if pid_host else ""))
                lines = r.stdout.splitlines()
                job = int([ln for ln in lines if ln.startswith("job-pid ")][0].split()[1])
                doc = json.loads([ln for ln in lines if ln.startswith("{")][0])
                pids = sorted({int(k.split(".")[1]) for k in doc["values"] if k.startswith("process.")})
                # With --pid=host every GPU process is the container's to see.
                want = sorted([job, sleeper.pid]) if pid_host else [job]
                assert pids == want, f"status lists {pids}; the job is {job}, the host's sleeper {sleeper.pid}"
            return go
        checked("jetsonctl status in a container: the job by its own PID, nothing of the host", status_in())
        checked("jetsonctl status with --pid=host: the job and the host's process, by the host's PIDs",
                status_in(True))

        def record_in_container():
            r = run(podman(root, socket_path, ["sh", "-c", "cp /bin/sleep /tmp/jd-gpu-job; /tmp/jd-gpu-job 8 & "
                                                           "echo job-pid $!; sleep 1.5; jetsonctl record --interval 100 "
                                                           "--keys 'process.*.gpu_mem,dgpu.0.power' --format csv "
                                                           "--duration 1"]), "jetsonctl record in a container")
            lines = r.stdout.splitlines()
            job = int(lines[0].split()[1])
            header = lines[1].split(",")
            assert [c for c in header if c.startswith("process.")] == [f"process.{job}.gpu_mem"], \
                f"record's columns {header}; the job is PID {job}"
            i = header.index(f"process.{job}.gpu_mem")
            values = {float(row.split(",")[i]) for row in lines[2:] if row}
            assert values == {JOB_MIB * 1024}, f"the job's GPU memory in the records: {values}"
        checked("jetsonctl record in a container: the job's column by its own PID", record_in_container)

        def top_in_container():
            # timeout --foreground: top keeps the terminal's foreground
            # process group (else the terminal stops it on its first write).
            argv = podman(root, socket_path, ["sh", "-c", "stty cols 120 rows 40; cp /bin/sleep /tmp/jd-gpu-job; "
                                                          "/tmp/jd-gpu-job 8 & echo job-pid $!; sleep 1; "
                                                          "TERM=xterm timeout --foreground 4 jetsonctl top "
                                                          "--interval 200; echo top-exit $?"])
            argv.insert(argv.index("run") + 1, "-t")
            r = run(argv, "jetsonctl top in a container")
            text = screen_text(r.stdout)
            job = int(re.search(r"job-pid (\d+)", text).group(1))
            assert "top-exit 124" in text, f"top did not run until the timeout: {text[-500:]!r}"
            rows = [ln.split() for ln in text.splitlines() if "MiB" in ln and ("jd-gpu-job" in ln or "sleep" in ln)]
            assert rows, f"no process row on top's screen: {text[-2000:]!r}"
            # COMMAND is the job's whole command line, read by jetsonctl in
            # the container's own /proc
            assert all(row[-2:] == ["/tmp/jd-gpu-job", "8"] and row[1] == str(job) for row in rows), \
                f"top's process rows {rows}; the job is PID {job} (/tmp/jd-gpu-job 8), the host's sleeper must not show"
        checked("jetsonctl top in a container: the job by its own PID, nothing of the host", top_in_container)

        def doctor_in_container(pid_host=False):
            def go():
                r = run(podman(root, socket_path, ["jetsonctl", "--json", "doctor"], pid_host),
                        "jetsonctl doctor in " + ("a container with --pid=host" if pid_host else "a container"))
                doc = json.loads(r.stdout)
                checks = {c["check"]: c for c in doc["checks"]}
                assert doc["reached"] is True, doc
                want = "ok" if pid_host else "info"
                assert checks["pid_namespace"]["state"] == want, checks["pid_namespace"]
                assert checks["bus"]["state"] == "ok", checks["bus"]
                assert any(f["family"] == "dgpu" and f["state"] == "found" for f in doc["families"]), doc["families"]
            return go
        checked("jetsonctl doctor in a container: jetsond reached, another PID namespace said",
                doctor_in_container())
        checked("jetsonctl doctor with --pid=host: the same PID namespace", doctor_in_container(True))

        gpu.stop.set()
    sleeper.send_signal(signal.SIGTERM)
    sleeper.wait()
    return 1 if checked.failures else 0


if __name__ == "__main__":
    sys.exit(main())
