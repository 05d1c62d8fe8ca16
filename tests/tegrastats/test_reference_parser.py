#!/usr/bin/env python3
"""Checks tegrastats_ref.py and read_like_scripts.py against the real lines in
real-lines.jsonl.  A plain script: python3 test_reference_parser.py; it prints
each failure, then "N passed, M failed", and exits 1 if anything failed."""

import collections
import json
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tegrastats_ref as ref  # noqa: E402
from tegrastats_ref import find  # noqa: E402

COUNTS = {"passed": 0, "failed": 0}


def check(what, ok, detail=""):
    if ok:
        COUNTS["passed"] += 1
    else:
        COUNTS["failed"] += 1
        print("FAIL: %s%s" % (what, (" -- " + str(detail)) if detail != "" else ""))


def rejects(what, line):
    """parse(line) must raise ValueError, with a message naming what is wrong."""
    try:
        ref.parse(line)
    except ValueError as e:
        check("rejects %s" % what, str(e) != "", "empty message")
        return
    except Exception as e:  # another exception is a bug in the parser, not a rejection
        check("rejects %s" % what, False, "raised %r, not ValueError" % e)
        return
    check("rejects %s" % what, False, "accepted %r" % line)


ROWS = [json.loads(text) for text in open(os.path.join(HERE, "real-lines.jsonl"), encoding="utf-8")]
BY_ID = {row["id"]: row for row in ROWS}


def fields_of(row_id):
    return ref.parse(BY_ID[row_id]["line"])


def forms(fields, kind):
    return [f.form for f in fields if f.kind == kind]


def test_data_file():
    check("41 real lines", len(ROWS) == 41, len(ROWS))
    check("ids are unique", len(BY_ID) == len(ROWS))
    keys = {"id", "gen", "board", "release", "source", "line", "note"}
    check("every row has id, gen, board, release, source, line, note",
          all(set(row) == keys for row in ROWS))
    check("generations are the five known ones",
          {row["gen"] for row in ROWS} == {"jp4", "jp5", "jp6", "jp7-thor", "jp72-orin"})


def test_round_trip():
    for row in ROWS:
        try:
            back = ref.format(ref.parse(row["line"]))
        except ValueError as e:
            check("%s parses" % row["id"], False, e)
            continue
        check("%s prints back byte for byte" % row["id"], back == row["line"], back)
    # A line read from a file keeps its newline: parse accepts it.
    line = BY_ID["jp4-nano-effex-1"]["line"]
    check("a trailing newline is tolerated", ref.format(ref.parse(line + "\n")) == line)


def test_values_nano():
    f = fields_of("jp4-nano-effex-1")
    ram, = find(f, "ram")
    check("Nano RAM 1464/3964MB lfb 214x4MB",
          ram.values == dict(used=1464, total=3964, lfb_blocks=214, lfb_size=4) and ram.form == "U/TMB (lfb NxSMB)")
    swap, = find(f, "swap")
    check("Nano SWAP 0/1982 cached 0", swap.values == dict(used=0, total=1982, cached=0))
    iram, = find(f, "iram")
    check("Nano IRAM 0/252kB lfb 252kB", iram.values == dict(used=0, total=252, lfb=252) and iram.form == "U/TkB(lfb FkB)")
    cpu, = find(f, "cpu")
    check("Nano CPU loads", [c["load"] for c in cpu.values["cores"]] == [90, 16, 0, 9])
    check("Nano CPU clocks", [c["freq"] for c in cpu.values["cores"]] == [1479] * 4)
    check("Nano CPU core forms", cpu.core_forms == ["L%@F"] * 4 and cpu.form == "[L%@F,L%@F,L%@F,L%@F]")
    emc, = find(f, "emc")
    check("Nano EMC 6%@1600", emc.values == dict(load=6, freq=1600) and emc.form == "L%@F")
    gr3d, = find(f, "gr3d")
    check("Nano GR3D 7%@768", gr3d.values == dict(load=7, freqs=[768]) and gr3d.form == "L%@F")
    ape, = find(f, "engine")
    check("Nano APE 25 (engine, MHz only)", (ape.name, ape.form, ape.values["freq"]) == ("APE", "F", 25))
    temps = {t.name: t.values["cur"] for t in find(f, "temp")}
    check("Nano temperatures", temps == {"PLL": 28, "CPU": 32, "PMIC": 50, "GPU": 28.5, "AO": 37, "thermal": 30.25}, temps)
    rail, = find(f, "rail", "POM_5V_IN")
    check("Nano POM_5V_IN 2746/2911", rail.values == dict(cur=2746, avg=2911, max=None) and rail.form == "cur/avg")
    check("Nano has no timestamp", not find(f, "timestamp"))


def test_values_thor_r392():
    f1, f2 = fields_of("jp7-thor-r392-lesomnus-1"), fields_of("jp7-thor-r392-lesomnus-2")
    cpu1, = find(f1, "temp", "cpu")
    cpu2, = find(f2, "temp", "cpu")
    check("Thor R39.2 cpu@34.843C/34.843C", (cpu1.form, cpu1.values) == ("TC/MAXC", dict(cur=34.843, max=34.843)))
    check("Thor R39.2 next line cpu@34.312C/34.843C keeps the max", cpu2.values == dict(cur=34.312, max=34.843))
    check("Thor R39.2 keeps the printed text", cpu2.texts == {"cur": "34.312", "max": "34.843"})
    rail1, = find(f1, "rail", "VDD_CPU_SOC_MSS")
    rail2, = find(f2, "rail", "VDD_CPU_SOC_MSS")
    check("Thor R39.2 rail cur/avg/max", rail1.form == "curmW/avgmW/maxmW" and
          rail1.values == dict(cur=8710, avg=8710, max=8710) and rail2.values == dict(cur=7953, avg=8332, max=8710))
    gr3d, = find(f1, "gr3d")
    check("Thor GR3D @[314,314,314] has no load", (gr3d.form, gr3d.values) == ("@[F,F,F]", dict(load=None, freqs=[314] * 3)))
    nvenc, = find(f1, "engine", "NVENC0_FREQ")
    vic, = find(f1, "engine", "VIC")
    pva, = find(f1, "engine", "PVA0_FREQ")
    check("Thor NVENC0_FREQ @1556", (nvenc.form, nvenc.values["freq"]) == ("@F", 1556))
    check("Thor VIC 59%@423", (vic.form, vic.values) == ("L%@F", dict(load=59, freq=423)))
    check("Thor PVA0_FREQ off", pva.form == "off" and pva.values["freq"] is None)
    ts, = find(f1, "timestamp")
    check("Thor timestamp 07-23-2026 15:29:26",
          ts.values == dict(month=7, day=23, year=2026, hour=15, minute=29, second=26))


def test_values_orin_r35():
    f = fields_of("jp5-orinagx32gb-jetsontools-all-1")
    rails = find(f, "rail")
    check("AGX Orin R35 rail names in order, NC twice",
          [r.name for r in rails] == ["VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "NC", "VDDQ_VDD2_1V8AO", "NC"])
    check("AGX Orin R35 both NC read 0mW/0mW", [r.values for r in find(f, "rail", "NC")] == [dict(cur=0, avg=0, max=None)] * 2)
    gr = find(f, "gr3d")
    check("AGX Orin R35 GR3D_FREQ then GR3D2_FREQ 0%@1300",
          [(g.name, g.form, g.values) for g in gr] == [(n, "L%@F", dict(load=0, freqs=[1300])) for n in ("GR3D_FREQ", "GR3D2_FREQ")])
    cv0, = find(f, "temp", "CV0")
    check("AGX Orin R35 CV0@-256C (power-gated)", cv0.values["cur"] == -256 and cv0.texts["cur"] == "-256")
    vic, = find(f, "engine", "VIC_FREQ")
    check("AGX Orin R35 VIC_FREQ 729", (vic.form, vic.values["freq"]) == ("F", 729))


def test_values_other():
    cpu, = find(fields_of("jp72-orin-agx64-lesomnus-1"), "cpu")
    check("R39.2 AGX Orin: 8 cores online then 4 off", cpu.core_forms == ["L%@F"] * 8 + ["off"] * 4
          and cpu.values["cores"][8:] == [None] * 4 and cpu.values["cores"][0] == dict(load=78, freq=1728))
    f = fields_of("jp6-orinnx8-jtop624-1")
    ram, = find(f, "ram")
    check("Orin NX lfb 5x1MB", (ram.values["lfb_blocks"], ram.values["lfb_size"]) == (5, 1))
    gr3d, = find(f, "gr3d")
    check("Orin NX GR3D 84%@[713]", (gr3d.form, gr3d.values) == ("L%@[F]", dict(load=84, freqs=[713])))
    f = fields_of("jp4-agxxavier-gtop-1")
    check("AGX Xavier lfb 3x2MB", find(f, "ram")[0].values["lfb_size"] == 2)
    check("AGX Xavier: CPU is a CPU field, a temperature and a rail",
          [x.kind for x in f if x.name == "CPU"] == ["cpu", "temp", "rail"])
    check("AGX Xavier rail CPU 618/618", find(f, "rail", "CPU")[0].values == dict(cur=618, avg=618, max=None))
    mts, = find(fields_of("jp4-xavieragx16gb-jetsontools-all-1"), "mts")
    check("AGX Xavier MTS fg 0% bg 3%", (mts.form, mts.values) == ("fg X% bg Y%", dict(fg=0, bg=3)))
    temps = [t.texts["cur"] for t in find(fields_of("jp6-agxorin64-abdele-1"), "temp")]
    check("temperature text kept as printed", temps[:2] == ["47.687", "36.75"])


def test_shapes():
    groups = collections.OrderedDict()
    for row in ROWS:  # ids end in the line's number within its source and board
        groups.setdefault(row["id"].rsplit("-", 1)[0], []).append(row)
    pairs = 0
    for name, rows in groups.items():
        if len(rows) < 2:
            continue
        pairs += 1
        check("%s: one board" % name, len({r["board"] for r in rows}) == 1)
        shapes = [ref.shape(ref.parse(r["line"])) for r in rows]
        check("%s: lines of one source and board have one shape" % name, all(s == shapes[0] for s in shapes))
    check("16 groups of lines share a source and board", pairs == 16, pairs)
    # Root ("all") and non-root ("basic") logs of the same board differ.
    for board in ("xavieragx16gb", "orinagx32gb", "xaviernx8gb", "orinagx64gb", "orinnx16gb"):
        gen = "jp4" if board == "xavieragx16gb" else "jp5" if board in ("orinagx32gb", "xaviernx8gb") else "jp6"
        root = ref.shape(fields_of("%s-%s-jetsontools-all-1" % (gen, board)))
        user = ref.shape(fields_of("%s-%s-jetsontools-basic-1" % (gen, board)))
        check("%s: root and non-root shapes differ" % board, root != user)
    # Two sources, same board and release family, both idle: one shape.
    check("AGX Orin 64GB R36 root: Abdel-E and jetsontools lines have one shape",
          ref.shape(fields_of("jp6-agxorin64-abdele-1")) == ref.shape(fields_of("jp6-orinagx64gb-jetsontools-all-1")))
    s = ref.shape(fields_of("jp7-thor-r384-lesomnus-1"), sensor_names=False)
    check("sensor_names=False drops temperature and rail names",
          all(n is None for k, n, _ in s if k in ("temp", "rail")))
    check("sensor_names=False keeps fixed and engine names",
          [n for k, n, _ in s if k in ("ram", "emc", "gr3d", "engine")][:4] == ["RAM", "EMC_FREQ", "GR3D_FREQ", "NVENC0_FREQ"])
    check("Thor R38.4 and R39.2 shapes differ (temperature max, third rail value)",
          ref.shape(fields_of("jp7-thor-r384-lesomnus-1"), False) != ref.shape(fields_of("jp7-thor-r392-lesomnus-1"), False))


def test_generations():
    for row in ROWS:
        f, rid, gen, rel = ref.parse(row["line"]), row["id"], row["gen"], row["release"]
        r392 = "R39.2" in rel
        check("%s: timestamp only from R35 on" % rid, bool(find(f, "timestamp")) == (gen != "jp4"))
        want_rail = "cur/avg" if gen == "jp4" else "curmW/avgmW/maxmW" if r392 else "curmW/avgmW"
        check("%s: rails are %s" % (rid, want_rail), set(forms(f, "rail")) <= {want_rail})
        # R39.2 adds /MAXC, except the WendyOS Thor line (single-valued temperatures).
        want_temp = "TC/MAXC" if r392 and "wendyos" not in rid else "TC"
        check("%s: temperatures are %s" % (rid, want_temp), set(forms(f, "temp")) == {want_temp})
        cpu, = find(f, "cpu")
        # Every real line, root or not, prints @MHz for each online core.
        check("%s: cores are L%%@F or off" % rid, set(cpu.core_forms) <= {"L%@F", "off"})
        check("%s: IRAM only on Nano" % rid, bool(find(f, "iram")) == ("Nano" in row["board"]))
        if "non-root" in rel:
            check("%s: non-root has no engines, IRAM, MTS" % rid, not (find(f, "engine") or find(f, "iram") or find(f, "mts")))
            check("%s: non-root EMC: L%% on R32/R35, absent on R36" % rid,
                  forms(f, "emc") == ([] if gen == "jp6" else ["L%"]))
            check("%s: non-root GR3D_FREQ L%%" % rid, forms(f, "gr3d") == ["L%"])
        elif gen in ("jp4", "jp5", "jp6", "jp72-orin"):
            check("%s: root EMC L%%@F" % rid, forms(f, "emc") == ["L%@F"])
        if gen == "jp7-thor":
            check("%s: Thor has 14 cores" % rid, len(cpu.core_forms) == 14)
            check("%s: Thor GR3D @[F,F,F] or absent" % rid, set(forms(f, "gr3d")) <= {"@[F,F,F]"})
        if gen in ("jp6", "jp72-orin") and "non-root" not in rel:
            check("%s: GR3D per GPC" % rid, forms(f, "gr3d")[0] in ("L%@[F]", "L%@[F,F]"))
    check("the R39.2 AGX Orin line has offline cores", "off" in find(fields_of("jp72-orin-agx64-lesomnus-1"), "cpu")[0].core_forms)
    check("only the early R35 AGX Orin has GR3D2_FREQ",
          sorted(r["id"] for r in ROWS if find(ref.parse(r["line"]), "gr3d", "GR3D2_FREQ"))
          == ["jp5-orinagx32gb-jetsontools-all-1", "jp5-orinagx32gb-jetsontools-all-2"])


def test_garbled():
    nano = BY_ID["jp4-nano-effex-1"]["line"]
    orin = BY_ID["jp6-agxorin64-abdele-1"]["line"]
    rejects("a cut RAM field", "RAM 1/2MB (lfb")
    rejects("a stray token at the end", nano + " bogus")
    rejects("a stray word in the middle", nano.replace(" CPU [", " XYZ CPU [", 1))
    rejects("a stray number", nano.replace(" APE 25", " APE 25 42", 1))
    rejects("two spaces", nano.replace(" ", "  ", 1))
    rejects("a trailing space", nano + " ")
    rejects("a tab", nano.replace(" ", "\t", 1))
    rejects("an empty line", "")
    rejects("a line with no CPU field", "RAM 1/2MB (lfb 1x4MB)")
    rejects("a line with no RAM field", "CPU [1%@2]")
    rejects("a second RAM field", nano.replace(" SWAP", " RAM 1/2MB (lfb 1x4MB) SWAP", 1))
    rejects("a temperature before the CPU field", nano.replace(" CPU [", " PLL@28C CPU [", 1))
    rejects("a space before (lfb in IRAM", nano.replace("252kB(lfb", "252kB (lfb"))
    rejects("a CPU core without a clock after @", nano.replace("90%@1479", "90%@"))
    rejects("an empty GPC list", orin.replace("0%@[305,305]", "0%@[]"))
    rejects("a temperature with 4 decimals", orin.replace("cpu@47.687C", "cpu@47.6875C"))
    rejects("a temperature without C", orin.replace("cpu@47.687C", "cpu@47.687"))
    rejects("a rail with mixed units", orin.replace("2801mW/2801mW", "2801mW/2801"))
    rejects("a leading zero", nano.replace("EMC_FREQ 6%", "EMC_FREQ 06%"))
    rejects("a timestamp without a time", orin.split(" ", 2)[0] + " " + orin.split(" ", 2)[2])
    rejects("an engine value that is no form", orin.replace("APE 174", "APE fast"))


def test_format_from_values():
    # Fields built by hand (no original text) print as tegrastats does.
    temp = ref.Field("temp", "cpu", "TC/MAXC", dict(cur=40.3, max=-256.0))
    check("canonical temperature text", ref.format([temp]) == "cpu@40.3C/-256C", ref.format([temp]))
    f = fields_of("jp7-thor-r392-lesomnus-1")
    t, = find(f, "temp", "cpu")
    t.values["cur"] = 49.0  # a changed value wins over the stale text
    check("a changed temperature prints its value", "cpu@49C/34.843C" in ref.format(f))
    try:
        ref.format([ref.Field("rail", "VDD_IN", "cur-avg", dict(cur=1, avg=1, max=None))])
        check("format rejects an unknown form", False)
    except ValueError:
        check("format rejects an unknown form", True)


def test_read_like_scripts():
    script = os.path.join(HERE, "read_like_scripts.py")
    text = "".join(row["line"] + "\n" for row in ROWS)
    run = subprocess.run([sys.executable, script], input=text, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    check("read_like_scripts reads all real lines (exit 0)", run.returncode == 0, run.stderr)
    out = [json.loads(x) for x in run.stdout.splitlines()]
    check("read_like_scripts: one object per line", len(out) == len(ROWS), len(out))
    for row, got in zip(ROWS, out):
        f = ref.parse(row["line"])
        ram, = find(f, "ram")
        cores = find(f, "cpu")[0].values["cores"]
        check("%s: scripts read RAM" % row["id"], (got["ram_used_mb"], got["ram_total_mb"]) == (ram.values["used"], ram.values["total"]))
        check("%s: scripts read the CPUs" % row["id"], got["cpus"] == cores)
        check("%s: scripts see every temperature" % row["id"], len(got["temps"]) == len(find(f, "temp")))
        check("%s: scripts see every rail" % row["id"], len(got["rails"]) == len(find(f, "rail")))
        gpu = find(f, "gr3d", "GR3D_FREQ")
        check("%s: scripts read the GPU" % row["id"], got["gpu"] == (gpu[0].values if gpu else None))
    bad = subprocess.run([sys.executable, script], input="SWAP 0/1MB (cached 0MB)\n", stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    check("read_like_scripts: exit 1 on a line without RAM", bad.returncode == 1 and "no RAM" in bad.stderr, bad.stderr)
    # The reference as a script: every real line parses, prints back, gives a shape.
    mod = subprocess.run([sys.executable, os.path.join(HERE, "tegrastats_ref.py")], input=text,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    check("tegrastats_ref.py as a script accepts the real lines", mod.returncode == 0, mod.stderr)


def main():
    tests = [test_data_file, test_round_trip, test_values_nano, test_values_thor_r392, test_values_orin_r35,
             test_values_other, test_shapes, test_generations, test_garbled, test_format_from_values,
             test_read_like_scripts]
    for test in tests:
        try:
            test()
        except Exception:  # a crash in one group is a failure, the others still run
            check(test.__name__ + " ran to the end", False, traceback.format_exc())
    print("%d passed, %d failed" % (COUNTS["passed"], COUNTS["failed"]))
    return 1 if COUNTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
