"""jetsond.AsyncRecorder (and AsyncJetson.recorder) against jetsond on a
simulated AGX Orin: 1 kHz from the event loop with no thread, checked by
the records' own timestamps (median spacing within 20 % of 1 ms; counts
and gaps printed as figure: lines, never held to the wall clock), sync
ids in order, nothing dropped for it, and the same records as a blocking
Recorder reading its own stream over the same time."""

import asyncio
import math
import os
import statistics
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack, assert_period, wait_for  # noqa: E402

import jetsond  # noqa: E402

JETSOND = os.environ["JETSOND"]
KEYS = ["cpu.load", "gpu.load", "power.total"]


@pytest.fixture(scope="module")
def simulated():
    with Stack(JETSOND, None, simulate=True) as s:
        s.start_daemon()
        # cpu.load needs two readings of /proc/stat.
        with jetsond.Jetson(s.address) as j:
            wait_for(lambda: all(k in j.snapshot() for k in KEYS), 30, "the recorded keys")
        yield s


def spacing(t):
    gaps = [int(b) - int(a) for a, b in zip(t[:-1], t[1:])]
    return statistics.median(gaps) / 1e6, max(gaps) / 1e6


def test_async_recorder_1khz(simulated, tmp_path):
    path, sync_path = str(tmp_path / "async.trace"), str(tmp_path / "sync.trace")
    ticks = []

    async def run():
        async def ticker():  # the loop stays free while it records
            while True:
                ticks.append(asyncio.get_event_loop().time())
                await asyncio.sleep(0.05)

        tick = asyncio.ensure_future(ticker())
        async with jetsond.AsyncJetson(simulated.address) as board:
            async with board.recorder(path, rate_hz=1000, keys=KEYS) as r:
                assert r.sample_count >= 10  # warmed up
                ids = []
                for _ in range(4):
                    await asyncio.sleep(1.0)
                    ids.append(r.sync("phase"))
        tick.cancel()
        return r, ids

    with jetsond.Recorder(sync_path, rate_hz=1000, keys=KEYS, address=simulated.address) as blocking:
        loop = asyncio.new_event_loop()
        try:
            r, ids = loop.run_until_complete(run())
        finally:
            loop.close()
    assert ids == [1, 2, 3, 4]
    data = jetsond.read_trace(path)
    t = data["time_ns"]
    n = len(t)
    median_ms, max_gap_ms = spacing(t)
    span = (int(t[-1]) - int(t[0])) / 1e9
    print("figure: AsyncRecorder %d records over %.3f s of the stream's clock, median spacing %.3f ms, "
          "max gap %.1f ms, %d dropped; the loop ran %d ticks meanwhile"
          % (n, span, median_ms, max_gap_ms, data["dropped_total"], len(ticks)))
    assert_period([int(b) - int(a) for a, b in zip(t[:-1], t[1:])], 1000000, "AsyncRecorder at 1 kHz (ns)")
    # capture.missed_ticks: every 1 ms slot of the span is a record or a
    # tick jetsond says it missed (each record within half a slot of its own).
    missed = data["missed"]
    assert missed is not None and data["missed_total"] == r.missed == int(missed[1:].sum()) + int(missed[0])
    after_gap = int((missed[1:] > 0).sum())
    slots = span * 1000
    print("figure: AsyncRecorder: %d ticks missed by the engine, after %d of the gaps" % (r.missed, after_gap))
    assert abs(slots - (n - 1 + int(missed[1:].sum()))) <= 1 + 0.5 * after_gap + 0.01 * slots, (slots, n, r.missed)
    assert data["columns"] == KEYS and "capture.missed_ticks" not in data
    assert n == r.sample_count and data["columns"] == KEYS
    assert all(int(b) > int(a) for a, b in zip(t[:-1], t[1:]))
    assert data["dropped_total"] == r.dropped == int(data["dropped"].sum()) == 0
    sid = list(data["sync_id"])
    assert sid == sorted(sid) and sid[0] == 0 and sid[-1] == 4
    assert [s[0] for s in data["syncs"]] == [1, 2, 3, 4] and all(s[2] == "phase" for s in data["syncs"])
    for k in KEYS:
        assert not math.isnan(data[k][-1])
    # The blocking Recorder's own stream over the same time: where both have
    # a record of the same tick, the values are the same.
    other = jetsond.read_trace(sync_path)
    at = {int(tt): i for i, tt in enumerate(other["time_ns"])}
    common = [(i, at[int(tt)]) for i, tt in enumerate(t) if int(tt) in at]
    print("figure: %d of %d records also in the blocking Recorder's stream (%d records)"
          % (len(common), n, len(other["time_ns"])))
    assert len(common) >= n // 2
    for k in KEYS:
        for i, j in common:
            a, b = data[k][i], other[k][j]
            assert (math.isnan(a) and math.isnan(b)) or a == b, (k, a, b)
    assert blocking.sample_count == len(other["time_ns"])


def test_async_recorder_refuses_a_key_that_matches_nothing(simulated, tmp_path):
    async def run():
        async with jetsond.AsyncRecorder(str(tmp_path / "x.trace"), keys=["no.such.*"], address=simulated.address):
            pass

    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(jetsond.InvalidArgs):
            loop.run_until_complete(run())
    finally:
        loop.close()


def test_async_recorder_bad_rate(tmp_path):
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(jetsond.InvalidArgs):
            loop.run_until_complete(jetsond.AsyncRecorder(str(tmp_path / "x.trace"), rate_hz=2000).start())
    finally:
        loop.close()


def test_recorder_tier_rates(simulated, tmp_path):
    """fastnvmetrics' medium_hz and slow_hz: the rails read at 20 Hz and the
    temperatures at 2 Hz for this recording (by the readings' own times),
    each reading counted once by trace_stats; a rate past a tier's floor is
    refused before any capture."""
    path = str(tmp_path / "tiers.trace")
    keys = ["cpu.load", "power.total", "temp.*"]
    with jetsond.Recorder(path, rate_hz=1000, keys=keys, medium_hz=20, slow_hz=2, address=simulated.address):
        import time
        time.sleep(2.5)
    data = jetsond.read_trace(path)
    assert sorted(data["tier_time_s"]) == ["medium", "slow"]
    for name, period in (("medium_time_s", 0.05), ("slow_time_s", 0.5)):
        t = data[name]
        gaps = sorted(float(b - a) for a, b in zip(t[:-1], t[1:]))
        print("figure: %s: %d readings, median %.1f ms apart" % (name, len(t), statistics.median(gaps) * 1e3))
        assert_period(gaps, period, name + " (s)")
        assert gaps[0] >= period / 2, (name, gaps[0])
    s = jetsond.trace_stats(data, "power.total")
    assert s["count"] == len(data["medium_time_s"]) and s["count"] < len(data["time"]) / 10, s
    temp = [k for k in data["columns"] if k.startswith("temp.")][0]
    assert jetsond.trace_stats(data, temp)["count"] == len(data["slow_time_s"])
    for bad in ({"medium_hz": 200}, {"slow_hz": 20}, {"medium_hz": 0}):
        with pytest.raises(jetsond.InvalidArgs):
            jetsond.Recorder(str(tmp_path / "x.trace"), keys=keys, address=simulated.address, **bad).start()


def test_recorder_takes_a_documented_key_the_board_lacks(simulated, tmp_path):
    """dgpu.0.load (an AGX Orin has no NVIDIA GPU on PCIe) and a rail the
    board does not have are documented keys: columns, NaN in every record.
    A key Metrics.xml does not document is refused."""
    path = str(tmp_path / "absent.trace")
    keys = ["power.total", "dgpu.0.load", "power.VDD_NOPE.power"]
    with jetsond.Recorder(path, rate_hz=100, keys=keys, address=simulated.address) as r:
        assert r.columns == keys
    data = jetsond.read_trace(path)
    assert len(data["time_ns"]) >= 10
    assert all(math.isnan(v) for v in data["dgpu.0.load"]) and all(math.isnan(v) for v in data["power.VDD_NOPE.power"])
    assert not any(math.isnan(v) for v in data["power.total"])
    with pytest.raises(jetsond.InvalidArgs) as e:
        jetsond.Recorder(str(tmp_path / "x.trace"), keys=["dgpu.0.nope"], address=simulated.address).start()
    assert "not a numeric key that Metrics.xml documents" in str(e.value)
