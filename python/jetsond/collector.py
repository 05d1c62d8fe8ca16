"""A resource collector for training loops in the shape of nvitop's
ResourceMetricCollector (docs/python.md "Collector"):

    collector = jetsond.Collector(interval=1.0)
    with collector(tag="train"):
        ...
        metrics = collector.collect()
    # {"train/host/cpu_percent (%)/mean": ..., "train/gpu:0/memory_used (MiB)/max": ...,
    #  "train/pid:4242/gpu:0/gpu_memory (MiB)/min": ..., "train/duration (s)": ..., ...}

Each metric is kept as mean, min and max over the samples since its tag was
entered or since its last collect(). The numbers come from jetsond's Sample
signals (Jetson.on_sample) or, for tests and replays, from add_sample(); the
arithmetic is the same."""

import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

# (key suffix after "dgpu.N.", metric name with unit, scale from the key's unit)
_GPU = [("load", "gpu_utilization (%)", 1.0), ("mem_load", "memory_utilization (%)", 1.0),
        ("mem_used", "memory_used (MiB)", 1 / 1024), ("mem_total", "memory_total (MiB)", 1 / 1024),
        ("fan", "fan_speed (%)", 1.0), ("temp", "temperature (C)", 1.0), ("power", "power_usage (W)", 1e-3),
        ("sm_freq", "sm_clock (MHz)", 1e-3), ("nvlink_rx", "nvlink_rx (MiB/s)", 1 / 1048576),
        ("nvlink_tx", "nvlink_tx (MiB/s)", 1 / 1048576), ("pcie_rx", "pcie_rx (MiB/s)", 1 / 1048576),
        ("pcie_tx", "pcie_tx (MiB/s)", 1 / 1048576)]
_PROCESS_GPU = [("mem", "gpu_memory (MiB)", 1 / 1024), ("sm", "gpu_sm_utilization (%)", 1.0)]


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
                   parent_of: Optional[Callable[[int], Optional[int]]] = None) -> Dict[str, float]:
    """One sample's metrics as {"<scope>/<metric (unit)>": value}: host
    (CPU, memory, swap, board power), the integrated GPU ("gpu"), each
    NVIDIA GPU ("gpu:N") and each process ("pid:P/host/...",
    "pid:P/gpu:N/..."): every process jetsond lists, or with ROOT_PIDS
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
    put("gpu/gpu_utilization (%)", _num(s.get("gpu.load")))
    for key, value in s.items():
        parts = key.split(".")
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
        elif parts[0] == "process" and len(parts) == 5 and parts[2] == "dgpu":
            for field, name, scale in _PROCESS_GPU:
                if parts[4] == field:
                    put("pid:%s/gpu:%s/%s" % (parts[1], parts[3], name), _num(value), scale)
    return out


class _Stats:
    """Mean, min and max of a tag's metrics since it began or was collected."""

    def __init__(self, now: float) -> None:
        self.start = now
        self.sums = {}  # type: Dict[str, Tuple[float, int, float, float]]

    def add(self, metrics: Mapping[str, float]) -> None:
        for name, v in metrics.items():
            total, n, lo, hi = self.sums.get(name, (0.0, 0, v, v))
            self.sums[name] = (total + v, n + 1, min(lo, v), max(hi, v))


class Collector:
    """nvitop's ResourceMetricCollector for jetsond: call it with a tag as a
    context manager (tags nest: "epoch/batch"), collect() inside one. With
    a Jetson (or JETSON None and START true: a connection of its own), the
    samples arrive from Jetson.on_sample every INTERVAL seconds; without,
    feed add_sample(). CLOCK: the time source for durations and stamps.
    ROOT_PIDS: only these processes and their descendants (None: all; nvitop's
    default, the current process's tree, is root_pids={os.getpid()})."""

    def __init__(self, jetson: Any = None, interval: float = 1.0, start: bool = True,
                 clock: Callable[[], float] = time.time, root_pids: Optional[Iterable[int]] = None) -> None:
        self._root_pids = set(root_pids) if root_pids is not None else None  # type: Optional[Set[int]]
        self._lock = threading.Lock()
        self._tags = []  # type: List[Tuple[str, _Stats]]
        self._clock = clock
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
        metrics = sample_metrics(sample, self._root_pids, parent_of)
        with self._lock:
            for _, stats in self._tags:
                stats.add(metrics)

    def __call__(self, tag: str) -> "_Scope":
        if not tag or "/" in tag:
            raise ValueError("a tag is a non-empty name without '/': %r" % tag)
        return _Scope(self, tag)

    def _enter(self, tag: str) -> None:
        with self._lock:
            path = (self._tags[-1][0] + "/" if self._tags else "") + tag
            self._tags.append((path, _Stats(self._clock())))

    def _exit(self) -> None:
        with self._lock:
            self._tags.pop()

    def collect(self) -> Dict[str, float]:
        """The innermost tag's metrics since it was entered or last
        collected: "<tag path>/<scope>/<metric (unit)>/mean|min|max", with
        "<tag path>/duration (s)" and "<tag path>/timestamp"; then starts
        its figures anew."""
        with self._lock:
            if not self._tags:
                raise RuntimeError("collect() outside 'with collector(tag=...)'")
            path, stats = self._tags[-1]
            now = self._clock()
            out = {}  # type: Dict[str, float]
            for name, (total, n, lo, hi) in sorted(stats.sums.items()):
                # Within [min, max], where rounding of the sum may step out.
                out["%s/%s/mean" % (path, name)] = min(max(total / n, lo), hi)
                out["%s/%s/min" % (path, name)] = lo
                out["%s/%s/max" % (path, name)] = hi
            out["%s/duration (s)" % path] = now - stats.start
            out["%s/timestamp" % path] = now
            self._tags[-1] = (path, _Stats(now))
            return out


class _Scope:
    def __init__(self, collector: Collector, tag: str) -> None:
        self._collector, self._tag = collector, tag

    def __enter__(self) -> Collector:
        self._collector._enter(self._tag)
        return self._collector

    def __exit__(self, *exc: Any) -> None:
        self._collector._exit()

