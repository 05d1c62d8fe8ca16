#!/bin/sh
# jetsond as the Debian package runs it: a Debian 12 root made with
# mmdebstrap (systemd, dbus, polkitd, a kernel and this tree's packages),
# booted under qemu, where jetsond is started by D-Bus activation through
# its own unit (systemd/jetsond.service.in) and checked on three fake
# boards laid over the VM's real paths: AGX Orin on JetPack 6.2, AGX Thor
# (NVML for its GPU) and a PC with two fake NVIDIA GPUs. The checks run in
# the VM (tests/vm/in_vm.py); tests/vm/README.md says how the board and the
# NVIDIA device nodes get there. Part of scripts/run-tests.sh; as root.
#
# JETSOND_DEBS_DIR: take the .deb files from there (scripts/test-debian.sh
# leaves them in build-debs/); else they are built here. The build
# directory ($BUILD_DIR, default build) provides the fake NVML and the CUSE
# stand-in for the driver's nodes. KVM where it works, else qemu's TCG.
#
# Each step prints its wall time as a `figure:` line. Exit 77 with one line
# only where mmdebstrap cannot reach a mirror.
set -eu
cd "$(dirname "$0")/.."
src=$PWD
build=${BUILD_DIR:-build}
BOARDS="agx-orin-jp62 agx-thor-jp71 x86-pc"

fail() { echo "FAIL (vm): $*"; exit 1; }
step_name="" step_started=0
step_figure() {
        [ -z "$step_name" ] || echo "   figure: vm step \"$step_name\" $(( $(date +%s) - step_started )) s"
}
step() { step_figure; step_name=$*; step_started=$(date +%s); echo "-- $*"; }

ninja -C "$build" tests/cuse-nvidia tests/fake-nvml/libnvidia-ml.so.1 src/jetsond >/dev/null ||
        fail "ninja -C $build"
work=$(mktemp -d /tmp/jetsond-vm.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# ---- the packages ------------------------------------------------------------
step "the Debian packages"
if [ -n "${JETSOND_DEBS_DIR:-}" ] && ls "$JETSOND_DEBS_DIR"/jetsond_*.deb >/dev/null 2>&1; then
        debdir=$JETSOND_DEBS_DIR
else
        debdir=$(sh scripts/build-debs.sh "$work") || fail "dpkg-buildpackage"
fi
debs=""
for p in jetsond jetsonctl jetsond-exporter; do
        d=$(ls "$debdir"/${p}_*_amd64.deb 2>/dev/null | head -1)
        [ -n "$d" ] || fail "no $p package in $debdir"
        debs="$debs,$d"
done
echo "   $(echo "$debs" | tr ',' '\n' | sed 's|.*/||' | tr '\n' ' ')"

# ---- the root ------------------------------------------------------------------
step "mmdebstrap a bootable Debian 12 root with systemd, dbus, polkitd, a kernel and the packages"
root=$work/root
rc=0
sh scripts/mmdebstrap-root.sh vm "$root" "$work/mmdebstrap.log" \
        "systemd-sysv,dbus,polkitd,udev,linux-image-amd64,python3,libfuse3-3,procps,kmod,curl,iproute2,libnss-systemd$debs" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
in_root() { chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

step "the test harness in the root"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$root/etc/fstab"
echo vmtest >"$root/etc/hostname"
in_root useradd -m -G jetson alice
in_root useradd -m bob
# The example rule of polkit/, as its header says to enable it.
cp polkit/50-jetsond-jetson-group.rules.example "$root/etc/polkit-1/rules.d/50-jetsond-jetson-group.rules"
T=$root/opt/jetsond-vmtest
mkdir -p "$T/boards" "$T/expected" "$T/nvml"
cp tests/vm/in_vm.py "$build/tests/cuse-nvidia" "$T/"
cp "$build/tests/fake-nvml/libnvidia-ml.so.1" "$root/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
for b in $BOARDS; do
        sh tests/fixtures/make-sysroot.sh "$b" "$T/boards/$b" >/dev/null
        nvml=""
        if [ -f "tests/fixtures/$b.nvml.json" ]; then
                cp "tests/fixtures/$b.nvml.json" "$T/nvml/$b.json"
                nvml="--nvml-library $src/$build/tests/fake-nvml/libnvidia-ml.so.1"
        fi
        # The keys jetsond gives for this board outside any sandbox: what
        # the VM must show too.
        # shellcheck disable=SC2086
        FAKE_NVML_CONFIG="$T/nvml/$b.json" "$build/src/jetsond" --sysroot "$T/boards/$b" $nvml --once --json |
                /usr/bin/python3 -c 'import json, sys; print("\n".join(sorted(json.load(sys.stdin)["values"])))' \
                >"$T/expected/$b.keys" || fail "jetsond --once on $b"
done
# The unit as packaged; only the fake NVML's configuration is added.
mkdir -p "$root/etc/systemd/system/jetsond.service.d"
printf '[Service]\nEnvironment=FAKE_NVML_CONFIG=/etc/jetsond-vmtest/nvml.json\n' \
        >"$root/etc/systemd/system/jetsond.service.d/fake-nvml.conf"
cat >"$root/etc/systemd/system/jetsond-vmtest.service" <<EOF
[Unit]
Description=jetsond VM test (tests/vm/in_vm.py)
After=multi-user.target dbus.service polkit.service
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
ExecStart=/usr/bin/python3 /opt/jetsond-vmtest/in_vm.py $BOARDS
TimeoutStartSec=infinity
[Install]
WantedBy=multi-user.target
EOF
in_root systemctl enable jetsond-vmtest.service >/dev/null 2>&1
# No login prompt on the console, no time spent on the network.
in_root systemctl mask serial-getty@ttyS0.service getty@tty1.service systemd-timesyncd.service >/dev/null 2>&1 || true
kernel=$(ls "$root"/boot/vmlinuz-* | head -1)
initrd=$(ls "$root"/boot/initrd.img-* | head -1)
cp "$kernel" "$work/vmlinuz"; cp "$initrd" "$work/initrd"
mke2fs -q -t ext4 -d "$root" -L vmroot "$work/root.img" 3G >/dev/null || fail "mke2fs -d"
rm -rf "$root"

# ---- boot --------------------------------------------------------------------
# KVM where it runs a guest (a nested /dev/kvm may exist and still fail),
# else TCG: the same VM, slower.
accel="tcg,thread=multi"
if [ -w /dev/kvm ] && timeout 20 qemu-system-x86_64 -accel kvm -m 256 -display none -monitor none \
        -serial "file:$work/kvm-probe.log" -no-reboot -kernel "$work/vmlinuz" \
        -append "console=ttyS0 panic=-1" >/dev/null 2>&1 && grep -q 'Kernel panic' "$work/kvm-probe.log"; then
        accel=kvm
fi
step "boot the VM ($accel) and run tests/vm/in_vm.py in it"
rc=0
timeout 1200 qemu-system-x86_64 -accel "$accel" -m 1536 -smp 2 -no-reboot \
        -kernel "$work/vmlinuz" -initrd "$work/initrd" -append "root=/dev/vda rw console=ttyS0 quiet" \
        -drive "file=$work/root.img,format=raw,if=virtio" -nic none -display none -monitor none \
        -serial "file:$work/console.log" -serial "file:$work/result.log" >"$work/qemu.log" 2>&1 || rc=$?
step_figure
# A serial line ends in CR LF.
tr -d '\r' <"$work/result.log" >"$work/result.txt" 2>/dev/null || true
cat "$work/result.txt"
summary=$(grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' "$work/result.txt" | tail -1 || true)
if [ -z "$summary" ]; then
        tail -40 "$work/console.log" 2>/dev/null || true
        cat "$work/qemu.log"
        fail "the VM gave no result (qemu exit $rc)"
fi
echo "$summary" | grep -q ' 0 failed$' || fail "$summary"
echo "vm: all checks passed"
