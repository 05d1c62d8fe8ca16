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

fail() { echo "FAIL (debian): $*"; exit 1; }
step_name="" step_started=0
step_figure() {
        [ -z "$step_name" ] || echo "   figure: debian step \"$step_name\" $(( $(date +%s) - step_started )) s"
}
step() { step_figure; step_name=$*; step_started=$(date +%s); echo "-- $*"; }
# The packages everything below checks by name, in the order apt may purge
# them (dependents first).
PACKAGES="cockpit-jetsond python3-jetsond gnome-shell-extension-jetsond jetsond-exporter jetsonctl jetsond"
installed() { # PACKAGE: in the root, dpkg's Status line says so
        [ "$(in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}
# cockpit-bridge --packages lists one package a line: name, menu label,
# folder ("jetsond   Jetson   /usr/share/cockpit/jetsond" from cockpit-jetsond).
cockpit_lists_jetsond() {
        in_root cockpit-bridge --packages >"$work/cockpit-packages.txt" 2>"$work/cockpit-packages.err" ||
                { cat "$work/cockpit-packages.err"; fail "cockpit-bridge --packages failed in the root"; }
        grep -q '^jetsond[[:space:]].*[[:space:]]/usr/share/cockpit/jetsond$' "$work/cockpit-packages.txt"
}

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
for p in $PACKAGES; do
        ls "$work"/v1/"${p}_${version}"_*.deb >/dev/null 2>&1 || fail "no $p package"
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
sh scripts/mmdebstrap-root.sh debian "$root" "$work/mmdebstrap.log" "dbus,polkitd,$(echo $debs | tr ' ' ',')" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
in_root() { chroot "$root" env PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# By name: dpkg says installed (not merely unpacked, nor config files left).
for p in $PACKAGES cockpit-bridge; do
        installed "$p" || fail "$p is not installed in the root: $(in_root dpkg-query -W -f='${Status}' "$p" 2>&1)"
done
echo "   $PACKAGES cockpit-bridge: install ok installed ($(in_root dpkg-query -W | wc -l) packages in the root)"
for f in /usr/libexec/jetsond /usr/bin/jetsonctl /usr/bin/jetsond-exporter \
        /usr/share/dbus-1/system.d/org.jetsond.Jetson1.conf \
        /usr/share/dbus-1/system-services/org.jetsond.Jetson1.service \
        /usr/share/polkit-1/actions/org.jetsond.Jetson1.policy \
        /lib/systemd/system/jetsond.service /lib/systemd/system/jetsond-exporter.service \
        /lib/systemd/system/jetsond-exporter.socket \
        /usr/share/gnome-shell/extensions/jetsond@jetsond.org/metadata.json \
        /usr/share/gnome-shell/extensions/jetsond@jetsond.org/schemas/gschemas.compiled \
        /usr/share/cockpit/jetsond/manifest.json /usr/share/cockpit/jetsond/index.html; do
        [ -f "$root$f" ] || fail "$f is not in the root"
done
find "$root/usr/local" -type f | grep -q . && fail "files in /usr/local: $(find "$root/usr/local" -type f)"
in_root getent group jetson >/dev/null || fail "no group jetson after install"
for p in /usr/libexec/jetsond /usr/bin/jetsonctl /usr/bin/jetsond-exporter; do
        out=$(in_root "$p" --version) || fail "$p --version failed"
        [ "$out" = "$(basename "$p") $version" ] || fail "$p --version: \"$out\""
done
echo "   files in place, group jetson, --version $version"
# Debian's python3 imports the Python package from python3-jetsond.
out=$(in_root python3 -c 'import jetsond, jetsond.jtop, jetsond.measure; print(jetsond.__file__)') ||
        fail "python3 cannot import jetsond in the root"
case $out in /usr/lib/python3/dist-packages/jetsond/*) ;; *) fail "jetsond imported from $out" ;; esac
echo "   python3 imports jetsond from $out"

# The root's own system bus configuration, with the installed policy
# among what it includes: dbus-daemon must start and say nothing of it.
mkdir -p "$root/run/dbus"
in_root dbus-daemon --config-file=/usr/share/dbus-1/system.conf --fork --print-pid=1 --nosyslog \
        >"$work/dbus.pid" 2>"$work/dbus.err" || { cat "$work/dbus.err"; fail "dbus-daemon refused the system configuration"; }
kill "$(cat "$work/dbus.pid")" 2>/dev/null || true
if grep -i -e jetsond -e error "$work/dbus.err"; then
        fail "dbus-daemon complained about the installed policy"
fi
echo "   dbus-daemon accepts the system configuration with the policy"

step "cockpit-bridge --packages in the root"
cockpit_lists_jetsond || { cat "$work/cockpit-packages.txt"; fail "cockpit-bridge --packages does not list jetsond"; }
echo "   cockpit-bridge $(in_root dpkg-query -W -f='${Version}' cockpit-bridge) lists: $(grep '^jetsond' "$work/cockpit-packages.txt")"

# ---- upgrade and removal, with a fake systemctl ---------------------------
mkdir -p "$root/run/systemd/system"
# As for a D-Bus-activated jetsond that runs: every unit active, none
# enabled.
# It replaces the root's own systemctl (polkitd brings systemd), which
# dpkg's maintainer scripts find whatever PATH apt gives them.
cat >"$root/usr/bin/systemctl" <<'SH'
#!/bin/sh
echo "systemctl $*" >> /var/log/fake-systemctl.log
case " $* " in
*" is-enabled "*) exit 1 ;;
esac
exit 0
SH
chmod 755 "$root/usr/bin/systemctl"

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
in_root sh -c 'dpkg -i $(ls /tmp/v2/*.deb | grep -v -e -dbgsym_)' >"$work/upgrade.log" 2>&1 ||
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
# The packages' files (not the directories they share, such as /lib, a
# symlink to usr/lib in a merged-/usr root).
# shellcheck disable=SC2086
files=$(in_root dpkg -L $PACKAGES | sort -u | while read -r f; do
        [ -d "$root$f" ] || echo "$f"
done)
[ "$(echo "$files" | wc -l)" -ge 20 ] || fail "dpkg -L lists only: $files"
rm -f "$root/var/log/fake-systemctl.log"
# shellcheck disable=SC2086
in_root apt-get purge -y -q $PACKAGES >"$work/purge.log" 2>&1 ||
        { cat "$work/purge.log"; fail "apt-get purge"; }
grep -q 'stop jetsond.service' "$root/var/log/fake-systemctl.log" 2>/dev/null ||
        { cat "$work/purge.log"; fail "removal did not stop jetsond"; }
grep -q 'stop jetsond-exporter.socket' "$root/var/log/fake-systemctl.log" || fail "removal did not stop the exporter"
left=""
for f in $files; do
        [ -f "$root$f" ] || [ -L "$root$f" ] && left="$left $f"
done
[ -z "$left" ] || fail "left after purge:$left"
in_root getent group jetson >/dev/null || fail "purge removed the group jetson (Debian policy: keep it)"
for p in $PACKAGES; do
        status=$(in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case "$status" in "" | "unknown ok not-installed" | "purge ok not-installed") ;; *) fail "$p after purge: $status" ;; esac
done
[ ! -e "$root/usr/share/cockpit/jetsond" ] || fail "/usr/share/cockpit/jetsond left after purge"
if cockpit_lists_jetsond; then fail "cockpit-bridge --packages still lists jetsond after purge"; fi
echo "   every file gone, group jetson kept, jetsond and the exporter stopped, no jetsond in cockpit-bridge --packages"
step_figure
echo "ok: Debian packages $version"
