#!/usr/bin/python3
"""Where a sample's CPU goes, reader by reader (key family by key family).

sample-breakdown.py [BUILDDIR] [SYSROOT] [ITERATIONS] [TIERS]

Runs jetsond-bench's loop mode (JETSOND_BENCH_LOOP: only sampling, a
recheck every tenth reading) three times for the CPU time per sample, then
once under `perf record --call-graph dwarf`, and charges each profile
sample to the reader below jd_sampler_sample() on its stack, split three
ways:
  read    the pread(2)s, kernel and libc wrapper: what the floor pays too
  parse   everything else in user space: the reader's own work
  other   other system calls (stat, open, close, statfs): rechecks, opens
The µs columns are the shares times the unprofiled CPU time per sample.
Needs perf; not a test (figures depend on the machine).
"""
import collections
import os
import statistics
import subprocess
import sys
import tempfile

FAMILIES = {
    "jd_cpu_reader_sample": "cpu (load, frequency)",
    "jd_cpu_reader_sample_limits": "cpu (limits, governors)",
    "jd_process_reader_sample": "process",
    "jd_engines_reader_sample": "engine",
    "jd_throttle_reader_sample": "throttle",
    "jd_system_reader_sample": "disk, net, uptime",
    "jd_swap_reader_sample": "swap",
    "jd_thermal_reader_sample": "temp",
    "jd_memory_reader_sample": "ram",
    "jd_power_reader_sample": "power, energy",
    "jd_fan_reader_sample": "fan",
    "jd_gpu_reader_sample": "gpu",
    "jd_gpu_reader_sample_limits": "gpu (limits)",
    "jd_emc_reader_sample": "emc",
    "jd_emc_reader_sample_limits": "emc (limits)",
    "jd_nvpmodel_reader_sample": "nvpmodel",
    "jd_jetson_clocks_active": "jetson_clocks",
}
READ_FRAMES = ("pread", "syscall")


def per_sample_us(bench, sysroot, iterations, tiers):
    env = dict(os.environ, JETSOND_BENCH_LOOP=tiers)
    runs = []
    for _ in range(3):
        out = subprocess.run([bench, sysroot, str(iterations)], env=env, check=True,
                             capture_output=True, text=True).stdout
        runs.append(float(out.split()[0]))
    return statistics.median(runs)


def stacks(script_text):
    """(symbol, dso) frames of each profile sample, leaf first."""
    frames = []
    for line in script_text.splitlines():
        line = line.strip()
        if not line:
            if frames:
                yield frames
            frames = []
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        sym, _, dso = parts[1].rpartition(" (")
        frames.append((sym.split("+0x")[0], dso))
    if frames:
        yield frames


def classify(frames):
    syms = [s for s, _ in frames]
    if "jd_sampler_sample" not in syms:
        return None, None
    i = syms.index("jd_sampler_sample")
    reader = syms[i - 1] if i > 0 else "(the sampler itself)"
    leaf_sym, leaf_dso = frames[0]
    user_frames = [s for s, d in frames[:i] if "kernel" not in d]
    if "kernel" in leaf_dso:
        under = user_frames[0] if user_frames else ""
        kind = "read" if any(k in under for k in READ_FRAMES) else "other"
    else:
        kind = "read" if any(k in leaf_sym for k in READ_FRAMES) else "parse"
    return reader, kind


def main():
    args = sys.argv[1:]
    build = args[0] if args else "build"
    sysroot = args[1] if len(args) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "agx-orin-jp62")
    iterations = int(args[2]) if len(args) > 2 else 30000
    tiers = args[3] if len(args) > 3 else "7"
    bench = os.path.join(build, "bench", "jetsond-bench")
    us = per_sample_us(bench, sysroot, iterations, tiers)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ, JETSOND_BENCH_LOOP=tiers)
        subprocess.run(["perf", "record", "-q", "-o", data, "--call-graph", "dwarf,16384", "-F", "4000",
                        bench, sysroot, str(iterations)], env=env, check=True, stdout=subprocess.DEVNULL)
        text = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], check=True,
                              capture_output=True, text=True).stdout
    total = 0
    by = collections.Counter()
    kinds = collections.Counter()
    for frames in stacks(text):
        reader, kind = classify(frames)
        if reader is None:
            continue
        total += 1
        by[reader] += 1
        kinds[(reader, kind)] += 1
        kinds[("", kind)] += 1
    if not total:
        sys.exit("sample-breakdown: no profile samples inside jd_sampler_sample (perf without DWARF unwinding?)")
    print(f"{sysroot}: tiers {tiers}, {us:.1f} us of CPU per sample ({total} profile samples)")
    print(f"{'reader (key family)':34s} {'us':>6s} {'read':>6s} {'parse':>6s} {'other':>6s}")
    for reader, count in by.most_common():
        name = FAMILIES.get(reader, reader)
        cells = [us * kinds[(reader, k)] / total for k in ("read", "parse", "other")]
        print(f"{name:34s} {us * count / total:6.2f} {cells[0]:6.2f} {cells[1]:6.2f} {cells[2]:6.2f}")
    cells = [us * kinds[("", k)] / total for k in ("read", "parse", "other")]
    print(f"{'all':34s} {us:6.2f} {cells[0]:6.2f} {cells[1]:6.2f} {cells[2]:6.2f}")


if __name__ == "__main__":
    main()
