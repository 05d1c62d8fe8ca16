#!/usr/bin/env python3
"""docs/exporter.md's table of metric families is jetsond-exporter
--list-metrics, row for row: a family added, renamed or relabelled without
the page (or
the other way round) fails here.

    check-readme.py EXPORTER PAGE          check (PAGE: docs/exporter.md)
    check-readme.py EXPORTER --print       print the table to paste"""

import subprocess
import sys


def table(exporter):
    out = subprocess.run([exporter, "--list-metrics"], check=True, capture_output=True, text=True).stdout
    rows = ["| metric | type | labels | from (D-Bus) | meaning |", "|---|---|---|---|---|"]
    for line in out.splitlines():
        name, kind, labels, source, help_ = line.split("\t")
        labels = ", ".join(f"`{l}`" for l in labels.split(",")) if labels != "-" else ""
        if "." in source and " " not in source:
            source = f"`{source}`"
        rows.append(f"| `{name}` | {kind} | {labels} | {source} | {help_} |")
    return rows


def main():
    rows = table(sys.argv[1])
    if sys.argv[2] == "--print":
        print("\n".join(rows))
        return 0
    readme = open(sys.argv[2]).read().splitlines()
    try:
        start = readme.index(rows[0])
    except ValueError:
        print(f"{sys.argv[2]} has no metric table (its header row is missing)")
        return 1
    end = start
    while end < len(readme) and readme[end].startswith("|"):
        end += 1
    have = readme[start:end]
    if have != rows:
        for r in sorted(set(rows) - set(have)):
            print(f"missing in {sys.argv[2]}: " + r)
        for r in sorted(set(have) - set(rows)):
            print("not a family of --list-metrics: " + r)
        if set(have) == set(rows):
            print(f"{sys.argv[2]}'s rows are not in --list-metrics order")
        return 1
    print(f"ok: {sys.argv[2]} lists the {len(rows) - 2} families of --list-metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
