#!/usr/bin/python3
"""A benchmark, never a test (it asserts nothing): the CPU time of
`jetsonctl tegrastats --interval 100` and of jetsond serving it, beside
`jetsonctl watch --interval 100` in the same run, each alone against
jetsond on the simulated AGX Orin (values change every 100 ms), in
alternating rounds, both writing into a pipe that is read:

    tegrastats-cost.py JETSOND JETSONCTL [SECONDS-A-ROUND] [ROUNDS]

or `meson test -C BUILD --benchmark tegrastats-cost`. The figures in
docs/tegrastats.md come from it."""

import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, JETSONCTL = (os.path.abspath(a) for a in sys.argv[1:3])
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 20
ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 3
TICK = os.sysconf("SC_CLK_TCK")
CLIENTS = {
    "tegrastats": ["tegrastats", "--interval", "100"],
    "watch": ["watch", "--interval", "100"],
}


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def measure(daemon_pid, args):
    """CPU seconds of the client and of jetsond over SECONDS, and lines."""
    client = subprocess.Popen([JETSONCTL, *args], stdout=subprocess.PIPE)
    counter = subprocess.Popen(["wc", "-l"], stdin=client.stdout, stdout=subprocess.PIPE, text=True)
    client.stdout.close()
    time.sleep(2)  # past the start: the bus connection and the first lines
    c0, d0 = cpu_seconds(client.pid), cpu_seconds(daemon_pid)
    time.sleep(SECONDS)
    c1, d1 = cpu_seconds(client.pid), cpu_seconds(daemon_pid)
    client.terminate()
    client.wait()
    lines = int(counter.communicate()[0])
    return c1 - c0, d1 - d0, lines


def main():
    results = {name: [] for name in CLIENTS}
    with harness.Stack(JETSOND, None, board="agx-orin-jp62", simulate=True) as stack:
        stack.start_daemon()
        time.sleep(2)
        idle0 = cpu_seconds(stack.daemon.pid)
        time.sleep(SECONDS)
        idle = cpu_seconds(stack.daemon.pid) - idle0
        for _ in range(ROUNDS):
            for name, args in CLIENTS.items():
                results[name].append(measure(stack.daemon.pid, args))
    print(f"figure: {ROUNDS} rounds of {SECONDS:g} s each, one client at a time, agx-orin-jp62 simulated")
    print(f"figure: jetsond with no client (1 s default): {100 * idle / SECONDS:.2f} % of a CPU")
    for name, runs in results.items():
        client = statistics.median(r[0] for r in runs) / SECONDS
        daemon = statistics.median(r[1] for r in runs) / SECONDS
        lines = statistics.median(r[2] for r in runs)
        print(f"figure: {' '.join(CLIENTS[name])}: client {100 * client:.2f} % of a CPU, "
              f"jetsond {100 * daemon:.2f} %, {lines:g} lines a run (medians)")


if __name__ == "__main__":
    main()
