#!/bin/sh
# build-debs.sh WORK: this tree's Debian packages, built from a clean copy
# in WORK/debs without their build-time tests (DEB_BUILD_OPTIONS=nocheck),
# for the parts that need packages when run on their own
# (scripts/test-vm.sh, scripts/test-container.sh; in run-tests.sh they
# take scripts/test-debian.sh's). Prints the folder that holds the .deb
# files; on failure the build log's end on standard error, exit 1.
set -eu
cd "$(dirname "$0")/.."
work=$1
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
sh scripts/copy-tree.sh "$PWD" "$work/debs/jetsond-$version"
if ! (cd "$work/debs/jetsond-$version" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc \
        >"$work/debs.log" 2>&1); then
        tail -40 "$work/debs.log" >&2
        echo "dpkg-buildpackage failed" >&2
        exit 1
fi
echo "$work/debs"
