#!/usr/bin/env python3
"""Read tegrastats lines the way client scripts commonly do: one regular
expression per field searched anywhere in the line, not a token-by-token
parse.  It stands in for those clients: whatever `jetsonctl tegrastats`
prints must give them the same numbers a real board's line gives.

Usage: read_like_scripts.py [FILE]   (stdin without FILE)

Prints one JSON object per non-blank line:
  ram_used_mb, ram_total_mb, swap_used_mb, swap_total_mb (null without SWAP),
  cpus   [{load, freq}, ... null for an offline core]  (freq null without @MHz),
  emc    {load, freq} or null,
  gpu    {load, freqs} or null (GR3D_FREQ), gpu2 likewise (GR3D2_FREQ),
  temps  {name: degrees}, temps_max {name: degrees} (R39.2 "/MAXC" only),
  rails  {name: {cur, avg, max}} (mW; max null before R39.2).
A name printed twice (AGX Orin R35 has two "NC" rails) is kept twice: the
second one is keyed "NC#2", so no reading is lost.
Exit status 1, with a message on stderr, if a line has no RAM or no CPU field.
"""

import json
import re
import sys
from typing import Any, Dict, Optional

RAM_RE = re.compile(r"\bRAM (\d+)/(\d+)MB\b")
SWAP_RE = re.compile(r"\bSWAP (\d+)/(\d+)MB\b")
CPU_RE = re.compile(r"\bCPU \[([^\]]*)\]")
CORE_RE = re.compile(r"(\d+)%(?:@(\d+))?$")
EMC_RE = re.compile(r"\bEMC_FREQ (\d+)%(?:@(\d+))?")
# GR3D: "7%", "7%@768", "0%@[0,0]" or, on Thor, "@[314,314,314]" with no load.
GPU_RE = re.compile(r"\b(GR3D2?)_FREQ (?:(\d+)%)?(?:@\[([\d,]+)\]|@(\d+))?(?= |$)")
# A zone name glued to "@", degrees with "C", and on R39.2 "/" and the maximum.
TEMP_RE = re.compile(r"(?:^| )([A-Za-z][\w]*)@(-?\d+(?:\.\d+)?)C(?:/(-?\d+(?:\.\d+)?)C)?(?= |$)")
# A rail is a name and two or three numbers split by "/", each with or without
# mW; the lookahead stops "RAM 1464/3964MB" and "IRAM 0/252kB(" matching.
RAIL_RE = re.compile(r"(?:^| )([A-Za-z]\w*) (\d+)(?:mW)?/(\d+)(?:mW)?(?:/(\d+)(?:mW)?)?(?= |$)")


def _num(text: Optional[str]) -> Optional[int]:
    return None if text is None else int(text)


def _put(table: Dict[str, Any], name: str, value: Any) -> None:
    """Keep a repeated name under NAME#2, NAME#3, ... rather than overwrite it."""
    key, n = name, 1
    while key in table:
        n += 1
        key = "%s#%d" % (name, n)
    table[key] = value


def read_line(line: str) -> Dict[str, Any]:
    """What a script finds in one line; ValueError without RAM or CPU."""
    ram = RAM_RE.search(line)
    cpu = CPU_RE.search(line)
    if not ram:
        raise ValueError("no RAM field")
    if not cpu:
        raise ValueError("no CPU field")
    out = {"ram_used_mb": int(ram.group(1)), "ram_total_mb": int(ram.group(2))}  # type: Dict[str, Any]
    swap = SWAP_RE.search(line)
    out["swap_used_mb"] = int(swap.group(1)) if swap else None
    out["swap_total_mb"] = int(swap.group(2)) if swap else None

    cpus = []
    for item in cpu.group(1).split(","):
        if item == "off":
            cpus.append(None)
            continue
        core = CORE_RE.match(item)
        if not core:
            raise ValueError("CPU core %r not understood" % item)
        cpus.append({"load": int(core.group(1)), "freq": _num(core.group(2))})
    out["cpus"] = cpus

    emc = EMC_RE.search(line)
    out["emc"] = {"load": int(emc.group(1)), "freq": _num(emc.group(2))} if emc else None

    out["gpu"] = out["gpu2"] = None
    for gpu in GPU_RE.finditer(line):
        if gpu.group(3) is not None:
            freqs = [int(f) for f in gpu.group(3).split(",")]
        else:
            freqs = [] if gpu.group(4) is None else [int(gpu.group(4))]
        out["gpu" if gpu.group(1) == "GR3D" else "gpu2"] = {"load": _num(gpu.group(2)), "freqs": freqs}

    temps = {}  # type: Dict[str, float]
    temps_max = {}  # type: Dict[str, float]
    for t in TEMP_RE.finditer(line):
        _put(temps, t.group(1), float(t.group(2)))
        if t.group(3) is not None:
            _put(temps_max, t.group(1), float(t.group(3)))
    out["temps"] = temps
    if temps_max:
        out["temps_max"] = temps_max

    rails = {}  # type: Dict[str, Any]
    for r in RAIL_RE.finditer(line):
        _put(rails, r.group(1), {"cur": int(r.group(2)), "avg": int(r.group(3)), "max": _num(r.group(4))})
    out["rails"] = rails
    return out


def main(argv) -> int:
    stream = open(argv[1]) if len(argv) > 1 else sys.stdin
    status = 0
    for number, line in enumerate(stream, 1):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue            # a blank line in a log is not a reading
        try:
            print(json.dumps(read_line(line)))
        except ValueError as e:
            print("read_like_scripts: line %d: %s" % (number, e), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
