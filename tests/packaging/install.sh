#!/bin/sh
# install.sh BUILDDIR EXPECTED LIBEXECDIR DATADIR UNITDIR BINDIR MANDIR USERUNITDIR
#
# Runs "meson install" of BUILDDIR into a temporary DESTDIR and compares the
# installed files with EXPECTED, a list of paths in which @LIBEXECDIR@,
# @DATADIR@, @UNITDIR@, @BINDIR@, @MANDIR@ and @USERUNITDIR@ stand for the
# absolute directories of this build
# (given as arguments by tests/packaging/meson.build, so any --prefix works).
# Then checks the file modes, the ExecStart= lines of the installed units
# and the Exec= of the session bus's activation file.
set -eu

builddir=$1 expected=$2 libexecdir=$3 datadir=$4 unitdir=$5 bindir=$6 mandir=$7 userunitdir=$8

if ! command -v meson >/dev/null 2>&1; then
    echo "SKIP: meson is not in PATH"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jetsond-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
failed=0
fail() { echo "FAIL: $*"; failed=1; }

if ! meson install -C "$builddir" --destdir "$dest" --no-rebuild --quiet >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "FAIL: meson install --destdir failed"
    exit 1
fi

# Expected and actual lists, absolute paths below DESTDIR, sorted the same way.
sed_esc() { printf '%s\n' "$1" | sed 's/[\\|&]/\\&/g'; }
grep -v -e '^#' -e '^[[:space:]]*$' "$expected" |
    sed -e "s|@LIBEXECDIR@|$(sed_esc "$libexecdir")|g" \
        -e "s|@DATADIR@|$(sed_esc "$datadir")|g" \
        -e "s|@UNITDIR@|$(sed_esc "$unitdir")|g" \
        -e "s|@BINDIR@|$(sed_esc "$bindir")|g" \
        -e "s|@MANDIR@|$(sed_esc "$mandir")|g" \
        -e "s|@USERUNITDIR@|$(sed_esc "$userunitdir")|g" |
    LC_ALL=C sort >"$tmp/expected"
(cd "$dest" && find . ! -type d) | sed 's|^\.||' | LC_ALL=C sort >"$tmp/actual"

if ! diff -u "$tmp/expected" "$tmp/actual" >"$tmp/diff"; then
    echo "installed files differ from $expected (- missing, + extra):"
    sed -n '3,$p' "$tmp/diff"
    fail "installed file list"
fi

# Modes: the daemon, the client and the exporter 0755, everything else 0644; only
# regular files, but for the name tegrastats: a relative link to the
# installed jetsonctl.
while IFS= read -r f; do
    if [ "$f" = "$libexecdir/jetsonctl/tegrastats" ]; then
        target=$(readlink "$dest$f")
        case "$target" in /*) fail "$f links to the absolute $target" ;; esac
        [ "$(readlink -f "$dest$f")" = "$(readlink -f "$dest$bindir/jetsonctl")" ] ||
            fail "$f does not lead to $bindir/jetsonctl (it links to $target)"
        continue
    fi
    if [ -L "$dest$f" ] || [ ! -f "$dest$f" ]; then
        fail "$f is not a regular file"
        continue
    fi
    mode=$(stat -c %a "$dest$f")
    case "$f" in
        "$libexecdir/jetsond"|"$bindir/jetsonctl"|"$bindir/jetsond-exporter") want=755 ;;
        *) want=644 ;;
    esac
    [ "$mode" = "$want" ] || fail "$f has mode $mode, expected $want"
done <"$tmp/actual"

# The unit starts the installed daemon; nothing is left unsubstituted.
unit=$dest$unitdir/jetsond.service
if [ -f "$unit" ]; then
    n=$(grep -c '^ExecStart=' "$unit" || true)
    if [ "$n" -ne 1 ] || ! grep -q -x -F "ExecStart=$libexecdir/jetsond --system" "$unit"; then
        grep -n '^ExecStart=' "$unit" | sed 's/^/    /' || true
        fail "jetsond.service: expected exactly one ExecStart=$libexecdir/jetsond --system"
    fi
else
    fail "no jetsond.service in $unitdir"
fi
[ -x "$dest$libexecdir/jetsond" ] || fail "$libexecdir/jetsond is not installed as an executable"
# jetsond --user: the user unit and the session bus's activation file
# start the installed daemon in that mode, the one through the other.
unit=$dest$userunitdir/jetsond.service
if [ "$(grep -c '^ExecStart=' "$unit" 2>/dev/null)" != 1 ] ||
   ! grep -q -x -F "ExecStart=$libexecdir/jetsond --user" "$unit" || ! grep -q -x -F "Type=dbus" "$unit"; then
    fail "$userunitdir/jetsond.service: expected Type=dbus and exactly one ExecStart=$libexecdir/jetsond --user"
fi
activation=$dest$datadir/dbus-1/services/org.jetsond.Jetson1.service
for line in "Name=org.jetsond.Jetson1" "Exec=$libexecdir/jetsond --user" "SystemdService=jetsond.service"; do
    grep -q -x -F "$line" "$activation" 2>/dev/null || fail "$activation: no line $line"
done
unit=$dest$unitdir/jetsond-exporter.service
if [ "$(grep -c '^ExecStart=' "$unit" 2>/dev/null)" != 1 ] || ! grep -q -x -F "ExecStart=$bindir/jetsond-exporter" "$unit"; then
    fail "jetsond-exporter.service: expected exactly one ExecStart=$bindir/jetsond-exporter"
fi
while IFS= read -r f; do
    case "$f" in "$libexecdir/jetsond"|"$bindir/jetsonctl"|"$bindir/jetsond-exporter") continue ;; esac
    # -I: binary files (the page's fonts) are not templates.
    if grep -I -n -H '@[A-Za-z_][A-Za-z0-9_]*@' "$dest$f" >"$tmp/at"; then
        sed "s|^$(sed_esc "$dest")|    |" "$tmp/at"
        fail "unsubstituted @...@ in $f"
    fi
done <"$tmp/actual"

if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "ok: $(wc -l <"$tmp/actual") files installed as expected (libexecdir $libexecdir, datadir $datadir, unit dir $unitdir)"
