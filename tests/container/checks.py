"""The container tests' checks: each runs, prints one ok/FAIL line with
what it checked, and the failures are counted for the exit status."""

import subprocess


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, what, fn):
        try:
            fn()
            print(f"ok   {what}", flush=True)
        except (AssertionError, KeyError, ValueError, OSError, subprocess.TimeoutExpired) as e:
            print(f"FAIL {what}: {e}", flush=True)
            self.failures += 1
