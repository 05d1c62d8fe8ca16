#!/usr/bin/python3
"""A manual check, not part of the suite (the parsers are other projects'
code, not in this tree): runs public tegrastats parsers, unchanged, on the
golden lines of jetsonctl tegrastats and on the real lines, and says for
each line what each parser read or how it failed, so that the two can be
compared line by line.

    third-party-parsers.py [--jtop TEGRA_PARSE_PY] [--jetsontools PARSING_PY] [--ssaraff PARSE_PY]

The files as their repositories hold them: jetson_stats'
jtop/core/tegra_parse.py, jetsontools' src/jetsontools/_parsing.py,
ssaraff98/tegrastats_parser's parse.py (docs/tegrastats.md names the
commits checked)."""

import argparse
import glob
import importlib.util
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STAMP = "12-07-2026 10:00:00"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def readers(args):
    """Each parser as NAME -> function(line) -> a short summary."""
    out = {}
    if args.jtop:
        jt = load(args.jtop, "jtop_tegra_parse")
        watts = getattr(jt, "WATTS", None) or getattr(jt, "VOLTS")

        def jtop(line):
            cpus = jt.CPUS(line)
            return {"ram": jt.RAM(line).get("use"), "cpus": len(cpus), "vals": sorted(jt.VALS(line)),
                    "temps": len(jt.TEMPS(line)), "rails": sorted(watts(line))}
        out["jtop"] = jtop
    if args.jetsontools:
        tools = load(args.jetsontools, "jetsontools_parsing")

        def jetsontools(line):
            if not line[:1].isdigit():
                return "skipped: reads timestamped lines only"
            entry = tools.parse_tegrastats(io.StringIO(line + "\n"))[0]
            return {"fields": len(entry), "ram": entry.get("RAM")}
        out["jetsontools"] = jetsontools
    if args.ssaraff:
        ss = load(args.ssaraff, "ssaraff_parse")

        def ssaraff(line):
            table = ss.Parse(1000, "unused").parse_data(line)
            return {"fields": len(table), "ram": table.get("Used RAM (MB)")}
        out["ssaraff98"] = ssaraff
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jtop")
    p.add_argument("--jetsontools")
    p.add_argument("--ssaraff")
    args = p.parse_args()
    lines = [(os.path.basename(path), open(path).read().rstrip("\n").replace("MM-DD-YYYY HH:MM:SS", STAMP))
             for path in sorted(glob.glob(os.path.join(HERE, "golden", "*.line")))]
    with open(os.path.join(HERE, "real-lines.jsonl")) as f:
        lines += [("real " + d["id"], d["line"]) for d in map(json.loads, f)]
    for name, fn in readers(args).items():
        failures = 0
        for what, line in lines:
            try:
                result = fn(line)
            except Exception as e:  # the point: how each parser fails
                result = f"FAILS: {type(e).__name__}: {e}"
                failures += 1
            print(f"{name:11} {what:44} {result}")
        print(f"{name}: {len(lines) - failures} lines read, {failures} failed")


if __name__ == "__main__":
    main()
