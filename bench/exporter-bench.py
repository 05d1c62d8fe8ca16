#!/usr/bin/env python3
"""CPU cost of a scrape: jetsond-exporter's /metrics, its /metrics/dcgm
(NVIDIA's DCGM series) and both as one Prometheus with two jobs scrapes
them, against node_exporter on the same fake board (the static AGX Orin),
in one run.

    python3 bench/exporter-bench.py [BUILDDIR] [SCRAPES]

Both serve the same scraper in alternating blocks (so a busy neighbour on
a shared machine hits both alike); the figure is each process's CPU
time per scrape, the median of
the blocks (thread CPU time from /proc/PID/task/*/schedstat). node_exporter reads the fake board through --path.sysfs,
--path.procfs and --path.rootfs, once with its default collectors and once
with only those that read a Jetson's sensors (hwmon, thermal_zone,
cpufreq, meminfo). jetsond's own sampling is listed apart: it runs whether
or not anything scrapes."""

import os
import socket
import statistics
import subprocess
import sys
import time
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
from harness import Stack, wait_for  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
SCRAPES = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
BLOCKS = 10


def cpu_seconds(pid):
    """CPU time of every thread of PID, in ns precision (schedstat; the
    tick-based /proc/PID/stat counts in 10 ms steps). Threads that exit
    take their time with them: both servers keep theirs."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def scrape_many(port, n, paths=("/metrics",)):
    """N scrapes on one keep-alive connection, as Prometheus does, each a
    GET of every one of PATHS; bytes of the last bodies."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    size = 0
    for _ in range(n):
        size = 0
        for path in paths:
            c.request("GET", path, headers={"Accept-Encoding": "gzip"})
            r = c.getresponse()
            size += len(r.read())
            assert r.status == 200
    c.close()
    return size


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_node_exporter(root, minimal):
    port = free_port()
    args = ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{port}",
            f"--path.sysfs={root}/sys", f"--path.procfs={root}/proc", f"--path.rootfs={root}"]
    if minimal:
        args += ["--collector.disable-defaults", "--collector.hwmon", "--collector.thermal_zone",
                 "--collector.cpufreq", "--collector.meminfo"]
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up():
        try:
            scrape_many(port, 1)
            return True
        except OSError:
            return False
    wait_for(up, 30, "node_exporter")
    return p, port, ("/metrics",)


def main():
    with Stack(os.path.join(BUILD, "src/jetsond"), os.path.join(BUILD, "exporter/jetsond-exporter")) as s:
        s.start_daemon()
        s.start_exporter()
        wait_for(lambda: "jetson_up 1" in s.scrape(), 10, "jetson_up 1")
        servers = {"jetsond-exporter /metrics": (s.exporter, s.port, ("/metrics",)),
                   "jetsond-exporter /metrics/dcgm": (s.exporter, s.port, ("/metrics/dcgm",)),
                   "jetsond-exporter /metrics + /metrics/dcgm": (s.exporter, s.port, ("/metrics", "/metrics/dcgm"))}
        node_full = start_node_exporter(s.root, minimal=False)
        node_min = start_node_exporter(s.root, minimal=True)
        servers["node_exporter (default collectors)"] = node_full
        servers["node_exporter (hwmon, thermal_zone, cpufreq, meminfo)"] = node_min
        try:
            per_block = SCRAPES // BLOCKS
            costs = {name: [] for name in servers}
            sizes = {}
            for name, (p, port, paths) in servers.items():  # warm up
                sizes[name] = scrape_many(port, 50, paths)
            for _ in range(BLOCKS):
                for name, (p, port, paths) in servers.items():
                    before = cpu_seconds(p.pid)
                    scrape_many(port, per_block, paths)
                    costs[name].append((cpu_seconds(p.pid) - before) / per_block)
            # What the exporter and jetsond cost with nobody scraping.
            idle_exp, idle_d = cpu_seconds(s.exporter.pid), cpu_seconds(s.daemon.pid)
            time.sleep(10)
            idle_exp = (cpu_seconds(s.exporter.pid) - idle_exp) / 10
            idle_d = (cpu_seconds(s.daemon.pid) - idle_d) / 10
        finally:
            for p, _, _ in (node_full, node_min):
                p.terminate()
                p.wait()
    ours = statistics.median(costs["jetsond-exporter /metrics + /metrics/dcgm"])
    print(f"{SCRAPES} scrapes per server in {BLOCKS} alternating blocks, gzip, one keep-alive connection")
    print(f"{'server':58} {'CPU/scrape':>12} {'range':>21} {'gzip body':>10} {'vs both':>12}")
    for name, c in costs.items():
        med = statistics.median(c)
        print(f"{name:58} {med * 1e6:9.1f} µs {min(c) * 1e6:8.1f}-{max(c) * 1e6:.1f} µs {sizes[name]:8d} B "
              f"{med / ours if ours else float('inf'):10.1f}×")
    print(f"idle, per second: jetsond-exporter {idle_exp * 1e3:.3f} ms (Sample signals at 1 Hz), "
          f"jetsond {idle_d * 1e3:.3f} ms (sampling, paid with or without an exporter)")


if __name__ == "__main__":
    main()
