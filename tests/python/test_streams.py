"""The package's sample streams against jetsond on a private system bus: a
client gets the period it asked for and no other client's. samples() at
0.1 s comes ~10 a second (SampleAt) while a connection that only listens to
Sample keeps getting it at jetsond's DefaultInterval; compact samples come
through ValuesAt; at the DefaultInterval nothing is asked of jetsond (jtop
and the Collector included), and a slower period is asked for too. A bus
monitor sees what the package sends: the match rule before the request.
Run by meson as: python3 -m pytest test_streams.py (JETSOND in the
environment)."""

import asyncio
import os
import sys
import threading
import time
from typing import Any, List, Tuple

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack, assert_period, wait_for  # noqa: E402

import jetsond  # noqa: E402
from jetsond.jtop import jtop  # noqa: E402

JETSOND = os.environ["JETSOND"]
METRICS = "org.jetsond.Jetson1.Metrics"
SIGNALS = "type='signal',sender='org.jetsond.Jetson1',interface='%s'" % METRICS
BUS = ("/org/freedesktop/DBus", "org.freedesktop.DBus", "org.freedesktop.DBus")


@pytest.fixture(scope="module")
def stack():
    """A still AGX Orin at jetsond's own DefaultInterval (1 s)."""
    with Stack(JETSOND, None) as s:
        s.start_daemon()
        yield s


@pytest.fixture
def simulated():
    """A simulated AGX Orin (values move, so rates such as cpu.load are
    there)."""
    with Stack(JETSOND, None, simulate=True) as s:
        s.start_daemon()
        yield s


class Listener:
    """A connection of its own that records (monotonic time, member, arg0
    or None, sender, body) of what RULES let through, from a thread: as a
    plain client (AddMatch) or, with MONITOR, as a bus monitor that also
    sees the method calls other clients send (the bus lets root)."""

    def __init__(self, address: str, rules: List[str], monitor: bool = False) -> None:
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        self.got = []  # type: List[Tuple[float, str, Any, Any, Tuple[Any, ...]]]
        self._stop = threading.Event()
        self.conn = open_dbus_connection(bus=address)
        bus = DBusAddress(*BUS)
        if monitor:
            reply = self.conn.send_and_get_reply(new_method_call(
                DBusAddress(BUS[0], BUS[1], "org.freedesktop.DBus.Monitoring"), "BecomeMonitor", "asu", (rules, 0)))
            if reply.header.message_type.name == "error":
                self.conn.close()
                pytest.skip("cannot monitor the bus: %s" % (reply.body,))
        else:
            for r in rules:
                self.conn.send_and_get_reply(new_method_call(bus, "AddMatch", "s", (r,)))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from jeepney.low_level import HeaderFields
        while not self._stop.is_set():
            try:
                msg = self.conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            except (OSError, EOFError):
                return
            f = msg.header.fields
            body = tuple(msg.body)
            arg0 = body[0] if body and isinstance(body[0], str) else None
            self.got.append((time.monotonic(), f.get(HeaderFields.member), arg0, f.get(HeaderFields.sender), body))

    def members(self, *names: str) -> List[Tuple[float, str, Any, Any, Tuple[Any, ...]]]:
        return [g for g in self.got if g[1] in names]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.conn.close()


def calls_monitor(address: str) -> Listener:
    """A monitor of Metrics' method calls, the AddMatch calls and Metrics'
    signals."""
    return Listener(address, ["type='method_call',interface='%s'" % METRICS,
                              "type='method_call',interface='org.freedesktop.DBus',member='AddMatch'",
                              "type='signal',interface='%s'" % METRICS], monitor=True)


def gaps_of(stamps: List[float]) -> List[float]:
    return [b - a for a, b in zip(stamps, stamps[1:])]


def take(it: Any, n: int) -> List[Any]:
    """N samples of IT, then IT closed (its connection, so its request,
    gone)."""
    out = []
    for s in it:
        out.append(s)
        if len(out) == n:
            break
    it.close()
    return out


def test_fast_stream_leaves_sample_at_default(stack):
    """samples(interval=0.1) gets ~10 samples a second by their timestamps,
    while a passive connection matching member='Sample' gets Sample at the
    DefaultInterval only, during the same seconds."""
    with jetsond.Jetson(stack.address) as j:
        default = j.default_interval()
    assert default >= 0.5, "this test wants the DefaultInterval well above 0.1 s, not %g s" % default
    passive = Listener(stack.address, [SIGNALS + ",member='Sample'"])
    try:
        t0 = time.monotonic()
        stamps = [s.timestamp for s in take(jetsond.Jetson(stack.address).samples(interval=0.1, timeout=10), 41)]
        t1 = time.monotonic()
    finally:
        passive.close()
    assert_period(gaps_of(stamps), 0.1, "samples(interval=0.1)")
    during = [g for g in passive.members("Sample") if t0 <= g[0] <= t1]
    print("figure: %d samples at 0.1 s and %d passive Sample signals in %.2f s" % (len(stamps), len(during), t1 - t0))
    # Were the Sample signal made faster by the 0.1 s subscription, the
    # passive listener would have had ~40.
    assert len(during) <= (t1 - t0) / default + 2, during
    assert len(during) >= 2, "no Sample at the DefaultInterval while a client subscribed at 0.1 s"
    passive_gaps = gaps_of([g[4][0] / 1e6 for g in passive.members("Sample")])
    assert min(passive_gaps) >= default * 0.5, passive_gaps
    assert_period(passive_gaps, default, "passive Sample")


def test_compact_through_values_at(stack):
    """samples(interval=0.1, compact=True): the ValuesAt match (arg0 the
    period) added before SubscribeValues(100000), ValuesAt at 0.1 s, the
    numeric keys by name, no other signal taken."""
    mon = calls_monitor(stack.address)
    try:
        got = take(jetsond.Jetson(stack.address).samples(interval=0.1, compact=True, timeout=10), 21)
        time.sleep(0.3)
    finally:
        mon.close()
    assert all("ram.total" in s and "cpu.0.governor" not in s for s in got)
    assert_period(gaps_of([s.timestamp for s in got]), 0.1, "compact samples at 0.1 s")
    (request,) = mon.members("SubscribeValues", "Subscribe")
    assert request[1] == "SubscribeValues" and request[4] == (100000,), request
    matches = [g for g in mon.members("AddMatch") if g[3] == request[3] and g[0] <= request[0]
               and "member='ValuesAt'" in g[2] and "arg0='100000'" in g[2]]
    assert matches, "no ValuesAt match before SubscribeValues: %r" % mon.members("AddMatch")
    at = [g for g in mon.members("ValuesAt") if g[2] == "100000"]
    assert len(at) >= 21 and not mon.members("Values"), mon.members("Values")
    stamps = {g[4][1] for g in at}
    assert all(int(round(s.timestamp * 1e6)) in stamps for s in got)  # every sample was a ValuesAt


def test_default_interval_asks_nothing(stack):
    """At the DefaultInterval (given or left out) samples(), on_sample(),
    jtop and the Collector listen to Sample and call nothing of Metrics
    but what they read; a slower period is asked for (Subscribe) and comes
    as its SampleAt."""
    with jetsond.Jetson(stack.address) as j:
        default = j.default_interval()
        mon = calls_monitor(stack.address)
        try:
            assert len(take(j.samples(interval=default, timeout=10), 2)) == 2
            assert len(take(j.samples(timeout=10), 1)) == 1
            got = []  # type: List[Any]
            sub = j.on_sample(got.append, interval=default)
            wait_for(lambda: got, 5, "a callback")
            sub.stop()
            with jtop(interval=default, address=stack.address) as jetson:
                seen = jetson._seq
                wait_for(lambda: jetson._seq > seen, 5, "a jtop update")
            c = jetsond.Collector(j, interval=default)
            with c(tag="t"):
                wait_for(lambda: any("/host/" in k for k in c.collect()), 5, "a collected sample")
            c.stop()
            time.sleep(0.3)
            asked = mon.members("Subscribe", "SubscribeValues")
            assert not asked, "asked at the DefaultInterval: %r" % (asked,)
            slow = default * 2
            t0 = time.monotonic()
            stamps = [s.timestamp for s in take(j.samples(interval=slow, timeout=10), 2)]
            time.sleep(0.3)
        finally:
            mon.close()
    (request,) = mon.members("Subscribe", "SubscribeValues")
    usec = int(round(slow * 1e6))
    assert request[1] == "Subscribe" and request[4] == (usec,), request
    # Nothing reads faster than the DefaultInterval here: a period may be
    # a tick (one DefaultInterval) late or early.
    assert abs(stamps[1] - stamps[0] - slow) <= default * 1.05, stamps
    at = [g for g in mon.members("SampleAt") if g[0] >= t0]
    assert at and all(g[2] == str(usec) for g in at), at


def test_asyncio_streams(stack):
    """AsyncJetson: 0.1 s from SampleAt, then compact from ValuesAt on the
    same connection (the first iterator's end not undoing the second's
    request), while a passive listener's Sample stays at the default."""
    passive = Listener(stack.address, [SIGNALS + ",member='Sample'"])

    async def main() -> Tuple[List[float], List[float], float, float]:
        async with jetsond.AsyncJetson(stack.address) as board:
            t0 = time.monotonic()
            fast = []  # type: List[float]
            async for s in board.samples(interval=0.1):
                fast.append(s.timestamp)
                if len(fast) == 21:
                    break
            compact = []  # type: List[float]
            async for s in board.samples(interval=0.1, compact=True):
                compact.append(s.timestamp)
                if len(compact) == 21:
                    break
            return fast, compact, t0, time.monotonic()

    try:
        fast, compact, t0, t1 = asyncio.run(asyncio.wait_for(main(), 60))
    finally:
        passive.close()
    assert_period(gaps_of(fast), 0.1, "async samples at 0.1 s")
    assert_period(gaps_of(compact), 0.1, "async compact samples at 0.1 s")
    with jetsond.Jetson(stack.address) as j:
        default = j.default_interval()
    during = [g for g in passive.members("Sample") if t0 <= g[0] <= t1]
    assert len(during) <= (t1 - t0) / default + 2, during


def test_samples_at_interval(simulated):
    """samples(interval=0.05) at 0.05 s, Interval (how often the board is
    read) 0.05 s while it runs and back to the default after; on_sample()
    at 0.02 s."""
    with jetsond.Jetson(simulated.address) as j:
        default = j.interval()
        stamps = []
        it = j.samples(interval=0.05, timeout=10)
        for s in it:
            stamps.append(s.timestamp)
            if len(stamps) == 1:
                assert j.interval() == 0.05
            if len(stamps) == 21:
                break
        it.close()
        gaps = sorted(gaps_of(stamps))
        print("figure: median gap %.4f s between samples asked at 0.05 s" % gaps[len(gaps) // 2])
        assert_period(gaps, 0.05, "samples asked at 0.05 s")
        wait_for(lambda: j.interval() == default, 5, "Interval back to its default")
        got = []  # type: List[Any]
        sub = j.on_sample(got.append, interval=0.02)
        wait_for(lambda: len(got) >= 5, 2, "five callbacks")
        sub.stop()
        assert sub.error is None and "cpu.load" in got[0]


def test_compact_samples(simulated):
    """samples(compact=True) at the interval asked, the numeric keys of the
    sample by name, and Interval back after."""
    with jetsond.Jetson(simulated.address) as j:
        default = j.interval()
        stamps = []
        it = j.samples(interval=0.05, compact=True, timeout=10)
        for s in it:
            stamps.append(s.timestamp)
            assert "cpu.load" in s and "ram.total" in s and "cpu.0.governor" not in s
            if len(stamps) == 21:
                break
        it.close()
        assert_period(gaps_of(stamps), 0.05, "compact samples asked at 0.05 s")
        wait_for(lambda: j.interval() == default, 5, "Interval back to its default")
