#!/bin/sh
# start-polkitd.sh ACTIONS_DIR RULES_DIR GROUP_FILE [polkitd args...]
#
# Runs the real polkitd (/usr/lib/polkit-1/polkitd) on the bus named by
# DBUS_SYSTEM_BUS_ADDRESS, seeing only the test's files: in a private mount
# namespace, ACTIONS_DIR is bind-mounted over /usr/share/polkit-1/actions,
# RULES_DIR over /etc/polkit-1/rules.d, an empty directory over
# /usr/share/polkit-1/rules.d (no distribution rules) and GROUP_FILE over
# /etc/group (so that isInGroup() sees test-only groups through NSS). The
# host's files are not touched and no other process sees the mounts.
# (../../../shared/testing-on-a-private-bus.md, section 4.)
#
# polkitd paths are compiled in, hence the mounts. It must be started as
# root (it drops to the user polkitd itself). The process keeps this
# script's PID (unshare and sh exec), so the caller stops polkitd by that
# PID.
#
# With PKLA_DIR set, that directory is also mounted over
# /etc/polkit-1/localauthority, for the .pkla files of polkit 0.105's local
# authority, which Debian's polkitd-pkla reads through its compatibility
# rule (the caller puts that rule into RULES_DIR).
#
# Exit 77 (skip) when this cannot work here: not root, no polkitd, no user
# polkitd, or no permission to create a mount namespace (e.g. a container
# without CAP_SYS_ADMIN). It never falls back to writing system
# directories.
set -eu

[ $# -ge 3 ] || { echo "usage: $0 ACTIONS_DIR RULES_DIR GROUP_FILE [polkitd args...]" >&2; exit 2; }
actions=$1 rules=$2 group=$3
shift 3
polkitd=/usr/lib/polkit-1/polkitd

[ -d "$actions" ] && [ -d "$rules" ] && [ -f "$group" ] || { echo "$0: missing $actions, $rules or $group" >&2; exit 2; }
skip() { echo "SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "polkitd must be started as root"
[ -x "$polkitd" ] || skip "$polkitd is not installed (Debian: polkitd)"
id polkitd >/dev/null 2>&1 || skip "there is no user polkitd for polkitd to switch to"
for d in /usr/share/polkit-1/actions /usr/share/polkit-1/rules.d /etc/polkit-1/rules.d; do
    [ -d "$d" ] || skip "$d does not exist to be mounted over"
done
pkla=${PKLA_DIR:-}
if [ -n "$pkla" ]; then
    [ -x /usr/sbin/pkla-check-authorization ] && [ -d /etc/polkit-1/localauthority ] ||
        skip "polkitd-pkla (pkla-check-authorization, /etc/polkit-1/localauthority) is not installed"
fi
if ! err=$(unshare --mount --propagation private -- sh -c \
        'mount --bind "$1" /usr/share/polkit-1/actions' probe "$actions" 2>&1); then
    skip "cannot bind-mount in a private mount namespace (needs CAP_SYS_ADMIN): $err"
fi
empty=$(dirname "$rules")/empty-rules.d
mkdir -p "$empty"

exec unshare --mount --propagation private -- sh -c '
  set -e
  mount --bind "$1" /usr/share/polkit-1/actions
  mount --bind "$2" /etc/polkit-1/rules.d
  mount --bind "$3" /usr/share/polkit-1/rules.d
  mount --bind "$4" /etc/group
  [ -z "$5" ] || mount --bind "$5" /etc/polkit-1/localauthority
  shift 5
  exec "$0" "$@"' "$polkitd" "$actions" "$rules" "$empty" "$group" "$pkla" "$@"
