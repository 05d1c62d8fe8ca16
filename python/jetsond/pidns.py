"""PIDs across PID namespaces: jetsond names processes by the PIDs of its
own namespace (the host's); a program in a container has a namespace of
its own. Metrics.PidsToCaller() and PidsFromCaller() translate, and this
module keeps what they said, so that a sample's process.PID keys name the
caller's processes by the caller's PIDs and leave out those it cannot
see (the host's, other containers')."""

import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import JetsondError, NotSupported, UnknownProcess

# A call that failed because jetsond cannot see this process (it reads a
# --sysroot tree, or an older jetsond without the methods) is tried again
# after this many seconds.
RETRY_S = 10.0


def process_pids(values: Mapping[str, Any]) -> List[int]:
    """The PIDs of a sample's process.PID.* keys and of their parents
    (process.PID.ppid), sorted."""
    pids = set()
    for k, v in values.items():
        if k.startswith("process."):
            p = k.split(".", 2)[1]
            if p.isdigit():
                pids.add(int(p))
            if k.endswith(".ppid") and isinstance(v, (int, float)) and v > 0:
                pids.add(int(v))
    return sorted(pids)


class CallerPids:
    """Translates with CALL(method, pids) -> pids, a method call of
    jetsond's Metrics interface on a connection of the caller's own."""

    def __init__(self, call: Callable[[str, List[int]], List[int]]) -> None:
        self._call = call
        # (jetsond's PID, its start time) -> the caller's PID, 0: not visible.
        self._names = {}  # type: Dict[Tuple[int, Any], int]
        self._failed_at = None  # type: Optional[float]
        self.error = None  # type: Optional[JetsondError]
        # The last apply() named processes by the caller's PIDs (translated,
        # or found the same): this machine's /proc may be asked about them.
        self.ok = False

    def from_caller(self, pids: Sequence[int]) -> Optional[List[int]]:
        """Each of the caller's PIDS as jetsond names it (0: none); None
        when jetsond cannot tell (self.error says why)."""
        if not pids:
            return []
        try:
            out = [int(p) for p in self._call("PidsFromCaller", list(pids))]
        except JetsondError as e:
            self.failed(e)
            return None
        return out if len(out) == len(pids) else None

    def unknown(self, values: Mapping[str, Any]) -> List[int]:
        """The PIDs of VALUES (processes and their parents) not seen before
        (a PID with a new start time is a new process): what to ask
        PidsToCaller() before apply(); [] when jetsond cannot tell now."""
        if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_S:
            return []
        return [p for p, k in self._keyed(values) if k not in self._names]

    @staticmethod
    def _keyed(values: Mapping[str, Any]) -> List[Tuple[int, Tuple[int, Any]]]:
        return [(p, (p, values.get("process.%d.start_time" % p))) for p in process_pids(values)]

    def learn(self, values: Mapping[str, Any], asked: List[int], got: Optional[List[int]]) -> None:
        """What PidsToCaller() said of ASKED (VALUES' unknown()): GOT, or None
        when it failed (self.error says why)."""
        if got is None or len(got) != len(asked):
            return
        self.error = self._failed_at = None
        keys = dict(self._keyed(values))
        self._names.update((keys[p], int(c)) for p, c in zip(asked, got) if p in keys)

    def failed(self, error: JetsondError) -> None:
        """PidsToCaller() raised ERROR: UnknownProcess or an older jetsond
        without it (UnknownMethod) are remembered for RETRY_S, others raised."""
        if not isinstance(error, (UnknownProcess, NotSupported)) and "UnknownMethod" not in error.dbus_name:
            raise error
        self.error, self._failed_at = error, time.monotonic()

    def apply(self, values: Dict[str, Any]) -> Dict[str, Any]:
        """VALUES with process.PID keys (and ppid values) in the caller's
        PIDs and the processes it cannot see left out; VALUES unchanged
        while jetsond cannot tell the caller's namespace."""
        keyed = self._keyed(values)
        self.ok = self._failed_at is None and all(k in self._names for _, k in keyed)
        if not self.ok:
            return values
        self._names = dict((k, self._names[k]) for _, k in keyed)  # forget the processes that left
        names = {p: self._names[k] for p, k in keyed}
        if all(names[p] == p for p in names):
            return values
        out = {}  # type: Dict[str, Any]
        for k, v in values.items():
            if not k.startswith("process."):
                out[k] = v
                continue
            _, p, rest = k.split(".", 2)
            mine = names.get(int(p), 0) if p.isdigit() else 0
            if not mine:
                continue
            if rest == "ppid":
                parent = names.get(int(v), 0)
                if not parent:
                    continue  # its parent is not the caller's to name
                v = type(v)(parent)
            out["process.%d.%s" % (mine, rest)] = v
        return out

    def view(self, values: Dict[str, Any]) -> Dict[str, Any]:
        """apply() after asking jetsond what unknown() lists."""
        asked = self.unknown(values)
        if asked:
            try:
                self.learn(values, asked, [int(p) for p in self._call("PidsToCaller", asked)])
            except JetsondError as e:
                self.failed(e)
        return self.apply(values)
