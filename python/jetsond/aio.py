"""``jetsond.aio.AsyncJetson``: the asyncio form of ``Jetson`` (jeepney's
asyncio router): identity, snapshot, views, writes and an async iterator of
samples; ``recorder()`` gives an AsyncRecorder (jetsond.capture) on the same
bus. measure() is blocking: run it in a thread."""

import asyncio
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Tuple

from . import devices, views
from ._bus import BUS_NAME, IFACE, PATH, bus_address, method_call, reply_body, system_bus_address, unwrap
from .capture import AsyncRecorder
from .client import (Sample, _numbers, _signal_rule, _snake, _stream_plan, _usec, discrete_gpu_info,
                     with_discrete_info)
from .errors import InvalidArgs, JetsondError, NotRunning
from .pidns import CallerPids


class AsyncJetson:
    """``async with AsyncJetson() as board: s = await board.snapshot()``."""

    def __init__(self, address: Optional[str] = None, interactive: bool = True, bus: str = "system") -> None:
        self.address = bus_address(address, bus)  # bus="session": as Jetson
        self.interactive = interactive
        self._cm = None  # type: Any
        self._router = None  # type: Any
        self._keys = (0, [])  # type: Tuple[int, List[str]]
        # The samples() iterator whose request jetsond holds for this
        # connection (one a connection), so that one that ends after
        # another began does not Unsubscribe the other's.
        self._requester = None  # type: Optional[object]
        # Asked through _caller_view(), never called itself.
        self._pidns = CallerPids(lambda method, pids: [])

    async def __aenter__(self) -> "AsyncJetson":
        from jeepney.io.asyncio import open_dbus_router
        self._cm = open_dbus_router(bus=system_bus_address(self.address))
        try:
            self._router = await self._cm.__aenter__()
        except (OSError, ValueError) as e:
            raise NotRunning("cannot connect to the bus: %s" % (e,))
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._cm.__aexit__(None, None, None)

    async def _call(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (),
                    path: str = PATH, destination: str = BUS_NAME, write: bool = False) -> Tuple[Any, ...]:
        msg = method_call(interface, method, signature, body, path, destination, write and self.interactive)
        try:
            reply = await self._router.send_and_get_reply(msg)
        except (OSError, EOFError) as e:
            raise NotRunning("lost the connection to the system bus: %s" % (e,))
        return reply_body(reply)

    async def _j(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (),
                 path: str = PATH, write: bool = False) -> Tuple[Any, ...]:
        return await self._call(IFACE + interface, method, signature, body, path=path, write=write)

    async def _caller_view(self, values: Dict[str, Any]) -> Dict[str, Any]:
        """VALUES' processes by this PID namespace's PIDs (jetsond.pidns)."""
        asked = self._pidns.unknown(values)
        if asked:
            try:
                (got,) = await self._j("Metrics", "PidsToCaller", "au", (asked,))
                self._pidns.learn(values, asked, [int(p) for p in got])
            except JetsondError as e:
                self._pidns.failed(e)
        return self._pidns.apply(values)

    async def pids_from_caller(self, pids: Sequence[int]) -> List[int]:
        """As Jetson.pids_from_caller()."""
        (got,) = await self._j("Metrics", "PidsFromCaller", "au", (list(pids),))
        return [int(p) for p in got]

    async def pids_to_caller(self, pids: Sequence[int]) -> List[int]:
        """As Jetson.pids_to_caller()."""
        (got,) = await self._j("Metrics", "PidsToCaller", "au", (list(pids),))
        return [int(p) for p in got]

    async def snapshot(self) -> Sample:
        ts, values = await self._j("Metrics", "GetSnapshot")
        values = await self._caller_view({k: unwrap(v) for k, v in values.items()})
        return Sample(ts, values, self._pidns.ok)

    async def numbers(self) -> Sample:
        """As Jetson.numbers(): the numeric keys through GetValues, the
        key list asked for again only when its generation changes."""
        for _ in range(5):
            ts, generation, values = await self._j("Metrics", "GetValues")
            if generation != self._keys[0]:
                gen, keys = await self._j("Metrics", "GetKeys")
                self._keys = (gen, list(keys))
            if generation == self._keys[0]:
                numbers = await self._caller_view(_numbers(self._keys[1], values))
                return Sample(ts, numbers, self._pidns.ok)
        raise NotRunning("jetsond's key list kept changing")

    async def identity(self) -> Dict[str, Any]:
        (props,) = await self._call("org.freedesktop.DBus.Properties", "GetAll", "s", (IFACE + "Board",))
        return {_snake(k): unwrap(v) for k, v in props.items()}

    async def cpu(self) -> Dict[str, Any]:
        return views.cpu(await self.snapshot())

    async def _gpus_of(self, s: Sample) -> List[Dict[str, Any]]:
        (objs,) = await self._call("org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        info = discrete_gpu_info({path: {iface: {k: unwrap(v) for k, v in props.items()}
                                         for iface, props in ifaces.items()} for path, ifaces in objs.items()})
        return with_discrete_info(views.gpus(s), info)

    async def gpus(self, only: Any = None, only_visible: bool = False) -> List[Dict[str, Any]]:
        """As Jetson.gpus()."""
        return devices.only(await self._gpus_of(await self.snapshot()), only, only_visible)

    async def gpu(self, index: Any = None, uuid: Optional[str] = None, bus_id: Optional[str] = None) -> Dict[str, Any]:
        """As Jetson.gpu()."""
        return devices.find(await self._gpus_of(await self.snapshot()), index, uuid, bus_id)

    async def take_snapshots(self, only: Any = None, only_visible: bool = False) -> Dict[str, Any]:
        """As Jetson.take_snapshots()."""
        s = await self.snapshot()
        gpus = devices.only(await self._gpus_of(s), only, only_visible)
        return {"timestamp": s.timestamp, "gpus": gpus, "processes": devices.processes_on(views.processes(s), gpus)}

    async def power(self) -> Dict[str, Any]:
        return views.power(await self.snapshot())

    async def throttling(self) -> Dict[str, Any]:
        return views.throttling(await self.snapshot())

    async def temperatures(self) -> Dict[str, float]:
        return views.temperatures(await self.snapshot())

    async def trip_points(self) -> Dict[str, Dict[str, float]]:
        return views.trip_points(await self.snapshot())

    # Writes, as Jetson's.
    async def set_fan_speed(self, percent: float, fan: int = 0) -> None:
        await self._j("Fan", "SetSpeed", "d", (float(percent),), path="%s/fan/%d" % (PATH, fan), write=True)

    async def set_fan_profile(self, profile: str, fan: int = 0) -> None:
        await self._j("Fan", "SetProfile", "s", (profile,), path="%s/fan/%d" % (PATH, fan), write=True)

    async def set_nvpmodel(self, mode_id: int) -> None:
        await self._j("NVPModel", "SetMode", "u", (int(mode_id),), write=True)

    async def set_jetson_clocks(self, active: bool) -> None:
        await self._j("JetsonClocks", "SetActive", "b", (bool(active),), write=True)

    async def restore_defaults(self) -> List[str]:
        return list((await self._j("Manager", "RestoreDefaults", write=True))[0])

    def recorder(self, path: str, rate_hz: float = 1000, keys: Sequence[str] = (), warmup: int = 10,
                 medium_hz: Optional[float] = None, slow_hz: Optional[float] = None) -> AsyncRecorder:
        """``async with board.recorder("run.trace") as r:``: an AsyncRecorder
        on this board's bus."""
        return AsyncRecorder(path, rate_hz, keys, self.address, warmup, medium_hz, slow_hz)

    async def _bus_call(self, method: str, rule: str) -> None:
        await self._call("org.freedesktop.DBus", method, "s", (rule,), path="/org/freedesktop/DBus",
                         destination="org.freedesktop.DBus")

    async def samples(self, interval: Optional[float] = None, compact: bool = False) -> AsyncIterator[Sample]:
        """Samples on this connection, as Jetson.samples(): left out or at
        jetsond's DefaultInterval, the Sample signal with no request;
        another INTERVAL asked for (Subscribe) while iterating, from that
        period's SampleAt signal; asked again when jetsond comes back.
        COMPACT: numeric keys only, from ValuesAt (SubscribeValues). jetsond
        keeps one request a connection: iterate one subscribing samples()
        of an AsyncJetson at a time (another rate: another AsyncJetson)."""
        if interval is not None and not 0.01 <= interval <= 3600:
            raise InvalidArgs("interval %r s is out of range (0.01 to 3600)" % (interval,))
        from jeepney import MatchRule
        from jeepney.low_level import HeaderFields
        usec = None if interval is None else _usec(interval)
        owner = MatchRule(type="signal", sender="org.freedesktop.DBus", interface="org.freedesktop.DBus",
                          member="NameOwnerChanged")
        owner.add_arg_condition(0, BUS_NAME)
        # The bus matches the sender's well-known name; jeepney's own filters
        # see only the unique name, so they match without a sender. Every
        # Metrics signal this connection gets is queued; the loop keeps the
        # plan's (another iterator's matches bring others).
        local = MatchRule(type="signal", path=PATH, interface=IFACE + "Metrics")
        plan = [None]  # type: List[Optional[Tuple[str, str, str]]]
        me = object()

        async def follow() -> None:
            # As the blocking stream's: the DefaultInterval of this jetsond
            # decides the signal; the match before the request.
            default = None
            if compact or usec is not None:
                (value,) = await self._call("org.freedesktop.DBus.Properties", "Get", "ss",
                                            (IFACE + "Metrics", "DefaultInterval"))
                default = int(unwrap(value))
            new = _stream_plan(usec, compact, default)
            if new != plan[0]:
                if plan[0] is not None:
                    await self._bus_call("RemoveMatch", _signal_rule(plan[0][0], plan[0][1]))
                await self._bus_call("AddMatch", _signal_rule(new[0], new[1]))
                plan[0] = new
            if new[2]:
                # Claimed before the call is sent: an iterator ending later
                # then leaves this request alone, and one ending sooner
                # sent its Unsubscribe first.
                self._requester = me
                await self._j("Metrics", new[2], "t", (int(new[1]),))

        queue = asyncio.Queue()  # type: asyncio.Queue[Any]
        with self._router.filter(local, queue=queue), self._router.filter(owner, queue=queue):
            await self._bus_call("AddMatch", owner.serialise())
            try:
                await follow()
                while True:
                    msg = await queue.get()
                    got = msg.header.fields.get(HeaderFields.member)
                    if got == "NameOwnerChanged":
                        if msg.body[2]:
                            self._keys = (0, [])
                            await follow()
                        continue
                    p = plan[0]
                    if p is None or got != p[0] or (p[1] and msg.body[0] != p[1]):
                        continue
                    if got == "Sample":
                        ts, values = msg.body
                    elif got == "SampleAt":
                        _, ts, values = msg.body
                    else:
                        _, ts, generation, numbers = msg.body
                        if generation != self._keys[0]:
                            gen, keys = await self._j("Metrics", "GetKeys")
                            self._keys = (gen, list(keys))
                        # A list newer than these values: the next signal has it.
                        if generation == self._keys[0]:
                            numbers = await self._caller_view(_numbers(self._keys[1], numbers))
                            yield Sample(ts, numbers, self._pidns.ok)
                        continue
                    values = await self._caller_view({k: unwrap(v) for k, v in values.items()})
                    yield Sample(ts, values, self._pidns.ok)
            finally:
                # Best effort: the connection may be gone.
                try:
                    if self._requester is me:
                        self._requester = None
                        await self._j("Metrics", "Unsubscribe")
                    if plan[0] is not None:
                        await self._bus_call("RemoveMatch", _signal_rule(plan[0][0], plan[0][1]))
                    await self._bus_call("RemoveMatch", owner.serialise())
                except Exception:
                    pass
