#!/bin/sh
# debian-checks.sh: what the Debian package tests check in a root, for
# scripts/test-debian.sh (Debian 12) and scripts/test-debian13.sh (Debian 13),
# sourced by them. They set who (the name in messages) first, and root
# (the root), work (a scratch directory), version (the packages' version)
# and PACKAGES (the packages checked by name, dependents first), and define
# in_root (a command in the root), before they call these.

fail() { echo "FAIL ($who): $*"; exit 1; }
# Each step prints its wall time as a figure line when the next begins
# (and at the end: step_figure).
step_name="" step_started=0
step_figure() {
        [ -z "$step_name" ] || echo "   figure: $who step \"$step_name\" $(( $(date +%s) - step_started )) s"
}
step() { step_figure; step_name=$*; step_started=$(date +%s); echo "-- $*"; }

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

# The packages installed in the root: dpkg's status, the files, the group,
# the programs, the Python package, the bus policy, Cockpit's listing.
check_installed() {
        # By name: dpkg says installed (not merely unpacked, nor config files left).
        for p in $PACKAGES cockpit-bridge; do
                installed "$p" || fail "$p is not installed in the root: $(in_root dpkg-query -W -f='${Status}' "$p" 2>&1)"
        done
        echo "   $PACKAGES cockpit-bridge: install ok installed ($(in_root dpkg-query -W | wc -l) packages in the root)"
        for f in /usr/libexec/jetsond /usr/bin/jetsonctl /usr/bin/jetsond-exporter \
                /usr/share/dbus-1/system.d/org.jetsond.Jetson1.conf \
                /usr/share/dbus-1/system-services/org.jetsond.Jetson1.service \
                /usr/share/dbus-1/services/org.jetsond.Jetson1.service /usr/lib/systemd/user/jetsond.service \
                /usr/share/polkit-1/actions/org.jetsond.Jetson1.policy \
                /lib/systemd/system/jetsond.service /lib/systemd/system/jetsond-exporter.service \
                /lib/systemd/system/jetsond-exporter.socket \
                /usr/share/gnome-shell/extensions/jetsond@jetsond.org/metadata.json \
                /usr/share/gnome-shell/extensions/jetsond@jetsond.org/schemas/gschemas.compiled \
                /usr/share/cockpit/jetsond/manifest.json /usr/share/cockpit/jetsond/index.html; do
                [ -f "$root$f" ] || fail "$f is not in the root"
        done
        find "$root/usr/local" -type f | grep -q . && fail "files in /usr/local: $(find "$root/usr/local" -type f)"
        # jetsond --user is activated on a user's session bus, not enabled for every user.
        [ ! -e "$root/etc/systemd/user/default.target.wants/jetsond.service" ] ||
                fail "the user unit jetsond.service is enabled for every user"
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
}

# A fake systemctl in place of the root's (with /run/systemd/system
# present): it logs what the maintainer scripts ask of it.
install_fake_systemctl() {
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
}

# apt-get purge of PACKAGES: every file gone, the group kept, jetsond and
# the exporter stopped, Cockpit no longer lists the page.
check_purge() {
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
}
