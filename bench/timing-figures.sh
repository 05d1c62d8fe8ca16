#!/bin/sh
# timing-figures.sh [BUILDDIR]
# The timing figures the tests print but no longer assert (issue 30): how
# many Samples and capture records a second jetsond delivered, GetSnapshot
# p50/p99 while a sensor, a fan write or an NVML GPU hangs, how long stuck
# and recovered readings took to show, jetsonctl record's record counts, the
# exporter's energy rate. On an idle machine they are jetsond's figures; on
# a busy one, the machine's. Runs those tests once (as root: they start a
# private system bus) and prints every "figure:" line they wrote, with the
# machine's load average beside them.
set -eu

build=${1:-build}
[ -f "$build/build.ninja" ] || { echo "$0: $build is not a meson build directory" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
meson test -C "$build" --verbose --num-processes 1 \
        stall keys capture metrics dgpu jetsonctl-record jetsonctl-watch jetsonctl-measure exporter-prometheus \
        >"$log" 2>&1 || { tail -50 "$log"; echo "$0: a test failed" >&2; exit 1; }
grep -o 'figure: .*' "$log" | sed 's/^figure: /  /'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
