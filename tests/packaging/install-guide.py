#!/usr/bin/env python3
"""docs/install.md's "From source on a Jetson" holds: `meson install` with the exact
`meson setup` options the guide gives (into a DESTDIR) creates every path
of the guide's table, and the polkit files it tells users to copy are
among them.

    install-guide.py SOURCE_DIR"""

import os
import re
import shlex
import subprocess
import sys
import tempfile


def main():
    source = sys.argv[1]
    page = open(os.path.join(source, "docs", "install.md")).read()
    start = page.index("\n## From source on a Jetson\n")
    end = page.find("\n## ", start + 1)
    guide = page[start:end if end >= 0 else len(page)]
    setup = [l for l in guide.splitlines() if l.startswith("meson setup build ")]
    assert len(setup) == 1, setup
    options = shlex.split(setup[0])[3:]
    paths = re.findall(r"^\| `(/[^`]+)` \|", guide, re.M)
    assert len(paths) >= 10, paths
    # Files the guide copies from must be installed too.
    copied = re.findall(r"sudo cp (/\S+)", guide)
    assert len(copied) == 2, copied
    with tempfile.TemporaryDirectory() as tmp:
        build, dest = os.path.join(tmp, "build"), os.path.join(tmp, "dest")
        for cmd in (["meson", "setup", build, *options], ["ninja", "-C", build],
                    ["meson", "install", "-C", build, "--destdir", dest, "--no-rebuild", "--quiet"]):
            r = subprocess.run(cmd, cwd=source, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
                return 1
        missing = [p for p in paths + copied if not os.path.isfile(dest + p)]
        for p in missing:
            print(f"FAIL: the guide names {p}, which meson install with {' '.join(options)} does not create")
        if missing:
            return 1
    print(f"ok: {len(paths)} paths of the guide installed with {' '.join(options)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
