#!/bin/sh
# systemd-unit.sh verify   UNIT LIBEXECDIR JETSOND
# systemd-unit.sh security UNIT LIBEXECDIR JETSOND MAX_EXPOSURE
#
# Checks the generated jetsond.service with systemd-analyze. Both verify and
# security --offline=yes look at the ExecStart= executable, which is not
# installed yet, so they run on a copy in a temporary directory whose
# ExecStart= points at the built daemon JETSOND instead of
# LIBEXECDIR/jetsond (as in systemd/README.md).
#   verify:   exit 0 and no output at all.
#   security: overall exposure level at most MAX_EXPOSURE (README: 1.7 OK).
set -eu

mode=$1 unit=$2 libexecdir=$3 jetsond=$4

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "SKIP: systemd-analyze is not installed"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jetsond-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$jetsond" ]; then
    echo "FAIL: $jetsond (built daemon) is not executable"
    exit 1
fi
old="ExecStart=$libexecdir/jetsond"
n=$(grep -c '^ExecStart=' "$unit" || true)
if [ "$n" -ne 1 ] || ! grep -q -x -F "$old --system" "$unit"; then
    grep -n '^ExecStart=' "$unit" || true
    echo "FAIL: $unit: expected exactly one \"$old --system\""
    exit 1
fi
OLD=$old NEW="ExecStart=$jetsond" awk '
    index($0, ENVIRON["OLD"] " ") == 1 { $0 = ENVIRON["NEW"] substr($0, length(ENVIRON["OLD"]) + 1) }
    { print }' "$unit" >"$tmp/jetsond.service"
grep -q -x -F "ExecStart=$jetsond --system" "$tmp/jetsond.service"

cd "$tmp"
rc=0
case $mode in
verify)
    systemd-analyze verify ./jetsond.service >out 2>err || rc=$?
    if [ "$rc" -ne 0 ] || [ -s err ] || [ -s out ]; then
        echo "systemd-analyze verify: exit $rc"
        cat out err
        echo "FAIL: verify must exit 0 without output"
        exit 1
    fi
    echo "ok: systemd-analyze verify, exit 0, no output"
    ;;
security)
    max=$5
    threshold=
    # --threshold (systemd >= 250) takes the exposure times 10.
    if systemd-analyze --help 2>/dev/null | grep -q -e '--threshold'; then
        threshold=--threshold=$(awk -v m="$max" 'BEGIN { printf "%d", m * 10 + 0.5 }')
    fi
    systemd-analyze security --offline=yes ${threshold:+"$threshold"} --no-pager ./jetsond.service >out 2>err || rc=$?
    score=$(sed -n 's/.*Overall exposure level for [^:]*: *\([0-9][0-9.]*\).*/\1/p' out)
    if [ -z "$score" ]; then
        cat out err
        echo "FAIL: no \"Overall exposure level\" line (exit $rc)"
        exit 1
    fi
    echo "exposure $score (maximum $max${threshold:+, $threshold}), exit $rc"
    if ! awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
        grep -e '✗' out || true
        echo "FAIL: exposure $score is above $max (see systemd/README.md)"
        exit 1
    fi
    if [ "$rc" -ne 0 ] || [ -s err ]; then
        cat err
        echo "FAIL: systemd-analyze security exited $rc"
        exit 1
    fi
    echo "ok: $(grep 'Overall exposure level' out)"
    ;;
*)
    echo "usage: $0 verify|security UNIT LIBEXECDIR JETSOND [MAX_EXPOSURE]" >&2
    exit 2
    ;;
esac
