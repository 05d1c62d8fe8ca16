#!/usr/bin/env python3
"""The shipped binaries call nothing of libsystemd newer than its floor,
237 (Ubuntu 18.04, JetPack 4.6): every versioned symbol they import
(readelf --dyn-syms) is LIBSYSTEMD_237 or older.

One exception: sd_bus_object_vtable_format (LIBSYSTEMD_243) is not a call.
The SD_BUS_VTABLE_START() macro of systemd >= 243's headers puts its address
in every vtable so that such a binary only loads with a libsystemd that
knows the newer vtable layout; built against 237's headers (on the board),
the macro makes the old layout and no reference.

    check-libsystemd-floor.py BINARY..."""

import re
import subprocess
import sys

FLOOR = 237
HEADER_ONLY = {"sd_bus_object_vtable_format"}


def main():
    failed = False
    for binary in sys.argv[1:]:
        out = subprocess.run(["readelf", "--dyn-syms", "-W", binary], check=True, capture_output=True,
                             text=True).stdout
        found = {}
        for name, version in re.findall(r"\b(\w+)@+LIBSYSTEMD_(\d+)", out):
            found[name] = int(version)
        if not found:
            print(f"FAIL: {binary} imports nothing from libsystemd (is it the right file?)")
            failed = True
            continue
        above = {n: v for n, v in found.items() if v > FLOOR and n not in HEADER_ONLY}
        for name, version in sorted(above.items()):
            print(f"FAIL: {binary}: {name} is LIBSYSTEMD_{version}, above the floor {FLOOR}")
        failed |= bool(above)
        newest = max(v for n, v in found.items() if n not in HEADER_ONLY)
        print(f"{binary}: {len(found)} libsystemd symbols, newest call LIBSYSTEMD_{newest}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
