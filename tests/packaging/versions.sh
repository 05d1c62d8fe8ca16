#!/bin/sh
# versions.sh VERSION CHANGELOG JETSOND JETSONCTL EXPORTER
#
# One version everywhere: meson.build's (VERSION), the newest entry of
# debian/changelog, and what each program prints for --version.
set -eu
version=$1 changelog=$2
shift 2
failed=0
top=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$changelog")
if [ "$top" != "$version" ]; then
    echo "FAIL: debian/changelog's newest version is \"$top\", meson.build's \"$version\""
    failed=1
fi
for program in "$@"; do
    name=$(basename "$program")
    out=$("$program" --version)
    if [ "$out" != "$name $version" ]; then
        echo "FAIL: $program --version printed \"$out\", not \"$name $version\""
        failed=1
    fi
done
[ "$failed" -eq 0 ] && echo "ok: $version in meson.build, debian/changelog and every --version"
exit "$failed"
