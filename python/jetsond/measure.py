"""``jetsond.measure()``: energy, power, loads, temperatures and this
process tree's resources around a block of code, per phase, from a capture
stream; the statistics are jetsonctl measure's (client/profiling/measure_stats.c):
each power counts over the interval that ends with the record holding it,
and the last power known runs on to the end of a phase."""

import fnmatch
import math
import re
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .capture import Capture, load_trace, monotonic_ns, parse_records
from .proctree import TreeFollower, TreeUsage, _ProcUsage, pid_alive

LOADS = ("cpu.load", "gpu.load", "emc.load")
FREQS = ("gpu.freq", "emc.freq")
# Each discrete GPU's (dgpu.N.FIELD): the mean and the maximum of each.
DGPU_FIELDS = ("load", "freq", "sm_freq", "mem_freq", "temp", "mem_used")
# Throttle reasons (throttle.reason.NAME.active) and jetsond's own count of
# over-current events (issue 39): time held per reason, events per window.
THROTTLE_REASONS = ("over_current", "thermal_cpu", "thermal_gpu", "thermal_soc")
OC_COUNTED = "throttle.oc_events_counted"
# A discrete GPU's clock event reasons (dgpu.N.throttle, NVML's bitmask),
# named as dgpu.N.throttle_reasons names them: time held per bit. The GPU
# idle is no throttle (not counted); application and display clocks are
# settings, timed apart; every other bit, unnamed ones included, throttles.
NVML_REASONS = ("idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal",
                "hw_power_brake", "display_clocks")
NVML_IDLE, NVML_SETTINGS = {0}, {1, 8}
PATTERNS = ("power.*.power", "dgpu.*.power", "dgpu.*.energy", "power.total", "cpu.load", "gpu.load", "emc.load",
            "gpu.freq", "emc.freq", "temp.*", "throttle.reason.*.active",
            OC_COUNTED, "dgpu.*.throttle") + tuple("dgpu.*." + f for f in DGPU_FIELDS)
_DGPU_COLUMN = re.compile(r"dgpu\.([0-9]+)\.(%s|throttle)$" % "|".join(DGPU_FIELDS))


def nvml_reason_name(bit: int) -> str:
    """BIT's name as dgpu.N.throttle_reasons spells it, or its hex value."""
    return NVML_REASONS[bit] if bit < len(NVML_REASONS) else "0x%x" % (1 << bit)


def _none(x: float) -> Optional[float]:
    return None if x is None or not math.isfinite(x) else x


class Window:
    """The statistics of one phase (or the whole run)."""

    def __init__(self, name: str, start_ns: int, n_power: int, n_temp: int, n_dgpu: int = 0,
                 oc_base: float = math.nan) -> None:
        self.name = name
        self.start_ns = self.end_ns = self.last_ns = start_ns
        self.records = 0
        self.energy_mj = [0.0] * n_power
        self.peak_mw = [math.nan] * n_power
        self.last_mw = [math.nan] * n_power
        self.load_sum = [0.0] * len(LOADS)
        self.load_n = [0] * len(LOADS)
        self.load_max = [math.nan] * len(LOADS)
        self.freq_max = [math.nan] * len(FREQS)
        self.temp_max = [math.nan] * n_temp
        # Per discrete GPU, per field of DGPU_FIELDS.
        self.dgpu_sum = [[0.0] * len(DGPU_FIELDS) for _ in range(n_dgpu)]
        self.dgpu_n = [[0] * len(DGPU_FIELDS) for _ in range(n_dgpu)]
        self.dgpu_max = [[math.nan] * len(DGPU_FIELDS) for _ in range(n_dgpu)]
        # Per discrete GPU: seconds each reason bit held, any throttling
        # bit held, and the records had a bitmask.
        self.dgpu_reason_s = [[0.0] * 64 for _ in range(n_dgpu)]
        self.dgpu_throttled_s = [0.0] * n_dgpu
        self.dgpu_known_s = [0.0] * n_dgpu
        # A discrete GPU's energy counter where it stepped in the window:
        # (time_ns, mJ) of the first and last step, per power column.
        self.counter_first = [None] * n_power  # type: List[Optional[Tuple[int, float]]]
        self.counter_last = [None] * n_power  # type: List[Optional[Tuple[int, float]]]
        self.processes = {}  # type: Dict[str, Any]
        self.throttled_s = [0.0] * len(THROTTLE_REASONS)
        self.oc_base, self.oc_last = oc_base, math.nan

    @property
    def oc_events(self) -> float:
        """Over-current events counted in the window; NaN without a counter."""
        if math.isnan(self.oc_last):
            return math.nan
        return self.oc_last - self.oc_base if self.oc_last >= self.oc_base else self.oc_last

    @property
    def seconds(self) -> float:
        return (self.end_ns - self.start_ns) / 1e9


def _max(a: float, b: float) -> float:
    return b if math.isnan(a) or b > a else a


class Stats:
    """jetsonctl measure's integration over records (pure: no bus)."""

    def __init__(self, columns: Sequence[str], start_ns: int) -> None:
        self.power_col, self.power_name = [], []  # type: List[int], List[str]
        self.temp_col, self.temp_name = [], []  # type: List[int], List[str]
        for i, c in enumerate(columns):
            if c.startswith("power.") and c.endswith(".power") and len(c) > 12:
                self.power_col.append(i)
                self.power_name.append(c[6:-6])
            elif c.startswith("dgpu.") and c.endswith(".power") and len(c) > 11:
                self.power_col.append(i)
                self.power_name.append(c[:-6])
            elif c.startswith("temp.") and len(c) > 5:
                self.temp_col.append(i)
                self.temp_name.append(c[5:])
        if "power.total" in columns:
            self.power_col.append(list(columns).index("power.total"))
            self.power_name.append("total")
        # A discrete GPU's counter (dgpu.N.energy) beside its power.
        self.energy_col = [list(columns).index(n + ".energy") if n.startswith("dgpu.") and n + ".energy" in columns
                           else -1 for n in self.power_name]
        self.counter_mj = [math.nan] * len(self.power_col)
        self.load_col = [list(columns).index(k) if k in columns else -1 for k in LOADS]
        self.freq_col = [list(columns).index(k) if k in columns else -1 for k in FREQS]
        # Discrete GPUs in NVML's order, a column per field or -1.
        found = [(int(m.group(1)), m.group(2), i)
                 for i, m in enumerate(_DGPU_COLUMN.match(c) for c in columns) if m]
        indexes = sorted({n for n, _, _ in found})
        self.dgpu_name = ["dgpu.%d" % n for n in indexes]
        self.dgpu_col = [[-1] * len(DGPU_FIELDS) for _ in indexes]
        self.dgpu_throttle_col = [-1] * len(indexes)
        # Each GPU's tier time column: a reading the records repeat counts
        # once in its means (-1: a jetsond without tier times, every record).
        cols = list(columns)
        self.dgpu_time_col = [cols.index("capture.time." + n) if "capture.time." + n in cols else -1
                              for n in self.dgpu_name]
        self.dgpu_time_seen = [math.nan] * len(indexes)
        self.dgpu_fresh = [True] * len(indexes)
        for n, f, i in found:
            if f == "throttle":
                self.dgpu_throttle_col[indexes.index(n)] = i
            else:
                self.dgpu_col[indexes.index(n)][DGPU_FIELDS.index(f)] = i
        self.reason_col = [list(columns).index("throttle.reason.%s.active" % r)
                           if "throttle.reason.%s.active" % r in columns else -1 for r in THROTTLE_REASONS]
        self.oc_col = list(columns).index(OC_COUNTED) if OC_COUNTED in columns else -1
        self.oc_seen = math.nan
        self.whole = self._window("whole", start_ns)
        self.phases = [self._window("start", start_ns)]
        self.settled = 0

    def _window(self, name: str, start_ns: int) -> Window:
        return Window(name, start_ns, len(self.power_col), len(self.temp_col), len(self.dgpu_col), self.oc_seen)

    def _account(self, w: Window, t: int, v: Sequence[float]) -> None:
        dt = (t - w.last_ns) / 1e9 if t > w.last_ns else 0.0
        for i, c in enumerate(self.power_col):
            x = v[c]
            if not math.isfinite(x):
                continue
            w.energy_mj[i] += x * dt
            w.peak_mw[i] = _max(w.peak_mw[i], x)
            w.last_mw[i] = x
        for i, c in enumerate(self.load_col):
            if c >= 0 and math.isfinite(v[c]):
                w.load_sum[i] += v[c]
                w.load_n[i] += 1
                w.load_max[i] = _max(w.load_max[i], v[c])
        for i, c in enumerate(self.freq_col):
            if c >= 0 and math.isfinite(v[c]):
                w.freq_max[i] = _max(w.freq_max[i], v[c])
        for i, c in enumerate(self.temp_col):
            if math.isfinite(v[c]):
                w.temp_max[i] = _max(w.temp_max[i], v[c])
        for g, cols in enumerate(self.dgpu_col):
            for f, c in enumerate(cols):
                if c >= 0 and math.isfinite(v[c]) and self.dgpu_fresh[g]:
                    w.dgpu_sum[g][f] += v[c]
                    w.dgpu_n[g][f] += 1
                    w.dgpu_max[g][f] = _max(w.dgpu_max[g][f], v[c])
        # An over-current event holds the clocks down for the reading that
        # counts it, which the records can miss (a capture's missed tick
        # under load); the counted events' step they cannot, so a record
        # whose count rose is over-current time too.
        oc_now = v[self.oc_col] if self.oc_col >= 0 else math.nan
        oc_step = math.isfinite(oc_now) and math.isfinite(self.oc_seen) and oc_now > self.oc_seen
        for i, c in enumerate(self.reason_col):
            if (c >= 0 and v[c] > 0.5) or (oc_step and THROTTLE_REASONS[i] == "over_current"):
                w.throttled_s[i] += dt
        for g, c in enumerate(self.dgpu_throttle_col):
            if c >= 0:
                self._account_reasons(w, g, v[c], dt)
        oc = v[self.oc_col] if self.oc_col >= 0 else math.nan
        if math.isfinite(oc):
            if math.isnan(w.oc_base):
                w.oc_base = oc  # the first record: what came before it is unknown
            w.oc_last = oc
        w.records += 1
        if t > w.last_ns:
            w.last_ns = t

    @staticmethod
    def _account_reasons(w: Window, g: int, x: float, dt: float) -> None:
        """GPU G's bitmask X over DT, as the SoC's reasons count; no bitmask
        (NaN: the GPU unread or lost) is unknown time, counted nowhere."""
        if not math.isfinite(x) or x < 0 or x >= 2.0 ** 64:
            return
        mask = int(x)
        w.dgpu_known_s[g] += dt
        throttled = False
        for b in range(64):
            if mask >> b & 1 and b not in NVML_IDLE:
                w.dgpu_reason_s[g][b] += dt
                throttled = throttled or b not in NVML_SETTINGS
        if throttled:
            w.dgpu_throttled_s[g] += dt

    def _close(self, w: Window, end_ns: int, last_mw: Sequence[float]) -> None:
        dt = (end_ns - w.last_ns) / 1e9 if end_ns > w.last_ns else 0.0
        for i, x in enumerate(last_mw):
            if math.isfinite(x):
                w.energy_mj[i] += x * dt
        w.last_ns = w.end_ns = max(end_ns, w.start_ns)
        # A counter that stepped twice or more: its mean power between
        # the steps over the whole window (it is exact where the power key
        # is an average; issue 35).
        for i, (first, last) in enumerate(zip(w.counter_first, w.counter_last)):
            if first and last and last[0] > first[0]:
                w.energy_mj[i] = (last[1] - first[1]) / ((last[0] - first[0]) / 1e9) * w.seconds

    def _counters(self, t: int, v: Sequence[float]) -> None:
        # A step is where the counter was read, as near as the records
        # tell; the value before the first step was read at an unknown time.
        for i, c in enumerate(self.energy_col):
            if c < 0 or not math.isfinite(v[c]):
                continue
            before, self.counter_mj[i] = self.counter_mj[i], v[c]
            if not math.isfinite(before) or v[c] == before:
                continue
            for w in (self.whole, self.phases[-1]):
                if v[c] < before:  # the driver reloaded: the counter starts again
                    w.counter_first[i] = None
                if w.counter_first[i] is None:
                    w.counter_first[i] = (t, v[c])
                w.counter_last[i] = (t, v[c])

    def record(self, time_ns: int, values: Sequence[float]) -> None:
        for g, c in enumerate(self.dgpu_time_col):
            t = values[c] if c >= 0 else math.nan
            self.dgpu_fresh[g] = c < 0 or (math.isfinite(t) and t != self.dgpu_time_seen[g])
            if math.isfinite(t):
                self.dgpu_time_seen[g] = t
        now = [values[c] for c in self.power_col]
        while self.settled + 1 < len(self.phases):
            self._close(self.phases[self.settled], self.phases[self.settled].end_ns, now)
            self.settled += 1
        self._account(self.whole, time_ns, values)
        self._account(self.phases[-1], time_ns, values)
        self._counters(time_ns, values)
        if self.oc_col >= 0 and math.isfinite(values[self.oc_col]):
            self.oc_seen = values[self.oc_col]

    def phase(self, time_ns: int, label: str) -> Window:
        """Starts phase LABEL at TIME_NS; returns the phase it ends."""
        open_ = self.phases[-1]
        open_.end_ns = max(time_ns, open_.start_ns)
        self.phases.append(self._window(label, open_.end_ns))
        return open_

    def finish(self, end_ns: int) -> None:
        last = self.whole.last_mw
        while self.settled + 1 < len(self.phases):
            self._close(self.phases[self.settled], self.phases[self.settled].end_ns, last)
            self.settled += 1
        self._close(self.phases[-1], end_ns, last)
        self._close(self.whole, end_ns, last)

    def window_dict(self, w: Window) -> Dict[str, Any]:
        s = w.seconds
        d = {"duration_s": s, "records": w.records}  # type: Dict[str, Any]
        d["power"] = {n: {"energy_j": _none(w.energy_mj[i] / 1000 if math.isfinite(w.peak_mw[i]) else math.nan),
                          "mean_power_mw": _none(w.energy_mj[i] / s if s > 0 and math.isfinite(w.peak_mw[i])
                                                 else math.nan),
                          "peak_power_mw": _none(w.peak_mw[i])}
                      for i, n in enumerate(self.power_name)}
        for i, k in enumerate(LOADS):
            d[k.replace(".", "_") + "_percent"] = {
                "mean": w.load_sum[i] / w.load_n[i] if w.load_n[i] else None, "max": _none(w.load_max[i])}
        for i, k in enumerate(FREQS):
            d[k.replace(".", "_") + "_max_khz"] = _none(w.freq_max[i])
        d["temp_max_celsius"] = {n: _none(w.temp_max[i]) for i, n in enumerate(self.temp_name)}
        d["dgpus"] = {n: self._dgpu_dict(w, g) for g, n in enumerate(self.dgpu_name)}
        for g, n in enumerate(self.dgpu_name):
            d["dgpus"][n]["throttle"] = self._dgpu_throttle(w, g) if self.dgpu_throttle_col[g] >= 0 else None
        events = w.oc_events
        d["throttle"] = {"over_current_events": None if math.isnan(events) else int(events),
                         "throttled_s": {r: w.throttled_s[i] for i, r in enumerate(THROTTLE_REASONS)
                                         if self.reason_col[i] >= 0}}
        d["processes"] = dict(w.processes)
        return d

    @staticmethod
    def _dgpu_throttle(w: Window, g: int) -> Dict[str, Any]:
        """GPU G's clock event reasons: jetsonctl measure's dgpus.N.throttle."""
        s, held = w.seconds, w.dgpu_reason_s[g]
        named = range(len(NVML_REASONS))
        return {"throttled_percent": 100 * w.dgpu_throttled_s[g] / s if s > 0 else None,
                "any_reason_s": w.dgpu_throttled_s[g],
                "throttled_s": {nvml_reason_name(b): held[b] for b in range(64)
                                if b not in NVML_IDLE | NVML_SETTINGS and (b in named or held[b] > 0)},
                "clock_settings_s": {nvml_reason_name(b): held[b] for b in sorted(NVML_SETTINGS)},
                "unknown_s": max(s - w.dgpu_known_s[g], 0.0)}

    @staticmethod
    def _dgpu_dict(w: Window, g: int) -> Dict[str, Any]:
        """Discrete GPU G's load (mean and max), maximum clocks and
        temperature, peak memory: jetsonctl measure's "dgpus" member."""
        mx = [_none(x) for x in w.dgpu_max[g]]
        load = DGPU_FIELDS.index("load")
        n = w.dgpu_n[g][load]
        out = {"load_percent": {"mean": w.dgpu_sum[g][load] / n if n else None, "max": mx[load]}}  # type: Dict[str, Any]
        for f, name in (("freq", "freq_max_khz"), ("sm_freq", "sm_freq_max_khz"), ("mem_freq", "mem_freq_max_khz"),
                        ("temp", "temp_max_celsius"), ("mem_used", "mem_used_max_kib")):
            out[name] = mx[DGPU_FIELDS.index(f)]
        return out


class Measurement:
    """What measure() measured; ``to_dict()`` has jetsonctl measure
    --json's member names (docs/json/measure.schema.json) without command
    and exit_status."""

    def __init__(self) -> None:
        self.duration_s = None  # type: Optional[float]
        self.records = 0
        self.power = {}  # type: Dict[str, Dict[str, Optional[float]]]
        self.phases = []  # type: List[Dict[str, Any]]
        # With measure(pid=...): the followed tree's figures, one dict per
        # sample (time_s from the start, then proctree.FIELDS: None where
        # unknown), as jetsonctl record --pid's tree.* columns.
        self.tree = []  # type: List[Dict[str, Any]]
        self._dict = {}  # type: Dict[str, Any]

    @property
    def energy_j(self) -> Optional[float]:
        return self.power.get("total", {}).get("energy_j")

    @property
    def mean_power_mw(self) -> Optional[float]:
        return self.power.get("total", {}).get("mean_power_mw")

    @property
    def peak_power_mw(self) -> Optional[float]:
        return self.power.get("total", {}).get("peak_power_mw")

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__.get("_dict", {})
        if name in d:
            return d[name]
        raise AttributeError(name)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._dict)


def _absolute(d: Dict[str, Any], w: Window, realtime_offset_ns: int) -> None:
    """The window's start and end in seconds since the epoch (µs), as
    jetsonctl measure --json has them: the stream's monotonic times moved by
    the one CLOCK_REALTIME offset its header holds, so that an NTP step
    during the run does not bend them."""
    d["start_unix_s"] = round((w.start_ns + realtime_offset_ns) / 1e9, 6)
    d["end_unix_s"] = round((w.end_ns + realtime_offset_ns) / 1e9, 6)


class measure:
    """``with jetsond.measure() as m:`` around a block; ``m.mark("phase")``
    starts a phase; after the block ``m.result`` (also returned by
    ``m.stop()``) holds energy per rail and in total, mean and peak power,
    loads, temperatures and this process tree's resources, whole and per
    phase. INTERVAL: seconds between records (0.01 as jetsonctl measure).

    PID: follow that running process and its descendants instead of this
    process's tree (jetsonctl measure --pid), until it exits or the block
    ends, whichever comes first (``m.wait()`` waits for its exit); its
    tree's figures every PROC_PERIOD s are ``m.result.tree``. TypeError
    for a PID that is not an int, ValueError for one below 1,
    ProcessLookupError (at the start) for no such running process."""

    def __init__(self, interval: float = 0.01, address: Optional[str] = None,
                 proc_period: float = 0.1, pid: Optional[int] = None) -> None:
        if pid is not None and (not isinstance(pid, int) or isinstance(pid, bool)):
            raise TypeError("pid must be an int, not %s" % type(pid).__name__)
        if pid is not None and pid < 1:
            raise ValueError("pid must be a process ID (1 or more), not %d" % pid)
        self.interval, self.address, self.proc_period, self.pid = interval, address, proc_period, pid
        self.result = Measurement()
        self._exited = threading.Event()

    def __enter__(self) -> "measure":
        from .client import Jetson
        if self.pid is not None and not pid_alive(self.pid):
            raise ProcessLookupError("no process %d to follow (it does not exist or has exited)" % self.pid)
        self._jetson = Jetson(self.address)
        keys = list(self._jetson.snapshot().keys())
        patterns = [p for p in PATTERNS if any(fnmatch.fnmatchcase(k, p) for k in keys)]
        self._cap = Capture(self.interval, patterns, self.address)
        self._lock = threading.Lock()
        self._start = monotonic_ns()
        # Every column of the stream: the tier times tell a GPU's readings.
        self._stats = Stats(self._cap.header.columns, self._start)
        if self.pid is not None:
            self._tree = TreeFollower(self.pid)
            if self._tree.sample(self._jetson.snapshot()) is None:
                self._jetson.close()
                self._cap.close()
                raise ProcessLookupError("process %d exited" % self.pid)
            self.result.tree = [self._tree_row(self._tree.last)]
        self._usage = self._new_usage()
        self._phase_usage = self._new_usage()
        self._stop = threading.Event()
        self._error = None  # type: Optional[BaseException]
        self._threads = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._procs, daemon=True)]
        for t in self._threads:
            t.start()
        return self

    def _read(self) -> None:
        # Every column of the stream (the missed-ticks one comes last, after the keys' columns).
        n = len(self._cap.header.columns)
        try:
            while True:
                stopping = self._stop.is_set()
                data = self._cap.read(0.05)
                if data is None:
                    return
                with self._lock:
                    for r in parse_records(data, n):
                        if r.time_ns >= self._start and (self._end is None or r.time_ns <= self._end):
                            self._stats.record(r.time_ns, r.values)
                        self._last = r.time_ns
                end = self._end
                if stopping and end is not None and (self._last >= end or monotonic_ns() > end + 2 * 10**9):
                    return
        except BaseException as e:
            self._error = e

    _end = None  # type: Optional[int]
    _last = 0

    def _new_usage(self) -> Any:
        return TreeUsage(self._tree) if self.pid is not None else _ProcUsage()

    def _tree_row(self, f: Dict[str, Any]) -> Dict[str, Any]:
        row = {"time_s": (monotonic_ns() - self._start) / 1e9}
        row.update(f)
        return row

    def _procs(self) -> None:
        while not self._stop.wait(self.proc_period):
            try:
                s = self._jetson.snapshot()
                gpu = {int(k.split(".")[1]): v for k, v in s.items()
                       if k.startswith("process.") and k.endswith(".gpu_mem")}
            except Exception:
                s, gpu = None, {}
            if self.pid is not None and self._follow(s):
                return
            with self._lock:
                self._usage.sample(gpu)
                self._phase_usage.sample(gpu)

    def _follow(self, values: Any) -> bool:
        """Samples the followed tree; True once its root has exited: the
        measurement ends there (its last sample holds its totals)."""
        f = self._tree.sample(values)
        with self._lock:
            if f is None:
                if self._end is None:
                    self._end = monotonic_ns()
                self._exited.set()
                return True
            self.result.tree.append(self._tree_row(f))
        return False

    def wait(self, timeout: Optional[float] = None) -> bool:
        """With pid=: waits until the followed process exits (True) or
        TIMEOUT seconds pass (False)."""
        return self._exited.wait(timeout)

    def mark(self, label: str) -> None:
        """Ends the current phase and starts LABEL, now."""
        with self._lock:
            # Inside the lock: every record accounted so far is older than
            # the mark, so no interval counts in two phases.
            t = monotonic_ns()
            self._usage.sample({})
            self._phase_usage.sample({})
            ended = self._stats.phase(t, label)
            ended.processes = self._phase_usage.result()
            self._phase_usage = self._new_usage()

    def stop(self) -> Measurement:
        with self._lock:
            if self._end is None:  # not already at the followed process's exit
                self._end = monotonic_ns()
        self._stop.set()
        for t in self._threads:
            t.join()
        self._cap.close()
        self._jetson.close()
        if self._error is not None:
            raise self._error
        if self.pid is not None and not self._exited.is_set():
            self._follow(None)
        with self._lock:
            self._usage.sample({})
            self._phase_usage.sample({})
            st = self._stats
            st.finish(self._end)
            st.phases[-1].processes = self._phase_usage.result()
            st.whole.processes = self._usage.result()
            offset = self._cap.header.realtime_offset_ns
            d = st.window_dict(st.whole)
            _absolute(d, st.whole, offset)
            phases = []
            for w in st.phases:
                p = st.window_dict(w)
                p["name"] = w.name
                p["start_s"] = (w.start_ns - st.whole.start_ns) / 1e9
                _absolute(p, w, offset)
                phases.append(p)
            d["phases"] = phases
        m = self.result
        m._dict = d
        m.duration_s, m.records, m.power, m.phases = d["duration_s"], d["records"], d["power"], phases
        return m

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def trace_energy_j(path: str) -> Dict[str, Optional[float]]:
    """The energy in J of each rail, each NVIDIA GPU ("dgpu.N") and the
    total over a Recorder's trace, from its start to its stop, as measure()
    computes it: a GPU's from its NVML counter (dgpu.N.energy, which
    jetsond reads every 100 ms while a capture has it) where the trace has
    that column, else from its power. None where nothing was recorded."""
    t = load_trace(path)
    records = list(t.iter_records())
    start = t.start_ns or (records[0].time_ns if records else 0)
    stop = t.stop_ns or (records[-1].time_ns if records else start)
    st = Stats(t.header.columns, start)
    for r in records:
        if start <= r.time_ns <= stop:
            st.record(r.time_ns, r.values)
    st.finish(stop)
    return {name: d["energy_j"] for name, d in st.window_dict(st.whole)["power"].items()}
