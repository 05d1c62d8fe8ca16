#!/bin/sh
# dbus-config.sh BUS_CONF ACTIVATION_FILE POLKIT_POLICY INTROSPECTION_XML...
# ($PYTHON, default python3, runs the XML and activation file checks.)
#
# - every XML file is well-formed;
# - dbus-daemon accepts the bus policy (it rejects unknown elements and
#   attributes; the busconfig DTD itself is checked in dbus-dtd.sh);
# - the bus policy lets only root own org.jetsond.Jetson1;
# - the activation file names org.jetsond.Jetson1 and jetsond.service;
# - the polkit policy is valid against polkit's DTD and declares exactly the
#   six jetsond actions with their defaults.
set -eu

conf=$1 service=$2 policy=$3
shift 3

python=${PYTHON:-python3}
for tool in "$python" xmllint dbus-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: $tool is not installed"
        exit 77
    fi
done
polkit_dtd=
for d in "$(pkg-config --variable=datadir polkit-gobject-1 2>/dev/null || true)" /usr/share /usr/local/share; do
    if [ -n "$d" ] && [ -f "$d/polkit-1/policyconfig-1.dtd" ]; then
        polkit_dtd=$d/polkit-1/policyconfig-1.dtd
        break
    fi
done
if [ -z "$polkit_dtd" ]; then
    echo "SKIP: polkit's policyconfig-1.dtd not found (Debian: polkitd)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jetsond-dbus-config.XXXXXX")
bus_pid=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
    if [ -n "$bus_pid" ]; then kill "$bus_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# dbus-daemon parses the policy exactly as the system bus would include it
# from system.d; a private bus in $tmp, stopped again at once.
cat >"$tmp/bus.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:dir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <include>$(realpath "$conf")</include>
</busconfig>
EOC
# It prints its address only after reading the whole configuration.
dbus-daemon --config-file="$tmp/bus.conf" --nofork --print-address --nopidfile --nosyslog \
    >"$tmp/bus.out" 2>"$tmp/bus.err" &
bus_pid=$!
i=0
while [ ! -s "$tmp/bus.out" ] && kill -0 "$bus_pid" 2>/dev/null && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
if [ -s "$tmp/bus.out" ]; then
    echo "ok: dbus-daemon accepts $conf"
else
    kill "$bus_pid" 2>/dev/null || true
    cat "$tmp/bus.err"
    fail "dbus-daemon did not start with $conf"
fi
kill "$bus_pid" 2>/dev/null || true
wait "$bus_pid" 2>/dev/null || true
bus_pid=

# polkit's DTD, found through a catalog of our own (no network).
cat >"$tmp/catalog.xml" <<EOC
<?xml version="1.0"?>
<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog" prefer="public">
  <public publicId="-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN" uri="file://$polkit_dtd"/>
</catalog>
EOC
if XML_CATALOG_FILES=$tmp/catalog.xml xmllint --noout --valid --nonet "$policy" >"$tmp/xmllint" 2>&1 &&
   [ ! -s "$tmp/xmllint" ]; then
    echo "ok: $policy is valid against $polkit_dtd"
else
    cat "$tmp/xmllint"
    fail "$policy is not valid against $polkit_dtd"
fi

"$python" - "$conf" "$service" "$policy" "$@" <<'EOF_PY' || failed=1
import configparser
import sys
import xml.etree.ElementTree as ET

conf, service, policy, *xmls = sys.argv[1:]
NAME = "org.jetsond.Jetson1"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


trees = {}
for f in [conf, policy, *xmls]:
    try:
        trees[f] = ET.parse(f)
    except ET.ParseError as e:
        fail(f"{f}: not well-formed: {e}")
if len(trees) == len([conf, policy, *xmls]):
    print(f"ok: {len(trees)} XML files are well-formed")

# Bus policy: an <allow own=...> or <allow own_prefix=...> that covers NAME
# may appear only in <policy user="root">, and must appear there.
if conf in trees:
    before = len(failures)
    root_owns = False
    for pol in trees[conf].getroot().iter("policy"):
        for rule in pol:
            if rule.tag != "allow":
                continue
            own, prefix = rule.get("own"), rule.get("own_prefix")
            covers = own in (NAME, "*") or (
                prefix is not None and (NAME == prefix or NAME.startswith(prefix + ".")))
            if not covers:
                continue
            if dict(pol.attrib) == {"user": "root"}:
                root_owns = True
            else:
                fail(f"{conf}: <policy {dict(pol.attrib)}> lets others own {NAME}")
    if not root_owns:
        fail(f"{conf}: root may not own {NAME}")
    elif len(failures) == before:
        print(f"ok: only root may own {NAME}")

# Activation file.
cp = configparser.ConfigParser(interpolation=None, strict=True)
cp.optionxform = str
try:
    cp.read(service, encoding="utf-8")
except configparser.Error as e:
    fail(f"{service}: {e}")
if cp.sections() != ["D-BUS Service"]:
    fail(f"{service}: sections {cp.sections()}, expected only [D-BUS Service]")
else:
    sec = cp["D-BUS Service"]
    want = {"Name": NAME, "SystemdService": "jetsond.service"}
    bad = {k: sec.get(k) for k, v in want.items() if sec.get(k) != v}
    if bad:
        fail(f"{service}: {bad}, expected {want}")
    elif "Exec" not in sec:
        fail(f"{service}: no Exec= (dbus-daemon requires it)")
    else:
        print(f"ok: {service} activates {NAME} through jetsond.service")

# polkit actions and their defaults (any, inactive, active).
ADMIN = ("auth_admin", "auth_admin", "auth_admin_keep")
want = {
    "org.jetsond.Jetson1.read-serial": ("auth_admin_keep",) * 3,
    "org.jetsond.Jetson1.set-fan": ADMIN,
    "org.jetsond.Jetson1.set-nvpmodel": ADMIN,
    "org.jetsond.Jetson1.set-jetson-clocks": ADMIN,
    "org.jetsond.Jetson1.set-gpu": ADMIN,
    "org.jetsond.Jetson1.manage-swap": ADMIN,
    "org.jetsond.Jetson1.drop-caches": ADMIN,
}
if policy in trees:
    before = len(failures)
    actions = trees[policy].getroot().findall("action")
    ids = [a.get("id") for a in actions]
    if sorted(ids) != sorted(want):
        fail(f"{policy}: actions {sorted(ids)}, expected {sorted(want)}")
    for a in actions:
        d = a.find("defaults")
        got = tuple(
            (d.findtext(k) or "").strip() if d is not None else None
            for k in ("allow_any", "allow_inactive", "allow_active"))
        if a.get("id") in want and got != want[a.get("id")]:
            fail(f"{policy}: {a.get('id')} defaults (any, inactive, active) = {got}, "
                 f"expected {want[a.get('id')]}")
    if len(failures) == before:
        print(f"ok: {policy} declares the {len(want)} actions with the expected defaults")

sys.exit(1 if failures else 0)
EOF_PY

exit "$failed"
