#!/usr/bin/env python3
"""The keys of /etc/jetsond/jetsond.conf, three ways, must be the same set:
what src/config.c reads, what the installed example config/jetsond.conf
documents, and what jetsond(8)'s FILES section lists.

    check-config-keys.py SOURCE_DIR
"""
import re
import sys

src = sys.argv[1]
code = open(f"{src}/src/config.c").read()
read = set(re.findall(r'\(kf, "(\w+)", "(\w+)"', code))

example, group = set(), None
for line in open(f"{src}/config/jetsond.conf"):
    m = re.match(r"^\[(\w+)\]$", line.strip())
    if m:
        group = m.group(1)
    m = re.match(r"^#(\w+)=", line)
    if m:
        example.add((group, m.group(1)))

man = open(f"{src}/man/jetsond.8.scd").read()
files = man[man.index("_/etc/jetsond/jetsond.conf_"):]
files = files[:files.index("\n\n")]
listed = set(re.findall(r"\*\[(\w+)\] (\w+)\*", files))

failed = False
for name, keys in (("the example config/jetsond.conf", example), ("jetsond(8) FILES", listed)):
    if keys != read:
        failed = True
        print(f"FAIL: {name} differs from what src/config.c reads")
        print(f"  missing: {sorted(read - keys)}")
        print(f"  not read by jetsond: {sorted(keys - read)}")
if not read:
    failed = True
    print("FAIL: found no key read in src/config.c")
if not failed:
    print(f"ok: {len(read)} keys: {sorted(read)}")
sys.exit(1 if failed else 0)
