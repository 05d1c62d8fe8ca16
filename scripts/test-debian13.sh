#!/bin/sh
# The Debian packages in Debian 13 (trixie), as a PC on a current
# distribution gets them: built there (dpkg-buildpackage with trixie's
# debhelper, meson and libraries, in one overlay of the Debian 13 root that
# the GNOME Shell 48 and Cockpit tests share: scripts/debian13-root.sh,
# made once and kept in JETSOND_DEBIAN13_CACHE, default build/debian13),
# linted by trixie's lintian, installed with apt into a second, clean
# overlay of the same root, checked as in Debian 12
# (scripts/debian-checks.sh) and purged. The extension is its GNOME Shell
# 45+ flavour. Part of scripts/run-tests.sh; as root.
#
# DEB_BUILD_OPTIONS=nocheck: the Debian 12 test runs the build-time tests.
# Each step prints its wall time as a `figure:` line.
# Exit 77 with one SKIP line where mmdebstrap cannot reach a mirror.
set -eu
cd "$(dirname "$0")/.."
src=$PWD

who=debian13
PACKAGES="cockpit-jetsond python3-jetsond gnome-shell-extension-jetsond jetsond-exporter jetsonctl jetsond"
. scripts/debian-checks.sh
cache=${JETSOND_DEBIAN13_CACHE:-build/debian13}
work=$(mktemp -d /tmp/jetsond-debian13.XXXXXX)
mounted=""
cleanup() {
        for m in $mounted; do umount "$m" 2>/dev/null || umount -l "$m"; done
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
version=$(dpkg-parsechangelog -l debian/changelog -S Version)

step "the Debian 13 root (scripts/debian13-root.sh: made once, then reused)"
rc=0
sh scripts/debian13-root.sh "$cache" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
lower=$(cd "$cache" && pwd)/root
overlay() { # NAME: a fresh overlay of the root at $work/NAME/merged
        mkdir -p "$work/$1/upper" "$work/$1/work" "$work/$1/merged"
        mount -t overlay overlay -o "lowerdir=$lower,upperdir=$work/$1/upper,workdir=$work/$1/work" "$work/$1/merged"
        mounted="$work/$1/merged $mounted"
        for d in proc sys dev dev/pts; do
                mount --bind "/$d" "$work/$1/merged/$d"
                mounted="$work/$1/merged/$d $mounted"
        done
        cp /etc/resolv.conf "$work/$1/merged/etc/resolv.conf"
}
in_root() { chroot "$root" env PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

step "dpkg-buildpackage -b ($version, nocheck) in Debian 13, its build dependencies from there"
overlay build
root=$work/build/merged
sh scripts/copy-tree.sh "$src" "$root/tmp/src/jetsond-$version"
in_root apt-get update -q >"$work/apt-update.log" 2>&1 || { cat "$work/apt-update.log"; fail "apt-get update"; }
in_root apt-get build-dep -y -q "/tmp/src/jetsond-$version" >"$work/build-dep.log" 2>&1 ||
        { tail -30 "$work/build-dep.log"; fail "apt-get build-dep"; }
in_root sh -c "cd /tmp/src/jetsond-$version && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc" \
        >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "dpkg-buildpackage"; }
changes=$(ls "$root"/tmp/src/jetsond_"$version"_*.changes)
debs=$(ls "$root"/tmp/src/*_"$version"_*.deb | grep -v -e -dbgsym_ -e /gnome-shell-extension-jetsond-legacy_)
for p in $PACKAGES; do
        echo "$debs" | grep -q "/${p}_${version}_" || fail "no $p package"
done
for p in jetsond jetsond-exporter; do
        dpkg-deb -c "$(ls "$root/tmp/src/${p}_${version}"_*.deb)"
done >"$work/units.txt"
for unit in jetsond.service jetsond-exporter.service jetsond-exporter.socket; do
        grep -q " \./usr/lib/systemd/system/$unit\$" "$work/units.txt" || fail "$unit is not in /usr/lib/systemd/system"
done
echo "   units in /usr/lib/systemd/system"

step "lintian $(in_root dpkg-query -W -f='${Version}' lintian) from Debian 13 (errors and warnings fail)"
in_root lintian --fail-on error,warning "${changes#"$root"}" || fail "lintian: see the tags above"

step "apt-get install of the packages into a clean overlay, their dependencies from Debian 13"
overlay install
mkdir "$work/install/merged/tmp/debs"
# shellcheck disable=SC2086
cp $debs "$work/install/merged/tmp/debs/"
root=$work/install/merged
in_root apt-get update -q >"$work/apt-update.log" 2>&1 || { cat "$work/apt-update.log"; fail "apt-get update"; }
in_root sh -c 'apt-get install -y -q /tmp/debs/*.deb' >"$work/install.log" 2>&1 ||
        { tail -30 "$work/install.log"; fail "apt-get install"; }
check_installed
grep -q '"shell-version": \["45"' "$root/usr/share/gnome-shell/extensions/jetsond@jetsond.org/metadata.json" ||
        fail "the installed extension is not the GNOME Shell 45+ one"
echo "   the GNOME Shell 45+ extension in /usr/share/gnome-shell/extensions (GNOME Shell $(in_root dpkg-query -W -f='${Version}' gnome-shell))"

install_fake_systemctl
step "purge"
check_purge
step_figure
echo "ok: Debian packages $version in Debian 13"
