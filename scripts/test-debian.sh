#!/bin/sh
# The Debian packages (debian/), as a user gets them: built from a clean
# copy of the tree with dpkg-buildpackage, checked by lintian, installed
# into a clean Debian 12 root made by mmdebstrap, upgraded, and purged.
# Part of scripts/run-tests.sh; as root.
#
# In the root no systemd runs: a fake systemctl (in place of the root's,
# with /run/systemd/system present) logs what the maintainer scripts ask of
# it, which is how the upgrade and removal behaviour is checked.
#
# The Python package and the Cockpit page are Architecture: all; the
# root also gets cockpit-bridge (cockpit-jetsond's dependency, without
# Recommends: no web server, no browser), whose `--packages` must list the
# page after install and upgrade and no longer after purge.
#
# Each step prints its wall time as a `figure:` line.
#
# Exit 77 with one line only where mmdebstrap cannot reach a mirror.
set -eu
cd "$(dirname "$0")/.."
src=$PWD

who=debian
# The packages everything below checks by name, in the order apt may purge
# them (dependents first). Debian 12's GNOME Shell is 43: the extension's
# 42-44 flavour; the 45+ one (gnome-shell-extension-jetsond) is built and
# checked for its files here, installed by scripts/test-debian13.sh.
PACKAGES="cockpit-jetsond python3-jetsond gnome-shell-extension-jetsond-legacy jetsond-exporter jetsonctl jetsond"
. scripts/debian-checks.sh
work=$(mktemp -d /tmp/jetsond-debian.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
version=$(dpkg-parsechangelog -l debian/changelog -S Version)

# ---- build from a clean copy ----------------------------------------------
copy_tree() { sh "$src/scripts/copy-tree.sh" "$src" "$1"; }

build() { # DIR -> the .changes file
        (cd "$1" && dpkg-buildpackage -b -us -uc >"$1.log" 2>&1) || { tail -40 "$1.log"; fail "dpkg-buildpackage in $1"; }
}

step "dpkg-buildpackage -b -us -uc ($version) in a clean copy"
copy_tree "$work/v1/jetsond-$version"
build "$work/v1/jetsond-$version"
changes=$(ls "$work"/v1/jetsond_"$version"_*.changes)
debs=$(ls "$work"/v1/*.deb | grep -v -e '-dbgsym_')
echo "$debs" | sed 's|.*/|   |'
for p in $PACKAGES gnome-shell-extension-jetsond; do
        ls "$work"/v1/"${p}_${version}"_*.deb >/dev/null 2>&1 || fail "no $p package"
done
# Each flavour of the extension in its package (docs/gnome.md).
for p in gnome-shell-extension-jetsond:45 gnome-shell-extension-jetsond-legacy:42; do
        dpkg-deb --fsys-tarfile "$work/v1/${p%:*}_${version}_all.deb" |
                tar -xOf - ./usr/share/gnome-shell/extensions/jetsond@jetsond.org/metadata.json |
                grep -q "\"shell-version\": \[\"${p#*:}\"" || fail "${p%:*} does not hold the GNOME Shell ${p#*:} extension"
done
# For scripts/test-vm.sh, which boots a root with these same packages.
if [ -n "${JETSOND_DEBS_OUT:-}" ]; then
        rm -rf "$JETSOND_DEBS_OUT" && mkdir -p "$JETSOND_DEBS_OUT"
        # shellcheck disable=SC2086
        cp $debs "$JETSOND_DEBS_OUT/"
fi
cockpit_deb=$work/v1/cockpit-jetsond_${version}_all.deb
[ -f "$cockpit_deb" ] || fail "cockpit-jetsond is not Architecture: all"
dpkg-deb -c "$cockpit_deb" >"$work/cockpit-deb.txt"
grep -q ' \./usr/share/cockpit/jetsond/manifest\.json$' "$work/cockpit-deb.txt" ||
        fail "cockpit-jetsond has no /usr/share/cockpit/jetsond/manifest.json"

step "lintian (errors and warnings fail)"
lintian --fail-on error,warning "$changes" || fail "lintian: see the tags above"

step "dpkg-buildpackage -aarm64 -b (cross, with the arm64 libraries of the aarch64 CI)"
copy_tree "$work/arm64/jetsond-$version"
sh scripts/aarch64-polkit-shim.sh "$work/arm64-shim"
# -d: polkit's arm64 -dev package cannot be installed beside the native one
# (see aarch64-polkit-shim.sh); everything else dpkg-checkbuilddeps checks.
missing=$(dpkg-checkbuilddeps -aarm64 debian/control 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
        tr ' ' '\n' | grep -v -e '^libpolkit-gobject-1-dev' -e '^(' -e '^$' -e ')$' || true)
[ -z "$missing" ] || fail "arm64 build dependencies missing: $missing"
(cd "$work/arm64/jetsond-$version" && PKG_CONFIG_PATH="$work/arm64-shim/pkgconfig" DEB_BUILD_OPTIONS=nocheck \
        dpkg-buildpackage -aarm64 -b -us -uc -d >"$work/arm64.log" 2>&1) || { tail -40 "$work/arm64.log"; fail "arm64 build"; }
for p in jetsond jetsonctl jetsond-exporter; do
        deb=$(ls "$work"/arm64/"${p}_${version}"_arm64.deb) || fail "no arm64 $p package"
        [ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ] || fail "$deb is not arm64"
done
dpkg-deb -f "$work/arm64/jetsond_${version}_arm64.deb" Depends | grep -q libpolkit-gobject-1-0 ||
        fail "the arm64 jetsond does not depend on libpolkit-gobject-1-0"
mkdir "$work/arm64/x"
dpkg-deb -x "$work/arm64/jetsond_${version}_arm64.deb" "$work/arm64/x"
file "$work/arm64/x/usr/libexec/jetsond" | grep -q 'ARM aarch64' || fail "the arm64 jetsond is not an aarch64 binary"
echo "   jetsond, jetsonctl, jetsond-exporter ${version}_arm64.deb"

# ---- a clean Debian 12 root -----------------------------------------------
step "mmdebstrap a Debian 12 root with dbus, polkitd and the packages (cockpit-bridge by dependency)"
root=$work/root
rc=0
# shellcheck disable=SC2086
sh scripts/mmdebstrap-root.sh debian "$root" "$work/mmdebstrap.log" \
        "dbus,polkitd,$(echo "$debs" | grep -v /gnome-shell-extension-jetsond_ | tr '\n' ',' | sed 's/,$//')" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
in_root() { chroot "$root" env PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

check_installed

# ---- upgrade and removal, with a fake systemctl ---------------------------
install_fake_systemctl

step "upgrade to a rebuilt newer version"
new="$version+test1"
copy_tree "$work/v2/jetsond-$new"
(cd "$work/v2/jetsond-$new" && {
        printf 'jetsond (%s) unstable; urgency=medium\n\n  * Rebuilt for the upgrade test.\n\n -- %s  %s\n\n' \
                "$new" "jetsond developers <jetsond@jetsond.org>" "$(date -R)"
        cat debian/changelog
} >debian/changelog.new && mv debian/changelog.new debian/changelog)
DEB_BUILD_OPTIONS=nocheck build "$work/v2/jetsond-$new"
mkdir -p "$root/tmp/v2"
cp "$work"/v2/*.deb "$root/tmp/v2/"
rm -f "$root/var/log/fake-systemctl.log"
in_root sh -c 'dpkg -i $(ls /tmp/v2/*.deb | grep -v -e -dbgsym_ -e /gnome-shell-extension-jetsond_)' >"$work/upgrade.log" 2>&1 ||
        { cat "$work/upgrade.log"; fail "dpkg -i of $new"; }
for p in $PACKAGES; do
        [ "$(in_root dpkg-query -W -f='${Version}' "$p")" = "$new" ] || fail "$p is not at $new"
        installed "$p" || fail "$p is not installed after the upgrade"
done
cockpit_lists_jetsond || { cat "$work/cockpit-packages.txt"; fail "after the upgrade cockpit-bridge --packages does not list jetsond"; }
[ "$(in_root /usr/libexec/jetsond --version)" = "jetsond $new" ] ||
        echo "   (the binary reports meson.build's version; the package's is $new)"
grep -q 'restart jetsond.service' "$root/var/log/fake-systemctl.log" ||
        { cat "$root/var/log/fake-systemctl.log"; fail "the upgrade did not restart a running jetsond"; }
if grep -q -e ' enable ' -e ' start jetsond' "$root/var/log/fake-systemctl.log"; then
        cat "$root/var/log/fake-systemctl.log"
        fail "the upgrade enabled or started a unit (D-Bus activation only)"
fi
echo "   $new installed over $version; a running jetsond is restarted, nothing enabled"

step "purge"
check_purge
step_figure
echo "ok: Debian packages $version"
