#!/usr/bin/python3
"""Checks a file written by `jetsonctl record` the way its users read it:
csv with Python's csv module, jsonl line by line, trace as one JSON
document of Chrome Trace Events. Usage:
  check-record.py [--time=MODE] [--wall=START,END] FORMAT FILE INTERVAL_MS MIN_SPAN_S GLOB[,GLOB...] [MARK...]
MODE is record's --time (default unix): csv and jsonl must carry the
absolute time it names after time_s (time_unix_s, time_utc) or none
(relative). Absolute times must lie within START..END (seconds since the
epoch, the run's wall-clock window), increase strictly and stay time_s
plus one origin (to the µs they are written with); a trace's origin in
otherData must lie in the window and its two spellings agree.
Every column must match one of the globs (and each glob some column),
times must increase, and the MARKs must appear in that order. The records'
own times must span MIN_SPAN_S seconds and, in csv and jsonl (a record a
tick; a trace holds an event only when values moved), lie INTERVAL_MS
apart: the median spacing within 20 %, so that ticks a busy machine could
not make (gaps in the times) pass, and a wrong rate does not (where more
than half were missed, the single-tick intervals' median). How many
records came is printed, not checked: that is the machine's figure.
In csv and jsonl, each tier with a column has its time column
(medium_time_s, slow_time_s, dgpu.N_time_s: not matched against the globs),
before the next record's time_s (the tiers read in parallel: a tier's
reading may begin while the fast one runs) and never going back, and a column's value
changes only where its tier's time does (the tier table of
python/jetsond/tiers.py, which must agree with jetsond's); with
--tier-period=TIER:MS,... the distinct times of TIER lie MS apart (the same
rule as the records'). Exits 1 with a message on the first problem."""
import calendar
import csv
import datetime
import fnmatch
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import assert_period  # noqa: E402  the tests' one rule for periods
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from jetsond.tiers import tier_of  # noqa: E402


ABSOLUTE = {"unix": "time_unix_s", "iso": "time_utc", "relative": None}
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def fail(msg):
    print("check-record: " + msg, file=sys.stderr)
    sys.exit(1)


def parse_absolute(mode, v):
    """An absolute time as written, in seconds since the epoch."""
    if mode == "unix":
        if isinstance(v, str):
            v = float(v)
        if not isinstance(v, (int, float)):
            fail("time_unix_s %r is not a number" % (v,))
        return float(v)
    if not isinstance(v, str) or not ISO.match(v):
        fail("time_utc %r is not RFC 3339 UTC with microseconds" % (v,))
    d = datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S.%fZ")
    return calendar.timegm(d.timetuple()) + d.microsecond / 1e6


def check_absolute(times, absolute, wall):
    """ABSOLUTE[i] is TIMES[i] (seconds from the start) plus one origin,
    to the µs written; all within WALL (start, end) and increasing."""
    if len(absolute) != len(times):
        fail("%d absolute times for %d records" % (len(absolute), len(times)))
    for a, b in zip(absolute, absolute[1:]):
        if not b > a:
            fail("absolute time does not increase: %r then %r" % (a, b))
    origin = absolute[0] - times[0]
    for t, a in zip(times, absolute):
        if abs(a - t - origin) > 2e-6:
            fail("absolute time %.6f is not time_s %.9f plus the origin %.6f" % (a, t, origin))
    if wall and not (wall[0] - 1e-6 <= absolute[0] and absolute[-1] <= wall[1] + 1e-6):
        fail("absolute times %.6f..%.6f outside the run's wall clock %.6f..%.6f" % (
            absolute[0], absolute[-1], wall[0], wall[1]))


def time_name(tier):
    return tier + "_time_s"


def check_columns(columns, globs, tier_times=True):
    """TIER_TIMES: csv and jsonl, where each tier has its time column (a
    trace has them as its events' times)."""
    tiers = {tier_of(c) for c in columns if not c.endswith("_time_s")} - {None}
    for t in tiers:
        if tier_times and time_name(t) not in columns:
            fail("no %s column for %s's keys" % (time_name(t), t))
    columns = [c for c in columns if not (c.endswith("_time_s") and c[:-len("_time_s")] in tiers)]
    for c in columns:
        if not any(fnmatch.fnmatchcase(c, g) for g in globs):
            fail("column %r matches none of %s" % (c, globs))
    for g in globs:
        if not any(fnmatch.fnmatchcase(c, g) for c in columns):
            fail("glob %r matched no column" % g)


def check_times(times, interval_s, min_span_s):
    if not times:
        fail("no records")
    for a, b in zip(times, times[1:]):
        if not b > a:
            fail("time does not increase: %r then %r" % (a, b))
    span = times[-1] - times[0]
    if span < min_span_s:
        fail("records span %.3f s, want at least %.3f s" % (span, min_span_s))
    if interval_s is None:
        return span, None
    gaps = sorted(b - a for a, b in zip(times, times[1:]))
    if not gaps:
        fail("one record: no spacing to check")
    try:
        assert_period(gaps, interval_s, "records (s)")
    except AssertionError as e:
        fail(str(e))
    median = gaps[len(gaps) // 2]
    return span, median


def read_csv(path, globs, mode):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    name = ABSOLUTE[mode]
    first = 2 if name else 1
    if header[0] != "time_s" or header[-1] != "mark" or (name and header[1] != name):
        fail("csv header %r, want time_s, %s, ..., mark" % (header[:2], name))
    check_columns(header[first:-1], globs)
    times, absolute, marks = [], [], []
    table = {c: [] for c in header[first:-1]}
    for row in rows[1:]:
        if len(row) != len(header):
            fail("row of %d fields, header has %d" % (len(row), len(header)))
        times.append(float(row[0]))
        if name:
            absolute.append(parse_absolute(mode, row[1]))
        for c, v in zip(header[first:-1], row[first:-1]):
            table[c].append(float(v) if v else math.nan)
        if row[-1]:
            marks.extend(row[-1].split("; "))
    return times, absolute, marks, table


def read_jsonl(path, globs, mode):
    times, absolute, marks, columns, table = [], [], [], None, {}
    name = ABSOLUTE[mode]
    with open(path) as f:
        for line in f:
            obj = json.loads(line)
            members = list(obj)
            if members[:1 + bool(name)] != ["time_s"] + ([name] if name else []):
                fail("record starts with %r, want time_s then %s" % (members[:2], name))
            keys = [k for k in obj if k not in ("time_s", "time_unix_s", "time_utc", "mark")]
            if len(keys) + 1 + bool(name) + ("mark" in obj) != len(members):
                fail("record has another time: %r" % members[:3])
            if columns is None:
                columns = keys
                check_columns(columns, globs)
            elif keys != columns:
                fail("keys changed between records")
            for k in keys:
                if obj[k] is not None and not isinstance(obj[k], (int, float)):
                    fail("%s is %r" % (k, obj[k]))
                table.setdefault(k, []).append(math.nan if obj[k] is None else float(obj[k]))
            times.append(obj["time_s"])
            if name:
                absolute.append(parse_absolute(mode, obj[name]))
            if "mark" in obj:
                marks.extend(obj["mark"].split("; "))
    return times, absolute, marks, table


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def check_tiers(times, table, periods):
    """Each tier's time column against the records' times, each column's
    values against its tier's time, and the distinct times' spacing where
    PERIODS ({tier: seconds}) asks."""
    for c, vs in table.items():
        if c.endswith("_time_s"):
            continue
        tier = tier_of(c)
        if tier is None:
            continue
        tt = table[time_name(tier)]
        for i in range(1, len(vs)):
            if same(tt[i], tt[i - 1]) and not same(vs[i], vs[i - 1]):
                fail("%s changed from %r to %r at time_s %.6f, but %s stayed %r: a value of another reading" % (
                    c, vs[i - 1], vs[i], times[i], time_name(tier), tt[i]))
    for c, tt in table.items():
        if not c.endswith("_time_s"):
            continue
        distinct = []
        for i, t in enumerate(tt):
            if math.isnan(t):
                continue
            if i + 1 < len(times) and t >= times[i + 1]:
                fail("%s %.6f is not before the next record's time_s %.6f" % (c, t, times[i + 1]))
            if distinct and t < distinct[-1]:
                fail("%s went back from %.6f to %.6f" % (c, distinct[-1], t))
            if not distinct or t != distinct[-1]:
                distinct.append(t)
        period = periods.get(c[:-len("_time_s")])
        if period is not None:
            gaps = sorted(b - a for a, b in zip(distinct, distinct[1:]))
            if len(gaps) < 2:
                fail("%s: %d readings, too few to tell their spacing" % (c, len(distinct)))
            try:
                assert_period(gaps, period, c + " (s)")
            except AssertionError as e:
                fail(str(e))
            if gaps[0] < period / 2:
                fail("%s: two readings %.1f ms apart, want %.1f ms" % (c, gaps[0] * 1e3, period * 1e3))
            print("figure: %s: %d readings, %.1f ms apart" % (c, len(distinct), gaps[len(gaps) // 2] * 1e3))


def read_trace(path, globs, mode, wall):
    with open(path) as f:
        doc = json.load(f)
    other = doc["otherData"]
    origin = parse_absolute("unix", other["realtime_origin_unix_s"])
    if abs(parse_absolute("iso", other["realtime_origin"]) - origin) > 1e-6:
        fail("otherData's origins differ: %r" % other)
    if wall and not wall[0] - 1e-6 <= origin <= wall[1] + 1e-6:
        fail("realtime origin %.6f outside the run's wall clock %.6f..%.6f" % (origin, wall[0], wall[1]))
    events = doc["traceEvents"]
    counters = [e for e in events if e["ph"] == "C"]
    if not counters:
        fail("no counter events")
    columns = set()
    for e in counters:
        for arg, v in e["args"].items():
            if not isinstance(v, (int, float)) or math.isnan(v):
                fail("counter %s %s = %r" % (e["name"], arg, v))
            columns.add(e["name"] + "." + arg if e["name"] != "value" else arg)
    check_columns(sorted(columns), globs, tier_times=False)
    # One timestamp per record: the counters written at a record share it.
    times = sorted({e["ts"] for e in counters})
    marks = [e["name"] for e in sorted((e for e in events if e["ph"] == "i"), key=lambda e: e["ts"])]
    return times, [], marks


def main():
    args, mode, wall, periods = sys.argv[1:], "unix", None, {}
    while args and args[0].startswith("--"):
        opt, _, value = args.pop(0).partition("=")
        if opt == "--time":
            mode = value
        elif opt == "--wall":
            wall = tuple(float(x) for x in value.split(","))
        elif opt == "--tier-period":
            for part in value.split(","):
                tier, _, ms = part.rpartition(":")
                periods[tier] = float(ms) / 1e3
        else:
            fail("unknown option " + opt)
    fmt, path, interval_ms, min_span_s = args[0], args[1], float(args[2]), float(args[3])
    globs, want_marks = args[4].split(","), args[5:]
    if fmt == "trace":
        times, absolute, marks = read_trace(path, globs, mode, wall)
        times = [t / 1e6 for t in times]   # trace event times are in µs
    else:
        times, absolute, marks, table = {"csv": read_csv, "jsonl": read_jsonl}[fmt](path, globs, mode)
        check_tiers(times, table, periods)
    span, median = check_times(times, None if fmt == "trace" else interval_ms / 1e3, min_span_s)
    if absolute:
        check_absolute(times, absolute, wall)
    if marks != want_marks:
        fail("marks %r, want %r" % (marks, want_marks))
    print("figure: record %s: %d records over %.3f s%s, %d marks" % (
        fmt, len(times), span, "" if median is None else ", %.3f ms apart" % (median * 1e3), len(marks)))


main()
