"""jtop 4.x's documented Python API on jetsond: ``from jetsond.jtop import
jtop`` instead of ``from jtop import jtop``. The dict shapes, key names and
units are jtop's (kHz, mV, mA, mW, KB, °C); values jetsond does not have are
left out rather than made up (docs/python.md lists them). Writes go through
jetsond and polkit, not through a root socket."""

import datetime
import json
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

# The pure conversions to jtop's shapes live beside this file; they are
# part of this module's interface (tests and users call jtop.cpu_of ...).
from ._jtop_shapes import Snapshot as Snapshot
from ._jtop_shapes import cpu_of as cpu_of
from ._jtop_shapes import gpu_of as gpu_of
from ._jtop_shapes import memory_of as memory_of
from ._jtop_shapes import power_of as power_of
from ._jtop_shapes import oc_events_of as oc_events_of
from ._jtop_shapes import temperature_of as temperature_of
from ._jtop_shapes import engine_of as engine_of
from ._jtop_shapes import processes_of as processes_of
from ._jtop_shapes import disk_of as disk_of
from ._jtop_shapes import stats_of as stats_of
from ._jtop_shapes import board_of as board_of
from .client import Jetson, Sample
from .errors import JetsondError
from .netif import local_interfaces as _local_interfaces


class JtopException(Exception):
    """What jtop raises; here it wraps jetsond's exception (``__cause__``)."""


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
    jetson.ok(): jetson.stats``. The interval (seconds, at least 0.01):
    at jetsond's DefaultInterval (1 s, jtop's default) it listens to the
    Sample signal and asks for nothing; another is asked of jetsond with
    Subscribe for as long as this object runs (Jetson.samples)."""

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
        # Over-current events jetsond counted (never falls, resets included)
        # at the previous sample: power["oc_events"]["is_throttling"] is
        # whether it rose since, as jtop's own compares with its last update.
        self._oc_counted = None  # type: Optional[int]
        self._oc_rose = False
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
        counted = s.get("throttle.oc_events_counted")
        rose = counted is not None and self._oc_counted is not None and counted > self._oc_counted
        if counted is not None:
            self._oc_counted = int(counted)
        with self._cond:
            self._oc_rose = rose
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
        return power_of(self._s, {k: t / n for k, (t, n) in self._sums.items() if n}, self._oc_rose)

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
    def local_interfaces(self) -> Dict[str, Any]:
        """{"hostname", "interfaces": {NAME: IPv4 address}}, read in this
        process's network namespace (jetsond.local_interfaces() adds every
        address, IPv6 included)."""
        d = _local_interfaces()
        return {"hostname": d["hostname"], "interfaces": d["interfaces"]}

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
           "gpu_of", "memory_of", "power_of", "oc_events_of", "temperature_of", "engine_of", "processes_of", "disk_of", "board_of"]
