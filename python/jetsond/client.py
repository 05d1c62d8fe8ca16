"""``jetsond.Jetson``: the board through jetsond's D-Bus API."""

import threading
import time
from typing import Any, Callable, Dict, Generator, List, Optional, Tuple

from . import devices, views
from ._bus import BUS_NAME, PATH, Bus, bus_address, unwrap
from .errors import InvalidArgs, NotRunning, NotSupported
from .pidns import CallerPids

_PROPS_CHANGED = "org.freedesktop.DBus.Properties"


def discrete_gpu_info(objs: Dict[str, Dict[str, Dict[str, Any]]]) -> Dict[int, Dict[str, Any]]:
    """The DiscreteGpu objects of GetManagedObjects' OBJS, by NVML index,
    their properties by nvitop's names (views.dgpu_properties)."""
    out = {}
    for path, ifaces in objs.items():
        p = ifaces.get("org.jetsond.Jetson1.DiscreteGpu")
        if p is not None:
            out[int(path.rsplit("/", 1)[1])] = views.dgpu_properties(p)
    return out


def with_discrete_info(found: List[Dict[str, Any]], info: Dict[int, Dict[str, Any]]) -> List[Dict[str, Any]]:
    for g in found:
        if not g["integrated"] and g["index"] in info:
            g.update(info[g["index"]])
    return found


class Sample(Dict[str, Any]):
    """One sample: GetSnapshot's (or a Sample or SampleAt signal's) flat
    keys as a dict, with ``timestamp`` (seconds since the Unix epoch,
    CLOCK_REALTIME of the newest reading) and ``caller_pids``: true when its
    process.PID keys are known to be this process's PID namespace's
    (jetsond.pidns), false where jetsond could not tell (they are then
    jetsond's own)."""

    timestamp = 0.0
    caller_pids = False

    def __init__(self, timestamp_usec: int, values: Dict[str, Any], caller_pids: bool = False) -> None:
        super().__init__(values)
        self.timestamp = timestamp_usec / 1e6
        self.caller_pids = caller_pids


_NAMES = {"SoC": "soc", "L4T": "l4t", "JetPack": "jetpack", "PNumber": "pnumber", "BoardIds": "board_ids",
          "CudaArch": "cuda_arch", "PartNumber": "part_number", "KernelRelease": "kernel_release",
          "DefaultProfile": "default_profile"}


def _snake(name: str) -> str:
    """A D-Bus property name in Python's style: PartNumber -> part_number."""
    if name in _NAMES:
        return _NAMES[name]
    out = ""
    for i, c in enumerate(name):
        if c.isupper() and i and not name[i - 1].isupper():
            out += "_"
        out += c.lower()
    return out


class Jetson:
    """A client of jetsond. Reads need no rights; writes go through polkit
    (``interactive=True`` lets polkit ask for a password through an agent, as
    systemctl does). Usable as a context manager; ``close()`` ends it.

    ``address``: a D-Bus address instead of the system bus (as
    DBUS_SYSTEM_BUS_ADDRESS). ``bus="session"``: your own jetsond on the
    session bus (``jetsond --user``), which reads what you may read and
    refuses every write with ``ReadOnly``."""

    def __init__(self, address: Optional[str] = None, interactive: bool = True, timeout: float = 120.0,
                 bus: str = "system") -> None:
        # Resolved once: samples(), Subscription and recorders connect
        # again to self.address.
        self.address = bus_address(address, bus)
        self.interactive = interactive
        self._bus = Bus(self.address, timeout=timeout)
        self._lock = threading.Lock()
        self._keys = (0, [])  # type: Tuple[int, List[str]]
        self._pidns = CallerPids(lambda method, pids: list(self._call("Metrics", method, "au", (pids,))[0]))
        if not self._bus.name_has_owner():
            # Activation: the first call starts jetsond if it is installed.
            self._call("Metrics", "GetSnapshot")

    def close(self) -> None:
        self._bus.close()

    def __enter__(self) -> "Jetson":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (), path: str = PATH,
              write: bool = False) -> Tuple[Any, ...]:
        with self._lock:
            return self._bus.jcall(interface, method, signature, body, path=path,
                                   interactive=write and self.interactive)

    def _props(self, interface: str, path: str = PATH) -> Dict[str, Any]:
        with self._lock:
            return self._bus.get_all(interface, path)

    # ---- readings ------------------------------------------------------
    def snapshot(self) -> Sample:
        """The latest sample (Metrics.GetSnapshot): flat keys such as
        "cpu.load", "power.total", "temp.gpu" in the units Metrics.xml
        documents; an absent reading is an absent key."""
        ts, values = self._call("Metrics", "GetSnapshot")
        values = self._pidns.view({k: unwrap(v) for k, v in values.items()})
        return Sample(ts, values, self._pidns.ok)

    def numbers(self) -> Sample:
        """The latest sample's numeric keys as floats (booleans 0.0 and
        1.0), through the compact form (Metrics.GetValues: 8 bytes a value,
        no names); strings are left out (snapshot() has them), and so is a
        key the sample lacks. The key list (GetKeys) is asked for once and
        again only when its generation changes. The same sample as
        snapshot() at that moment, and cheaper for jetsond and for Python."""
        for _ in range(5):
            ts, generation, values = self._call("Metrics", "GetValues")
            if generation != self._keys[0]:
                gen, keys = self._call("Metrics", "GetKeys")
                self._keys = (gen, list(keys))
            if generation == self._keys[0]:
                numbers = self._pidns.view(_numbers(self._keys[1], values))
                return Sample(ts, numbers, self._pidns.ok)
        raise NotRunning("jetsond's key list kept changing")  # a key set changing at every sample

    def pids_from_caller(self, pids: List[int]) -> List[int]:
        """Each PID of this process's PID namespace (a container's) as
        jetsond's namespace names it, 0 for none (Metrics.PidsFromCaller).
        Raises UnknownProcess where jetsond cannot tell this process's
        namespace. snapshot(), numbers(), samples() and on_sample() already
        name processes by this namespace's PIDs."""
        return [int(p) for p in self._call("Metrics", "PidsFromCaller", "au", (list(pids),))[0]]

    def pids_to_caller(self, pids: List[int]) -> List[int]:
        """Each of jetsond's PIDS as this process's PID namespace names it, 0
        where it cannot see the process (Metrics.PidsToCaller)."""
        return [int(p) for p in self._call("Metrics", "PidsToCaller", "au", (list(pids),))[0]]

    def identity(self) -> Dict[str, Any]:
        """The Board interface's properties with snake_case names: model,
        module, part_number, soc, cuda_arch, codename, l4t, jetpack,
        machine, distribution, kernel_release, libraries, ..."""
        return {_snake(k): v for k, v in self._props("Board").items()}

    def serial_number(self) -> str:
        """Board.GetSerialNumber (polkit read-serial)."""
        return str(self._call("Board", "GetSerialNumber", write=True)[0])

    def interval(self) -> float:
        """How often jetsond reads the board now, in seconds: the fastest
        period any client subscribed for, at most default_interval()."""
        with self._lock:
            return float(self._bus.get("Metrics", "Interval")) / 1e6

    def default_interval(self) -> float:
        """The period of jetsond's Sample signal, in seconds, whatever
        other clients subscribed for (1 s unless jetsond was told)."""
        with self._lock:
            return float(self._bus.get("Metrics", "DefaultInterval")) / 1e6

    def cpu(self) -> Dict[str, Any]:
        return views.cpu(self.snapshot())

    def _gpus_of(self, s: Sample) -> List[Dict[str, Any]]:
        return with_discrete_info(views.gpus(s), self.discrete_gpus())

    def gpus(self, only: Any = None, only_visible: bool = False) -> List[Dict[str, Any]]:
        """Every GPU (views.gpus), a discrete one with its DiscreteGpu
        properties too (views.dgpu_properties): name, uuid, pci_bus_id,
        memory_total_bytes, power_limit_mw, max_clocks_mhz, driver_version,
        minor_number, cuda_driver_version, cuda_compute_capability,
        bar1_memory_total_bytes and the modes (ecc_mode, ecc_mode_pending,
        persistence_mode, compute_mode, display_mode, display_active).
        ONLY and ONLY_VISIBLE limit the list
        as nvitop's --only and --only-visible (jetsond.devices.only):
        NoSuchGpu for an entry that names no GPU."""
        return devices.only(self._gpus_of(self.snapshot()), only, only_visible)

    def gpu(self, index: Any = None, uuid: Optional[str] = None, bus_id: Optional[str] = None) -> Dict[str, Any]:
        """The one GPU with this NVML index ("soc": a Jetson's own), UUID (or
        its start) or PCI bus id, as nvitop's Device(...); NoSuchGpu if none."""
        return devices.find(self._gpus_of(self.snapshot()), index, uuid, bus_id)

    def take_snapshots(self, only: Any = None, only_visible: bool = False) -> Dict[str, Any]:
        """GPUs and their processes from one sample, as nvitop's
        take_snapshots(): {"timestamp", "gpus", "processes"}, the processes
        those on the GPUs listed (ONLY, ONLY_VISIBLE as gpus())."""
        s = self.snapshot()
        gpus = devices.only(self._gpus_of(s), only, only_visible)
        return {"timestamp": s.timestamp, "gpus": gpus, "processes": devices.processes_on(views.processes(s), gpus)}

    def discrete_gpus(self) -> Dict[int, Dict[str, Any]]:
        with self._lock:
            objs = self._bus.managed_objects()
        return discrete_gpu_info(objs)

    def memory(self) -> Dict[str, Any]:
        return views.memory(self.snapshot())

    def power(self) -> Dict[str, Any]:
        return views.power(self.snapshot())

    def temperatures(self) -> Dict[str, float]:
        return views.temperatures(self.snapshot())

    def trip_points(self) -> Dict[str, Dict[str, float]]:
        return views.trip_points(self.snapshot())

    def fans(self) -> List[Dict[str, Any]]:
        """The fans' readings and their Fan objects' properties (name,
        profiles, default_profile, governor, control)."""
        found = views.fans(self.snapshot())
        with self._lock:
            objs = self._bus.managed_objects()
        for f in found:
            p = objs.get("%s/fan/%d" % (PATH, f["index"]), {}).get("org.jetsond.Jetson1.Fan", {})
            for k in ("Name", "Profiles", "DefaultProfile", "Governor", "Control"):
                if k in p:
                    f[_snake(k)] = p[k]
        return found

    def processes(self) -> List[Dict[str, Any]]:
        return views.processes(self.snapshot())

    def throttling(self) -> Dict[str, Any]:
        """Is it throttled, and why (views.throttling)."""
        return views.throttling(self.snapshot())

    def _optional_props(self, interface: str) -> Optional[Dict[str, Any]]:
        """The properties of INTERFACE, or None where jetsond does not
        export it on this board (a PC has no nvpmodel or jetson_clocks)."""
        try:
            return self._props(interface)
        except NotSupported:
            return None

    def nvpmodel(self) -> Optional[Dict[str, Any]]:
        """{"id", "name", "default_id", "modes": {id: name}}, or None where
        the board has no nvpmodel."""
        p = self._optional_props("NVPModel")
        if p is None:
            return None
        return {"id": p["Mode"], "name": p["ModeName"], "default_id": p["DefaultMode"],
                "modes": {i: n for i, n in p["Modes"]}}

    def jetson_clocks(self) -> Optional[Dict[str, bool]]:
        """{"active", "on_boot"}, or None where the board has no jetson_clocks."""
        p = self._optional_props("JetsonClocks")
        if p is None:
            return None
        return {"active": p["Active"], "on_boot": p["OnBoot"]}

    def swaps(self) -> List[Dict[str, Any]]:
        """Memory.Swaps: [{"path", "type", "size_bytes", "used_bytes",
        "priority", "on_boot"}]."""
        sw = self._props("Memory")["Swaps"]
        return [dict(zip(("path", "type", "size_bytes", "used_bytes", "priority", "on_boot"), t)) for t in sw]

    # ---- samples -------------------------------------------------------
    def samples(self, interval: Optional[float] = None, reconnect: bool = True,
                timeout: Optional[float] = None, compact: bool = False) -> Generator[Sample, None, None]:
        """Samples as they come, every INTERVAL seconds (0.01 to 3600), on a
        connection of its own. Left out, or equal to jetsond's
        DefaultInterval, it listens to the Sample signal that jetsond sends
        anyway and asks for nothing; any other period is asked for
        (Subscribe) for as long as it runs and comes as that period's
        SampleAt signal. With RECONNECT, jetsond leaving or restarting (or
        the bus) does not end the iteration: the subscription is made again
        when it is back. TIMEOUT: seconds without a sample after which
        NotRunning is raised (None: wait). COMPACT: numeric keys only, as
        in numbers(), from the ValuesAt signal (SubscribeValues, at
        DefaultInterval when INTERVAL is left out): a quarter of the bytes
        and far less parsing."""
        return _sample_stream(self.address, interval, reconnect, timeout, compact)

    def on_sample(self, callback: Callable[[Sample], None], interval: Optional[float] = None) -> "Subscription":
        """Calls CALLBACK(sample) for every sample every INTERVAL seconds
        (as samples(): no request at jetsond's DefaultInterval), from a
        thread of its own, until the returned Subscription's stop()."""
        return Subscription(self.address, callback, interval)

    # ---- writes (polkit) -------------------------------------------------
    def set_fan_speed(self, percent: float, fan: int = 0) -> None:
        self._call("Fan", "SetSpeed", "d", (float(percent),), path="%s/fan/%d" % (PATH, fan), write=True)

    def set_fan_profile(self, profile: str, fan: int = 0) -> None:
        self._call("Fan", "SetProfile", "s", (profile,), path="%s/fan/%d" % (PATH, fan), write=True)

    def set_nvpmodel(self, mode_id: int) -> None:
        """Raises RebootRequired for a mode that needs a reboot."""
        self._call("NVPModel", "SetMode", "u", (int(mode_id),), write=True)

    def set_default_nvpmodel(self, mode_id: int) -> None:
        self._call("NVPModel", "SetDefaultMode", "u", (int(mode_id),), write=True)

    def set_jetson_clocks(self, active: bool) -> None:
        self._call("JetsonClocks", "SetActive", "b", (bool(active),), write=True)

    def set_jetson_clocks_on_boot(self, on_boot: bool) -> None:
        self._call("JetsonClocks", "SetOnBoot", "b", (bool(on_boot),), write=True)

    def set_gpu_scaling_3d(self, enabled: bool) -> None:
        self._call("Gpu", "SetScaling3D", "b", (bool(enabled),), write=True)

    def set_gpu_railgate(self, enabled: bool) -> None:
        self._call("Gpu", "SetRailgate", "b", (bool(enabled),), write=True)

    def create_swap(self, size_bytes: int, on_boot: bool = False) -> None:
        self._call("Memory", "CreateSwap", "tb", (int(size_bytes), bool(on_boot)), write=True)

    def remove_swap(self) -> None:
        self._call("Memory", "RemoveSwap", write=True)

    def drop_caches(self) -> None:
        self._call("Memory", "DropCaches", write=True)

    def restore_defaults(self) -> List[str]:
        """Manager.RestoreDefaults: one line per step."""
        return list(self._call("Manager", "RestoreDefaults", write=True)[0])


def _numbers(keys: List[str], values: List[float]) -> Dict[str, float]:
    """The compact form's values by name; NaN (absent) left out."""
    return {k: v for k, v in zip(keys, values) if v == v}


def _usec(interval: float) -> int:
    """INTERVAL seconds in microseconds, rounded: 0.29 s is 290000, not the
    289999 that int() makes of 0.29 * 1e6."""
    return int(round(interval * 1e6))


def _stream_plan(usec: Optional[int], compact: bool, default_usec: Optional[int]) -> Tuple[str, str, str]:
    """How to follow samples every USEC microseconds (None: jetsond's own
    period) when jetsond's DefaultInterval is DEFAULT_USEC (None where it
    was not asked: only USEC None without COMPACT needs no answer):
    (signal, its arg0, the method that asks for it). Sample goes out every
    DefaultInterval anyway, so it is listened to with no request ("" for
    arg0 and method); any other period is asked for and comes as SampleAt
    (ValuesAt: compact, which has no unrequested form) with the period as
    arg0, so a client receives the rate it asked for and no other."""
    if usec is None:
        if not compact:
            return ("Sample", "", "")
        usec = default_usec
    if usec is None:
        raise ValueError("the DefaultInterval is needed for a compact stream")
    if compact:
        return ("ValuesAt", str(usec), "SubscribeValues")
    if usec == default_usec:
        return ("Sample", "", "")
    return ("SampleAt", str(usec), "Subscribe")


def _signal_rule(member: str, arg0: str) -> str:
    """The match rule for jetsond's Metrics signal MEMBER, with ARG0 (the
    period of a SampleAt or ValuesAt) where it is not empty."""
    rule = ("type='signal',sender='%s',path='%s',interface='org.jetsond.Jetson1.Metrics',member='%s'"
            % (BUS_NAME, PATH, member))
    return rule + (",arg0='%s'" % arg0 if arg0 else "")


def _sample_stream(address: Optional[str], interval: Optional[float], reconnect: bool,
                   timeout: Optional[float], compact: bool = False) -> Generator[Sample, None, None]:
    if interval is not None and not 0.01 <= interval <= 3600:
        raise InvalidArgs("interval %r s is out of range (0.01 to 3600)" % (interval,))
    from jeepney.low_level import HeaderFields, MessageType
    usec = None if interval is None else _usec(interval)
    # Whether the plan depends on jetsond's DefaultInterval, which only a
    # running jetsond can say.
    asks = compact or usec is not None
    keys = (0, [])  # type: Tuple[int, List[str]]
    # PIDs translated on a connection of their own: a call on the one
    # that receives the signals would drop those that came meanwhile.
    pid_bus = []  # type: List[Bus]

    def translate(method: str, pids: List[int]) -> List[int]:
        if not pid_bus:
            pid_bus.append(Bus(address))
        return list(pid_bus[0].jcall("Metrics", method, "au", (pids,))[0])
    pidns = CallerPids(translate)
    plan = [None]  # type: List[Optional[Tuple[str, str, str]]]

    def follow(bus: Bus) -> None:
        # Asked again for each jetsond: a restarted one may have another
        # DefaultInterval, so the other signal. The match comes before the
        # request, so that the first signal of the period is not missed.
        default = int(bus.get("Metrics", "DefaultInterval")) if asks else None
        new = _stream_plan(usec, compact, default)
        if new != plan[0]:
            if plan[0] is not None:
                bus.remove_match(_signal_rule(plan[0][0], plan[0][1]))
            bus.add_match(_signal_rule(new[0], new[1]))
            plan[0] = new
        if new[2]:
            bus.jcall("Metrics", new[2], "t", (int(new[1]),))
    owner_rule = ("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                  "member='NameOwnerChanged',arg0='%s'" % BUS_NAME)
    delay = 0.1
    expired = False
    while True:
        bus = None
        plan[0] = None
        try:
            bus = Bus(address)
            bus.add_match(owner_rule)
            if not asks or bus.name_has_owner() or not reconnect:
                follow(bus)
            last = time.monotonic()
            while True:
                msg = bus.receive(0.5)
                if msg is None:
                    if timeout is not None and time.monotonic() - last > timeout:
                        expired = True
                        raise NotRunning("no sample from jetsond for %g s" % timeout)
                    continue
                h = msg.header
                if h.message_type != MessageType.signal:
                    continue
                member = h.fields.get(HeaderFields.member)
                if member == "NameOwnerChanged":
                    _, old, new = msg.body
                    if new:
                        keys = (0, [])
                        follow(bus)
                    elif not reconnect:
                        raise NotRunning("jetsond left the bus")
                    continue
                # Only the plan's signal: one of a plan given up after a
                # restart may still be queued.
                if plan[0] is None or member != plan[0][0] or (plan[0][1] and msg.body[0] != plan[0][1]):
                    continue
                last = time.monotonic()
                delay = 0.1
                if member == "Sample":
                    ts, values = msg.body
                elif member == "SampleAt":
                    _, ts, values = msg.body
                else:
                    _, ts, generation, numbers = msg.body
                    if generation != keys[0]:
                        gen, names = bus.jcall("Metrics", "GetKeys")
                        keys = (gen, list(names))
                    # A list newer than these values: the next signal has it.
                    if generation != keys[0]:
                        continue
                    yield Sample(ts, pidns.view(_numbers(keys[1], numbers)), pidns.ok)
                    continue
                values = pidns.view({k: unwrap(v) for k, v in values.items()})
                yield Sample(ts, values, pidns.ok)
        except NotRunning:
            # TIMEOUT ends it even with RECONNECT: reconnecting would only
            # start the wait again.
            if not reconnect or expired:
                raise
        finally:
            if bus is not None:
                bus.close()
            while pid_bus:
                pid_bus.pop().close()
        time.sleep(delay)
        delay = min(delay * 2, 5.0)


class Subscription:
    """A thread calling a callback for every sample; stop() ends it."""

    def __init__(self, address: Optional[str], callback: Callable[[Sample], None],
                 interval: Optional[float]) -> None:
        self._stop = threading.Event()
        self.error = None  # type: Optional[BaseException]

        def run() -> None:
            try:
                for s in _sample_stream(address, interval, True, None):
                    if self._stop.is_set():
                        break
                    callback(s)
            except BaseException as e:  # kept for the caller to see
                self.error = e

        self._thread = threading.Thread(target=run, name="jetsond-samples", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stops calling back (within one sample period)."""
        self._stop.set()
        self._thread.join(timeout)
