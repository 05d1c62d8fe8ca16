#!/bin/sh
# systemd-unit.sh verify   UNIT INSTALLED_EXEC BUILT_EXEC [OTHER_UNIT...]
# systemd-unit.sh security UNIT INSTALLED_EXEC BUILT_EXEC MAX_EXPOSURE
#
# Checks a generated service unit (jetsond.service, jetsond-exporter.service)
# with systemd-analyze. Both verify and security --offline=yes look at the
# ExecStart= executable, which is not installed yet, so they run on a copy in
# a temporary directory whose ExecStart= points at the built program
# BUILT_EXEC instead of INSTALLED_EXEC (as in systemd/README.md). verify also
# checks OTHER_UNITs copied beside it (a .socket), and man: documentation
# links against the built man pages listed in $UNIT_MANPAGES.
# UNIT_SCOPE=user checks a user unit (jetsond --user's) as the user
# manager reads it.
#   verify:   exit 0 and no output at all.
#   security: overall exposure level at most MAX_EXPOSURE (systemd/README.md).
set -eu

mode=$1 unit=$2 installed=$3 built=$4
shift 4

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "SKIP: systemd-analyze is not installed"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jetsond-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$built" ]; then
    echo "FAIL: $built (built program) is not executable"
    exit 1
fi
name=$(basename "$unit")
old="ExecStart=$installed"
n=$(grep -c '^ExecStart=' "$unit" || true)
if [ "$n" -ne 1 ] || ! grep -q -e "^$old\$" -e "^$old " "$unit"; then
    grep -n '^ExecStart=' "$unit" || true
    echo "FAIL: $unit: expected exactly one ExecStart= running $installed"
    exit 1
fi
OLD=$old NEW="ExecStart=$built" awk '
    index($0, ENVIRON["OLD"]) == 1 && (length($0) == length(ENVIRON["OLD"]) ||
        substr($0, length(ENVIRON["OLD"]) + 1, 1) == " ") {
        $0 = ENVIRON["NEW"] substr($0, length(ENVIRON["OLD"]) + 1) }
    { print }' "$unit" >"$tmp/$name"
grep -q -e "^ExecStart=$built\$" -e "^ExecStart=$built " "$tmp/$name"
if [ -n "${UNIT_MANPAGES:-}" ]; then
    for page in $UNIT_MANPAGES; do
        mkdir -p "$tmp/man/man${page##*.}"
        cp "$page" "$tmp/man/man${page##*.}/"
    done
    MANPATH=$tmp/man
    export MANPATH
fi

cd "$tmp"
rc=0
case $mode in
verify)
    others=""
    for u in "$@"; do
        cp "$u" "$tmp/"
        others="$others ./$(basename "$u")"
    done
    scope=
    if [ "${UNIT_SCOPE:-}" = user ]; then
        # The user manager wants a runtime directory, even for verify.
        scope=--user
        mkdir -m 700 "$tmp/run"
        XDG_RUNTIME_DIR=$tmp/run
        export XDG_RUNTIME_DIR
    fi
    # shellcheck disable=SC2086
    systemd-analyze $scope verify "./$name" $others >out 2>err || rc=$?
    if [ "$rc" -ne 0 ] || [ -s err ] || [ -s out ]; then
        echo "systemd-analyze verify: exit $rc"
        cat out err
        echo "FAIL: verify must exit 0 without output"
        exit 1
    fi
    echo "ok: systemd-analyze verify, exit 0, no output"
    ;;
security)
    max=$1
    threshold=
    # --threshold (systemd >= 250) takes the exposure times 10.
    if systemd-analyze --help 2>/dev/null | grep -q -e '--threshold'; then
        threshold=--threshold=$(awk -v m="$max" 'BEGIN { printf "%d", m * 10 + 0.5 }')
    fi
    systemd-analyze security --offline=yes ${threshold:+"$threshold"} --no-pager "./$name" >out 2>err || rc=$?
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
    echo "usage: $0 verify|security UNIT INSTALLED_EXEC BUILT_EXEC [MAX_EXPOSURE | OTHER_UNIT...]" >&2
    exit 2
    ;;
esac
