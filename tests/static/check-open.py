#!/usr/bin/python3
"""Every file jetsond reads is opened through one helper (issue 17).

jd_sysroot_open() (src/readers/sysroot.c) opens non-blocking, refuses
anything but a regular file and caps what is read, so a FIFO, a device or
an endless file put where a config or sensor file should be never blocks
or bloats the daemon. This check fails (exit 1) on any other call in src/
that opens a file, except the ones listed below with why they are safe.

usage: check-open.py SRC_DIR
"""
import os
import re
import sys

OPENERS = re.compile(r"(?<![\w.>])(open|openat|open64|fopen|freopen|fdopen|creat|g_file_get_contents|"
                     r"g_mapped_file_new|g_key_file_load_from_file)\s*\(")

# (file, opener) -> how many calls, and why each is no untrusted read.
ALLOWED = {
    ("readers/sysroot.c", "open"): (2, "the helper itself, and its retry without O_NOATIME"),
    ("control/atomic_file.c", "open"): (1, "O_DIRECTORY of the directory it just wrote in, for fsync"),
    ("control/swap_control.c", "open"): (1, "O_CREAT|O_EXCL of jetsond's own new swap file, never an existing one"),
    ("readers/pidns.c", "open"): (1, "a /proc/PID/ns/pid link whose target reads pid:[N], O_NONBLOCK, for the "
                                     "NS_GET_PARENT ioctl on the namespace: never read"),
    ("capture/capture_tree.c", "open"): (1, "--capture's reader: a path it walked itself with lstat() under the root "
                                            "(links recorded, never followed), O_NONBLOCK|O_NOFOLLOW, regular files "
                                            "only, capped like the helper"),
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    src = sys.argv[1]
    found = {}
    problems = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            text = strip_comments(open(path).read())
            for m in OPENERS.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                key = (rel, m.group(1))
                found[key] = found.get(key, 0) + 1
                if key not in ALLOWED:
                    problems.append("%s:%d: %s() opens a file outside jd_sysroot_open()" % (rel, line, m.group(1)))
    for key, (count, why) in ALLOWED.items():
        if found.get(key, 0) != count:
            problems.append("%s: %d call(s) of %s(), %d allowed (%s)" % (key[0], found.get(key, 0), key[1], count, why))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("every file is opened through jd_sysroot_open(), but the %d calls allowed" % sum(c for c, _ in ALLOWED.values()))
    return 0


sys.exit(main())
