"""docs/python.md's first example: identity, one snapshot, views, a few
samples, a short recording and a measured block."""
import os
import tempfile
import time

import jetsond

with jetsond.Jetson() as board:
    ident = board.identity()
    print(ident["model"], "JetPack", ident["jetpack"])
    s = board.snapshot()
    # A reading the board lacks (or that has not moved yet) is an absent key: use get().
    print("board power %d mW, CPU load %s %%" % (s["power.total"], s.get("cpu.load", "n/a")))
    for gpu in board.gpus():
        print("GPU", gpu["index"], gpu.get("load_percent"), "%", gpu.get("freq_khz"), "kHz")
    for n, sample in enumerate(board.samples(interval=0.1)):
        print("sample", sample.timestamp, sample.get("temp.cpu"))
        if n == 2:
            break

path = os.path.join(tempfile.mkdtemp(), "run.trace")
with jetsond.Recorder(path, rate_hz=1000, keys=["gpu.load", "power.total"]) as rec:
    time.sleep(0.2)
    rec.sync()
    time.sleep(0.2)
print("recorded", rec.sample_count, "records,", rec.dropped, "dropped")
try:
    trace = jetsond.read_trace(path)
    phase = trace["power.total"][trace["sync_id"] == 1]
    print("phase 1: %d records, mean %.0f mW" % (len(phase), phase.mean()))
except ImportError:
    print("numpy is not installed: read_trace skipped")

with jetsond.measure() as m:
    sum(i * i for i in range(200000))
    m.mark("sleep")
    time.sleep(0.2)
r = m.result
print("energy %.3f J over %.3f s, mean %.0f mW" % (r.energy_j or 0, r.duration_s or 0, r.mean_power_mw or 0))
for phase in r.phases:
    print(" ", phase["name"], "%.3f s" % phase["duration_s"], phase["power"]["total"]["energy_j"], "J")
