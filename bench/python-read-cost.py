#!/usr/bin/env python3
"""What a full read costs a Python client: Jetson.snapshot() (GetSnapshot,
a key, a signature and a value per key) against Jetson.numbers()
(GetValues, one array of doubles), against jetsond on the static AGX Orin
fake board on a private bus (issue 37).

    sudo /usr/bin/python3 bench/python-read-cost.py [BUILDDIR] [CALLS]

Prints the client's CPU time and the wall time per call, the best of three
rounds of CALLS (default 300), with the load average beside."""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from harness import Stack  # noqa: E402

import jetsond  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 300


def main():
    with Stack(os.path.join(BUILD, "src/jetsond"), None) as s:
        s.start_daemon()
        with jetsond.Jetson(s.address) as j:
            ways = (("snapshot", j.snapshot), ("numbers", j.numbers))
            best = {}
            for name, read in ways:
                read()  # warm up (numbers: the key list)
            for _ in range(3):
                for name, read in ways:
                    cpu, wall = time.process_time(), time.monotonic()
                    for _ in range(CALLS):
                        read()
                    cpu = (time.process_time() - cpu) / CALLS * 1e6
                    wall = (time.monotonic() - wall) / CALLS * 1e6
                    old = best.get(name, (cpu, wall))
                    best[name] = (min(old[0], cpu), min(old[1], wall))
            keys = (len(j.snapshot()), len(j.numbers()))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {keys[0]} keys, {keys[1]} numeric")
    for name, (cpu, wall) in best.items():
        print(f"figure: Python Jetson.{name}(): client CPU {cpu:.0f} us, wall {wall:.0f} us per call "
              f"(best of 3 x {CALLS})")


if __name__ == "__main__":
    main()
