#!/usr/bin/python3
"""A benchmark, never a test (it asserts nothing): the CPU time of
`jetsonctl top` at its default rate (1 s) in a 120x45 tmux pane, on its
overview and then on each page, against `jetsonctl watch` at the same
rate printing every key to a pipe, both against jetsond serving the
simulated AGX Orin for the same wall time. Run with
`meson test -C BUILD --benchmark jetsonctl-top-cost`, or

    test-top-cost.py JETSOND JETSONCTL [SECONDS]

The figures in docs/top.md come from it."""

import os
import subprocess
import sys
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, JETSONCTL = (os.path.abspath(a) for a in sys.argv[1:3])
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 60
SOCKET = f"jetsonctl-top-cost-{os.getpid()}"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def tmux(*args):
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
    return subprocess.run(["tmux", "-L", SOCKET, *args], env=env, capture_output=True, text=True, check=True).stdout


def measure_top(keys):
    tmux("new-session", "-d", "-x", "120", "-y", "45", f"exec {JETSONCTL} top")
    try:
        pid = int(tmux("display", "-p", "#{pane_pid}").strip())
        harness.wait_for(lambda: "q quit" in tmux("capture-pane", "-p"), 10, "jetsonctl top")
        per_page = SECONDS / len(keys)
        start = cpu_seconds(pid)
        for key in keys:
            tmux("send-keys", key)
            time.sleep(per_page)
        return cpu_seconds(pid) - start
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


def measure_watch():
    watch = subprocess.Popen([JETSONCTL, "watch", "--interval", "1000"], stdout=subprocess.PIPE)
    try:
        drain = subprocess.Popen(["cat"], stdin=watch.stdout, stdout=subprocess.DEVNULL)
        time.sleep(2)
        start = cpu_seconds(watch.pid)
        time.sleep(SECONDS)
        return cpu_seconds(watch.pid) - start
    finally:
        watch.terminate()
        watch.wait()
        drain.wait()


def main():
    with harness.Stack(JETSOND, None, simulate=True) as stack:
        stack.start_daemon()
        watch = measure_watch()
        overview = measure_top(["1"])
        pages = measure_top(["1", "2", "3", "4", "5", "6", "7", "8"])
    load = os.getloadavg()[0]
    print(f"figure: over {SECONDS:.0f} s at 1 sample/s (load average {load:.2f}, {os.cpu_count()} CPUs):")
    for name, cpu in (("jetsonctl watch (every key, to a pipe)", watch), ("jetsonctl top, overview, 120x45", overview),
                      ("jetsonctl top, all eight pages in turn", pages)):
        print(f"figure: {name}: {cpu:.2f} s of CPU = {100 * cpu / SECONDS:.2f} % of one CPU")


if __name__ == "__main__":
    main()
