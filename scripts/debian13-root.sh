#!/bin/sh
# debian13-root.sh DIR: a Debian 13 (trixie) root in DIR/root for the tests
# that need today's desktop and web console: GNOME Shell 48 with the
# Extensions app (the extension's test), Cockpit with its shell (the page's test),
# dbus and polkitd, and trixie's lintian (the packages' test). Made once
# with mmdebstrap and reused while DIR/root.stamp names the same package
# list and is under a week old (trixie's packages move on), so one run of
# scripts/run-tests.sh (or many, where DIR is kept) pays for it once; the
# tests never write into it (each mounts an overlay over it,
# tests/lib/debian13.py). Tests that start together wait for the one that
# makes it (flock). Prints its cost as a figure line when it makes it.
# Exit 77 with one SKIP line where mmdebstrap cannot reach a mirror.
set -eu
dir=$1
include="dbus,polkitd,gnome-shell,gnome-shell-extension-prefs,cockpit-ws,cockpit-bridge,cockpit-system,lintian"
stamp="trixie $include"
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9
if [ -n "$(find "$dir/root.stamp" -mtime -7 2>/dev/null)" ] && [ "$(cat "$dir/root.stamp")" = "$stamp" ]; then
        exit 0
fi
rm -rf "$dir/root" "$dir/root.stamp" "$dir/root.figure"
started=$(date +%s)
sh "$(dirname "$0")/mmdebstrap-root.sh" debian13 "$dir/root" "$dir/mmdebstrap.log" "$include" \
        trixie --skip=check/empty || exit $?
echo "$stamp" >"$dir/root.stamp"
# Kept for scripts/run-tests.sh, which shows it (the tests' output is not).
echo "figure: Debian 13 root made in $(( $(date +%s) - started )) s, $(du -sm "$dir/root" | cut -f1) MiB" |
        tee "$dir/root.figure"
