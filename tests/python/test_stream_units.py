#!/usr/bin/python3
"""Which signal the package's sample streams follow, no bus: the plan for a
period against jetsond's DefaultInterval (Sample with no request at the
default, SampleAt or ValuesAt with the period as arg0 otherwise), the match
rules, and Jetson.samples() on a scripted connection: the match added before
the request, only its own period's signals taken, the plan made again for a
restarted jetsond; a timeout that ends it. Run by run.py units, as a plain
script."""

import itertools
import os
import sys
from typing import Any, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from jetsond import client  # noqa: E402
from jetsond.errors import NotRunning  # noqa: E402


def test_usec_rounds():
    assert client._usec(0.01) == 10000 and client._usec(0.1) == 100000
    # int(0.29 * 1e6) is 289999: the arg0 would not be the period asked for.
    assert client._usec(0.29) == 290000 and client._usec(4.35) == 4350000


def test_plans():
    plan = client._stream_plan
    assert plan(None, False, None) == ("Sample", "", "")
    assert plan(1000000, False, 1000000) == ("Sample", "", "")
    assert plan(100000, False, 1000000) == ("SampleAt", "100000", "Subscribe")
    assert plan(2000000, False, 1000000) == ("SampleAt", "2000000", "Subscribe")  # slower: asked too
    assert plan(None, True, 1000000) == ("ValuesAt", "1000000", "SubscribeValues")  # no passive compact
    assert plan(1000000, True, 1000000) == ("ValuesAt", "1000000", "SubscribeValues")
    assert plan(100000, True, 500000) == ("ValuesAt", "100000", "SubscribeValues")
    try:
        plan(None, True, None)
    except ValueError:
        pass
    else:
        raise AssertionError("a compact plan without the DefaultInterval")


def test_rules():
    at = client._signal_rule("SampleAt", "100000")
    assert at == ("type='signal',sender='org.jetsond.Jetson1',path='/org/jetsond/Jetson1',"
                  "interface='org.jetsond.Jetson1.Metrics',member='SampleAt',arg0='100000'"), at
    assert client._signal_rule("Sample", "").endswith(",member='Sample'")


class Msg:
    def __init__(self, member: str, body: Tuple[Any, ...]) -> None:
        from jeepney.low_level import HeaderFields, MessageType

        class Header:
            message_type = MessageType.signal
            fields = {HeaderFields.member: member}
        self.header = Header()
        self.body = body


class FakeBus:
    """A connection that logs what is asked of it and hands out SCRIPT's
    messages; then NotRunning, which ends a stream without reconnect."""
    log = []  # type: List[Tuple[Any, ...]]
    script = []  # type: List[Any]
    defaults = []  # type: List[int]

    idle = False  # receive() times out instead of ending the script
    opened = 0

    def __init__(self, address: Any = None, **kw: Any) -> None:
        FakeBus.opened += 1
        assert FakeBus.opened < 5, "connected again and again"

    def add_match(self, rule: str) -> None:
        FakeBus.log.append(("AddMatch", rule))

    def remove_match(self, rule: str) -> None:
        FakeBus.log.append(("RemoveMatch", rule))

    def name_has_owner(self) -> bool:
        return True

    def get(self, interface: str, name: str) -> int:
        FakeBus.log.append(("Get", name))
        return FakeBus.defaults.pop(0)

    def jcall(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = ()) -> Any:
        FakeBus.log.append((method,) + tuple(body))
        if method == "GetKeys":
            return (7, ["cpu.load", "gpu.load"])
        return ()

    def receive(self, timeout: Any) -> Any:
        if FakeBus.idle:
            return None
        if not FakeBus.script:
            raise NotRunning("end of the script")
        return FakeBus.script.pop(0)

    def close(self) -> None:
        pass


def stream(interval: Any, compact: bool, script: List[Any], defaults: List[int], n: int,
           reconnect: bool = False, timeout: Any = None) -> List[Any]:
    FakeBus.log, FakeBus.script, FakeBus.defaults, FakeBus.opened = [], script, defaults, 0
    real = getattr(client, "Bus")
    setattr(client, "Bus", FakeBus)
    try:
        return list(itertools.islice(client._sample_stream(None, interval, reconnect, timeout, compact), n))
    finally:
        setattr(client, "Bus", real)


def calls() -> List[Tuple[Any, ...]]:
    """The log without the NameOwnerChanged match every stream adds first."""
    assert "NameOwnerChanged" in FakeBus.log[0][1], FakeBus.log
    return FakeBus.log[1:]


def values(load: float) -> Any:
    return {"cpu.load": ("d", load)}


def test_subscribed_stream():
    """0.1 s against a 1 s default: the SampleAt match, then Subscribe;
    another period's SampleAt and the passive Sample are not samples."""
    got = stream(0.1, False, [Msg("SampleAt", ("200000", 1, values(9.0))), Msg("Sample", (2, values(9.0))),
                              Msg("SampleAt", ("100000", 3, values(1.0))),
                              Msg("SampleAt", ("100000", 4, values(2.0)))], [1000000], 2)
    assert [(s.timestamp, s["cpu.load"]) for s in got] == [(3e-6, 1.0), (4e-6, 2.0)], got
    log = calls()
    assert log == [("Get", "DefaultInterval"), ("AddMatch", client._signal_rule("SampleAt", "100000")),
                   ("Subscribe", 100000)], log


def test_default_stream_asks_nothing():
    """At the DefaultInterval (or none given) the Sample signal, no
    request, SampleAt ignored."""
    script = [Msg("SampleAt", ("100000", 1, values(9.0))), Msg("Sample", (2, values(1.0)))]
    runs = [(1.0, [1000000]), (None, [])]  # type: List[Tuple[Any, List[int]]]
    for interval, defaults in runs:
        got = stream(interval, False, list(script), defaults, 1)
        assert [s.timestamp for s in got] == [2e-6]
        methods = [e[0] for e in FakeBus.log]
        assert "Subscribe" not in methods and "SubscribeValues" not in methods, FakeBus.log
        assert ("AddMatch", client._signal_rule("Sample", "")) in FakeBus.log


def test_compact_stream():
    """Compact: SubscribeValues and ValuesAt with arg0, its body's period
    skipped, the key list asked once."""
    got = stream(0.1, True, [Msg("ValuesAt", ("200000", 1, 7, [9.0, 9.0])),
                             Msg("ValuesAt", ("100000", 2, 7, [1.0, float("nan")])),
                             Msg("ValuesAt", ("100000", 3, 7, [2.0, 3.0]))], [1000000], 2)
    assert [dict(s) for s in got] == [{"cpu.load": 1.0}, {"cpu.load": 2.0, "gpu.load": 3.0}], got
    log = calls()
    assert log == [("Get", "DefaultInterval"), ("AddMatch", client._signal_rule("ValuesAt", "100000")),
                   ("SubscribeValues", 100000), ("GetKeys",)], log


def test_restarted_jetsond_is_asked_again():
    """A new jetsond: the DefaultInterval read again; where it is now the
    period asked, the SampleAt match goes and Sample is followed, with no
    request."""
    owner = Msg("NameOwnerChanged", ("org.jetsond.Jetson1", "", ":1.9"))
    got = stream(0.5, False, [Msg("SampleAt", ("500000", 1, values(1.0))), owner,
                              Msg("SampleAt", ("500000", 2, values(9.0))), Msg("Sample", (3, values(2.0)))],
                 [1000000, 500000], 2)
    assert [s.timestamp for s in got] == [1e-6, 3e-6], got
    log = calls()
    assert log == [("Get", "DefaultInterval"), ("AddMatch", client._signal_rule("SampleAt", "500000")),
                   ("Subscribe", 500000), ("Get", "DefaultInterval"),
                   ("RemoveMatch", client._signal_rule("SampleAt", "500000")),
                   ("AddMatch", client._signal_rule("Sample", ""))], log


def test_timeout_ends_a_reconnecting_stream():
    """TIMEOUT raises NotRunning with RECONNECT too, rather than connecting
    again to wait once more."""
    FakeBus.idle = True
    try:
        stream(None, False, [], [], 1, reconnect=True, timeout=0.05)
    except NotRunning as e:
        assert "no sample" in str(e) and FakeBus.opened == 1, (e, FakeBus.opened)
    else:
        raise AssertionError("no NotRunning")
    finally:
        FakeBus.idle = False


if __name__ == "__main__":
    from test_units import run_tests
    sys.exit(run_tests(globals()))
