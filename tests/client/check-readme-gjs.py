#!/usr/bin/python3
"""Every gjs example of the README runs against jetsond on a private bus
and prints what its text says: the sample one a line per Sample, the
Subscribe one about ten a second.

    check-readme-gjs.py JETSOND README
"""
import os
import re
import subprocess
import sys
import tempfile

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, README = sys.argv[1:3]
blocks = re.findall(r"```js\n(.*?)```", open(README).read(), re.S)
failed = 0
with harness.Stack(JETSOND, None) as stack:
    stack.start_daemon()
    for block in blocks:
        with tempfile.NamedTemporaryFile("w", suffix=".js") as f:
            f.write(block)
            f.flush()
            r = subprocess.run(["timeout", "2.05", "gjs", f.name], capture_output=True, text=True)
        lines = [line for line in r.stdout.split("\n") if line]
        # The Subscribe example asks for 100 ms; the others get the default 1 s.
        wanted = 12 if "Subscribe" in block else 1
        ok = len(lines) >= wanted and not r.stderr.strip() and all(re.search(r"\d", line) for line in lines)
        print(f"{'ok  ' if ok else 'FAIL'} {block.splitlines()[1][:60]}...: {len(lines)} lines in 2 s "
              f"(wanted {wanted}){'' if ok else ': ' + (r.stderr or r.stdout)[:500]}")
        failed += not ok
if len(blocks) < 2:
    print(f"FAIL: {len(blocks)} gjs examples in the README, expected at least 2")
    failed += 1
sys.exit(1 if failed else 0)
