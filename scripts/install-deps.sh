#!/bin/sh
# Installs everything jetsond needs to build, test and run its demo on
# Debian 12, by package name. Skips apt entirely when all are present.
set -eu

PACKAGES="meson ninja-build pkg-config gcc clang libc6-dev
  libsystemd-dev libglib2.0-dev libjson-glib-dev libpolkit-gobject-1-dev libcmocka-dev
  python3 valgrind dbus-daemon dbus-bin polkitd python3-dbusmock gjs libglib2.0-bin
  libxml2-utils libdbus-1-dev systemd scdoc libfuse3-dev fuse3
  libmicrohttpd-dev zlib1g-dev curl prometheus prometheus-node-exporter polkitd-pkla"

missing=""
for p in $PACKAGES; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
        echo "install-deps: missing packages:$missing (run as root to install them)" >&2
        exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
