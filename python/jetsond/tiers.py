"""The sampling tiers of a capture stream (introspection/capture.md):
which tier reads a key, the tier time columns jetsond adds when asked for
``capture.tier_times``, and the records that hold a new reading of a
tier, so that statistics count each reading once however many records
repeat it. Pure Python; read_trace uses it with numpy."""

import math
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

# Asked for by this name, a capture has a time column per tier it has
# columns of: CLOCK_MONOTONIC ns at which that tier's values in the record
# were read.
TIER_TIMES = "capture.tier_times"
TIME_PREFIX = "capture.time."
# OpenCaptureWithOptions' options and their floors, µs.
MEDIUM_OPTION = "medium_interval_usec"
SLOW_OPTION = "slow_interval_usec"
MEDIUM_MIN_USEC = 10000
SLOW_MIN_USEC = 100000
MAX_USEC = 3600000000

_MEDIUM = frozenset(("power", "energy", "engine", "throttle"))
_SLOW = frozenset(("temp", "temp_trip", "fan", "nvpmodel", "process", "uptime", "disk", "net"))
_GPU_PROCESS = re.compile(r"^process\.\d+\.(dgpu\.\d+\..*)$")
_GPU = re.compile(r"^(dgpu\.\d+)\.")


def tier_of(key: str) -> Optional[str]:
    """The tier that reads KEY, as capture.md's table has it: "medium",
    "slow", "dgpu.N" (that NVIDIA GPU's reader), or None for the fast
    tier (read for every record: the record's own time is its time)."""
    m = _GPU_PROCESS.match(key)
    if m:
        key = m.group(1)
    m = _GPU.match(key)
    if m:
        return m.group(1)
    group = key.split(".", 1)[0]
    if group in _MEDIUM:
        return "medium"
    if group in _SLOW:
        return "slow"
    return None


def time_column(key: str) -> Optional[str]:
    """KEY's tier time column ("capture.time.medium"), None for a fast key."""
    tier = tier_of(key)
    return TIME_PREFIX + tier if tier else None


def is_time_column(name: str) -> bool:
    return name.startswith(TIME_PREFIX)


def check_rate(name: str, seconds: Optional[float], floor_usec: int) -> Optional[int]:
    """A tier's rate in seconds as OpenCaptureWithOptions' µs; None stays
    None (jetsond's rate). Raises InvalidArgs out of bounds."""
    if seconds is None:
        return None
    from .errors import InvalidArgs
    usec = int(round(seconds * 1e6)) if isinstance(seconds, (int, float)) and math.isfinite(seconds) else -1
    if not floor_usec <= usec <= MAX_USEC:
        raise InvalidArgs("%s %r s is out of range (%g to %g)" % (name, seconds, floor_usec / 1e6, MAX_USEC / 1e6))
    return usec


def fresh(times: Sequence[float]) -> List[bool]:
    """For each record, from its tier's time column: does it hold a new
    reading (its time differs from the record before, and is not NaN)?"""
    out = []
    last = None  # type: Optional[float]
    for t in times:
        new = t == t and t != last
        out.append(new)
        last = t if t == t else None
    return out


def readings(values: Sequence[float], times: Optional[Sequence[float]]) -> List[float]:
    """The values of one column, each reading once: where TIMES (its tier
    time column) is None, every record (a fast key, or a jetsond without
    tier times); NaN left out."""
    if times is None:
        return [v for v in values if v == v]
    return [v for v, new in zip(values, fresh(times)) if new and v == v]


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The P-th percentile (0-100) of SORTED_VALUES, interpolated
    linearly between the nearest ranks (numpy's default); NaN when empty."""
    n = len(sorted_values)
    if not n:
        return float("nan")
    k = (n - 1) * p / 100.0
    lo = int(math.floor(k))
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def stats(values: Iterable[float]) -> Dict[str, Optional[float]]:
    """count, mean, min, max, p50, p95 and p99 of VALUES (each reading
    once: see readings()); None for what an empty list has not."""
    xs = sorted(values)
    if not xs:
        return {"count": 0, "mean": None, "min": None, "max": None, "p50": None, "p95": None, "p99": None}
    return {"count": len(xs), "mean": math.fsum(xs) / len(xs), "min": xs[0], "max": xs[-1],
            "p50": percentile(xs, 50), "p95": percentile(xs, 95), "p99": percentile(xs, 99)}


def trace_readings(data: Dict[str, Any], key: str) -> Tuple[Any, Any]:
    """KEY's readings in read_trace()'s DATA, each once: (times in seconds
    since the start, values), numpy arrays. A medium or slow key's value is
    taken from the records that hold a new reading of its tier, at the
    reading's time; a fast key (or a trace without tier times) from every
    record. NaN left out."""
    import numpy as np
    tier = tier_of(key)
    if tier in data["fresh"]:
        mask, times = data["fresh"][tier], data["tier_time_s"][tier]
    else:
        mask, times = np.ones(len(data[key]), dtype=bool), data["time"]
    mask = mask & ~np.isnan(data[key])
    return times[mask], data[key][mask]


def trace_stats(data: Dict[str, Any], key: str) -> Dict[str, Optional[float]]:
    """count, mean, min, max, p50, p95 and p99 of KEY in read_trace()'s
    DATA, each reading once (trace_readings()): a slow value that ten
    records repeat is one sample, as in fastnvmetrics' slow-tier arrays."""
    return stats(float(v) for v in trace_readings(data, key)[1])


__all__ = ["TIER_TIMES", "TIME_PREFIX", "tier_of", "time_column", "is_time_column", "fresh", "readings", "stats",
           "percentile", "trace_readings", "trace_stats"]
