#!/usr/bin/env python3
"""Benchmark, not a test: CPU time of jetsond.Recorder at 1 kHz against
jetsonctl record at 1 kHz over the same seconds of the same jetsond (a
simulated AGX Orin on a private bus), and of a Jetson().snapshot() loop at
jtop's default 1 s period. Usage: bench.py JETSOND JETSONCTL [SECONDS]"""

import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack  # noqa: E402

import jetsond  # noqa: E402

JETSOND, JETSONCTL = sys.argv[1], sys.argv[2]
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
KEYS = ["cpu.load", "gpu.load", "emc.load", "power.*.power", "power.total", "temp.*"]


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


with Stack(JETSOND, None, simulate=True) as s:
    s.start_daemon()
    d = tempfile.mkdtemp()
    rec = subprocess.Popen(["/usr/bin/time", "-f", "%U %S", JETSONCTL, "record", "-i", "1", "-k", ",".join(KEYS),
                            "-o", os.path.join(d, "ctl.csv"), "-d", str(SECONDS)], stderr=subprocess.PIPE,
                           universal_newlines=True)
    c0 = cpu_s()
    with jetsond.Recorder(os.path.join(d, "py.trace"), rate_hz=1000, keys=KEYS) as r:
        time.sleep(SECONDS)
    py_cpu = cpu_s() - c0
    err = rec.communicate()[1].strip().splitlines()[-1].split()
    ctl_cpu = float(err[0]) + float(err[1])
    print("Recorder 1 kHz: %d records in %.0f s, %d columns, CPU %.3f s (%.2f %% of one CPU)"
          % (r.sample_count, SECONDS, len(r.columns), py_cpu, 100 * py_cpu / SECONDS))
    print("jetsonctl record -i 1 -f csv, same run: CPU %.3f s (%.2f %% of one CPU)"
          % (ctl_cpu, 100 * ctl_cpu / SECONDS))
    with jetsond.Jetson() as j:
        c0, t0 = cpu_s(), time.monotonic()
        n = 0
        while n < 200:
            j.snapshot()
            n += 1
        per = (cpu_s() - c0) / n
        print("Jetson().snapshot(): %.2f ms CPU per call (%.0f keys), %.2f ms wall; at jtop's 1 s loop %.3f %% of one CPU"
              % (per * 1000, len(j.snapshot()), (time.monotonic() - t0) / n * 1000, per * 100))
