#!/bin/sh
# make-corpus.sh: (re)writes tests/fuzz/corpus/ from the fake boards, one
# directory per fuzz target, one file per board's copy of what that
# target parses. The corpus is committed; run this after changing the
# fixtures. Regression inputs (tests/fuzz/regressions/) are written by
# hand, one for every bug a fuzzer or a person found.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
corpus=$here/corpus
rm -rf "$corpus"

# put TARGET FILE...: each existing regular file, named after its board and path.
put() {
    target=$1
    shift
    mkdir -p "$corpus/$target"
    for f in "$@"; do
        [ -f "$f" ] || continue
        name=$(echo "${f#"$fixtures"/}" | tr '/' '_')
        cp "$f" "$corpus/$target/$name"
    done
}

# list TARGET BOARD WHAT LINES...: one file of names (one a line), for
# the targets that parse sysfs tables name by name.
list() {
    target=$1 board=$2 what=$3
    shift 3
    mkdir -p "$corpus/$target"
    [ $# -gt 0 ] || return 0
    printf '%s\n' "$@" > "$corpus/$target/${board}_$what"
}

for b in "$fixtures"/*/; do
    b=${b%/}
    [ -d "$b/proc" ] || continue
    put proc-stat "$b/proc/stat"
    put meminfo "$b/proc/meminfo" "$b/proc/buddyinfo" "$b/proc/vmstat" "$b"/sys/kernel/debug/nvmap/iram/clients
    put proc-swaps "$b/proc/swaps"
    put pid-stat "$b"/proc/[0-9]*/stat "$b"/sys/kernel/debug/nvmap/iovmm/maps "$b"/sys/kernel/debug/nvmap/iovmm/clients
    put passwd "$b/etc/passwd"
    put fstab "$b/etc/fstab"
    put edit-fstab "$b/etc/fstab"
    put dpkg-status "$b/var/lib/dpkg/status"
    put identity "$b/etc/nv_tegra_release" "$b/proc/device-tree/compatible" \
        "$b"/sys/devices/virtual/thermal/thermal_zone*/type
    put version-json "$b"/usr/local/cuda-*/version.json
    put nvpmodel-conf "$b"/etc/nvpmodel/*.conf "$b/var/lib/nvpmodel/status"
    put edit-nvpmodel "$b"/etc/nvpmodel/*.conf
    put nvfancontrol "$b"/etc/nvpower/nvfancontrol/*.conf "$b/var/lib/nvfancontrol/status"
    put edit-nvfancontrol "$b"/etc/nvpower/nvfancontrol/*.conf
    put net-and-disks "$b/proc/net/dev" "$b/proc/diskstats" "$b/proc/uptime"
    put sysfs-value $(find "$b/sys" -type f \( -name load -o -name cur_freq -o -name max_freq -o -name name \
        -o -name 'in*_label' -o -name 'in*_input' -o -name 'curr*_input' -o -name 'rail_name_*' -o -name type \
        -o -name tpc_pg_mask -o -name clk_rate \) 2>/dev/null | sort | head -80)
    board=$(basename "$b")
    list power-names "$board" powercap $(ls "$b/sys/class/powercap" 2>/dev/null)
    list power-names "$board" labels $(cat "$b"/sys/bus/i2c/devices/*/hwmon/hwmon*/in*_label \
        "$b"/sys/bus/i2c/devices/*/iio:device*/rail_name_* 2>/dev/null | tr ' ' '_')
    list engine-clocks "$board" clk $(ls "$b/sys/kernel/debug/clk" 2>/dev/null)
    list thermal-types "$board" types $(cat "$b"/sys/devices/virtual/thermal/thermal_zone*/type \
        "$b"/sys/class/hwmon/hwmon*/name 2>/dev/null | tr ' ' '_')
    list pci-bus-id "$board" pci $(ls "$b/sys/bus/pci/devices" 2>/dev/null) \
        $(sed -n 's/.*"pci_bus_id": *"\([^"]*\)".*/\1/p' "$fixtures/$board.nvml.json" 2>/dev/null)
    # hwmon-pairing: a line per hwmon device, its name ("-" if none) and files.
    mkdir -p "$corpus/hwmon-pairing"
    for h in "$b"/sys/class/hwmon/hwmon*; do
        [ -d "$h" ] || continue
        name=$(cat "$h/name" 2>/dev/null || echo -)
        echo "$name" $(ls "$h/")
    done > "$corpus/hwmon-pairing/${board}_hwmon"
    [ -s "$corpus/hwmon-pairing/${board}_hwmon" ] || rm "$corpus/hwmon-pairing/${board}_hwmon"
done
put proc-stat "$fixtures"/proc-stat/*
