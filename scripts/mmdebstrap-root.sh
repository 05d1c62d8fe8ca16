#!/bin/sh
# mmdebstrap-root.sh WHO ROOT LOG INCLUDE: a clean Debian 12 root in ROOT
# with the packages of INCLUDE (comma-separated; local .deb files by
# absolute path, made visible to apt by mmdebstrap's file-mirror hook),
# mmdebstrap's output in LOG. Used by scripts/test-debian.sh and
# scripts/test-vm.sh (WHO names the caller in the messages).
# Exit 77 with one SKIP line where mmdebstrap cannot reach a mirror.
set -eu
who=$1 root=$2 log=$3 include=$4
if ! mmdebstrap --variant=apt --quiet --include="$include" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        bookworm "$root" >"$log" 2>&1; then
        if grep -q -i -e 'Temporary failure resolving' -e 'Could not resolve' -e 'Failed to fetch' \
                -e 'Unable to connect' "$log"; then
                echo "SKIP ($who): mmdebstrap cannot reach a Debian mirror"
                exit 77
        fi
        tail -30 "$log"
        echo "FAIL ($who): mmdebstrap"
        exit 1
fi
