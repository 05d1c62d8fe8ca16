"""Capture streams (introspection/capture.md): ``Recorder`` writes one to a
trace file at up to 1 kHz; ``read_trace`` reads it back as numpy arrays.

A trace file is the capture stream exactly as jetsond wrote it (its header,
then its fixed-size records), followed, once the recording ends, by a
trailer: the sync points (uint64 id, uint64 CLOCK_MONOTONIC ns each), their
labels as a JSON list, and a 48-byte footer (uint64 sync count, uint64
label bytes, uint64 start ns, uint64 stop ns, uint64 dropped records, magic
"JDTRACE1"). A recording cut short (the process killed) has no trailer and
still reads: every whole record, no sync points."""

import json
import math
import os
import select
import struct
import threading
import time
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from .errors import InvalidArgs, JetsondError, NotRunning
from .tiers import MEDIUM_MIN_USEC, MEDIUM_OPTION, SLOW_MIN_USEC, SLOW_OPTION, TIER_TIMES, TIME_PREFIX, check_rate, \
    fresh, stats, tier_of, trace_readings, trace_stats

MAGIC = b"JDCAPTUR"
# The column jetsond adds when asked for it by this name (introspection/capture.md):
# the ticks the engine missed just before each record. Not a sample key: the
# Recorder asks for it, and read_trace gives it as "missed", not as a column.
MISSED_TICKS = "capture.missed_ticks"
TRAILER_MAGIC = b"JDTRACE1"
_HEAD = struct.Struct("=8sIIIIQq")
_FOOTER = struct.Struct("=QQQQQ8s")
_SYNC = struct.Struct("=QQ")


def monotonic_ns() -> int:
    """CLOCK_MONOTONIC in ns, the clock of the stream's time_ns."""
    f = getattr(time, "monotonic_ns", None)
    if f is not None:  # Python 3.7+
        return int(f())
    return int(time.monotonic() * 1e9)


Header = NamedTuple("Header", [("version", int), ("header_size", int), ("columns", List[str]),
                               ("record_size", int), ("interval_ns", int), ("realtime_offset_ns", int)])


def parse_header(data: bytes) -> Header:
    """The capture header at the start of DATA (which must hold all of it:
    header_size bytes). Raises ValueError for anything else."""
    if len(data) < _HEAD.size:
        raise ValueError("short capture header")
    magic, version, header_size, n, record_size, interval_ns, offset = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise ValueError("not a jetsond capture (magic %r)" % (magic,))
    if version != 1:
        raise ValueError("capture version %d is not supported (1 is)" % version)
    if header_size % 8 or header_size < _HEAD.size or len(data) < header_size or record_size != 16 + 8 * n:
        raise ValueError("malformed capture header")
    names = data[_HEAD.size:header_size].split(b"\0")[:n]
    if len(names) != n:
        raise ValueError("capture header has %d names for %d columns" % (len(names), n))
    return Header(version, header_size, [x.decode("utf-8") for x in names], record_size, interval_ns, offset)


Record = NamedTuple("Record", [("time_ns", int), ("dropped", int), ("values", Tuple[float, ...])])


def parse_records(data: bytes, n: int) -> Iterator[Record]:
    rec = struct.Struct("=QQ%dd" % n)
    for off in range(0, len(data) - rec.size + 1, rec.size):
        t, d, *v = rec.unpack_from(data, off)
        yield Record(t, d, tuple(v))


class Trace(NamedTuple("Trace", [("header", Header), ("records", bytes),
                                 ("syncs", List[Tuple[int, int, Optional[str]]]),
                                 ("start_ns", int), ("stop_ns", int), ("dropped", int)])):
    """A trace file's parts, without numpy."""

    def iter_records(self) -> Iterator[Record]:
        return parse_records(self.records, len(self.header.columns))

    def time_unix_s(self, time_ns: int) -> float:
        """A record's TIME_NS as seconds since the epoch: read_trace's
        ``time_unix_s`` (the header's one realtime offset added)."""
        return (time_ns + self.header.realtime_offset_ns) / 1e9

    def readings(self, key: str) -> List[Tuple[int, float]]:
        """KEY's readings, each once: (CLOCK_MONOTONIC ns of the reading,
        value) for every record that holds a new reading of its tier (all
        records for a fast key, or from a jetsond without tier times); NaN
        left out."""
        cols = self.header.columns
        i = cols.index(key)
        tier = tier_of(key)
        j = cols.index(TIME_PREFIX + tier) if tier and TIME_PREFIX + tier in cols else None
        recs = list(self.iter_records())
        if j is None:
            return [(r.time_ns, r.values[i]) for r in recs if r.values[i] == r.values[i]]
        new = fresh([r.values[j] for r in recs])
        return [(int(r.values[j]), r.values[i]) for r, f in zip(recs, new) if f and r.values[i] == r.values[i]]

    def stats(self, key: str) -> Dict[str, Optional[float]]:
        """count, mean, min, max, p50, p95, p99 of KEY over its readings,
        each once however many records repeat it (readings())."""
        return stats(v for _, v in self.readings(key))


def load_trace(path: str) -> Trace:
    """A trace file (pure Python). Records cut off at the end (a killed
    recorder) are left out."""
    with open(path, "rb") as f:
        data = f.read()
    h = parse_header(data)
    end = len(data)
    syncs = []  # type: List[Tuple[int, int, Optional[str]]]
    start = stop = dropped = 0
    if end - h.header_size >= _FOOTER.size and data[-8:] == TRAILER_MAGIC:
        count, label_len, start, stop, dropped, _ = _FOOTER.unpack_from(data, end - _FOOTER.size)
        table = end - _FOOTER.size - label_len - count * _SYNC.size
        if table < h.header_size:
            raise ValueError("malformed trace trailer")
        labels = json.loads(data[end - _FOOTER.size - label_len:end - _FOOTER.size].decode("utf-8") or "[]")
        for i in range(count):
            sid, t = _SYNC.unpack_from(data, table + i * _SYNC.size)
            syncs.append((sid, t, labels[i] if i < len(labels) else None))
        end = table
    body = data[h.header_size:end]
    body = body[:len(body) - len(body) % h.record_size]
    if not stop:
        dropped = sum(r.dropped for r in parse_records(body, len(h.columns)))
    return Trace(h, body, syncs, start, stop, dropped)


def read_trace(path: str) -> Dict[str, Any]:
    """A trace file as numpy arrays, one entry per record in each:

    - ``time``: seconds since the recording started (float64; the
      stream's own CLOCK_MONOTONIC timestamps),
    - ``time_ns``: the records' CLOCK_MONOTONIC ns (uint64),
    - ``time_unix_s``: the records' absolute time, seconds since the epoch
      (float64): time_ns plus the header's ``realtime_offset_ns``, one
      CLOCK_REALTIME - CLOCK_MONOTONIC pair jetsond read when the capture
      opened (so an NTP step during the run does not bend it); jetsonctl
      record's ``time_unix_s`` is computed the same way,
    - ``sync_id``: the latest sync() at or before the record (uint64; 0
      before the first),
    - ``dropped``: records jetsond dropped just before this one (uint64),
    - ``missed``: ticks the engine missed just before this one (uint64; a
      busy machine: the gap in ``time``), None from a jetsond without it,
    - one float64 array per column, named as the key ("cpu.load",
      "power.total"), NaN where the value was absent; a medium or slow
      key's value repeats in the records between its tier's readings,
    - ``tier_time_s``: {tier: float64 array}, per tier with columns
      ("medium", "slow", "dgpu.0"): when the reading the record holds was
      taken, seconds since the start (NaN: none), as jetsonctl record's
      medium_time_s column; ``fresh``: {tier: bool array}, the records
      that hold a new reading of it (empty dicts from a jetsond without
      tier times),
    - ``medium_time_s``, ``slow_time_s`` (fastnvmetrics' names): the
      times of the tier's distinct readings, one per reading (so as long
      as the readings, not the records); None without tier times;

    and ``columns`` (the keys), ``interval_s``, ``realtime_offset_ns``
    (add to time_ns for wall-clock time), ``start_unix_s`` (the absolute
    time of ``time`` 0), ``syncs`` ([(id, time_s,
    label)]), ``dropped_total`` and ``missed_total`` (None without it).
    ``trace_readings(data, key)`` gives a key's readings each once, and
    ``trace_stats(data, key)`` statistics over them. Needs numpy."""
    try:
        import numpy as np
    except ImportError:
        raise ImportError("jetsond.read_trace needs numpy (apt install python3-numpy, or pip install numpy)")
    t = load_trace(path)
    n = len(t.header.columns)
    dtype = np.dtype([("time_ns", "<u8"), ("dropped", "<u8"), ("values", "<f8", (n,))])
    recs = np.frombuffer(t.records, dtype=dtype)
    time_ns = recs["time_ns"].copy()
    start = t.start_ns or (int(time_ns[0]) if len(time_ns) else 0)
    sync_times = np.array([s[1] for s in t.syncs], dtype=np.uint64)
    out = {
        "time": (time_ns.astype(np.int64) - start) / 1e9,
        "time_ns": time_ns,
        "time_unix_s": (time_ns.astype(np.int64) + t.header.realtime_offset_ns) / 1e9,
        "start_unix_s": (start + t.header.realtime_offset_ns) / 1e9,
        "sync_id": np.searchsorted(sync_times, time_ns, side="right").astype(np.uint64),
        "dropped": recs["dropped"].copy(),
        "columns": list(t.header.columns),
        "interval_s": t.header.interval_ns / 1e9,
        "realtime_offset_ns": t.header.realtime_offset_ns,
        "syncs": [(sid, (st - start) / 1e9, label) for sid, st, label in t.syncs],
        "dropped_total": t.dropped,
        "missed": None,
        "missed_total": None,
        "tier_time_s": {},
        "fresh": {},
        "medium_time_s": None,
        "slow_time_s": None,
    }  # type: Dict[str, Any]
    for i, name in enumerate(t.header.columns):
        if name == MISSED_TICKS:
            out["missed"] = recs["values"][:, i].astype(np.uint64)
            out["missed_total"] = int(out["missed"].sum())
            out["columns"].remove(name)
        elif name.startswith(TIME_PREFIX):
            tier = name[len(TIME_PREFIX):]
            ns = recs["values"][:, i]
            out["columns"].remove(name)
            out["tier_time_s"][tier] = (ns - start) / 1e9
            prev = np.empty_like(ns)  # type: Any
            prev[0], prev[1:] = np.nan, ns[:-1]
            out["fresh"][tier] = ~np.isnan(ns) & (ns != prev)
            if tier in ("medium", "slow"):
                out[tier + "_time_s"] = out["tier_time_s"][tier][out["fresh"][tier]]
        else:
            out[name] = recs["values"][:, i].copy()
    return out


class Capture:
    """An open capture stream: OpenCapture on a connection of its own; read
    whole records with ``read(timeout)``; close() ends it."""

    def __init__(self, interval_s: float, keys: Sequence[str] = (), address: Optional[str] = None,
                 medium_s: Optional[float] = None, slow_s: Optional[float] = None) -> None:
        """MEDIUM_S and SLOW_S: the medium and slow tiers' rates of this
        capture's own, in seconds (OpenCaptureWithOptions; None: every
        reading jetsond takes)."""
        from ._bus import Bus
        usec = int(round(interval_s * 1e6))
        if not 1000 <= usec <= 3600000000:
            raise InvalidArgs("capture interval %r s is out of range (0.001 to 3600)" % (interval_s,))
        options = {}  # type: Dict[str, Tuple[str, int]]
        medium = check_rate("medium interval", medium_s, MEDIUM_MIN_USEC)
        slow = check_rate("slow interval", slow_s, SLOW_MIN_USEC)
        if medium is not None:
            options[MEDIUM_OPTION] = ("t", medium)
        if slow is not None:
            options[SLOW_OPTION] = ("t", slow)
        self._bus = Bus(address, enable_fds=True)
        try:
            # A jetsond from before TIER_TIMES, or MISSED_TICKS too,
            # refuses the name; the keys' own error, if any, comes from
            # the last call.
            extras = ([MISSED_TICKS, TIER_TIMES], [MISSED_TICKS], [])  # type: Tuple[List[str], ...]
            for extra in extras:
                asked = (list(keys) or ["*"]) + extra if extra else list(keys)
                try:
                    if options:
                        fd, columns = self._bus.jcall("Metrics", "OpenCaptureWithOptions", "tasa{sv}",
                                                      (usec, asked, options))
                    else:
                        fd, columns = self._bus.jcall("Metrics", "OpenCapture", "tas", (usec, asked))
                    break
                except InvalidArgs:
                    if not extra:
                        raise
        except BaseException:
            self._bus.close()
            raise
        self.fd = fd.to_raw_fd()
        # The stream's columns; the missed-ticks and tier time ones are no
        # keys. Asked for last, they come last: the keys' columns keep
        # their stream indices.
        self.missed_index = list(columns).index(MISSED_TICKS) if MISSED_TICKS in columns else None
        # {tier: stream index} of the tier time columns.
        self.time_index = {c[len(TIME_PREFIX):]: i for i, c in enumerate(columns) if c.startswith(TIME_PREFIX)}
        self.columns = [c for c in columns if c != MISSED_TICKS and not c.startswith(TIME_PREFIX)]
        raw = self._read_exactly(_HEAD.size)
        (_, _, header_size, _, _, _, _) = _HEAD.unpack(raw)
        self.header_bytes = raw + self._read_exactly(header_size - _HEAD.size)
        self.header = parse_header(self.header_bytes)
        self._partial = b""

    def _read_exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = os.read(self.fd, n - len(data))
            if not chunk:
                raise NotRunning("the capture stream ended before its header")
            data += chunk
        return data

    def read(self, timeout: Optional[float]) -> Optional[bytes]:
        """Whole records that arrived within TIMEOUT seconds (b"" if none);
        None at the end of the stream."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return b""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return None
        data = self._partial + chunk
        cut = len(data) - len(data) % self.header.record_size
        self._partial = data[cut:]
        return data[:cut]

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self._bus.close()


class _TraceWriter:
    """What the blocking and the asyncio recorders share: the trace file,
    the records' accounting (counted and dropped from the records' own
    fields), the sync points and the trailer."""

    def __init__(self, path: str, rate_hz: float, keys: Sequence[str], address: Optional[str],
                 warmup: int, medium_hz: Optional[float] = None, slow_hz: Optional[float] = None) -> None:
        self.path, self.rate_hz, self.keys, self.address, self.warmup = path, rate_hz, list(keys), address, warmup
        self.medium_hz, self.slow_hz = medium_hz, slow_hz
        self.sample_count = 0
        self.dropped = 0
        self.missed = 0  # ticks the engine missed (0 from a jetsond that does not count them)
        self.columns = []  # type: List[str]
        self._syncs = []  # type: List[Tuple[int, int, Optional[str]]]
        self._last_ns = 0
        self._start_ns = 0
        self._stop_at = None  # type: Optional[int]
        self._error = None  # type: Optional[BaseException]
        self._cond = threading.Condition()
        self._capture = None  # type: Optional[Capture]
        self._file = None  # type: Any

    def _check_rate(self) -> float:
        if not 0 < self.rate_hz <= 1000:
            raise InvalidArgs("rate_hz %r is out of range (up to 1000)" % (self.rate_hz,))
        for name, hz, top in (("medium_hz", self.medium_hz, 1e6 / MEDIUM_MIN_USEC),
                              ("slow_hz", self.slow_hz, 1e6 / SLOW_MIN_USEC)):
            if hz is not None and not (isinstance(hz, (int, float)) and 1 / 3600.0 <= hz <= top):
                raise InvalidArgs("%s %r is out of range (1/3600 to %g)" % (name, hz, top))
        return 1.0 / self.rate_hz

    def _capture_args(self) -> Tuple[Optional[float], Optional[float]]:
        """The medium and slow rates as Capture's periods in seconds."""
        return (None if self.medium_hz is None else 1.0 / self.medium_hz,
                None if self.slow_hz is None else 1.0 / self.slow_hz)

    def _opened(self, capture: Capture) -> None:
        self._capture = capture
        self.columns = capture.columns
        self._file = open(self.path, "wb")
        self._file.write(capture.header_bytes)

    def _take(self, data: bytes) -> None:
        """Whole records DATA: to the file, and counted."""
        if not data:
            return
        assert self._capture is not None
        size = self._capture.header.record_size
        self._file.write(data)
        dropped = sum(_TIME_DROPPED.unpack_from(data, o)[1] for o in range(0, len(data), size))
        last = _TIME_DROPPED.unpack_from(data, len(data) - size)[0]
        missed = 0
        m = self._capture.missed_index
        if m is not None:
            missed = int(sum(_DOUBLE.unpack_from(data, o + 16 + 8 * m)[0] for o in range(0, len(data), size)))
        with self._cond:
            self.sample_count += len(data) // size
            self.dropped += dropped
            self.missed += missed
            self._last_ns = last
            self._cond.notify_all()

    def _caught_up(self) -> bool:
        """Stopping, and the records up to the stop are in (or 2 s passed)."""
        with self._cond:
            return self._stop_at is not None and (self._last_ns >= self._stop_at or
                                                  monotonic_ns() > self._stop_at + 2 * 10**9)

    def _failed(self, e: BaseException) -> None:
        with self._cond:
            self._error = e
            self._cond.notify_all()

    def sync(self, label: Optional[str] = None) -> int:
        """Marks this moment (CLOCK_MONOTONIC, the stream's clock); returns
        its id: 1, 2, 3, ... Records from it on carry this id in
        read_trace()'s sync_id."""
        t = monotonic_ns()
        with self._cond:
            sid = len(self._syncs) + 1
            self._syncs.append((sid, t, label))
        return sid

    def _finish(self) -> None:
        """Closes the capture, writes the trailer and closes the file."""
        assert self._capture is not None
        self._capture.close()
        labels = json.dumps([s[2] for s in self._syncs]).encode("utf-8")
        for sid, t, _ in self._syncs:
            self._file.write(_SYNC.pack(sid, t))
        self._file.write(labels)
        self._file.write(_FOOTER.pack(len(self._syncs), len(labels), self._start_ns, self._stop_at or 0,
                                      self.dropped, TRAILER_MAGIC))
        self._file.close()
        if self._error is not None and not isinstance(self._error, NotRunning):
            raise self._error


_TIME_DROPPED = struct.Struct("=QQ")
_DOUBLE = struct.Struct("=d")


class Recorder(_TraceWriter):
    """fastnvmetrics' recorder over jetsond: ``with Recorder("run.trace") as
    r:`` opens a capture of KEYS (glob patterns; default: every numeric
    key) at RATE_HZ (up to 1000), the medium tier (rails, engines) at
    MEDIUM_HZ (up to 100) and the slow one (temperatures, fans) at SLOW_HZ
    (up to 10) if given (fastnvmetrics' fast_hz, medium_hz, slow_hz;
    default: every reading jetsond takes, 100 and 10 Hz at 1 kHz), with
    the tier times read_trace() tells the readings by; waits for its first WARMUP records and
    writes every record to PATH as it comes (memory stays bounded however
    long it runs); ``r.sync()`` marks a point on the stream's own clock;
    leaving the block takes the records up to that moment and closes the
    file. ``sample_count`` and ``dropped`` are safe to read while it runs."""

    def __init__(self, path: str, rate_hz: float = 1000, keys: Sequence[str] = (),
                 address: Optional[str] = None, warmup: int = 10, medium_hz: Optional[float] = None,
                 slow_hz: Optional[float] = None) -> None:
        _TraceWriter.__init__(self, path, rate_hz, keys, address, warmup, medium_hz, slow_hz)
        self._thread = None  # type: Optional[threading.Thread]

    def start(self) -> "Recorder":
        interval = self._check_rate()
        self._start_ns = monotonic_ns()
        self._opened(Capture(interval, self.keys, self.address, *self._capture_args()))
        self._thread = threading.Thread(target=self._run, name="jetsond-recorder", daemon=True)
        self._thread.start()
        self.wait_for_warmup()
        return self

    def wait_for_warmup(self, timeout: float = 30.0) -> None:
        """Blocks until the first WARMUP records have arrived."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.sample_count >= self.warmup or self._error is not None,
                                       timeout):
                raise NotRunning("no capture records from jetsond within %g s" % timeout)
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        cap = self._capture
        assert cap is not None
        try:
            while not self._caught_up():
                data = cap.read(0.05)
                if data is None:
                    raise NotRunning("jetsond closed the capture stream")
                self._take(data)
        except BaseException as e:
            self._failed(e)

    def stop(self) -> None:
        """Takes the records up to now, then closes the capture and writes
        the trailer."""
        if self._thread is None:
            return
        with self._cond:
            self._stop_at = monotonic_ns()
        self._thread.join()
        self._thread = None
        self._finish()

    def __enter__(self) -> "Recorder":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class AsyncRecorder(_TraceWriter):
    """The Recorder for asyncio programs: ``async with AsyncRecorder(path)
    as r:``, the same file, ``sync()``, ``sample_count`` and ``dropped``.
    OpenCapture runs once in the loop's executor (jeepney's asyncio
    connection cannot receive the stream's descriptor); the stream itself is
    read by the event loop (``add_reader``), no thread."""

    def __init__(self, path: str, rate_hz: float = 1000, keys: Sequence[str] = (),
                 address: Optional[str] = None, warmup: int = 10, medium_hz: Optional[float] = None,
                 slow_hz: Optional[float] = None) -> None:
        _TraceWriter.__init__(self, path, rate_hz, keys, address, warmup, medium_hz, slow_hz)
        self._loop = None  # type: Any
        self._changed = None  # type: Any

    async def start(self) -> "AsyncRecorder":
        import asyncio
        interval = self._check_rate()
        self._loop = asyncio.get_event_loop()
        self._changed = asyncio.Event()
        self._start_ns = monotonic_ns()
        self._opened(await self._loop.run_in_executor(None, Capture, interval, self.keys, self.address,
                                                      *self._capture_args()))
        assert self._capture is not None
        self._loop.add_reader(self._capture.fd, self._readable)
        try:
            await self._until(lambda: self.sample_count >= self.warmup, 30.0)
        except BaseException:
            await self.stop()
            raise
        if self.sample_count < self.warmup:
            await self.stop()
            raise NotRunning("no capture records from jetsond within 30 s")
        return self

    def _readable(self) -> None:
        assert self._capture is not None
        try:
            data = self._capture.read(0)
            if data is None:
                raise NotRunning("jetsond closed the capture stream")
            self._take(data)
        except BaseException as e:
            self._loop.remove_reader(self._capture.fd)
            self._failed(e)
        self._changed.set()

    async def _until(self, done: Any, timeout: float) -> None:
        """Waits until DONE() or an error, at most TIMEOUT seconds."""
        import asyncio
        deadline = self._loop.time() + timeout
        while not done() and self._error is None and self._loop.time() < deadline:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), max(0.0, min(0.1, deadline - self._loop.time())))
            except asyncio.TimeoutError:
                pass
        if self._error is not None and not isinstance(self._error, NotRunning):
            raise self._error

    async def stop(self) -> None:
        """Takes the records up to now, then closes the capture and writes
        the trailer."""
        if self._capture is None or self._capture.fd < 0:
            return
        with self._cond:
            self._stop_at = monotonic_ns()
        try:
            await self._until(self._caught_up, 3.0)
        finally:
            self._loop.remove_reader(self._capture.fd)
            self._finish()

    async def __aenter__(self) -> "AsyncRecorder":
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()


__all__ = ["Recorder", "AsyncRecorder", "Capture", "read_trace", "load_trace", "parse_header", "parse_records", "monotonic_ns",
           "trace_readings", "trace_stats", "JetsondError", "math"]
