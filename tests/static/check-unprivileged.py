#!/usr/bin/python3
"""Every D-Bus method jetsond exports must carry SD_BUS_VTABLE_UNPRIVILEGED.

Without it sd-bus itself rejects callers lacking CAP_SYS_ADMIN ("Access to
org.jetsond.Jetson1.X() not permitted") before jetsond can ask polkit, so
the polkit actions and the example group rule would never apply.

usage: check-unprivileged.py SRC_BUS_DIR INTROSPECTION_DIR
Checks every SD_BUS_METHOD* entry of every vtable in SRC_BUS_DIR/*.c and
fails (exit 1) naming each method without the flag. The methods found must
be exactly those of INTROSPECTION_DIR/*.xml, so a vtable written in a way
this check does not see cannot make it pass.
"""
import glob
import os
import re
import sys


def macro_calls(text, name_re):
    """(name, argument text) of each call of a macro matching NAME_RE,
    with nested parentheses balanced."""
    for m in re.finditer(name_re + r"\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield m.group(0).rstrip("( \t\n"), text[m.end():i - 1]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def xml_methods(xml_dir):
    names = []
    for path in glob.glob(os.path.join(xml_dir, "*.xml")):
        names += re.findall(r'<method name="(\w+)"', open(path, encoding="utf-8").read())
    return sorted(names)


def main(bus_dir, xml_dir):
    files = sorted(glob.glob(os.path.join(bus_dir, "*.c")))
    if not files:
        print("no sources in %s" % bus_dir)
        return 1
    found, bad = [], []
    for path in files:
        text = strip_comments(open(path, encoding="utf-8").read())
        for name, args in macro_calls(text, r"\bSD_BUS_METHOD\w*"):
            method = args.split(",", 1)[0].strip().strip('"')
            found.append(method)
            if "SD_BUS_VTABLE_UNPRIVILEGED" not in args:
                bad.append("%s: %s(%s, ...)" % (os.path.basename(path), name, method))
            else:
                print("ok   %s %s" % (os.path.basename(path), method))
    for b in bad:
        print("FAIL %s lacks SD_BUS_VTABLE_UNPRIVILEGED" % b)
    documented = xml_methods(xml_dir)
    if sorted(found) != documented:
        print("FAIL the vtables' methods %s are not the XML's %s" % (sorted(found), documented))
        return 1
    print("%d methods, %d without SD_BUS_VTABLE_UNPRIVILEGED" % (len(found), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
