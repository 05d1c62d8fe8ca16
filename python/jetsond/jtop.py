"""jtop 4.x's documented Python API on jetsond: ``from jetsond.jtop import
jtop`` instead of ``from jtop import jtop``. The dict shapes, key names and
units are jtop's (kHz, mV, mA, mW, KB, °C); values jetsond does not have are
left out rather than made up (docs/python.md lists them). Writes go through
jetsond and polkit, not through a root socket."""

import datetime
import json
import platform
import re
import threading
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from .client import Jetson, Sample
from .errors import JetsondError

Snapshot = Mapping[str, Any]


class JtopException(Exception):
    """What jtop raises; here it wraps jetsond's exception (``__cause__``)."""


# ---- pure conversions: a snapshot (and properties) to jtop's shapes ---------
def _num(x: Any) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def cpu_of(s: Snapshot) -> Dict[str, Any]:
    """jtop's ``cpu``: per-core online, governor, freq {min,max,cur} (kHz)
    and idle (%); the aggregate's idle. jetsond gives a load per core, not
    its user/nice/system split: those keys are left out."""
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
            if "cpu.%d.load" % n in s:
                c["idle"] = 100.0 - s["cpu.%d.load" % n]
        cores.append(c)
        n += 1
    total = {"idle": 100.0 - s["cpu.load"]} if "cpu.load" in s else {}
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


def power_of(s: Snapshot, averages: Optional[Mapping[str, float]] = None) -> Dict[str, Any]:
    """jtop's ``power``: {"rail": {NAME: {online, type, volt, curr, power,
    avg, warn, crit}}, "tot": {power, avg, name}}; avg is the mean power
    over the samples this jtop has seen, as jtop's own."""
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
    return {"rail": rails, "tot": tot}


def temperature_of(s: Snapshot) -> Dict[str, Dict[str, Any]]:
    """jtop's ``temperature``: {zone: {"online": True, "temp": °C}};
    offline zones are absent (jetsond leaves them out)."""
    return {k[5:]: {"online": True, "temp": v} for k, v in s.items() if k.startswith("temp.")}


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


# ---- the objects jtop's properties return -------------------------------
class Fan(dict):  # type: ignore[type-arg]
    """{name: {"speed": [%], "rpm": [..], "profile", "governor", "control"}};
    ``speed`` and ``profile`` read and set the first fan."""

    def __init__(self, owner: "jtop", data: Dict[str, Any]) -> None:
        super().__init__(data)
        self._owner = owner

    def _first(self) -> Dict[str, Any]:
        if not self:
            raise JtopException("This board has no fan")
        first = next(iter(self.values()))  # type: Dict[str, Any]
        return first

    @property
    def speed(self) -> float:
        return float(self._first()["speed"][0])

    @speed.setter
    def speed(self, value: float) -> None:
        self._owner._write(self._owner._jetson.set_fan_speed, value)

    @property
    def profile(self) -> str:
        return str(self._first()["profile"])

    @profile.setter
    def profile(self, value: str) -> None:
        self._owner._write(self._owner._jetson.set_fan_profile, value)

    def all_profiles(self, name: Optional[str] = None) -> List[str]:
        return list(self._first().get("profiles", []))

    def set_speed(self, value: float, name: Optional[str] = None) -> None:
        self.speed = value

    def set_profile(self, value: str, name: Optional[str] = None) -> None:
        self.profile = value


class GPU(dict):  # type: ignore[type-arg]
    """jtop's gpu dict; ``set_scaling_3D`` and ``railgate`` read and set the
    integrated GPU's settings through jetsond."""

    def __init__(self, owner: "jtop", data: Dict[str, Any]) -> None:
        super().__init__(data)
        self._owner = owner

    @property
    def set_scaling_3D(self) -> bool:
        return bool(self["gpu"]["status"]["3d_scaling"])

    @set_scaling_3D.setter
    def set_scaling_3D(self, value: bool) -> None:
        self._owner._write(self._owner._jetson.set_gpu_scaling_3d, value)

    scaling_3D = set_scaling_3D

    @property
    def railgate(self) -> bool:
        return bool(self["gpu"]["status"]["railgate"])

    @railgate.setter
    def railgate(self, value: bool) -> None:
        self._owner._write(self._owner._jetson.set_gpu_railgate, value)


class Memory(dict):  # type: ignore[type-arg]
    """jtop's memory dict with swap_set(size GB), swap_deactivate() and
    clear_cache() through jetsond."""

    def __init__(self, owner: "jtop", data: Dict[str, Any]) -> None:
        super().__init__(data)
        self._owner = owner

    def swap_set(self, value: float, on_boot: bool = False) -> None:
        size = int(value * (1 << 30)) // 4096 * 4096
        self._owner._write(self._owner._jetson.create_swap, size, on_boot)

    def swap_deactivate(self) -> None:
        self._owner._write(self._owner._jetson.remove_swap)

    def clear_cache(self) -> None:
        self._owner._write(self._owner._jetson.drop_caches)


class NVPModel:
    """The power mode: str() is its name; ``id``, ``name``, ``models``,
    ``default``; ``+``/``-`` give an ID to assign back to jetson.nvpmodel."""

    def __init__(self, info: Dict[str, Any]) -> None:
        self.id = int(info["id"])
        self.name = str(info["name"])
        self.modes = dict(info["modes"])  # type: Dict[int, str]
        self.models = [self.modes[i] for i in sorted(self.modes)]
        self.default = self.modes.get(info["default_id"], "")

    def is_running(self) -> bool:
        return False

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    def __int__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NVPModel):
            return self.id == other.id
        return other == self.name or other == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __add__(self, n: int) -> int:
        return self.id + n

    def __sub__(self, n: int) -> int:
        return self.id - n


class JetsonClocks:
    """jetson_clocks: truthy when active; ``status`` ("running" or
    "inactive"); ``boot`` reads and sets whether it is applied at boot."""

    def __init__(self, owner: "jtop", info: Dict[str, bool]) -> None:
        self._owner = owner
        self.active = bool(info["active"])
        self._boot = bool(info["on_boot"])

    def __bool__(self) -> bool:
        return self.active

    def __eq__(self, other: object) -> bool:
        return bool(self) == other

    def __hash__(self) -> int:
        return hash(self.active)

    def __repr__(self) -> str:
        return str(self.active)

    @property
    def status(self) -> str:
        return "running" if self.active else "inactive"

    @property
    def boot(self) -> bool:
        return self._boot

    @boot.setter
    def boot(self, value: bool) -> None:
        self._owner._write(self._owner._jetson.set_jetson_clocks_on_boot, value)
        self._boot = bool(value)


class jtop:
    """jtop(interval) on jetsond: ``with jtop() as jetson: while
    jetson.ok(): jetson.stats``. The interval (seconds, at least 0.01) is
    asked of jetsond with Subscribe for as long as this object runs."""

    def __init__(self, interval: float = 1.0, address: Optional[str] = None) -> None:
        self._interval_user = float(interval)
        self._address = address
        self._observers = []  # type: List[Callable[["jtop"], None]]
        self._cond = threading.Condition()
        self._sample = None  # type: Optional[Sample]
        self._seq = 0
        self._seen = 0
        self._running = False
        self._error = None  # type: Optional[BaseException]
        self._sums = {}  # type: Dict[str, Tuple[float, int]]
        self._thread = None  # type: Optional[threading.Thread]

    # ---- life ----------------------------------------------------------
    def start(self) -> None:
        try:
            self._jetson = Jetson(self._address)
            self._identity = self._jetson.identity()
            first = self._jetson.snapshot()
        except JetsondError as e:
            raise JtopException(str(e)) from e
        self._fan_info = {}  # type: Dict[int, Dict[str, Any]]
        try:
            for f in self._jetson.fans():
                self._fan_info[f["index"]] = f
        except JetsondError:
            pass
        self._accept(first)
        self._running = True
        self._stream = self._jetson.samples(interval=max(self._interval_user, 0.01))
        self._thread = threading.Thread(target=self._run, name="jtop-jetsond", daemon=True)
        self._thread.start()

    def _accept(self, s: Sample) -> None:
        for name, r in power_of(s)["rail"].items():
            if "power" in r:
                total, n = self._sums.get(name, (0.0, 0))
                self._sums[name] = (total + r["power"], n + 1)
        if "power.total" in s:
            total, n = self._sums.get("total", (0.0, 0))
            self._sums["total"] = (total + s["power.total"], n + 1)
        with self._cond:
            self._sample = s
            self._seq += 1
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            for s in self._stream:
                if not self._running:
                    break
                self._accept(s)
                for obs in list(self._observers):
                    obs(self)
                    if not self._running:
                        break
        except BaseException as e:
            self._error = e
        finally:
            self._stream.close()
            with self._cond:
                self._running = False
                self._cond.notify_all()

    def close(self) -> None:
        """Stops the samples (also from an observer) and disconnects."""
        with self._cond:
            self._running = False
            self._cond.notify_all()
        thread = self._thread
        if thread is threading.current_thread():
            return  # an observer: _run ends after it; the caller's close() joins
        if thread is not None:
            thread.join()
            self._thread = None
        if hasattr(self, "_jetson"):
            self._jetson.close()

    def __enter__(self) -> "jtop":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def ok(self, spin: bool = False) -> bool:
        """Waits for a sample newer than the one last seen (unless SPIN);
        False once closed. Raises what stopped the stream."""
        with self._cond:
            if not spin:
                self._cond.wait_for(lambda: self._seq > self._seen or not self._running)
            self._seen = self._seq
            if self._error is not None:
                raise JtopException(str(self._error)) from self._error
            return self._running

    def attach(self, observer: Callable[["jtop"], None]) -> None:
        self._observers.append(observer)

    def detach(self, observer: Callable[["jtop"], None]) -> None:
        self._observers.remove(observer)

    def loop_for_ever(self) -> None:
        if self._thread is None:
            self.start()
        try:
            while self.ok():
                pass
        finally:
            self.close()

    def _write(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except JetsondError as e:
            raise JtopException(str(e)) from e

    @property
    def _s(self) -> Sample:
        assert self._sample is not None, "jtop is not started"
        return self._sample

    # ---- jtop's properties ----------------------------------------------
    @property
    def interval(self) -> float:
        return self._jetson.interval()

    @property
    def interval_user(self) -> float:
        return self._interval_user

    @property
    def stats(self) -> Dict[str, Any]:
        names = {i: f.get("name", "pwmfan%d" % i) for i, f in self._fan_info.items()}
        return stats_of(self._s, names)

    @property
    def board(self) -> Dict[str, Dict[str, Any]]:
        return board_of(self._identity)

    @property
    def cpu(self) -> Dict[str, Any]:
        return cpu_of(self._s)

    @property
    def gpu(self) -> GPU:
        return GPU(self, gpu_of(self._s))

    @property
    def memory(self) -> Memory:
        try:
            swaps = [(d["path"], d["type"], d["size_bytes"], d["used_bytes"], d["priority"], d["on_boot"])
                     for d in self._jetson.swaps()]
        except JetsondError:
            swaps = []
        return Memory(self, memory_of(self._s, swaps))

    @property
    def power(self) -> Dict[str, Any]:
        return power_of(self._s, {k: t / n for k, (t, n) in self._sums.items() if n})

    @property
    def temperature(self) -> Dict[str, Dict[str, Any]]:
        return temperature_of(self._s)

    @property
    def fan(self) -> Fan:
        s = self._s
        data = {}
        for i, info in sorted(self._fan_info.items()):
            f = {"speed": [s["fan.%d.speed" % i]] if "fan.%d.speed" % i in s else [],
                 "rpm": [s["fan.%d.rpm" % i]] if "fan.%d.rpm" % i in s else [],
                 "profile": s.get("fan.%d.profile" % i, info.get("profile")),
                 "profiles": info.get("profiles", [])}  # type: Dict[str, Any]
            for k in ("governor", "control"):
                if k in info:
                    f[k] = info[k]
            data[info.get("name", "pwmfan%d" % i)] = f
        return Fan(self, data)

    @property
    def nvpmodel(self) -> Any:  # NVPModel or None; Any because the setter takes int or str too
        try:
            p = self._jetson.nvpmodel()
        except JetsondError:
            return None
        return None if p is None else NVPModel(p)

    @nvpmodel.setter
    def nvpmodel(self, value: Union[int, str, NVPModel]) -> None:
        if isinstance(value, NVPModel):
            value = value.id
        if isinstance(value, str):
            p = self._jetson.nvpmodel()
            if p is None:
                raise JtopException("this board has no nvpmodel")
            modes = {n: i for i, n in p["modes"].items()}
            if value not in modes:
                raise JtopException("NV Power Mode %r does not exist (%s)" % (value, ", ".join(modes)))
            value = modes[value]
        self._write(self._jetson.set_nvpmodel, int(value))

    @property
    def jetson_clocks(self) -> Any:  # JetsonClocks or None; the setter takes a bool
        try:
            p = self._jetson.jetson_clocks()
        except JetsondError:
            return None
        return None if p is None else JetsonClocks(self, p)

    @jetson_clocks.setter
    def jetson_clocks(self, value: Any) -> None:
        if isinstance(value, JetsonClocks):
            return  # `jetson.jetson_clocks.boot = x` assigns the object back
        self._write(self._jetson.set_jetson_clocks, bool(value))

    @property
    def processes(self) -> List[List[Any]]:
        return processes_of(self._s)

    @property
    def engine(self) -> Dict[str, Dict[str, Dict[str, Any]]]:
        return engine_of(self._s)

    @property
    def disk(self) -> Dict[str, float]:
        return disk_of(self._s)

    @property
    def uptime(self) -> datetime.timedelta:
        return datetime.timedelta(seconds=self._s.get("uptime", 0))

    def restore(self, max_counter: int = 10) -> Iterator[Tuple[bool, str]]:
        """jetsond's RestoreDefaults, one (True, step) per step."""
        for step in self._write(self._jetson.restore_defaults):
            yield True, step

    def json(self, stats: bool = False, **json_args: Any) -> str:
        if stats:
            data = self.stats  # type: Dict[str, Any]
        else:
            data = {"board": self.board, "cpu": self.cpu, "gpu": dict(self.gpu), "memory": dict(self.memory),
                    "power": self.power, "temperature": self.temperature, "fan": dict(self.fan),
                    "processes": self.processes, "engine": self.engine, "disk": self.disk,
                    "uptime": self.uptime}
            nv = self.nvpmodel
            if nv is not None:
                data["nvpmodel"] = str(nv)
            jc = self.jetson_clocks
            if jc is not None:
                data["jetson_clocks"] = {"status": jc.status, "boot": jc.boot}
        return json.dumps(data, default=str, **json_args)


__all__ = ["jtop", "JtopException", "Fan", "GPU", "Memory", "NVPModel", "JetsonClocks", "stats_of", "cpu_of",
           "gpu_of", "memory_of", "power_of", "temperature_of", "engine_of", "processes_of", "disk_of", "board_of"]
