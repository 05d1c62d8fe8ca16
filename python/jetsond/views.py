"""Views of one sample (GetSnapshot's flat keys) grouped as a Python user
expects them, with the unit in every name: ``freq_khz``, ``power_mw``,
``temp_celsius``, ``load_percent``, ``*_kib``. Pure functions of the flat
dict: a view never reads the board and holds exactly the sample's values
(an absent reading stays absent: a missing key, never 0). processes() adds
what jetsond does not send, the command lines, read by this process from
/proc with its own rights (jetsond.proc)."""

import re
from typing import Any, Dict, List, Mapping, Optional, Set

from . import proc

Snapshot = Mapping[str, Any]

# The unit of a key's last part, as Metrics.xml documents it.
UNITS = {
    "load": "load_percent", "freq": "freq_khz", "min_freq": "min_freq_khz", "max_freq": "max_freq_khz",
    "video_freq": "video_freq_khz", "sm_freq": "sm_freq_khz", "mem_freq": "mem_freq_khz",
    "temp": "temp_celsius", "power": "power_mw", "voltage": "voltage_mv", "current": "current_ma",
    "warn_current": "warn_current_ma", "crit_current": "crit_current_ma", "power_limit": "power_limit_mw",
    "energy": "energy_mj", "mem_used": "mem_used_kib", "mem_total": "mem_total_kib",
    "mem_reserved": "mem_reserved_kib",
    "mem_load": "mem_load_percent", "fan": "fan_percent", "encoder_load": "encoder_load_percent",
    "decoder_load": "decoder_load_percent", "pcie_rx": "pcie_rx_bytes_per_s", "pcie_tx": "pcie_tx_bytes_per_s",
    "nvlink_rx": "nvlink_rx_bytes_per_s", "nvlink_tx": "nvlink_tx_bytes_per_s",
    "nvlink_rx_total": "nvlink_rx_total_bytes", "nvlink_tx_total": "nvlink_tx_total_bytes",
    "speed": "speed_percent", "gpu_mem": "gpu_mem_kib", "cpu": "cpu_percent", "rss": "rss_kib",
    "mem": "mem_kib", "sm": "sm_percent", "mem_util": "mem_util_percent", "total": "total_kib", "used": "used_kib", "free": "free_kib",
    "available": "available_kib", "buffers": "buffers_kib", "cached": "cached_kib", "shared": "shared_kib",
    "lfb": "lfb_blocks", "lfb_size": "lfb_size_kib", "tpc_pg_mask": "tpc_pg_mask", "3d_scaling": "scaling_3d",
    "start_time": "start_time_s", "in": "in_kib", "out": "out_kib",
    "bar1_used": "bar1_used_kib", "enc": "enc_percent", "dec": "dec_percent",
}

# A DiscreteGpu object's properties by nvitop's DeviceSnapshot names.
# Unknown on the bus ("", -1, 0) is None here, as nvitop's NA.
DGPU_PROPERTIES = (
    ("Name", "name"), ("UUID", "uuid"), ("PciBusId", "pci_bus_id"), ("MemoryTotal", "memory_total_bytes"),
    ("PowerLimit", "power_limit_mw"), ("MaxClocks", "max_clocks_mhz"), ("DriverVersion", "driver_version"),
    ("MinorNumber", "minor_number"), ("CudaDriverVersion", "cuda_driver_version"),
    ("ComputeCapability", "cuda_compute_capability"), ("Bar1Total", "bar1_memory_total_bytes"),
    ("EccMode", "ecc_mode"), ("EccModePending", "ecc_mode_pending"), ("PersistenceMode", "persistence_mode"),
    ("ComputeMode", "compute_mode"), ("DisplayMode", "display_mode"), ("DisplayActive", "display_active"),
)
# Those whose unknown value on the bus is not None here: kept as they were.
_KEPT_AS_IS = {"Name", "UUID", "PciBusId", "MemoryTotal", "PowerLimit", "MaxClocks"}


def dgpu_properties(props: Mapping[str, Any]) -> Dict[str, Any]:
    """A DiscreteGpu object's properties (GetAll's dict) by nvitop's names;
    the facts and modes NVML does not say are None."""
    out = {}  # type: Dict[str, Any]
    for prop, name in DGPU_PROPERTIES:
        v = props.get(prop)
        if prop not in _KEPT_AS_IS and v in ("", -1) or (prop == "Bar1Total" and v == 0):
            v = None
        out[name] = v
    return out


def unit_name(field: str) -> str:
    """FIELD (a key's last part) with its unit: "freq" -> "freq_khz"."""
    return UNITS.get(field, field)


def _fields(s: Snapshot, prefix: str) -> Dict[str, Any]:
    """The keys PREFIX.FIELD (one more part only) as {unit_name(FIELD): value}."""
    out = {}
    for k, v in s.items():
        if k.startswith(prefix) and "." not in k[len(prefix):]:
            out[unit_name(k[len(prefix):])] = v
    return out


def _indices(s: Snapshot, pattern: str) -> List[str]:
    rx = re.compile(pattern)
    found = {m.group(1) for m in (rx.match(k) for k in s) if m}
    return sorted(found, key=lambda x: (int(x) if x.isdigit() else 1 << 62, x))


_CPU_SPLIT = ("user", "nice", "system", "idle")


def cpu(s: Snapshot) -> Dict[str, Any]:
    """{"load_percent", "user_percent", "nice_percent", "system_percent",
    "idle_percent", "cores": [{"index", "online", "load_percent",
    "user_percent", ..., "freq_khz", "min_freq_khz", "max_freq_khz",
    "governor"}]}."""
    out = {}  # type: Dict[str, Any]
    if "cpu.load" in s:
        out["load_percent"] = s["cpu.load"]
    for k in _CPU_SPLIT:
        if "cpu." + k in s:
            out[k + "_percent"] = s["cpu." + k]
    cores = []
    for n in _indices(s, r"cpu\.(\d+)\."):
        # "user" is a process's user name elsewhere: the split's unit is named here.
        core = {(k + "_percent" if k in _CPU_SPLIT else k): v for k, v in _fields(s, "cpu.%s." % n).items()}
        cores.append(dict(index=int(n), **core))
    out["cores"] = cores
    return out


def gpus(s: Snapshot) -> List[Dict[str, Any]]:
    """Every GPU: the integrated one ("index": "gpu", "integrated": True) and
    each discrete NVIDIA GPU ("index": N, NVML's index), nvitop's Device
    readings with units in the names."""
    out = []  # type: List[Dict[str, Any]]
    gpu = _fields(s, "gpu.")
    gpc = [s["gpu.gpc%s.freq" % g] for g in _indices(s, r"gpu\.gpc(\d+)\.freq$")]
    if gpu or gpc:  # a GPC's clock alone (the rest absent for a tick) is still the GPU
        gpu["gpc_freq_khz"] = gpc
        out.append(dict(index="gpu", integrated=True, **gpu))
    for n in _indices(s, r"dgpu\.(\d+)\."):
        d = dict(index=int(n), integrated=False, **_fields(s, "dgpu.%s." % n))
        links = _indices(s, r"dgpu\.%s\.nvlink\.(\d+)\." % n)
        if links:  # NVLink's links, each {"link", "rx_bytes_per_s", "tx_bytes_per_s"}
            d["nvlink_links"] = [dict(link=int(l_), **{k + "_bytes_per_s": v for k, v in
                                                       _fields(s, "dgpu.%s.nvlink.%s." % (n, l_)).items()})
                                 for l_ in links]
        migs = _indices(s, r"dgpu\.%s\.mig\.(\d+)\." % n)
        if migs:  # MIG on: each MIG device as a device of its own, by slot
            d["mig"] = [dict(slot=int(m), **_fields(s, "dgpu.%s.mig.%s." % (n, m))) for m in migs]
        out.append(d)
    return out


def memory(s: Snapshot) -> Dict[str, Any]:
    """{"ram": {...kib}, "swap": {...kib}, "iram": {...}, "emc": {...}}, each
    present when the board has it."""
    out = {}
    for group in ("ram", "swap", "iram", "emc"):
        f = _fields(s, group + ".")
        if f:
            out[group] = f
    return out


def power(s: Snapshot) -> Dict[str, Any]:
    """{"total_mw", "total_is_sum", "energy_total_mj", "rails": {NAME:
    {"power_mw", "voltage_mv", "current_ma", "warn_current_ma",
    "crit_current_ma", "energy_mj"}}}."""
    out = {}  # type: Dict[str, Any]
    if "power.total" in s:
        out["total_mw"] = s["power.total"]
    if "power.total_is_sum" in s:
        out["total_is_sum"] = s["power.total_is_sum"]
    if "energy.total" in s:
        out["energy_total_mj"] = s["energy.total"]
    rails = {}  # type: Dict[str, Dict[str, Any]]
    for k, v in s.items():
        m = re.match(r"power\.(.+)\.([a-z_]+)$", k)
        if m:
            rails.setdefault(m.group(1), {})[unit_name(m.group(2))] = v
        elif k.startswith("energy.") and k != "energy.total":
            rails.setdefault(k[7:], {})["energy_mj"] = v
    out["rails"] = rails
    return out


def temperatures(s: Snapshot) -> Dict[str, float]:
    """{zone: °C}."""
    return {k[5:]: v for k, v in s.items() if k.startswith("temp.")}


def trip_points(s: Snapshot) -> Dict[str, Dict[str, float]]:
    """{zone: {"throttle_celsius", "critical_celsius"}}: where the kernel
    starts to throttle the zone and where the board shuts down, each present
    when the zone has such a trip point."""
    out = {}  # type: Dict[str, Dict[str, float]]
    for k, v in s.items():
        m = re.match(r"temp_trip\.(.+)\.(throttle|critical)$", k)
        if m:
            out.setdefault(m.group(1), {})[m.group(2) + "_celsius"] = v
    return out


def fans(s: Snapshot) -> List[Dict[str, Any]]:
    """[{"index", "speed_percent", "pwm", "rpm", "profile"}]."""
    return [dict(index=int(n), **_fields(s, "fan.%s." % n)) for n in _indices(s, r"fan\.(\d+)\.")]


def engines(s: Snapshot) -> Dict[str, Dict[str, Any]]:
    """{NAME: {"online", "freq_khz"}}."""
    return {n: _fields(s, "engine.%s." % n) for n in _indices(s, r"engine\.([^.]+)\.")}


def modes(s: Snapshot) -> Dict[str, Any]:
    """{"nvpmodel_id", "nvpmodel_name", "jetson_clocks"}, each when present."""
    out = {}
    for key, name in (("nvpmodel.mode", "nvpmodel_id"), ("nvpmodel.name", "nvpmodel_name"),
                      ("jetson_clocks.active", "jetson_clocks")):
        if key in s:
            out[name] = s[key]
    return out


def processes(s: Snapshot) -> List[Dict[str, Any]]:
    """The processes using a GPU: [{"pid", "name", "user", "gpu_mem_kib",
    "cpu_percent", "rss_kib", "ppid", "start_time_s" (Unix time),
    "dgpu": {N: {"mem_kib", "sm_percent", "enc_percent", "dec_percent",
    "type"}}, "cmdline", "command"}].
    "cmdline" is the process's arguments, read from /proc with the caller's
    rights where S names processes by this namespace's PIDs (its
    ``caller_pids``) and the caller may read them, else None; "command" is
    them joined by spaces, or the name (nvitop's ``command()``)."""
    out = []
    local = getattr(s, "caller_pids", False)
    for pid in _indices(s, r"process\.(\d+)\."):
        p = dict(pid=int(pid), **_fields(s, "process.%s." % pid))  # type: Dict[str, Any]
        p["dgpu"] = {int(n): _fields(s, "process.%s.dgpu.%s." % (pid, n))
                     for n in _indices(s, r"process\.%s\.dgpu\.(\d+)\." % pid)}
        args = proc.command_line(int(pid), p.get("name"), p.get("start_time_s")) if local else None
        p["cmdline"] = args
        p["command"] = proc.command(args, p.get("name"))
        out.append(p)
    return out


def system(s: Snapshot) -> Dict[str, Any]:
    """{"uptime_s", "disk_*_bytes", "net_*_bytes"}."""
    out = {}  # type: Dict[str, Any]
    if "uptime" in s:
        out["uptime_s"] = s["uptime"]
    for k, v in s.items():
        if k.startswith("disk.") or k.startswith("net."):
            out[k.replace(".", "_")] = v
    return out


def throttling(s: Snapshot) -> Dict[str, Any]:
    """Is it throttled, and why (issue 39; docs/throttling.md): {"active",
    "reasons" (the ones holding now, [] for none), "reason_active": {NAME:
    bool}, "oc_events_since_boot", "oc_events_counted", "channels": {N:
    {"events", "events_counted", "armed", "counter", "resets",
    "failed_reads"}}, "caps": {TYPE: {"state", "max_state"}}}, each when the
    board reports it ({} on a board that reports no reason). A dGPU's
    reasons are in gpus() as "throttle_reasons"."""
    out = {}  # type: Dict[str, Any]
    if "throttle.active" in s:
        out["active"] = s["throttle.active"]
    if "throttle.reasons" in s:
        out["reasons"] = [] if s["throttle.reasons"] == "none" else s["throttle.reasons"].split(",")
    for key, name in (("throttle.oc_events", "oc_events_since_boot"),
                      ("throttle.oc_events_counted", "oc_events_counted")):
        if key in s:
            out[name] = s[key]
    reasons = {n: s["throttle.reason.%s.active" % n] for n in _indices(s, r"throttle\.reason\.([^.]+)\.active$")}
    if reasons:
        out["reason_active"] = reasons
    channels = {int(n): _fields(s, "throttle.oc%s." % n) for n in _indices(s, r"throttle\.oc(\d+)\.")}
    if channels:
        out["channels"] = channels
    caps = {t: _fields(s, "throttle.cap.%s." % t) for t in _indices(s, r"throttle\.cap\.(.+)\.[a-z_]+$")}
    if caps:
        out["caps"] = caps
    return out


VIEWS = ("cpu", "gpus", "memory", "power", "temperatures", "trip_points", "fans", "engines", "modes", "processes",
         "system", "throttling")


def _leaves(x: Any, out: List[Any]) -> None:
    if isinstance(x, dict):
        for v in x.values():
            _leaves(v, out)
    elif isinstance(x, list):
        for v in x:
            _leaves(v, out)
    else:
        out.append(x)


def unviewed(s: Snapshot) -> Set[str]:
    """Keys of S that no view shows (a key of a newer jetsond this version
    does not know): for tests and for callers who want everything."""
    prefixes = ("cpu.", "gpu.", "dgpu.", "ram.", "swap.", "iram.", "emc.", "power.", "energy.", "temp.",
                "temp_trip.", "fan.", "engine.", "nvpmodel.", "jetson_clocks.", "process.", "disk.", "net.", "throttle.")
    return {k for k in s if k != "uptime" and not k.startswith(prefixes)}


__all__ = ["cpu", "gpus", "memory", "power", "temperatures", "trip_points", "fans", "engines", "modes", "processes",
           "system", "throttling", "unit_name", "unviewed", "Optional"]
