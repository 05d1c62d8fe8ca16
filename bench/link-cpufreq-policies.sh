#!/bin/sh
# link-cpufreq-policies.sh SYSROOT
# Gives a copy of a fake board (make-sysroot.sh) the kernel's cpufreq
# layout: each policy's attributes in sys/devices/system/cpu/cpufreq/policyM
# (M the first CPU of its related_cpus) and every cpuN/cpufreq a link to
# it, as drivers/cpufreq/cpufreq.c makes them. The committed trees keep a
# directory per CPU; jetsond reads a shared policy once, so jetsond-bench
# on such a copy shows what a board's layout costs (docs/performance.md,
# "One read a cpufreq policy"). Changes SYSROOT in place.
set -eu
cpu="$1/sys/devices/system/cpu"
[ -d "$cpu" ] || { echo "$0: no $cpu" >&2; exit 2; }
mkdir -p "$cpu/cpufreq"
# The first CPU of a policy's related_cpus, or N itself.
first_of() {
    first=$(cut -d' ' -f1 "$cpu/cpu$1/cpufreq/related_cpus" 2>/dev/null || true)
    echo "${first:-$1}"
}
# The policy directories first (each the directory of its first CPU), then
# every other CPU's directory replaced by a link.
for pass in policies links; do
    for dir in "$cpu"/cpu[0-9]*; do
        n=${dir##*/cpu}
        f="$dir/cpufreq"
        if [ ! -d "$f" ] || [ -L "$f" ]; then continue; fi
        first=$(first_of "$n")
        if [ "$pass" = policies ] && [ "$first" = "$n" ]; then
            mv "$f" "$cpu/cpufreq/policy$n"
            ln -s "../cpufreq/policy$n" "$f"
        elif [ "$pass" = links ] && [ -d "$cpu/cpufreq/policy$first" ]; then
            rm -r "$f"
            ln -s "../cpufreq/policy$first" "$f"
        fi
    done
done
