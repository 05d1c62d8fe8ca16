#!/bin/sh
# Installs everything jetsond needs to build, test and run its demo on
# Debian 12, by package name. Skips apt entirely when all are present.
# --check: only lists what is missing (exit 1 if anything is).
set -eu
check_only=0
[ "${1:-}" = --check ] && check_only=1

PACKAGES="meson ninja-build pkg-config gcc clang libc6-dev
  libsystemd-dev libglib2.0-dev libjson-glib-dev libpolkit-gobject-1-dev libcmocka-dev
  python3 valgrind dbus-daemon dbus-bin polkitd python3-dbusmock python3-hypothesis python3-jsonschema gjs libglib2.0-bin
  gnome-shell gir1.2-gdkpixbuf-2.0 python3-gi
  libxml2-utils libdbus-1-dev systemd scdoc libfuse3-dev fuse3
  libmicrohttpd-dev zlib1g-dev curl prometheus prometheus-node-exporter polkitd-pkla file
  libncurses-dev tmux bash-completion stress-ng aha
  dpkg-dev debhelper lintian mmdebstrap fakeroot
  python3-jeepney python3-pytest python3-numpy mypy python3-venv python3-pip python3-setuptools python3-yaml
  dh-python pybuild-plugin-pyproject python3-all bubblewrap qemu-system-x86 e2fsprogs strace
  cockpit-ws cockpit-bridge cockpit-system chromium chromium-driver python3-selenium
  podman runc"

# The aarch64 build and its tests under qemu (scripts/test-aarch64.sh): the
# cross compiler, qemu-user and the libraries for arm64 (multiarch). Not
# libpolkit-gobject-1-dev:arm64: it is not co-installable and would remove
# the native one; test-aarch64.sh links the arm64 runtime library instead.
ARM64_PACKAGES="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
  libglib2.0-dev:arm64 libsystemd-dev:arm64 libjson-glib-dev:arm64 libcmocka-dev:arm64
  libmicrohttpd-dev:arm64 zlib1g-dev:arm64 libfuse3-dev:arm64 libpolkit-gobject-1-0:arm64
  libncurses-dev:arm64"

# Installed means the Status line says so: `dpkg -s` also succeeds for a
# package removed with its configuration files left ("deinstall ok
# config-files"), whose programs are gone.
installed() {
        [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=""
native=$(dpkg --print-architecture)
for p in $PACKAGES $ARM64_PACKAGES; do
        # With the arm64 copy installed too, a bare name is ambiguous to
        # dpkg (one status per architecture): ask for the native one by its
        # architecture as well.
        installed "$p" || installed "$p:$native" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ]; then
        echo "install-deps: missing packages:$missing (run as root to install them)" >&2
        exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
