#!/bin/sh
# dbus-dtd.sh BUS_CONF INTROSPECTION_XML...
#
# Validates the bus policy against the D-Bus busconfig DTD and the
# introspection XML against the D-Bus introspect DTD, with xmllint --valid
# --nonet and a catalog of our own that maps the public identifiers in the
# files' DOCTYPEs to the local DTDs.
#
# The DTDs come with libdbus-1-dev on Debian (/usr/share/xml/dbus-1);
# JETSOND_DBUS_DTD_DIR names another directory holding busconfig.dtd and
# introspect.dtd. Without them the test is skipped.
#
# busconfig.dtd (dbus 1.14 and earlier) declares only user, send, receive,
# own, send_to and receive_from on <allow>/<deny>, though dbus-daemon(1)
# documents and accepts many more, so every system.d file that uses
# send_destination fails against it as shipped. The test therefore validates
# against a copy that also declares the attributes dbus-daemon(1) lists;
# elements, nesting and every other attribute are checked as the DTD says.
# (dbus-config.sh has dbus-daemon itself parse the file as well.)
set -eu

conf=$1
shift

if ! command -v xmllint >/dev/null 2>&1; then
    echo "SKIP: xmllint is not installed (Debian: libxml2-utils)"
    exit 77
fi
dtd_dir=
pc_datadir=$(pkg-config --variable=datadir dbus-1 2>/dev/null || true)
for d in "${JETSOND_DBUS_DTD_DIR:-}" ${pc_datadir:+"$pc_datadir/xml/dbus-1"} \
         /usr/share/xml/dbus-1 /usr/local/share/xml/dbus-1; do
    if [ -n "$d" ] && [ -f "$d/busconfig.dtd" ] && [ -f "$d/introspect.dtd" ]; then
        dtd_dir=$(cd "$d" && pwd)
        break
    fi
done
if [ -z "$dtd_dir" ]; then
    echo "SKIP: busconfig.dtd and introspect.dtd not found in /usr/share/xml/dbus-1" \
         "(Debian: libdbus-1-dev) or \$JETSOND_DBUS_DTD_DIR"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jetsond-dbus-dtd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0

# busconfig.dtd plus the <allow>/<deny> attributes of dbus-daemon(1) that it
# does not declare yet.
cp "$dtd_dir/busconfig.dtd" "$tmp/busconfig.dtd"
for attr in send_interface send_member send_error send_broadcast send_destination \
            send_destination_prefix send_type send_path send_requested_reply \
            receive_interface receive_member receive_error receive_sender receive_type \
            receive_path receive_requested_reply eavesdrop own_prefix group \
            min_fds max_fds; do
    if ! sed -n '/<!ATTLIST allow/,/>/p' "$dtd_dir/busconfig.dtd" | grep -q -w -e "$attr"; then
        echo "<!ATTLIST allow $attr CDATA #IMPLIED>" >>"$tmp/busconfig.dtd"
    fi
    if ! sed -n '/<!ATTLIST deny/,/>/p' "$dtd_dir/busconfig.dtd" | grep -q -w -e "$attr"; then
        echo "<!ATTLIST deny $attr CDATA #IMPLIED>" >>"$tmp/busconfig.dtd"
    fi
done

cat >"$tmp/catalog.xml" <<EOC
<?xml version="1.0"?>
<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog" prefer="public">
  <public publicId="-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" uri="file://$tmp/busconfig.dtd"/>
  <public publicId="-//freedesktop//DTD D-BUS Object Introspection 1.0//EN" uri="file://$dtd_dir/introspect.dtd"/>
</catalog>
EOC

for f in "$conf" "$@"; do
    if XML_CATALOG_FILES=$tmp/catalog.xml xmllint --noout --valid --nonet "$f" >"$tmp/out" 2>&1 &&
       [ ! -s "$tmp/out" ]; then
        echo "ok: $f"
    else
        cat "$tmp/out"
        echo "FAIL: $f is not valid against its D-Bus DTD ($dtd_dir)"
        failed=1
    fi
done
exit "$failed"
