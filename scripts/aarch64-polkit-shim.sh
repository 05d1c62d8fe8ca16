#!/bin/sh
# aarch64-polkit-shim.sh DIR
#
# libpolkit-gobject-1-dev cannot be installed for two architectures at
# once (it is not Multi-Arch: same), so aarch64 builds (test-aarch64.sh,
# the arm64 package build of test-debian.sh) find polkit through a small
# pkg-config file of their own in DIR/pkgconfig: the headers of the native
# -dev package (the same on every architecture) and the arm64 runtime
# library (libpolkit-gobject-1-0:arm64). Point PKG_CONFIG_PATH (or meson's
# pkg_config_path) at DIR/pkgconfig.
set -eu
shim=$1
lib=/usr/lib/aarch64-linux-gnu
[ -e "$lib/libpolkit-gobject-1.so.0" ] || { echo "aarch64: $lib/libpolkit-gobject-1.so.0 is missing (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$shim/pkgconfig" "$shim/lib"
ln -sf "$lib/libpolkit-gobject-1.so.0" "$shim/lib/libpolkit-gobject-1.so"
version=$(pkg-config --modversion polkit-gobject-1)
cat > "$shim/pkgconfig/polkit-gobject-1.pc" <<PC
includedir=/usr/include/polkit-1
libdir=$shim/lib
Name: polkit-gobject-1
Description: polkit for GObject (arm64 runtime, native headers)
Version: $version
Requires: gio-2.0 >= 2.18 glib-2.0 >= 2.18
Libs: -L\${libdir} -lpolkit-gobject-1
Cflags: -I\${includedir}
PC
