#!/usr/bin/python3
"""exporter/jetsond-rules.yml against promtool and the exporter:

    check-rules.py PROMTOOL EXPORTER

- `promtool check rules`: the file is valid;
- `promtool test rules tests/exporter/rules-test.yml`: each alert fires for
  the board that should fire it and for no other (promtool compares the
  whole set of alerts at each evaluation), and each recording rule's value;
- every alert of the file has a case in the test that expects it to fire;
- every jetson_* name the rules use is a family `EXPORTER --list-metrics`
  lists (a renamed family would leave a rule that never fires).
Exit 0 when all hold, 1 otherwise (77: no promtool)."""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "..", "..", "exporter", "jetsond-rules.yml")
TEST = os.path.join(HERE, "rules-test.yml")


def main():
    promtool, exporter = sys.argv[1:3]
    if not shutil.which(promtool):
        print(f"SKIP: no {promtool}")
        return 77
    failures = []
    for argv, cwd in (([promtool, "check", "rules", RULES], None), ([promtool, "test", "rules", "rules-test.yml"], HERE)):
        r = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=120)
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            failures.append(" ".join(argv[1:3]) + " failed")
    rules, test = open(RULES).read(), open(TEST).read()
    alerts = re.findall(r"(?m)^\s*- alert: (\w+)$", rules)
    tested = set(re.findall(r"(?m)^\s*alertname: (\w+)\n\s*exp_alerts:\n\s*- exp_labels", test))
    for a in alerts:
        if a not in tested:
            failures.append(f"alert {a} has no test case that fires it")
    families = {line.split("\t")[0] for line in subprocess.run([exporter, "--list-metrics"], capture_output=True,
                                                                 text=True, check=True).stdout.splitlines()}
    for name in sorted(set(re.findall(r"\bjetson_[a-z0-9_]+", rules))):
        if name not in families:
            failures.append(f"the rules use {name}, which jetsond-exporter --list-metrics does not list")
    print(f"{len(alerts)} alerts, {len(tested)} with a firing case; "
          f"{len(set(re.findall(r'jetson_[a-z0-9_]+', rules)))} families used")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
