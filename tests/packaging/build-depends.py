#!/usr/bin/env python3
"""debian/control's Build-Depends are packages scripts/install-deps.sh
installs (so CI builds with what the package declares), with the floors
meson.build enforces (so the package asks for what the build checks).

    build-depends.py SOURCE_DIR"""

import os
import re
import sys


def main():
    src = sys.argv[1]
    control = open(os.path.join(src, "debian/control")).read()
    field = re.search(r"^Build-Depends:(.*?)^\S", control, re.S | re.M).group(1)
    deps = [d.strip() for d in field.replace("\n", " ").split(",") if d.strip()]
    install = open(os.path.join(src, "scripts/install-deps.sh")).read()
    packages = set(re.search(r'^PACKAGES="(.*?)"', install, re.S | re.M).group(1).split())
    meson = open(os.path.join(src, "meson.build")).read() + open(os.path.join(src, "exporter/meson.build")).read() \
        + open(os.path.join(src, "tests/meson.build")).read()
    floors = {  # Debian package -> pkg-config name in meson.build
        "libglib2.0-dev": "glib-2.0", "libjson-glib-dev": "json-glib-1.0", "libsystemd-dev": "libsystemd",
        "libpolkit-gobject-1-dev": "polkit-gobject-1", "libmicrohttpd-dev": "libmicrohttpd",
        "libcmocka-dev": "cmocka", "libfuse3-dev": "fuse3",
    }
    failed = False
    for dep in deps:
        m = re.match(r"([a-z0-9.+-]+)(?:\s*\((>=|=)\s*([^)]+)\))?", dep)
        name, op, version = m.group(1), m.group(2), m.group(3)
        if name == "debhelper-compat":
            continue
        if name not in packages:
            print(f"FAIL: Build-Depends {name} is not installed by scripts/install-deps.sh")
            failed = True
        if name == "meson":
            want = re.search(r"meson_version : '>= ([0-9.]+)'", meson).group(1)
        elif name in floors:
            want = re.search(r"dependency\('%s', version : '>= ([0-9.]+)'\)" % re.escape(floors[name]),
                             meson).group(1)
        else:
            continue
        if version != want or op != ">=":
            print(f"FAIL: Build-Depends {dep}: meson.build asks for >= {want}")
            failed = True
    if not failed:
        print(f"ok: {len(deps)} build dependencies, installed by install-deps.sh, floors as in meson.build")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
