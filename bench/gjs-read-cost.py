#!/usr/bin/env python3
"""What a sample costs a gjs client such as the GNOME Shell extension, whose
unpacking runs on the shell's main thread: the whole sample
(recursiveUnpack() of a Sample's ta{sv}) against the compact form of a
ValuesAt signal (format.js compactValues() of its ad), on jetsond's live
answer for the static AGX Orin fake board on a private bus.

    sudo /usr/bin/python3 bench/gjs-read-cost.py [BUILDDIR] [CALLS]

Prints the time gjs takes to unpack a sample (the monotonic clock around
a loop in one thread: what the shell's main thread would spend), the best
of three rounds of CALLS (default 300), with the load average beside.
Needs gjs."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
from harness import Stack  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
CALLS = sys.argv[2] if len(sys.argv) > 2 else "300"


def main():
    with Stack(os.path.join(BUILD, "src/jetsond"), None) as s:
        s.start_daemon()
        out = subprocess.run(["gjs", "-m", os.path.join(HERE, "gjs-read-cost.js"),
                              os.path.join(HERE, "..", "gnome-shell-extension"), CALLS],
                             capture_output=True, text=True, check=True).stdout
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; gjs {gjs_version()}")
    print(out, end="")


def gjs_version():
    return subprocess.run(["gjs", "--version"], capture_output=True, text=True).stdout.split()[-1]


if __name__ == "__main__":
    main()
