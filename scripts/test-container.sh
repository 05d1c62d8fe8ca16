#!/bin/sh
# jetsonctl, the Python package and jetsond-exporter in a real container
# that has only the host's system bus socket: the jetsonctl, python3-jetsond
# and jetsond-exporter packages installed in a Debian 12 root, no jetsond in
# it, run by podman with runc as user 1000 with no capabilities, no network
# and its own PID namespace, while jetsond runs on a private system bus on
# the host. Three parts:
# - `jetsonctl tegrastats` against a fake AGX Orin
#   (tests/tegrastats/container-host.py: the name
#   /usr/libexec/jetsonctl/tegrastats, tegrastats on PATH, --logfile,
#   --start/--stop; every line read by the reference parser and compared
#   with jetsond's values);
# - the container's own processes by its own PIDs, against jetsond on this
#   machine's /proc with a fake NVML GPU that the workload uses
#   (tests/container/container-processes.py: jetsonctl measure and status,
#   the Python measure(), Collector and jtop shim, with the container's own
#   PID namespace and with --pid=host, compared with the host's run);
# - jetsond-exporter as the Kubernetes DaemonSet runs it, with the podman
#   options derived from exporter/kubernetes/jetsond-exporter.yaml (nobody,
#   read-only root, no capabilities, no new privileges, the host's network,
#   the socket read-only), scraped by a real Prometheus that evaluates the
#   alerting rules (tests/container/container-exporter.py).
# Part of scripts/run-tests.sh; as root.
#
# JETSOND_DEBS_DIR: the .deb files (default build-debs/, where
# scripts/test-debian.sh leaves them in run-tests.sh); without them they
# are built here. The root is made once with mmdebstrap into
# $BUILD_DIR/container (BUILD_DIR default build) and reused while its stamp
# names the same package list and is under a week old; each run installs
# the packages under test into a copy of it, and remakes it where they no
# longer install (a new dependency).
#
# Each step prints its wall time as a `figure:` line. Exit 77 with one
# SKIP line where this machine cannot run it: not root, podman or runc
# missing and not installable, no namespaces for a container, or no mirror
# for mmdebstrap.
set -eu
cd "$(dirname "$0")/.."
src=$PWD
build=${BUILD_DIR:-build}
debdir=${JETSOND_DEBS_DIR:-$src/build-debs}
cache=$src/$build/container
# The root: the packages under test (added below) and what they need.
include="python3"
stamp="bookworm $include"

fail() { echo "FAIL (container): $*"; exit 1; }
skip() { echo "SKIP (container): $*"; exit 77; }
started=$(date +%s)
step_name="" step_started=0
step_figure() {
        [ -z "$step_name" ] || echo "   figure: container step \"$step_name\" $(( $(date +%s) - step_started )) s"
}
step() { step_figure; step_name=$*; step_started=$(date +%s); echo "-- $*"; }

[ "$(id -u)" = 0 ] || skip "podman runs its containers as root here (docs: verified-recipes §9); not root"
work=$(mktemp -d /tmp/jetsond-container.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# ---- podman, runc, namespaces -----------------------------------------------
step "podman and runc"
if ! command -v podman >/dev/null 2>&1 || [ ! -x /usr/sbin/runc ]; then
        # scripts/install-deps.sh installs them; this is for a run on its own.
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -qq --no-install-recommends podman runc >"$work/apt.log" 2>&1; then
                apt-get update -qq >>"$work/apt.log" 2>&1 || true
                apt-get install -y -qq --no-install-recommends podman runc >>"$work/apt.log" 2>&1 ||
                        skip "podman and runc are missing and apt-get cannot install them: $(tail -1 "$work/apt.log")"
        fi
fi
# The namespaces a container gets (podman adds a network one).
if ! unshare --mount --pid --ipc --uts --net --fork true 2>"$work/unshare.log"; then
        skip "no new namespaces for a container on this machine: $(head -1 "$work/unshare.log")"
fi
echo "   $(podman --version), runc $(/usr/sbin/runc --version | sed -n 's/^runc version //p')"
# This machine has no CAP_SYS_RESOURCE for podman's default ulimits
# (verified-recipes §9); crun refuses hybrid cgroups, runc is named.
printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"

ninja -C "$build" src/jetsond client/jetsonctl tests/fake-nvml/libnvidia-ml.so.1 >/dev/null ||
        fail "ninja -C $build"

# ---- the packages -------------------------------------------------------------
step "the Debian packages"
[ ! -d "$debdir" ] || debdir=$(cd "$debdir" && pwd)  # mmdebstrap takes absolute paths
if ! ls "$debdir"/jetsonctl_*.deb >/dev/null 2>&1; then
        debdir=$(sh scripts/build-debs.sh "$work") || fail "dpkg-buildpackage"
fi
debs=""
for p in jetsonctl python3-jetsond jetsond-exporter; do
        d=""
        for f in "$debdir/${p}_"*_amd64.deb "$debdir/${p}_"*_all.deb; do
                [ -f "$f" ] && d=$f && break
        done
        [ -n "$d" ] || fail "no $p package in $debdir"
        debs="$debs $d"
done
echo "  $(echo "$debs" | sed 's| [^ ]*/| |g')"

# ---- the root -------------------------------------------------------------------
step "a Debian 12 root with the packages (made once in $build/container, then copied)"
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
make_root() {
        rm -rf "$cache/root" "$cache/root.stamp"
        made=$(date +%s)
        # shellcheck disable=SC2086
        sh scripts/mmdebstrap-root.sh container "$cache/root" "$cache/mmdebstrap.log" \
                "$include,$(echo $debs | tr ' ' ',')" || exit $?
        echo "$stamp" >"$cache/root.stamp"
        echo "   figure: container root made in $(( $(date +%s) - made )) s, $(du -sm "$cache/root" | cut -f1) MiB"
}
install_debs() { # into a fresh copy of the cached root
        rm -rf "$work/root"
        cp -a "$cache/root" "$work/root"
        mkdir -p "$work/root/tmp/debs"
        # shellcheck disable=SC2086
        cp $debs "$work/root/tmp/debs/"
        chroot "$work/root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c 'dpkg -i /tmp/debs/*.deb' \
                >"$work/dpkg.log" 2>&1
}
if [ -n "$(find "$cache/root.stamp" -mtime -7 2>/dev/null)" ] && [ "$(cat "$cache/root.stamp")" = "$stamp" ]; then
        echo "   reusing $cache/root ($(date -r "$cache/root.stamp" '+made %F %H:%M'))"
else
        make_root
fi
if ! install_debs; then
        echo "   the packages no longer install into the cached root: making it again"
        tail -5 "$work/dpkg.log" | sed 's/^/   | /'
        make_root
        install_debs || { tail -30 "$work/dpkg.log"; fail "dpkg -i in the root"; }
fi
exec 9>&-
rm -rf "$work/root/tmp/debs"
[ -L "$work/root/usr/libexec/jetsonctl/tegrastats" ] || fail "jetsonctl has no /usr/libexec/jetsonctl/tegrastats"
# shellcheck disable=SC2016
[ "$(chroot "$work/root" dpkg-query -W -f='${Status}' jetsond 2>/dev/null)" != "install ok installed" ] ||
        fail "jetsond is installed in the root"
echo "   $(chroot "$work/root" dpkg-query -W jetsonctl python3-jetsond jetsond-exporter | tr '\t\n' '  ')"

# A container at all: a machine that cannot start one skips, with podman's words.
step "podman run true (a first container)"
if ! podman --runtime /usr/sbin/runc run --rm --network=none --cap-drop=ALL --user 1000:1000 \
        --rootfs "$work/root" true >"$work/probe.log" 2>&1; then
        skip "podman cannot start a container on this machine: $(grep -v '^$' "$work/probe.log" | tail -1)"
fi

# ---- the runs -------------------------------------------------------------------
step "jetsonctl tegrastats in the container, jetsond on the host (tests/tegrastats/container-host.py)"
rc=0
/usr/bin/python3 tests/tegrastats/container-host.py "$work/root" "$work" "$build/src/jetsond" \
        "$build/client/jetsonctl" || rc=$?
[ "$rc" -eq 0 ] || fail "tegrastats in the container: see the FAIL lines above"
step "the container's processes by its own PIDs (tests/container/container-processes.py)"
/usr/bin/python3 tests/container/container-processes.py "$work/root" "$work" "$build/src/jetsond" \
        "$build/client/jetsonctl" "$build/tests/fake-nvml/libnvidia-ml.so.1" || rc=$?
[ "$rc" -eq 0 ] || fail "processes in the container: see the FAIL lines above"
step "jetsond-exporter as the Kubernetes manifest runs it (tests/container/container-exporter.py)"
/usr/bin/python3 tests/container/container-exporter.py "$work/root" "$work" "$build/src/jetsond" || rc=$?
step_figure
echo "   figure: container part $(( $(date +%s) - started )) s in all"
[ "$rc" -eq 0 ] || fail "the exporter in the container: see the FAIL lines above"
echo "container: all checks passed"
