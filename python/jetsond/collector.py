"""A resource collector for training loops in the shape of nvitop's
ResourceMetricCollector (docs/python.md "Collector"):

    collector = jetsond.Collector(interval=1.0)
    with collector(tag="train"):
        ...
        metrics = collector.collect()
    # {"train/host/cpu_percent (%)/mean": ..., "train/gpu:0/memory_used (MiB)/max": ...,
    #  "train/pid:4242/gpu:0/gpu_memory (MiB)/min": ..., "train/duration (s)": ..., ...}

Each metric is kept as mean, min and max over the samples since its tag was
entered or since its last collect() (a process's running_time: its latest
value, as nvitop's). The numbers come from jetsond's signals at the
collector's interval (Jetson.on_sample: Sample at jetsond's DefaultInterval,
else a subscription of that period) or, for tests and replays, from
add_sample(); the arithmetic is the same. daemonize() and
collect_in_background() collect in a thread of their own, as nvitop's."""

import os
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from . import proc

# (key suffix after "dgpu.N.", metric name with unit, scale from the key's unit)
_GPU = [("load", "gpu_utilization (%)", 1.0), ("mem_load", "memory_utilization (%)", 1.0),
        ("mem_used", "memory_used (MiB)", 1 / 1024), ("mem_total", "memory_total (MiB)", 1 / 1024),
        ("fan", "fan_speed (%)", 1.0), ("temp", "temperature (C)", 1.0), ("power", "power_usage (W)", 1e-3),
        ("sm_freq", "sm_clock (MHz)", 1e-3), ("nvlink_rx", "nvlink_rx (MiB/s)", 1 / 1048576),
        ("nvlink_tx", "nvlink_tx (MiB/s)", 1 / 1048576), ("pcie_rx", "pcie_rx (MiB/s)", 1 / 1048576),
        ("pcie_tx", "pcie_tx (MiB/s)", 1 / 1048576)]
_PROCESS_GPU = [("mem", "gpu_memory (MiB)", 1 / 1024), ("sm", "gpu_sm_utilization (%)", 1.0),
                ("mem_util", "gpu_memory_utilization (%)", 1.0)]
# A Jetson's board-wide readings (key suffix, metric name, scale): the SoC's
# EMC (DRAM); its zones and rails are named after the key.
_BOARD = [("emc.load", "host/emc_utilization (%)", 1.0), ("emc.freq", "host/emc_clock (MHz)", 1e-3),
          ("gpu.freq", "gpu/sm_clock (MHz)", 1e-3)]
# Metrics kept as their latest value, not mean/min/max (nvitop's running_time).
_LATEST = ("/running_time (min)",)


def _num(v: Any) -> Optional[float]:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def proc_parent(pid: int) -> Optional[int]:
    """PID's parent as this machine's /proc says (None: gone, or PID 1's)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return parent or None


def load_average() -> Optional[Tuple[float, float, float]]:
    """The host's 1, 5 and 15 minute load averages (os.getloadavg), None
    where the platform has none."""
    try:
        return os.getloadavg()
    except OSError:
        return None


def _descends(s: Mapping[str, Any], pid: str, roots: Set[int],
              parent_of: Optional[Callable[[int], Optional[int]]] = None) -> bool:
    """Whether PID is one of ROOTS or below one, by the sample's ppid keys
    and, for a parent the sample does not list (jetsond lists only the
    processes on a GPU), by PARENT_OF."""
    seen = set()  # type: Set[int]
    p = int(pid)  # type: Optional[int]
    while p is not None and p not in seen:
        if p in roots:
            return True
        seen.add(p)
        parent = s.get("process.%d.ppid" % p)
        if isinstance(parent, (int, float)) and not isinstance(parent, bool):
            p = int(parent)
        else:
            p = parent_of(p) if parent_of is not None else None
    return False


def sample_metrics(s: Mapping[str, Any], root_pids: Optional[Set[int]] = None,
                   parent_of: Optional[Callable[[int], Optional[int]]] = None,
                   loadavg: Optional[Tuple[float, float, float]] = None,
                   now: Optional[float] = None) -> Dict[str, float]:
    """One sample's metrics as {"<scope>/<metric (unit)>": value}: host
    (CPU, memory, swap, LOADAVG as nvitop's load_average, board power and,
    on a Jetson, each rail, each thermal zone and the EMC), the integrated
    GPU ("gpu"), each NVIDIA GPU ("gpu:N") and each process
    ("pid:P/host/...", "pid:P/gpu:N/..."; running_time from its start to
    NOW, the sample's time): every process jetsond lists, or with ROOT_PIDS
    only those and their descendants (by the sample's process.PID.ppid, and
    PARENT_OF for a parent it does not list), as nvitop's root_pids. A
    reading the sample lacks is left out."""
    out = {}  # type: Dict[str, float]

    def put(name: str, value: Optional[float], scale: float = 1.0) -> None:
        if value is not None:
            out[name] = value * scale

    put("host/cpu_percent (%)", _num(s.get("cpu.load")))
    used, total = _num(s.get("ram.used")), _num(s.get("ram.total"))
    put("host/memory_used (GiB)", used, 1 / 1048576)
    if used is not None and total:
        put("host/memory_percent (%)", 100.0 * used / total)
    sused, stotal = _num(s.get("swap.used")), _num(s.get("swap.total"))
    if sused is not None and stotal:
        put("host/swap_percent (%)", 100.0 * sused / stotal)
    put("host/power (W)", _num(s.get("power.total")), 1e-3)
    if loadavg is not None:
        for minutes, value in zip((1, 5, 15), loadavg):
            put("host/load_average (%%) (%d min)" % minutes, float(value))
    put("gpu/gpu_utilization (%)", _num(s.get("gpu.load")))
    for key, name, scale in _BOARD:
        put(name, _num(s.get(key)), scale)
    ram_total = _num(s.get("ram.total"))
    for key, value in s.items():
        parts = key.split(".")
        if parts[0] == "temp" and len(parts) == 2:
            put("host/temperature (C) (%s)" % parts[1], _num(value))
            continue
        if parts[0] == "power" and len(parts) == 3 and parts[2] == "power" and parts[1] != "total":
            put("host/power (W) (%s)" % parts[1], _num(value), 1e-3)
            continue
        if parts[0] == "dgpu" and len(parts) == 3 and parts[1].isdigit():
            for field, name, scale in _GPU:
                if parts[2] == field:
                    put("gpu:%s/%s" % (parts[1], name), _num(value), scale)
            if parts[2] == "mem_used" and _num(s.get("dgpu.%s.mem_total" % parts[1])):
                put("gpu:%s/memory_percent (%%)" % parts[1],
                    100.0 * float(value) / float(s["dgpu.%s.mem_total" % parts[1]]))
        elif parts[0] == "process" and root_pids is not None and not (
                parts[1].isdigit() and _descends(s, parts[1], root_pids, parent_of)):
            continue
        elif parts[0] == "process" and len(parts) == 3 and parts[1].isdigit():
            if parts[2] == "cpu":
                put("pid:%s/host/cpu_percent (%%)" % parts[1], _num(value))
            elif parts[2] == "rss":
                put("pid:%s/host/host_memory (MiB)" % parts[1], _num(value), 1 / 1024)
                if ram_total and _num(value) is not None:
                    put("pid:%s/host/host_memory_percent (%%)" % parts[1], 100.0 * float(value) / ram_total)
            elif parts[2] == "start_time" and now is not None and _num(value) is not None:
                put("pid:%s/host/running_time (min)" % parts[1], max(0.0, now - float(value)) / 60)
            elif parts[2] == "gpu_mem" and not any(k.startswith("process.%s.dgpu." % parts[1]) for k in s):
                # A Jetson's integrated GPU: its memory is the RAM's.
                put("pid:%s/gpu/gpu_memory (MiB)" % parts[1], _num(value), 1 / 1024)
                if ram_total and _num(value) is not None:
                    put("pid:%s/gpu/gpu_memory_percent (%%)" % parts[1], 100.0 * float(value) / ram_total)
        elif parts[0] == "process" and len(parts) == 5 and parts[2] == "dgpu":
            for field, name, scale in _PROCESS_GPU:
                if parts[4] == field:
                    put("pid:%s/gpu:%s/%s" % (parts[1], parts[3], name), _num(value), scale)
            total = _num(s.get("dgpu.%s.mem_total" % parts[3]))
            if parts[4] == "mem" and total and _num(value) is not None:
                put("pid:%s/gpu:%s/gpu_memory_percent (%%)" % (parts[1], parts[3]), 100.0 * float(value) / total)
    return out


class _Stats:
    """Mean, min and max of a tag's metrics since it began or was collected."""

    def __init__(self, now: float) -> None:
        self.start = now
        self.sums = {}  # type: Dict[str, Tuple[float, int, float, float]]

        self.latest = {}  # type: Dict[str, float]

    def add(self, metrics: Mapping[str, float]) -> None:
        for name, v in metrics.items():
            if name.endswith(_LATEST):
                self.latest[name] = v
                continue
            total, n, lo, hi = self.sums.get(name, (0.0, 0, v, v))
            self.sums[name] = (total + v, n + 1, min(lo, v), max(hi, v))


class Collector:
    """nvitop's ResourceMetricCollector for jetsond: call it with a tag as a
    context manager (tags nest: "epoch/batch"), collect() inside one. With
    a Jetson (or JETSON None and START true: a connection of its own), the
    samples arrive from Jetson.on_sample every INTERVAL seconds; without,
    feed add_sample(). CLOCK: the time source for durations and stamps.
    ROOT_PIDS: only these processes and their descendants (None: all; nvitop's
    default, the current process's tree, is root_pids={os.getpid()}).
    LOADAVG: where the host's load average comes from (None: left out).
    Each thread has its own tags, so that a daemonize() thread and the
    training loop nest theirs apart; every open tag sees every sample."""

    def __init__(self, jetson: Any = None, interval: float = 1.0, start: bool = True,
                 clock: Callable[[], float] = time.time, root_pids: Optional[Iterable[int]] = None,
                 loadavg: Optional[Callable[[], Optional[Tuple[float, float, float]]]] = load_average) -> None:
        self.interval = interval
        self._root_pids = set(root_pids) if root_pids is not None else None  # type: Optional[Set[int]]
        self._lock = threading.Lock()
        self._stacks = {}  # type: Dict[int, List[Tuple[str, _Stats]]]
        self._seen = {}  # type: Dict[int, Tuple[Optional[str], Optional[float]]]
        self._clock = clock
        self._loadavg = loadavg
        self._subscription = None  # type: Any
        if jetson is not None or start:
            if jetson is None:
                from .client import Jetson  # here: add_sample needs no bus
                jetson = Jetson()
            self._subscription = jetson.on_sample(self.add_sample, interval)

    def stop(self) -> None:
        """Ends the subscription (if any)."""
        if self._subscription is not None:
            self._subscription.stop()
            self._subscription = None

    def add_sample(self, sample: Mapping[str, Any]) -> None:
        """One sample (a flat key dict, as GetSnapshot's) into every open tag."""
        # A sample that names processes by this namespace's PIDs (a Sample
        # from jetsond.pidns): their parents outside it are in /proc here.
        parent_of = proc_parent if getattr(sample, "caller_pids", False) else None
        stamp = getattr(sample, "timestamp", 0.0) or self._clock()
        metrics = sample_metrics(sample, self._root_pids, parent_of,
                                 self._loadavg() if self._loadavg is not None else None, stamp)
        with self._lock:
            for pid in {name.split("/", 1)[0][4:] for name in metrics if name.startswith("pid:")}:
                start = sample.get("process.%s.start_time" % pid)
                self._seen[int(pid)] = (sample.get("process.%s.name" % pid),
                                        float(start) if isinstance(start, (int, float)) else None)
            for stack in self._stacks.values():
                for _, stats in stack:
                    stats.add(metrics)

    def commands(self) -> Dict[int, str]:
        """{PID: command line} of the processes the metrics have named so
        far: /proc/PID/cmdline read now with this process's rights, once
        the PID is checked to be the process jetsond named (jetsond.proc),
        or jetsond's name where it cannot be read or is not."""
        with self._lock:
            seen = dict(self._seen)
        return {pid: proc.command(proc.command_line(pid, name, start), name)
                for pid, (name, start) in sorted(seen.items())}

    def __call__(self, tag: str) -> "_Scope":
        if not tag or "/" in tag:
            raise ValueError("a tag is a non-empty name without '/': %r" % tag)
        return _Scope(self, tag)

    def _enter(self, tag: str) -> None:
        with self._lock:
            stack = self._stacks.setdefault(threading.get_ident(), [])
            path = (stack[-1][0] + "/" if stack else "") + tag
            stack.append((path, _Stats(self._clock())))

    def _exit(self) -> None:
        with self._lock:
            me = threading.get_ident()
            self._stacks[me].pop()
            if not self._stacks[me]:
                del self._stacks[me]

    def collect(self) -> Dict[str, float]:
        """The innermost tag's metrics (this thread's) since it was entered
        or last collected: "<tag path>/<scope>/<metric (unit)>/mean|min|max"
        (a running_time its latest value, no suffix), with "<tag
        path>/duration (s)" and "<tag path>/timestamp"; then starts its
        figures anew."""
        with self._lock:
            stack = self._stacks.get(threading.get_ident())
            if not stack:
                raise RuntimeError("collect() outside 'with collector(tag=...)'")
            path, stats = stack[-1]
            now = self._clock()
            out = {}  # type: Dict[str, float]
            for name, (total, n, lo, hi) in sorted(stats.sums.items()):
                # Within [min, max], where rounding of the sum may step out.
                out["%s/%s/mean" % (path, name)] = min(max(total / n, lo), hi)
                out["%s/%s/min" % (path, name)] = lo
                out["%s/%s/max" % (path, name)] = hi
            for name, v in sorted(stats.latest.items()):
                out["%s/%s" % (path, name)] = v
            out["%s/duration (s)" % path] = now - stats.start
            out["%s/timestamp" % path] = now
            stack[-1] = (path, _Stats(now))
            return out

    def daemonize(self, on_collect: Callable[[Dict[str, float]], bool], interval: Optional[float] = None,
                  on_start: Optional[Callable[["Collector"], None]] = None,
                  on_stop: Optional[Callable[["Collector"], None]] = None, tag: str = "metrics-daemon",
                  start: bool = True) -> threading.Thread:
        """collect_in_background(on_collect, self, ...)."""
        return collect_in_background(on_collect, self, interval, on_start=on_start, on_stop=on_stop, tag=tag,
                                     start=start)


def collect_in_background(on_collect: Callable[[Dict[str, float]], bool], collector: Optional[Collector] = None,
                          interval: Optional[float] = None, on_start: Optional[Callable[[Collector], None]] = None,
                          on_stop: Optional[Callable[[Collector], None]] = None, tag: str = "metrics-daemon",
                          start: bool = True) -> threading.Thread:
    """nvitop's collect_in_background: a daemon thread (named TAG, with the
    collector as its ``collector`` attribute) that calls ON_START(collector)
    once, then inside ``collector(tag=TAG)`` calls ON_COLLECT(metrics)
    with collect()'s figures right away and every INTERVAL seconds
    (default: the collector's) until ON_COLLECT returns a false value or
    raises, then ON_STOP(collector) once. COLLECTOR None: a Collector of
    its own on the system bus. START false: the thread is returned unstarted."""
    if collector is None:
        collector = Collector()
    period = collector.interval if interval is None else interval
    if period <= 0:
        raise ValueError("interval must be positive: %r" % period)
    c = collector

    def target() -> None:
        if on_start is not None:
            on_start(c)
        try:
            with c(tag=tag):
                due = time.monotonic() + period
                while on_collect(c.collect()):
                    time.sleep(max(0.0, due - time.monotonic()))
                    due += period
        finally:
            if on_stop is not None:
                on_stop(c)

    daemon = threading.Thread(target=target, name=tag, daemon=True)
    setattr(daemon, "collector", collector)
    if start:
        daemon.start()
    return daemon


class _Scope:
    def __init__(self, collector: Collector, tag: str) -> None:
        self._collector, self._tag = collector, tag

    def __enter__(self) -> Collector:
        self._collector._enter(self._tag)
        return self._collector

    def __exit__(self, *exc: Any) -> None:
        self._collector._exit()
