"""jtop 4.x's dict shapes made from a jetsond snapshot and Board
properties: pure conversions, no bus, so they are tested on made-up
snapshots (tests/python). jetsond.jtop's objects call them for every
property jtop's documentation lists; units are jtop's (kHz, mV, mA, mW, KB,
°C), and a value jetsond does not have is left out, never made up."""

import datetime
import json
import platform
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

Snapshot = Mapping[str, Any]

# ---- pure conversions: a snapshot (and properties) to jtop's shapes ---------
def _num(x: Any) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


_SPLIT = ("user", "nice", "system", "idle")


def _split(s: Snapshot, prefix: str) -> Dict[str, Any]:
    """user, nice, system and idle (%) from PREFIX + "user" ...; idle from
    the load alone where the split is missing (a jetsond before it)."""
    out = {k: s[prefix + k] for k in _SPLIT if prefix + k in s}
    if "idle" not in out and prefix + "load" in s:
        out["idle"] = 100.0 - s[prefix + "load"]
    return out


def cpu_of(s: Snapshot) -> Dict[str, Any]:
    """jtop's ``cpu``: per-core online, governor, freq {min,max,cur} (kHz)
    and user, nice, system, idle (% of the last interval: system with irq
    and softirq, idle with iowait, the four adding up to 100); the same
    four for all cores together as "total"."""
    cores = []  # type: List[Dict[str, Any]]
    n = 0
    while "cpu.%d.online" % n in s or "cpu.%d.freq" % n in s:
        c = {"online": bool(s.get("cpu.%d.online" % n, True))}  # type: Dict[str, Any]
        if "cpu.%d.governor" % n in s:
            c["governor"] = s["cpu.%d.governor" % n]
        freq = {}
        for k, name in (("min_freq", "min"), ("max_freq", "max"), ("freq", "cur")):
            if "cpu.%d.%s" % (n, k) in s:
                freq[name] = s["cpu.%d.%s" % (n, k)]
        if c["online"]:
            c["freq"] = freq
            c.update(_split(s, "cpu.%d." % n))
        cores.append(c)
        n += 1
    total = _split(s, "cpu.")
    return {"total": total, "cpu": cores}


def gpu_of(s: Snapshot) -> Dict[str, Any]:
    """jtop's ``gpu``: {"gpu": {"type", "status", "freq"}} for the
    integrated GPU and {"dgpuN": ...} for each discrete one."""
    out = {}  # type: Dict[str, Any]
    if any(k.startswith("gpu.") for k in s):
        status = {}  # type: Dict[str, Any]
        for k, name in (("railgate", "railgate"), ("tpc_pg_mask", "tpc_pg_mask"), ("3d_scaling", "3d_scaling"),
                        ("load", "load")):
            if "gpu." + k in s:
                status[name] = s["gpu." + k]
        freq = {}  # type: Dict[str, Any]
        for k, name in (("governor", "governor"), ("min_freq", "min"), ("max_freq", "max"), ("freq", "cur")):
            if "gpu." + k in s:
                freq[name] = s["gpu." + k]
        gpc = []  # type: List[Any]
        while "gpu.gpc%d.freq" % len(gpc) in s:
            gpc.append(s["gpu.gpc%d.freq" % len(gpc)])
        if gpc:
            freq["GPC"] = gpc
        out["gpu"] = {"type": "integrated", "status": status, "freq": freq}
    n = 0
    while any(k.startswith("dgpu.%d." % n) for k in s):
        p = "dgpu.%d." % n
        status = {"load": s[p + "load"]} if p + "load" in s else {}
        freq = {"cur": s[p + "freq"]} if p + "freq" in s else {}
        out["dgpu%d" % n] = {"type": "discrete", "status": status, "freq": freq}
        n += 1
    return out


def memory_of(s: Snapshot, swaps: Sequence[Tuple[str, str, int, int, int, bool]] = ()) -> Dict[str, Any]:
    """jtop's ``memory``: RAM, SWAP (with its table), EMC and IRAM in KB."""
    out = {}  # type: Dict[str, Any]
    ram = {}  # type: Dict[str, Any]
    for k, name in (("total", "tot"), ("used", "used"), ("free", "free"), ("buffers", "buffers"),
                    ("cached", "cached"), ("shared", "shared"), ("lfb", "lfb")):
        if "ram." + k in s:
            ram[name] = s["ram." + k]
    out["RAM"] = ram
    swap = {}  # type: Dict[str, Any]
    for k, name in (("total", "tot"), ("used", "used"), ("cached", "cached")):
        if "swap." + k in s:
            swap[name] = s["swap." + k]
    swap["table"] = {path: {"type": kind, "prio": prio, "size": size // 1024, "used": used // 1024, "boot": boot}
                     for path, kind, size, used, prio, boot in swaps}
    out["SWAP"] = swap
    if "emc.freq" in s or "emc.load" in s:
        emc = {"online": True}  # type: Dict[str, Any]
        for k, name in (("load", "val"), ("freq", "cur"), ("max_freq", "max"), ("min_freq", "min")):
            if "emc." + k in s:
                emc[name] = s["emc." + k]
        out["EMC"] = emc
    if "iram.total" in s:
        out["IRAM"] = {"tot": s["iram.total"], "used": s.get("iram.used")}
    return out


def oc_events_of(s: Snapshot, rose: Optional[bool] = None) -> Dict[str, Any]:
    """``power["oc_events"]`` in the shape of jtop's "Add OC Event Counter"
    (rbonghi/jetson_stats PR #597): {"is_throttling": bool, "count": events
    since boot, all channels}; {} on a board without the counters (as that
    PR). jetsond adds "channels": {"ocN": {"count", "throt_en"}} (throt_en:
    the BPMP throttles on that channel). is_throttling is ROSE (a counter
    rose since the caller's previous sample; jtop compares with its own
    previous update) or, without it, whether one rose at jetsond's latest
    reading. A count jetsond could not read is left out."""
    channels = {}  # type: Dict[str, Dict[str, Any]]
    for k in s:
        m = re.match(r"throttle\.oc(\d+)\.events_counted$", k)
        if m:
            n = m.group(1)
            ch = {}  # type: Dict[str, Any]
            if "throttle.oc%s.events" % n in s:
                ch["count"] = int(s["throttle.oc%s.events" % n])
            if "throttle.oc%s.armed" % n in s:
                ch["throt_en"] = bool(s["throttle.oc%s.armed" % n])
            channels["oc" + n] = ch
    if not channels:
        return {}
    if rose is None:
        rose = bool(s.get("throttle.reason.over_current.active", False))
    out = {"is_throttling": rose}  # type: Dict[str, Any]
    if "throttle.oc_events" in s:
        out["count"] = int(s["throttle.oc_events"])
    out["channels"] = dict(sorted(channels.items(), key=lambda kv: int(kv[0][2:])))
    return out


def power_of(s: Snapshot, averages: Optional[Mapping[str, float]] = None,
             oc_rose: Optional[bool] = None) -> Dict[str, Any]:
    """jtop's ``power``: {"rail": {NAME: {online, type, volt, curr, power,
    avg, warn, crit}}, "tot": {power, avg, name}, "oc_events": ...}; avg is
    the mean power over the samples this jtop has seen, as jtop's own;
    oc_events is oc_events_of(S, OC_ROSE)."""
    averages = averages or {}
    rails = {}  # type: Dict[str, Dict[str, Any]]
    for k, v in s.items():
        m = re.match(r"power\.(.+)\.(power|voltage|current|warn_current|crit_current)$", k)
        if not m:
            continue
        r = rails.setdefault(m.group(1), {"online": True, "type": "INA3221"})
        r[{"power": "power", "voltage": "volt", "current": "curr", "warn_current": "warn",
           "crit_current": "crit"}[m.group(2)]] = v
    for name, r in rails.items():
        if name in averages:
            r["avg"] = averages[name]
        if name.startswith("RAPL_"):
            r["type"] = "RAPL"
    tot = {}  # type: Dict[str, Any]
    if "power.total" in s:
        tot = {"power": s["power.total"], "name": "ALL" if s.get("power.total_is_sum") else "VDD_IN"}
        if "total" in averages:
            tot["avg"] = averages["total"]
    return {"rail": rails, "tot": tot, "oc_events": oc_events_of(s, oc_rose)}


def temperature_of(s: Snapshot) -> Dict[str, Dict[str, Any]]:
    """jtop's ``temperature``: {zone: {"online": True, "temp": °C, "max":
    °C, "crit": °C}}: max is the zone's throttle trip point (its lowest
    passive one), crit its critical one, each only where the zone has it;
    offline zones are absent (jetsond leaves them out)."""
    out = {}  # type: Dict[str, Dict[str, Any]]
    for k, v in s.items():
        if k.startswith("temp."):
            zone = {"online": True, "temp": v}  # type: Dict[str, Any]
            for trip, name in (("throttle", "max"), ("critical", "crit")):
                if "temp_trip.%s.%s" % (k[5:], trip) in s:
                    zone[name] = s["temp_trip.%s.%s" % (k[5:], trip)]
            out[k[5:]] = zone
    return out


def engine_of(s: Snapshot) -> Dict[str, Dict[str, Dict[str, Any]]]:
    """jtop's ``engine``: {group: {engine: {"online", "cur"}}}, the group
    being the name less its number (DLA0, DLA1 -> DLA)."""
    out = {}  # type: Dict[str, Dict[str, Dict[str, Any]]]
    for k, v in s.items():
        m = re.match(r"engine\.([^.]+)\.(online|freq)$", k)
        if m:
            group = re.sub(r"\d+$", "", m.group(1)) or m.group(1)
            e = out.setdefault(group, {}).setdefault(m.group(1), {})
            e["online" if m.group(2) == "online" else "cur"] = v
    return out


def processes_of(s: Snapshot) -> List[List[Any]]:
    """jtop's ``processes``: [pid, user, gpu, type, priority, state, cpu %,
    memory KB, GPU memory KB, name]; jetsond has no priority or state:
    None."""
    out = []
    for pid in sorted({int(k.split(".")[1]) for k in s if re.match(r"process\.\d+\.", k)}):
        p = "process.%d." % pid
        gpus = ["I"] if s.get(p + "gpu_mem") and not any(k.startswith(p + "dgpu.") for k in s) else []
        gpus += ["d%s" % k.split(".")[3] for k in s if re.match(re.escape(p) + r"dgpu\.\d+\.mem$", k)]
        out.append([pid, s.get(p + "user"), ",".join(gpus) or "I", "Graphic", None, None, s.get(p + "cpu"),
                    s.get(p + "rss"), s.get(p + "gpu_mem"), s.get(p + "name")])
    return out


def disk_of(s: Snapshot) -> Dict[str, float]:
    """jtop's ``disk`` in GB: total and available_no_root (space for
    unprivileged users); used as total minus that. jetsond has not the
    root-reserved figure, so "available" is left out."""
    out = {}
    if "disk.total_bytes" in s:
        out["total"] = s["disk.total_bytes"] / 1e9
    if "disk.available_bytes" in s:
        out["available_no_root"] = s["disk.available_bytes"] / 1e9
        if "total" in out:
            out["used"] = out["total"] - out["available_no_root"]
    return out


def stats_of(s: Snapshot, fan_names: Optional[Mapping[int, str]] = None,
             now: Optional[datetime.datetime] = None) -> Dict[str, Any]:
    """jtop's ``stats``: time, uptime, CPU1..CPUn (% or "OFF"), RAM and
    SWAP (used/total), EMC, IRAM, GPU (%), engines (kHz or "OFF"), "Fan
    NAME" (%), "Temp ZONE" (°C), "Power RAIL" and "Power TOT" (mW),
    jetson_clocks ("ON"/"OFF") and nvpmodel (name)."""
    out = {"time": now or datetime.datetime.now()}  # type: Dict[str, Any]
    if "uptime" in s:
        out["uptime"] = datetime.timedelta(seconds=s["uptime"])
    n = 0
    while "cpu.%d.online" % n in s:
        out["CPU%d" % (n + 1)] = s.get("cpu.%d.load" % n, "OFF") if s["cpu.%d.online" % n] else "OFF"
        n += 1
    if s.get("ram.total"):
        out["RAM"] = s["ram.used"] / s["ram.total"]
    if s.get("swap.total"):
        out["SWAP"] = s["swap.used"] / s["swap.total"]
    if "emc.load" in s:
        out["EMC"] = s["emc.load"]
    if s.get("iram.total"):
        out["IRAM"] = s["iram.used"] / s["iram.total"]
    if "gpu.load" in s:
        out["GPU"] = s["gpu.load"]
    for group in engine_of(s).values():
        for name, e in sorted(group.items()):
            out[name] = e.get("cur", "OFF") if e.get("online", "cur" in e) else "OFF"
    n = 0
    while "fan.%d.speed" % n in s:
        out["Fan %s" % (fan_names or {}).get(n, "pwmfan%d" % n)] = s["fan.%d.speed" % n]
        n += 1
    for k, v in s.items():
        if k.startswith("temp."):
            out["Temp " + k[5:]] = v
    for name, r in power_of(s)["rail"].items():
        if "power" in r:
            out["Power " + name] = r["power"]
    if "power.total" in s:
        out["Power TOT"] = s["power.total"]
    if "jetson_clocks.active" in s:
        out["jetson_clocks"] = "ON" if s["jetson_clocks.active"] else "OFF"
    if "nvpmodel.name" in s:
        out["nvpmodel"] = s["nvpmodel.name"]
    return out


_HARDWARE = (("model", "Model"), ("part_number", "699-level Part Number"), ("pnumber", "P-Number"),
             ("board_ids", "BoardIDs"), ("module", "Module"), ("soc", "SoC"), ("cuda_arch", "CUDA Arch BIN"),
             ("codename", "Codename"), ("l4t", "L4T"), ("jetpack", "Jetpack"))
_LIBRARIES = (("cuda", "CUDA"), ("opencv", "OpenCV"), ("cudnn", "cuDNN"), ("tensorrt", "TensorRT"),
              ("vpi", "VPI"), ("vulkan", "Vulkan"))


def board_of(identity: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
    """jtop's ``board``: platform (this Python's, as jtop reads it in a
    container), hardware and libraries from jetsond's Board interface (the
    host's). "Serial Number" needs polkit's read-serial: left out (use
    Jetson().serial_number())."""
    hw = {name: identity[k] for k, name in _HARDWARE if k in identity}
    libs = identity.get("libraries", {})
    lib = {name: libs[k] for k, name in _LIBRARIES if k in libs}
    if "opencv_cuda" in libs:
        lib["OpenCV-Cuda"] = libs["opencv_cuda"] == "yes"
    plat = {"Machine": platform.machine(), "System": platform.system(),
            "Distribution": identity.get("distribution", ""), "Release": platform.release(),
            "Python": platform.python_version()}
    return {"platform": plat, "hardware": hw, "libraries": lib}
