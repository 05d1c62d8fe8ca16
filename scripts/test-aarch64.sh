#!/bin/sh
# Builds everything for aarch64 (cross/aarch64-linux-gnu.ini, gcc with
# -Wall -Wextra -Werror, where char is unsigned) and runs the unit and
# service suites with the aarch64 binaries under qemu-user, which the
# kernel starts through binfmt_misc. Part of scripts/run-tests.sh.
#
# Exit 77 (skip), with one line saying why, only where binfmt_misc cannot
# be mounted or qemu-aarch64 cannot be registered (a container without the
# privilege); everything else that fails, fails.
set -eu
cd "$(dirname "$0")/.."
dir=build-aarch64

skip() { echo "SKIP (aarch64): $*"; exit 77; }

# binfmt_misc: mounted and qemu-aarch64 registered with the F flag (the
# interpreter opened at registration, so it works in any mount namespace
# and chroot). Debian's qemu-user-static ships the registration line.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
        mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || skip "cannot mount $binfmt (not root, or no privilege here)"
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
        conf=/usr/lib/binfmt.d/qemu-aarch64.conf
        [ -r "$conf" ] || skip "$conf is missing (Debian: qemu-user-static)"
        cat "$conf" > "$binfmt/register" 2>/dev/null || skip "cannot register qemu-aarch64 in $binfmt"
fi
grep -q '^flags:.*F' "$binfmt/qemu-aarch64" || skip "qemu-aarch64 is registered without the F flag"
grep -q '^enabled' "$binfmt/qemu-aarch64" || skip "qemu-aarch64 is registered but disabled"

# polkit's -dev package is not co-installable for arm64: a pkg-config
# file of our own (scripts/aarch64-polkit-shim.sh).
shim=$PWD/$dir-shim
sh scripts/aarch64-polkit-shim.sh "$shim"

if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" --cross-file cross/aarch64-linux-gnu.ini --fatal-meson-warnings \
                -Dpkg_config_path="$shim/pkgconfig" >/dev/null
fi
if ! ninja -C "$dir" >"$dir/ninja.log" 2>&1; then
        cat "$dir/ninja.log"
        exit 1
fi
file "$dir/src/jetsond" | grep -q 'ARM aarch64' || { echo "aarch64: $dir/src/jetsond is not an aarch64 binary"; exit 1; }

# g_spawn in a child closes descriptors one syscall at a time up to the
# soft limit; under qemu that takes minutes at a limit of 20000.
ulimit -n 1024
# Suite "fleet" (seven boards' daemons at once for one Prometheus) is left
# out: its C is the exporter's mapping, which the unit and service suites
# here run, and seven emulated daemons would add minutes. So is suite
# "emulated-slow" (board-capture's archives and bus-fuzz's thousands of
# calls: a minute and a half under qemu for paths that hold no
# architecture-dependent code, run natively by gcc and ASan).
meson test -C "$dir" --suite unit --suite service --no-suite fleet --no-suite emulated-slow --print-errorlogs \
        --num-processes 2 \
        --timeout-multiplier 6
