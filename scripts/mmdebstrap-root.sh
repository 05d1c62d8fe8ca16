#!/bin/sh
# mmdebstrap-root.sh WHO ROOT LOG INCLUDE [SUITE [OPTION...]]: a clean
# Debian root (SUITE, default bookworm: Debian 12) in ROOT with the
# packages of INCLUDE (comma-separated; local .deb files by absolute path,
# made visible to apt by mmdebstrap's file-mirror hook), mmdebstrap's
# output in LOG, OPTIONs passed on to mmdebstrap. Used by
# scripts/test-debian.sh, scripts/test-vm.sh and scripts/debian13-root.sh
# (WHO names the caller in the messages).
# Exit 77 with one SKIP line where mmdebstrap cannot reach a mirror.
set -eu
who=$1 root=$2 log=$3 include=$4 suite=${5:-bookworm}
shift 4
[ $# -gt 0 ] && shift
if ! mmdebstrap --variant=apt --quiet --include="$include" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount "$@" \
        "$suite" "$root" >"$log" 2>&1; then
        if grep -q -i -e 'Temporary failure resolving' -e 'Could not resolve' -e 'Failed to fetch' \
                -e 'Unable to connect' "$log"; then
                echo "SKIP ($who): mmdebstrap cannot reach a Debian mirror"
                exit 77
        fi
        tail -30 "$log"
        echo "FAIL ($who): mmdebstrap"
        exit 1
fi
