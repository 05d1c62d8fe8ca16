#!/bin/sh
# The main job: build jetsond, bring a copy of the AGX Orin (JetPack 6.2)
# fake board to life with the simulator, and show what jetsond reads from
# it: one full JSON sample, then a few compact samples as values change.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

work=$(mktemp -d /tmp/jetsond-demo.XXXXXX)
sim=""
cleanup() {
        [ -n "$sim" ] && kill "$sim" 2>/dev/null && wait "$sim" 2>/dev/null
        rm -rf "$work"
}
trap cleanup EXIT INT TERM

sh tests/fixtures/make-sysroot.sh agx-orin-jp62 "$work/root" >/dev/null
/usr/bin/python3 tests/fixtures/simulate.py "$work/root" --period-ms 200 &
sim=$!

echo "== jetsond --sysroot <simulated AGX Orin> --once --json"
build/src/jetsond --sysroot "$work/root" --once --json --interval 500 | tee "$work/sample.json"

echo
echo "== five more samples while the simulator runs"
for i in 1 2 3 4 5; do
        build/src/jetsond --sysroot "$work/root" --once --json --interval 300 | /usr/bin/python3 -c '
import json, sys
v = json.load(sys.stdin)["values"]
def g(k, f="{:.1f}"):
    return f.format(v[k]) if k in v else "-"
print("CPU {}%  GPU {}% @{} kHz  EMC {}%  RAM {}/{} KiB  power {} mW  cpu {} C  gpu {} C  fan {} rpm".format(
    g("cpu.load"), g("gpu.load"), g("gpu.freq", "{}"), g("emc.load"), g("ram.used", "{}"),
    g("ram.total", "{}"), g("power.total", "{}"), g("temp.cpu"), g("temp.gpu"), g("fan.0.rpm", "{}")))
'
done
echo
echo "== the same binary on this machine (sysroot /): a truthful non-Jetson report"
build/src/jetsond --once --json --interval 200 | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print("is_jetson:", d["board"]["is_jetson"], " model:", d["board"]["model"], " values:", len(d["values"]))'
