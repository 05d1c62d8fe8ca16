#!/usr/bin/env python3
"""The tegrastats formatter against real lines, byte for byte.

Usage: test_formatter_real_lines.py HARNESS

For every line of real-lines.jsonl that jetsond's samples can express, this
builds the samples that would make client/tegrastats/ts_format.c print it
(from tegrastats_ref.parse), runs HARNESS (ts-format-harness.c, which reads
the script format documented at its top) with TZ=UTC, and requires the
harness's last line to equal the real line exactly.

A line's means and maxima since start: when a rail's avg (or an R39 max) or
an R39 temperature's max differs from its current value, one first sample
goes before the line's own, with each rail at 2*avg - cur (the R39 max when
it is above cur) and each temperature at its max, so that the second line
carries the real averages and maxima. A line that no single first sample
can produce, or with a field jetsond has no value for (an engine load, MTS,
GR3D2_FREQ, ...), is skipped with the reason printed.

Prints "<id> ok", "<id> FAIL" (with expected and got lines and the fields
that differ) or "<id> skip: <reason>" per line, then "N passed, M failed".
Exit 0 only if nothing failed and each of r32, r35, r36, r38 and r39 has at
least one line reproduced.
"""

import calendar
import difflib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tegrastats_ref as ref  # noqa: E402

GENS = ("r32", "r35", "r36", "r38", "r39")


class Skip(Exception):
    """The line holds something the formatter cannot print from a sample."""


# Printed engine name -> (jetsond's engine.NAME, how it prints), per table of
# ts_format.c: 'on' = "NAME F" while on, nothing while off; 'off_or_f' =
# "NAME off" / "NAME F"; 'second' = NVJPG1, printed "off" when NVJPG is off
# on a two-NVJPG board; 'video' = Thor's "NAME @F" from gpu.video_freq.
def _table(*rows):
    return {name: (engine, how) for name, engine, how in rows}


ENGINES = {
    "r32": _table(("MSENC", "MSENC", "on"), ("NVENC", "NVENC", "on"), ("NVDEC", "NVDEC", "on"),
                  ("NVJPG", "NVJPG", "on"), ("APE", "APE", "on")),
    "r35": _table(("NVENC", "NVENC", "on"), ("NVDEC", "NVDEC", "on"), ("NVJPG", "NVJPG", "on"),
                  ("VIC_FREQ", "VIC", "on"), ("APE", "APE", "on")),
    "r36": _table(("NVENC", "NVENC", "off_or_f"), ("NVDEC", "NVDEC", "off_or_f"),
                  ("NVJPG", "NVJPG", "off_or_f"), ("NVJPG1", "NVJPG", "second"), ("VIC", "VIC", "off_or_f"),
                  ("OFA", "OFA", "off_or_f"), ("NVDLA0", "DLA0", "off_or_f"), ("NVDLA1", "DLA1", "off_or_f"),
                  ("PVA0_FREQ", "PVA0", "off_or_f"), ("APE", "APE", "on")),
    "r39-orin": _table(("NVENC0", "NVENC", "off_or_f"), ("NVDEC0", "NVDEC", "off_or_f"),
                       ("NVJPG0", "NVJPG", "off_or_f"), ("NVJPG1", "NVJPG", "second"),
                       ("VIC", "VIC", "off_or_f"), ("OFA", "OFA", "off_or_f"), ("NVDLA0", "DLA0", "off_or_f"),
                       ("NVDLA1", "DLA1", "off_or_f"), ("PVA0_FREQ", "PVA0", "off_or_f"), ("APE", "APE", "on")),
    "thor": _table(("NVENC0_FREQ", "NVENC", "video"), ("NVENC1_FREQ", "NVENC", "video"),
                   ("NVDEC0_FREQ", "NVDEC", "video"), ("NVDEC1_FREQ", "NVDEC", "video"),
                   ("NVJPG0_FREQ", "NVJPG", "video"), ("VIC", "VIC", "off_or_f"),
                   ("OFA_FREQ", "OFA", "video"), ("PVA0_FREQ", "PVA0", "off_or_f"), ("APE", "APE", "on")),
}

RAIL_FORM = {"r32": "cur/avg", "r35": "curmW/avgmW", "r36": "curmW/avgmW", "r38": "curmW/avgmW",
             "r39": "curmW/avgmW/maxmW"}


def board_of(rec):
    """(gen, thor, two_nvjpg) of a jsonl record."""
    g = rec["gen"]
    if g == "jp7-thor":
        m = re.search(r"R(38|39)\.", rec["release"])
        if not m:
            raise Skip("Thor line of unknown release %r" % rec["release"])
        return "r" + m.group(1), True, False
    gen = {"jp4": "r32", "jp5": "r35", "jp6": "r36", "jp72-orin": "r39"}.get(g)
    if gen is None:
        raise Skip("unknown generation %r" % g)
    return gen, False, gen != "r32" and "Orin" in rec["board"]


def _unique(key, used):
    k, n = key, 2
    while k in used:
        k, n = "%s_%d" % (key, n), n + 1
    used.add(k)
    return k


def _mhz(f):
    return f * 1000


def build(rec):
    """The harness script for a record, or Skip."""
    gen, thor, two_nvjpg = board_of(rec)
    fields = ref.parse(rec["line"])
    r39 = gen == "r39"
    sensors = []            # (key, kind, label)
    own = {}                # the line's own sample: key -> text
    first = {}              # key -> text in the first sample, where it differs
    need_first = False
    used = set()
    stamp = 1_000_000_000 * 1_000_000   # R32 prints none: any instant
    engines = ENGINES["thor"] if gen == "r38" or thor else ENGINES["r39-orin" if r39 else gen]
    video = None
    kinds = [f.kind for f in fields]
    if gen != "r32" and "timestamp" not in kinds:
        raise Skip("no timestamp on an %s line, which the formatter always prints" % gen)

    for f in fields:
        v = f.values
        if f.kind == "timestamp":
            if gen == "r32":
                raise Skip("a timestamp on an R32 line")
            stamp = calendar.timegm((v["year"], v["month"], v["day"], v["hour"], v["minute"], v["second"],
                                     0, 0, 0)) * 1_000_000
        elif f.kind == "ram":
            if v["lfb_blocks"] < 1:
                raise Skip("RAM lfb of 0 blocks, which the formatter leaves out")
            own.update({"ram.used": v["used"] * 1024, "ram.total": v["total"] * 1024,
                        "ram.lfb_count": v["lfb_blocks"],
                        "ram.lfb_size": v["lfb_size"] * (1024 if f.form.endswith("MB)") else 1)})
        elif f.kind == "swap":
            if v["total"] == 0:
                raise Skip("SWAP of 0 MB, which the formatter leaves out")
            own.update({"swap.used": v["used"] * 1024, "swap.total": v["total"] * 1024,
                        "swap.cached": v["cached"] * 1024})
        elif f.kind == "iram":
            if v["used"] != 0 or v["lfb"] != v["total"]:
                raise Skip("IRAM lfb other than the whole of an unused IRAM (jetsond has no IRAM lfb)")
            own.update({"iram.used": v["used"], "iram.total": v["total"]})
        elif f.kind == "cpu":
            for n, core in enumerate(v["cores"]):
                own["cpu.%d.online" % n] = 0 if core is None else 1
                if core is not None:
                    own["cpu.%d.load" % n] = core["load"]
                    if core["freq"] is not None:
                        own["cpu.%d.freq" % n] = _mhz(core["freq"])
        elif f.kind == "emc":
            own["emc.load"] = v["load"]
            if v["freq"] is not None:
                own["emc.freq"] = _mhz(v["freq"])
        elif f.kind == "gr3d":
            if f.name != "GR3D_FREQ":
                raise Skip("%s (one field per GPC, early R35), which the formatter does not print" % f.name)
            bracket = f.form.endswith("]")
            if thor and gen in ("r38", "r39"):
                if f.form != "@[F,F,F]" or len(set(v["freqs"])) != 1:
                    raise Skip("Thor GR3D_FREQ %r: not three equal GPC clocks without load" % f.form)
                own["gpu.freq"] = _mhz(v["freqs"][0])
            elif gen == "r32" or (gen == "r35" and not bracket):
                if f.form not in ("L%", "L%@F"):
                    raise Skip("GR3D_FREQ form %r on an %s line" % (f.form, gen))
                own["gpu.load"] = v["load"]
                if v["freqs"]:
                    own["gpu.freq"] = _mhz(v["freqs"][0])
            else:
                if f.form != "L%" and not f.form.startswith("L%@["):
                    raise Skip("GR3D_FREQ form %r on an %s line" % (f.form, gen))
                own["gpu.load"] = v["load"]
                for n, freq in enumerate(v["freqs"]):
                    own["gpu.gpc%d.freq" % n] = _mhz(freq)
        elif f.kind == "engine":
            if f.name not in engines:
                raise Skip("engine %s is not in the formatter's table for this board" % f.name)
            engine, how = engines[f.name]
            if f.form == "L%@F":
                raise Skip("engine %s %d%%@%d: a load, which jetsond does not have"
                           % (f.name, v["load"], v["freq"]))
            if how == "video" and thor:
                if f.form != "@F" or video not in (None, v["freq"]):
                    raise Skip("Thor video engine %s %s: not the one video clock" % (f.name, f.form))
                video = v["freq"]
                own["gpu.video_freq"] = _mhz(video)
            elif how == "second":
                if f.form != "off" or not two_nvjpg or own.get("engine.%s.online" % engine) != 0:
                    raise Skip("%s %s is printed only as 'off' after %s off" % (f.name, f.form, engine))
            elif f.form == "off" and how == "off_or_f":
                own["engine.%s.online" % engine] = 0
            elif f.form == "F" and how in ("on", "off_or_f"):
                own["engine.%s.online" % engine] = 1
                own["engine.%s.freq" % engine] = _mhz(v["freq"])
            else:
                raise Skip("engine %s %s: a form the formatter prints otherwise" % (f.name, f.form))
        elif f.kind == "mts":
            raise Skip("MTS fg/bg, which jetsond does not sample")
        elif f.kind == "temp":
            if r39 != (f.form == "TC/MAXC"):
                raise Skip("temperature %s@%s: %s on an %s line"
                           % (f.name, f.texts["cur"], "single-valued" if r39 else "with a max", gen))
            key = _unique("temp." + f.name, used)
            sensors.append((key, "thermal_zone", f.name + "-therm"))
            if v["cur"] == -256:
                if gen not in ("r32", "r35"):
                    raise Skip("gated zone %s@-256C, which the formatter leaves out on %s" % (f.name, gen))
                continue        # gated: absent from the sample
            own[key] = f.texts["cur"]
            if r39 and v["max"] != v["cur"]:
                if v["max"] < v["cur"]:
                    raise Skip("temperature %s: max below the current value" % f.name)
                first[key] = f.texts["max"]
                need_first = True
        elif f.kind == "rail":
            if f.form != RAIL_FORM[gen]:
                raise Skip("rail %s in form %r on an %s line" % (f.name, f.form, gen))
            key = _unique("power." + f.name, used)
            sensors.append((key, "rail", f.name))
            cur, avg, mx = v["cur"], v["avg"], v["max"]
            own[key + ".power"] = cur
            if r39 and mx > cur:
                x = mx          # the max since start was the first sample
                if avg not in ((x + cur) // 2, (x + cur + 1) // 2):
                    raise Skip("rail %s %d/%d/%d: no mean of two samples" % (f.name, cur, avg, mx))
            else:
                x = 2 * avg - cur
                if r39 and mx < cur:
                    raise Skip("rail %s: max below the current value" % f.name)
                if r39 and x > cur:
                    raise Skip("rail %s %d/%d/%d: avg above a max equal to cur" % (f.name, cur, avg, mx))
                if x < 0:
                    raise Skip("rail %s %d/%d: the mean needs a first sample of %d mW"
                               % (f.name, cur, avg, x))
            if x != cur:
                first[key + ".power"] = x
                need_first = True

    out = ["gen " + gen, "thor %d" % thor, "two_nvjpg %d" % two_nvjpg]
    out += ["sensor %s %s %s" % s for s in sensors]
    samples = [(stamp, own)]
    if need_first:
        samples.insert(0, (stamp - 1_000_000, {**own, **first}))
    for t, sample in samples:
        out.append("sample %d" % t)
        out += ["%s %s" % kv for kv in sample.items()]
        out.append("end")
    return gen, "\n".join(out) + "\n", len(samples)


def show_diff(expected, got):
    a, b = expected.split(" "), got.split(" ")
    lines = ["    expected: " + expected, "    got:      " + got]
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            lines.append("    %-7s expected %r, got %r" % (op, " ".join(a[i1:i2]), " ".join(b[j1:j2])))
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print("usage: %s HARNESS" % argv[0], file=sys.stderr)
        return 2
    harness = argv[1]
    env = dict(os.environ, TZ="UTC")
    passed, failed = 0, 0
    per_gen = {g: 0 for g in GENS}
    with open(os.path.join(HERE, "real-lines.jsonl"), encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    for rec in records:
        rid, line = rec["id"], rec["line"]
        try:
            gen, script, nsamples = build(rec)
        except Skip as e:
            print("%s skip: %s" % (rid, e))
            continue
        run = subprocess.run([harness], input=script, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, universal_newlines=True, timeout=30)
        got = run.stdout.split("\n")
        got = got[:-1] if got and got[-1] == "" else got
        if run.returncode != 0 or len(got) != nsamples:
            failed += 1
            print("%s FAIL: harness exit %d, %d lines for %d samples\n    stderr: %s\n    script:\n%s"
                  % (rid, run.returncode, len(got), nsamples, run.stderr.strip(),
                     "".join("      " + s + "\n" for s in script.splitlines())))
        elif got[-1] == line:
            passed += 1
            per_gen[gen] += 1
            print("%s ok (%s%s)" % (rid, gen, ", after a first sample" if nsamples > 1 else ""))
        else:
            failed += 1
            print("%s FAIL (%s)\n%s" % (rid, gen, show_diff(line, got[-1])))
    print("reproduced per generation: " + ", ".join("%s %d" % kv for kv in per_gen.items()))
    for g in GENS:
        if per_gen[g] == 0:
            failed += 1
            print("generation %s FAIL: no real line reproduced" % g)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
