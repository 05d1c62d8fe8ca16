#!/usr/bin/python3
"""The package's tier logic, no bus (python/jetsond/tiers.py): its tier
table against the C one of include/jetsond-dbus.h, and statistics that count
each medium, slow or GPU reading once however many records repeat it, in a
trace file (load_trace, read_trace), and in measure's GPU means. Run by
run.py units."""

import math
import os
import re
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "python"))

from jetsond import capture, errors, tiers  # noqa: E402
from jetsond.measure import Stats  # noqa: E402
from test_units import import_numpy, make_header, make_records, run_tests  # noqa: E402


def test_table_matches_c():
    """The groups of the medium and slow tiers are the C header's, the
    daemon's and jetsonctl's rule (capture.md)."""
    with open(os.path.join(SOURCE, "include", "jetsond-dbus.h")) as f:
        text = f.read()
    for tier in ("medium", "slow"):
        m = re.search(r"static const char \*const %s\[\] = \{([^}]*)\}" % tier, text)
        assert m, "no %s table in jetsond-dbus.h" % tier
        groups = re.findall(r'"([a-z_]+)"', m.group(1))
        assert groups, tier
        for g in groups:
            assert tiers.tier_of(g + ".x") == tier, (g, tiers.tier_of(g + ".x"))
        assert frozenset(groups) == getattr(tiers, "_" + tier.upper()), (tier, groups)
    assert tiers.tier_of("uptime") == "slow" and tiers.tier_of("cpu.load") is None
    assert tiers.tier_of("dgpu.3.load") == "dgpu.3" and tiers.tier_of("process.77.dgpu.1.sm") == "dgpu.1"
    assert tiers.tier_of("process.77.cpu") == "slow" and tiers.tier_of("dgpux.1.load") is None
    assert tiers.time_column("power.total") == "capture.time.medium" and tiers.time_column("ram.used") is None


# 1 ms records of a slow key: 40 read and repeated in 9 records, 80 read
# and held for 1, five times over. Each reading once: a mean of 60; the
# records would say 44.
def slow_rows():
    rows, t, n = [], 10**9, 0
    for reading in range(10):
        value, repeats = (80.0, 1) if reading % 2 else (40.0, 9)
        read_at = float(t - 300000)  # read a little before the record
        for _ in range(repeats):
            rows.append((t, 0, [float(n), value, read_at]))
            t += 10**6
            n += 1
    return rows


COLUMNS = ["cpu.load", "temp.cpu", "capture.time.slow"]


def write(path, rows, columns):
    with open(path, "wb") as f:
        f.write(make_header(columns) + make_records(rows))


def test_pure_stats():
    assert tiers.fresh([1.0, 1.0, 2.0, float("nan"), 2.0, 3.0]) == [True, False, True, False, True, True]
    s = tiers.stats(tiers.readings([40, 40, 80, 40, 40], [1, 1, 2, 3, 3]))
    assert s["count"] == 3 and s["mean"] == 160 / 3 and s["min"] == 40 and s["max"] == 80
    assert tiers.stats([])["mean"] is None
    assert tiers.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    for bad in (0.005, 0, -1, float("nan"), 3601):
        try:
            tiers.check_rate("medium interval", bad, tiers.MEDIUM_MIN_USEC)
        except errors.InvalidArgs:
            continue
        raise AssertionError("accepted a medium interval of %r s" % bad)
    assert tiers.check_rate("slow", 0.5, tiers.SLOW_MIN_USEC) == 500000
    assert tiers.check_rate("slow", None, tiers.SLOW_MIN_USEC) is None


def test_trace_counts_each_reading_once():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.trace")
        rows = slow_rows()
        write(p, rows, COLUMNS)
        t = capture.load_trace(p)
        s = t.stats("temp.cpu")
        assert s["count"] == 10 and s["mean"] == 60.0, s
        per_record = sum(r[2][1] for r in rows) / len(rows)
        assert per_record == 44.0  # what counting the repeats would say
        assert t.stats("cpu.load")["count"] == len(rows)  # a fast key: every record
        assert [v for _, v in t.readings("temp.cpu")][:3] == [40.0, 80.0, 40.0]
        # A trace from a jetsond without tier times: every record counts.
        write(p, [(a, b, v[:2]) for a, b, v in rows], COLUMNS[:2])
        assert capture.load_trace(p).stats("temp.cpu")["mean"] == 44.0


def test_read_trace_tiers():
    np = import_numpy()
    if np is None:
        return
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.trace")
        rows = slow_rows()
        write(p, rows, COLUMNS)
        data = capture.read_trace(p)
        assert data["columns"] == ["cpu.load", "temp.cpu"] and "capture.time.slow" not in data
        assert list(data["tier_time_s"]) == ["slow"] and data["medium_time_s"] is None
        assert int(data["fresh"]["slow"].sum()) == 10 and len(data["slow_time_s"]) == 10
        assert abs(data["slow_time_s"][1] - (9 * 1e-3 - 0.3e-3)) < 1e-9, data["slow_time_s"][:2]
        times, values = tiers.trace_readings(data, "temp.cpu")
        assert len(times) == 10 and list(values[:2]) == [40.0, 80.0]
        assert tiers.trace_stats(data, "temp.cpu")["mean"] == 60.0
        assert tiers.trace_stats(data, "cpu.load")["count"] == len(rows)
        assert np.isclose(tiers.trace_stats(data, "temp.cpu")["p50"] or 0, 60.0)


def test_measure_gpu_readings_once():
    """As the C unit test: a GPU load of 90 held for 9 records and 10 for
    1, five times: a mean of 50 over the readings, not 82."""
    st = Stats(["dgpu.0.load", "capture.missed_ticks", "capture.time.dgpu.0"], 0)
    t = 0
    for reading in range(10):
        load, repeats = (10.0, 1) if reading % 2 else (90.0, 9)
        for _ in range(repeats):
            t += 10**6
            st.record(t, [load, 0.0, float(reading * 10**7)])
    st.record(t + 10**6, [math.nan, 0.0, math.nan])
    st.finish(t + 2 * 10**6)
    whole = st.window_dict(st.whole)  # type: Any
    percent = whole["dgpus"]["dgpu.0"]["load_percent"]
    assert percent["mean"] == 50.0 and percent["max"] == 90.0, percent


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
