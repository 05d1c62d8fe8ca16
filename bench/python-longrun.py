#!/usr/bin/python3
"""python-longrun.py MINUTES [BUILD_DIR]: the Python package's long memory
run (issue 27; a script, not CI).

On a private system bus, jetsond (BUILD_DIR, default build) serves a
simulated AGX Orin. A separate Python process, the user's program, does
for MINUTES what a training script with the package does: a Recorder at
1 kHz of three keys into a trace file, a sync() every second, and a
samples() iterator at 100 ms with a view of each sample. Every minute,
and first against last at the end, `figure:` lines give that process's RSS,
open descriptors and threads, and jetsond's RSS and descriptors (from
/proc), with the records written and dropped. The first figures are taken
after one minute, once the heap has settled (imports, buffers)."""

import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SOURCE, "tests", "lib"))
sys.path.insert(0, os.path.join(SOURCE, "python"))

WORKER = r"""
import os, sys, time
import jetsond
from jetsond import views
minutes, path, address = float(sys.argv[1]), sys.argv[2], sys.argv[3]
end = time.monotonic() + minutes * 60
samples = 0
with jetsond.Jetson(address) as board:
    with jetsond.Recorder(path, rate_hz=1000, keys=["cpu.load", "gpu.load", "power.total"], address=address) as rec:
        it = board.samples(interval=0.1)
        next_sync = time.monotonic() + 1
        for s in it:
            samples += 1
            views.power(s)
            views.cpu(s)
            if time.monotonic() >= next_sync:
                rec.sync()
                next_sync += 1
                print("progress %d %d %d %d" % (rec.sample_count, rec.dropped, samples, rec.missed), flush=True)
            if time.monotonic() >= end:
                break
        it.close()
print("done %d %d %d %d" % (rec.sample_count, rec.dropped, samples, rec.missed), flush=True)
"""


def proc_figures(pid):
    status = {}
    for line in open("/proc/%d/status" % pid):
        k, _, v = line.partition(":")
        status[k] = v.split()
    return int(status["VmRSS"][0]), len(os.listdir("/proc/%d/fd" % pid)), int(status["Threads"][0])


def main():
    minutes = float(sys.argv[1])
    build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(SOURCE, "build")
    import harness
    old_rows = []
    with harness.Stack(os.path.join(build, "src", "jetsond"), None, simulate=True) as s:
        s.start_daemon()
        import jetsond
        with jetsond.Jetson(s.address) as j:
            harness.wait_for(lambda: "cpu.load" in j.snapshot(), 30, "cpu.load")
        trace = os.path.join(s.dir, "longrun.trace")
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))
        worker = subprocess.Popen(["/usr/bin/python3", "-c", WORKER, str(minutes), trace, s.address],
                                  stdout=subprocess.PIPE, universal_newlines=True, env=env)
        started = time.monotonic()
        next_row = started + 60
        last = ""
        for line in worker.stdout:
            last = line.split()
            now = time.monotonic()
            # Only while it records: not as it closes.
            if now >= next_row and last[0] == "progress" and worker.poll() is None:
                py, jd = proc_figures(worker.pid), proc_figures(s.daemon.pid)
                row = (round((now - started) / 60), py, jd, last)
                old_rows.append(row)
                print("figure: minute %d: Python RSS %d KiB, fds %d, threads %d; jetsond RSS %d KiB, fds %d;"
                      " %s records, %s dropped, %s ticks missed, %s samples"
                      % (row[0], py[0], py[1], py[2], jd[0], jd[1], last[1], last[2], last[4], last[3]), flush=True)
                next_row += 60
        code = worker.wait()
        if code != 0 or not last or last[0] != "done":
            print("python-longrun: the worker failed (exit %d)" % code)
            return 1
        size = os.path.getsize(trace)
        data = jetsond.read_trace(trace)
        t = data["time_ns"]
        span = (int(t[-1]) - int(t[0])) / 1e9
        print("figure: %s records over %.1f s of the stream's clock (%.1f a second), %s dropped, %s ticks missed"
              " by the engine, %d syncs, trace %.1f MB, %s samples"
              % (last[1], span, len(t) / span, last[2], last[4], len(data["syncs"]), size / 1e6, last[3]))
        if len(old_rows) >= 2:
            a, b = old_rows[0], old_rows[-1]
            print("figure: minute %d -> %d: Python RSS %d -> %d KiB, fds %d -> %d, threads %d -> %d;"
                  " jetsond RSS %d -> %d KiB, fds %d -> %d"
                  % (a[0], b[0], a[1][0], b[1][0], a[1][1], b[1][1], a[1][2], b[1][2], a[2][0], b[2][0],
                     a[2][1], b[2][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
