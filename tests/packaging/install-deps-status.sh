#!/bin/sh
# install-deps.sh counts a package as installed only when dpkg's Status
# line says "install ok installed": a package removed with its
# configuration files left ("deinstall ok config-files") has no programs,
# and `dpkg -s` still succeeds for it. A fake dpkg-query on PATH answers
# for every package; gnome-shell is removed that way, and must be listed.
set -eu
script=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/dpkg-query" <<'FAKE'
#!/bin/sh
# dpkg-query -W -f='${Status}' PKG
for pkg; do :; done
case $pkg in
gnome-shell|gnome-shell:*) printf 'deinstall ok config-files' ;;
*) printf 'install ok installed' ;;
esac
FAKE
cat >"$dir/dpkg" <<'FAKE'
#!/bin/sh
echo amd64
FAKE
chmod +x "$dir/dpkg-query" "$dir/dpkg"
rc=0
out=$(PATH="$dir:$PATH" sh "$script" --check 2>&1) || rc=$?
echo "$out"
[ "$rc" = 1 ] || { echo "FAIL: exit $rc, want 1"; exit 1; }
[ "$out" = "install-deps: missing packages: gnome-shell (run as root to install them)" ] ||
        { echo "FAIL: want exactly gnome-shell missing"; exit 1; }
# And with everything installed: nothing listed, exit 0.
sed -i 's/deinstall ok config-files/install ok installed/' "$dir/dpkg-query"
PATH="$dir:$PATH" sh "$script" --check || { echo "FAIL: all installed, still missing"; exit 1; }
echo "1 passed, 0 failed"
