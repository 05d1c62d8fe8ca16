#!/usr/bin/python3
"""Every gjs example of the pages given runs against jetsond on a private bus
and prints what its text says: the sample one a line per Sample (jetsond's
default 1 s, with no request), the Subscribe one a line every 100 ms (its
SampleAt signals), judged by the samples' own times (the first field of
its lines), not by the wall clock: a busy machine only makes it wait
longer, and only a stall misses the deadline.

    check-readme-gjs.py JETSOND PAGE...   (docs/service.md docs/gnome.md)
"""
import os
import re
import subprocess
import sys
import tempfile
import threading

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, PAGES = sys.argv[1], sys.argv[2:]
blocks = [b for page in PAGES for b in re.findall(r"```js\n(.*?)```", open(page).read(), re.S)]


def run_until(path, wanted):
    """The first WANTED lines gjs prints (fewer only if it stalls past the
    deadline or exits), and its stderr."""
    p = subprocess.Popen(["gjs", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []

    def read():
        for line in p.stdout:
            if line.strip():
                lines.append(line.strip())
            if len(lines) >= wanted:
                return
    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(harness.MIN_DEADLINE_S)
    p.kill()
    err = p.communicate()[1]
    return lines[:wanted], err


failed = 0
with harness.Stack(JETSOND, None) as stack:
    stack.start_daemon()
    for block in blocks:
        with tempfile.NamedTemporaryFile("w", suffix=".js") as f:
            f.write(block)
            f.flush()
            subscribe = "Subscribe" in block
            # The Subscribe example asks for 100 ms; the others get the default 1 s.
            wanted = 14 if subscribe else 1
            lines, err = run_until(f.name, wanted)
        what = block.splitlines()[1][:60]
        problem = ""
        if len(lines) < wanted or err.strip() or not all(re.search(r"\d", line) for line in lines):
            problem = "%d lines of %d before the deadline: %s" % (len(lines), wanted, (err or "\n".join(lines))[:500])
        elif subscribe:
            # Every line is a SampleAt of the example's own period (its
            # match names it), from its first: every interval is judged.
            times = [int(line.split()[0]) for line in lines]
            try:
                harness.assert_period([b - a for a, b in zip(times, times[1:])], 100000, "docs gjs Subscribe")
            except AssertionError as e:
                problem = str(e)
        print(f"{'ok  ' if not problem else 'FAIL'} {what}...: {len(lines)} lines{': ' + problem if problem else ''}")
        failed += bool(problem)
if len(blocks) < 2:
    print(f"FAIL: {len(blocks)} gjs examples in {' '.join(PAGES)}, expected at least 2")
    failed += 1
sys.exit(1 if failed else 0)
