#!/usr/bin/python3
"""Metrics.PidsToCaller() and PidsFromCaller() on a private system bus.

    test-pid-namespaces.py JETSOND JETSONCTL

jetsond runs on a copy of the fake AGX Orin, whose /proc this test fills
with the namespaces of two containers that use the same PIDs: the test
process itself (the caller, by the PID the bus gives jetsond) is PID 7 of
container A, beside A's PID 1; container B has a PID 1 and a PID 7 of its
own; the board's GPU processes are the host's but one, python3 (5120),
which is PID 3 of container A. Checked:

- each direction names only the caller's own container's processes;
- the same PID 7 of another container is never named to the caller;
- a process that exits is 0, the caller's namespace gone is an error;
- a caller jetsond cannot see in its /proc (busctl, real PID not in the
  fake tree) gets UnknownProcess with its message, never a guess;
- a caller in jetsond's own namespace gets its PIDs back;
- an empty list is an empty answer, nothing read;
- OpenCapture's process columns: a pattern names the caller's PID, the
  columns name the caller's processes, a glob leaves the others out, a PID
  the caller's namespace has not is InvalidArgs; records carry the
  process's value;
- the clients name processes as their namespace does: the Python
  package's snapshot() and processes() and jetsonctl's get and status (run
  as PID 9 of container A) list python3 as PID 3 and nothing else.
The real kernel's namespaces: tests/unit/test-pidns.c and the podman
container test (scripts/test-container.sh)."""

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import harness  # noqa: E402
import jetsond  # noqa: E402
from jetsond import capture  # noqa: E402
from jetsond._bus import Bus  # noqa: E402
from jetsond.errors import JetsondError  # noqa: E402

JETSOND, JETSONCTL = sys.argv[1:3]
HOST, CONTAINER_A, CONTAINER_B = 4026531836, 4026532101, 4026532102
# Host PIDs of the fake containers' processes (above any real pid_max
# default, so never the test's own).
A1, B1, B7 = 4100001, 4100002, 4100003


def fake_process(root, nspid, ns):
    """A /proc entry under ROOT: its NSpid line's PIDs, its namespace."""
    pid = nspid[0]
    d = os.path.join(root, "proc", str(pid))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "ns"))
    with open(os.path.join(d, "status"), "w") as f:
        f.write("Name:\tfake\nPid:\t%d\nPPid:\t1\nNSpid:\t%s\n" % (pid, "\t".join(map(str, nspid))))
    os.symlink("pid:[%d]" % ns, os.path.join(d, "ns", "pid"))


def into_container(root, pid, inner, ns):
    """The board's process PID moved into namespace NS as its PID INNER
    (its stat and statm left as they are)."""
    d = os.path.join(root, "proc", str(pid))
    status = open(os.path.join(d, "status")).read()
    status = re.sub(r"(?m)^NSpid:.*\n", "", status) + "NSpid:\t%d\t%d\n" % (pid, inner)
    with open(os.path.join(d, "status"), "w") as f:
        f.write(status)
    os.makedirs(os.path.join(d, "ns"), exist_ok=True)
    os.symlink("pid:[%d]" % ns, os.path.join(d, "ns", "pid"))


def jetsonctl_in_a(root, args):
    """jetsonctl ARGS run as PID 9 of container A: its /proc entry is made
    before it starts (sh execs it, keeping the PID)."""
    p = subprocess.Popen(["sh", "-c", 'echo $$; read go; exec "$@"', "sh", JETSONCTL, *args],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())
    fake_process(root, [pid, 9], CONTAINER_A)
    try:
        out, err = p.communicate("go\n", timeout=60)
    finally:
        shutil.rmtree(os.path.join(root, "proc", str(pid)), ignore_errors=True)
    assert p.returncode == 0, f"jetsonctl {args}: exit {p.returncode}: {err}"
    return out


def call(bus, method, pids):
    return list(bus.jcall("Metrics", method, "au", (pids,))[0])


def main():
    with harness.Stack(JETSOND, None) as s:
        me = os.getpid()
        fake_process(s.root, [me, 7], CONTAINER_A)
        fake_process(s.root, [A1, 1], CONTAINER_A)
        fake_process(s.root, [B1, 1], CONTAINER_B)
        fake_process(s.root, [B7, 7], CONTAINER_B)
        into_container(s.root, 5120, 3, CONTAINER_A)
        s.start_daemon()
        bus = Bus(s.address)
        snapshot = dict(bus.jcall("Metrics", "GetSnapshot")[1])
        host_gpu_pids = sorted({int(k.split(".")[1]) for k in snapshot if k.startswith("process.")})
        assert host_gpu_pids, "the fake board lists GPU processes"

        def test_to_caller():
            asked = host_gpu_pids + [A1, me, B1, B7, 0, 999999999]
            got = call(bus, "PidsToCaller", asked)
            want = [3 if p == 5120 else 0 for p in host_gpu_pids] + [1, 7, 0, 0, 0, 0]
            assert got == want, got

        def test_from_caller():
            # PID 7 is the caller in A, never B's 7; 42 names nothing.
            assert call(bus, "PidsFromCaller", [7, 1, 42, 0, 3]) == [me, A1, 0, 0, 5120]
            assert call(bus, "PidsFromCaller", []) == []

        def test_exited():
            fake_process(s.root, [A1 + 10, 4], CONTAINER_A)
            assert call(bus, "PidsFromCaller", [4]) == [A1 + 10]
            shutil.rmtree(os.path.join(s.root, "proc", str(A1 + 10)))
            assert call(bus, "PidsFromCaller", [4]) == [0]
            assert call(bus, "PidsToCaller", [A1 + 10]) == [0]

        def test_same_namespace():
            # The caller moved to jetsond's namespace: every PID is itself.
            fake_process(s.root, [me], HOST)
            try:
                assert call(bus, "PidsToCaller", host_gpu_pids + [A1]) == host_gpu_pids + [A1]
                assert call(bus, "PidsFromCaller", [A1, 999999999]) == [A1, 0]
            finally:
                fake_process(s.root, [me, 7], CONTAINER_A)

        def test_caller_not_seen():
            # busctl's own PID is not in the fake /proc: an error, no guess.
            r = subprocess.run(["busctl", "--system", "call", "org.jetsond.Jetson1", "/org/jetsond/Jetson1",
                                "org.jetsond.Jetson1.Metrics", "PidsFromCaller", "au", "1", "1"],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode != 0, r.stdout
            assert "cannot see the calling process" in r.stderr, r.stderr
            # The caller's namespace gone with its process: the same.
            shutil.rmtree(os.path.join(s.root, "proc", str(me)))
            try:
                call(bus, "PidsToCaller", [A1])
                raise AssertionError("PidsToCaller answered for a caller jetsond cannot see")
            except JetsondError as e:
                assert e.dbus_name == "org.jetsond.Jetson1.Error.UnknownProcess", e.dbus_name
            finally:
                fake_process(s.root, [me, 7], CONTAINER_A)

        def own_pids(values):
            return sorted({int(k.split(".")[1]) for k in values if k.startswith("process.")})

        def test_python_names_own_pids():
            board = jetsond.Jetson(s.address)
            snap = board.snapshot()
            assert own_pids(snap) == [3] and snap.caller_pids, own_pids(snap)
            assert snap["process.3.name"] == "python3" and "process.3.ppid" not in snap
            assert [p["pid"] for p in board.processes()] == [3]
            assert own_pids(board.numbers()) == [3]
            assert board.pids_from_caller([3, 7, 8]) == [5120, me, 0]
            board.close()

        def test_jetsonctl_names_own_pids():
            got = json.loads(jetsonctl_in_a(s.root, ["--json", "get", "process.*"]))
            assert own_pids(got) == [3], got
            status = json.loads(jetsonctl_in_a(s.root, ["--json", "status"]))
            assert own_pids(status["values"]) == [3], own_pids(status["values"])
            text = jetsonctl_in_a(s.root, ["status"])
            rows = [ln.split() for ln in text.splitlines() if ln.strip().endswith("python3")]
            assert rows and all(r[1] == "3" for r in rows), text

        def test_capture_columns():
            gpu_kib = snapshot["process.5120.gpu_mem"][1]  # jeepney: (signature, value)
            for keys, want in ((["process.3.gpu_mem", "cpu.load"], ["process.3.gpu_mem", "cpu.load"]),
                               (["process.*.gpu_mem"], ["process.3.gpu_mem"]),
                               ([], None)):
                cap = capture.Capture(0.01, keys, s.address)
                try:
                    if want is not None:
                        assert cap.columns == want, cap.columns
                    else:  # every numeric key: of the processes, only PID 3's
                        assert own_pids(cap.columns) == [3], own_pids(cap.columns)
                    # The stream's own header names them as the answer did,
                    # then the missed ticks and the tier times (a process's: slow).
                    assert [c for c in cap.header.columns if c != capture.MISSED_TICKS
                            and not c.startswith(capture.TIME_PREFIX)] == cap.columns, cap.header.columns
                    assert "capture.time.slow" in cap.header.columns, cap.header.columns
                    i = cap.columns.index("process.3.gpu_mem")
                    n = len(cap.header.columns)
                    data = b""
                    while len(data) < 8 * (2 + n):
                        data += cap.read(5.0) or b""
                    rec = next(capture.parse_records(data, n))
                    assert rec.values[i] == gpu_kib, (rec.values[i], gpu_kib)
                finally:
                    cap.close()
            try:
                capture.Capture(0.01, ["process.5120.gpu_mem"], s.address).close()
                raise AssertionError("a PID of the host's namespace made a column")
            except jetsond.InvalidArgs as e:
                assert "no process of your PID namespace" in str(e), e

        def test_bad_input():
            r = subprocess.run(["busctl", "--system", "call", "org.jetsond.Jetson1", "/org/jetsond/Jetson1",
                                "org.jetsond.Jetson1.Metrics", "PidsToCaller", "s", "x"],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode != 0 and "Invalid arguments" in r.stderr, r.stderr
            assert s.daemon.poll() is None, "jetsond ended"

        status = harness.run_tests([test_to_caller, test_from_caller, test_exited, test_same_namespace,
                                    test_caller_not_seen, test_python_names_own_pids,
                                    test_jetsonctl_names_own_pids, test_capture_columns, test_bad_input])
        bus.close()
        return status


if __name__ == "__main__":
    sys.exit(main())
