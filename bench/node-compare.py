#!/usr/bin/env python3
"""jetsond's full reads beside node_exporter's scrape, on the same fake
board (the static AGX Orin) in one run (issue 37).

    python3 bench/node-compare.py [BUILDDIR] [CALLS]     (as root: bus policy)

jetsond (private system bus, default 1 s period) answers GetSnapshot and
GetValues (the compact form), timed by BUILDDIR/bench/jetsond-bus-bench -q
(round trip until the answer is read; server CPU per answer: jetsond's and
dbus-daemon's process clocks); node_exporter 1.5 (default collectors,
--path.* into the same tree) is scraped with gzip on one keep-alive
connection, its CPU per scrape from /proc/PID/task/*/schedstat and each
scrape's round trip. The two alternate in BLOCKS blocks so a neighbour on a
shared machine weighs on both alike; each figure is the median over the
blocks (p99: the worst block's). The load average is printed beside."""

import http.client
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
from harness import Stack  # noqa: E402

spec = importlib.util.spec_from_file_location("exporter_bench", os.path.join(HERE, "exporter-bench.py"))
exporter_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(exporter_bench)

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
BLOCKS = 5
SCRAPES_PER_BLOCK = 40
FIGURE = re.compile(r"figure: (\w+) p50 ([\d.]+) us, p99 ([\d.]+) us, server CPU ([\d.]+) us per answer "
                    r"\(jetsond ([\d.]+), dbus-daemon ([\d.]+)\)")


def jetsond_block(daemon_pid, bus_pid, calls):
    out = subprocess.run([os.path.join(BUILD, "bench/jetsond-bus-bench"), "-q", "-n", str(calls),
                          str(daemon_pid), str(bus_pid)], check=True, capture_output=True, text=True).stdout
    return {m[0]: [float(x) for x in m[1:]] for m in FIGURE.findall(out)}


def node_block(port, n):
    """CPU per scrape (s), and each scrape's round trip (s)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    for _ in range(n):
        t0 = time.monotonic()
        c.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
        r = c.getresponse()
        r.read()
        times.append(time.monotonic() - t0)
    c.close()
    return times


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(q * len(s) + 0.999999) - 1))]


def main():
    loads = [os.getloadavg()[0]]
    with Stack(os.path.join(BUILD, "src/jetsond"), None) as s:
        s.start_daemon()
        node, port = exporter_bench.start_node_exporter(s.root, minimal=False)
        try:
            node_block(port, 10)  # warm up
            ours = {"GetSnapshot": [], "GetValues": []}
            node_cpu, node_p50, node_p99 = [], [], []
            for _ in range(BLOCKS):
                for method, figures in jetsond_block(s.daemon.pid, s.bus_pid, CALLS // BLOCKS).items():
                    ours[method].append(figures)
                before = exporter_bench.cpu_seconds(node.pid)
                times = node_block(port, SCRAPES_PER_BLOCK)
                node_cpu.append((exporter_bench.cpu_seconds(node.pid) - before) / SCRAPES_PER_BLOCK * 1e6)
                node_p50.append(pct(times, 0.5) * 1e6)
                node_p99.append(pct(times, 0.99) * 1e6)
                loads.append(os.getloadavg()[0])
        finally:
            node.terminate()
            node.wait()
    n_cpu, n_p50, n_p99 = statistics.median(node_cpu), statistics.median(node_p50), max(node_p99)
    print(f"{CALLS // BLOCKS} calls of each method and {SCRAPES_PER_BLOCK} scrapes in each of {BLOCKS} alternating "
          f"blocks; {os.cpu_count()} CPUs, load average (1 min) {min(loads):.2f}-{max(loads):.2f}")
    print(f"figure: node_exporter scrape: CPU {n_cpu:.0f} us, p50 {n_p50:.0f} us, p99 {n_p99:.0f} us")
    for method, blocks in ours.items():
        p50 = statistics.median(b[0] for b in blocks)
        p99 = max(b[1] for b in blocks)
        cpu = statistics.median(b[2] for b in blocks)
        jd = statistics.median(b[3] for b in blocks)
        bd = statistics.median(b[4] for b in blocks)
        print(f"figure: jetsond {method}: CPU {cpu:.1f} us (jetsond {jd:.1f}, dbus-daemon {bd:.1f}), "
              f"p50 {p50:.1f} us, p99 {p99:.1f} us; node_exporter/jetsond: CPU {n_cpu / cpu:.0f}x, "
              f"p50 {n_p50 / p50:.0f}x")


if __name__ == "__main__":
    main()
