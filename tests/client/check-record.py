#!/usr/bin/python3
"""Checks a file written by `jetsonctl record` the way its users read it:
csv with Python's csv module, jsonl line by line, trace as one JSON
document of Chrome Trace Events. Usage:
  check-record.py FORMAT FILE INTERVAL_MS MIN_SPAN_S GLOB[,GLOB...] [MARK...]
Every column must match one of the globs (and each glob some column),
times must increase, and the MARKs must appear in that order. The records'
own times must span MIN_SPAN_S seconds and, in csv and jsonl (a record a
tick; a trace holds an event only when values moved), lie INTERVAL_MS
apart: the median spacing within 20 %, so that ticks a busy machine could
not make (gaps in the times) pass, and a wrong rate does not (where more
than half were missed, the single-tick intervals' median). How many
records came is printed, not checked: that is the machine's figure. Exits
1 with a message on the first problem."""
import csv
import fnmatch
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import assert_period  # noqa: E402  the tests' one rule for periods


def fail(msg):
    print("check-record: " + msg, file=sys.stderr)
    sys.exit(1)


def check_columns(columns, globs):
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


def read_csv(path, globs):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if header[0] != "time_s" or header[-1] != "mark":
        fail("csv header %r" % header[:2])
    check_columns(header[1:-1], globs)
    times, marks = [], []
    for row in rows[1:]:
        if len(row) != len(header):
            fail("row of %d fields, header has %d" % (len(row), len(header)))
        times.append(float(row[0]))
        for v in row[1:-1]:
            if v:
                float(v)
        if row[-1]:
            marks.extend(row[-1].split("; "))
    return times, marks


def read_jsonl(path, globs):
    times, marks, columns = [], [], None
    with open(path) as f:
        for line in f:
            obj = json.loads(line)
            keys = [k for k in obj if k not in ("time_s", "mark")]
            if columns is None:
                columns = keys
                check_columns(columns, globs)
            elif keys != columns:
                fail("keys changed between records")
            for k in keys:
                if obj[k] is not None and not isinstance(obj[k], (int, float)):
                    fail("%s is %r" % (k, obj[k]))
            times.append(obj["time_s"])
            if "mark" in obj:
                marks.extend(obj["mark"].split("; "))
    return times, marks


def read_trace(path, globs):
    with open(path) as f:
        doc = json.load(f)
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
    check_columns(sorted(columns), globs)
    # One timestamp per record: the counters written at a record share it.
    times = sorted({e["ts"] for e in counters})
    marks = [e["name"] for e in sorted((e for e in events if e["ph"] == "i"), key=lambda e: e["ts"])]
    return times, marks


def main():
    fmt, path, interval_ms, min_span_s = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    globs, want_marks = sys.argv[5].split(","), sys.argv[6:]
    times, marks = {"csv": read_csv, "jsonl": read_jsonl, "trace": read_trace}[fmt](path, globs)
    if fmt == "trace":
        times = [t / 1e6 for t in times]   # trace event times are in µs
    span, median = check_times(times, None if fmt == "trace" else interval_ms / 1e3, min_span_s)
    if marks != want_marks:
        fail("marks %r, want %r" % (marks, want_marks))
    print("figure: record %s: %d records over %.3f s%s, %d marks" % (
        fmt, len(times), span, "" if median is None else ", %.3f ms apart" % (median * 1e3), len(marks)))


main()
