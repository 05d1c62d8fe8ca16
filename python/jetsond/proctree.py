"""A running process tree followed as ``jetsonctl record --pid`` follows it
(client/profiling/tree_follow.c): a process and its descendants, children
that appear later included, summed from /proc with the caller's own rights
(CPU time, RSS, PSS from smaps_rollup, storage I/O) and from jetsond's
process.PID.* keys (GPU memory, SM use, GPUs busy). A figure some process
of the tree does not let the caller read is None, never 0. And measure()'s
own tree (this process and its children: _ProcUsage)."""

import os
import resource
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

# The figures of one sample, as record's tree.* columns name them.
FIELDS = ("processes", "cpu_user_s", "cpu_system_s", "rss_kib", "pss_kib", "read_bytes", "write_bytes",
          "gpu_mem_kib", "gpu_sm_percent", "gpus_busy")


def _stat(pid: int) -> Optional[Tuple[int, List[int], bool]]:
    """PID's parent, utime, stime, cutime, cstime (ticks) and whether it
    is a zombie; None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
        fields = text[text.rindex(")") + 2:].split()
        return int(fields[1]), [int(x) for x in fields[11:15]], fields[0] == "Z"
    except (OSError, ValueError, IndexError):
        return None


def pid_alive(pid: int) -> bool:
    """Whether PID is a process that has not exited (a zombie has)."""
    s = _stat(pid)
    return s is not None and not s[2]


def tree_pids(root: int) -> Dict[int, Tuple[int, List[int], bool]]:
    """ROOT and its descendants now: PID -> what _stat() says."""
    procs = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            s = _stat(int(e))
            if s is not None:
                procs[int(e)] = s
    if root not in procs:
        return {}
    children = {}  # type: Dict[int, List[int]]
    for p, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(p)
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        out[p] = procs[p]
        todo.extend(c for c in children.get(p, []) if c not in out)
    return out


def _read(pid: int, name: str) -> Optional[str]:
    """/proc/PID/NAME, or None (an empty file or an error such as ESRCH:
    a process that is exiting, which has no memory left to show); raises
    PermissionError where the caller may not read it (another user's)."""
    try:
        with open("/proc/%d/%s" % (pid, name)) as f:
            return f.read() or None
    except PermissionError:
        raise
    except OSError:
        return None


def _field(text: str, key: str) -> int:
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _gpu(pids: List[int], values: Mapping[str, Any]) -> Dict[str, Any]:
    """The tree's GPU figures from a sample whose process keys name the
    caller's PIDs (Jetson.snapshot())."""
    mem = dgpu_mem = 0
    sm, sm_known, gpus = 0.0, True, set()
    mine = {str(p) for p in pids}
    has_dgpu = any(k.startswith("dgpu.") and k[5:6].isdigit() for k in values)
    contexts, on_sm = set(), set()
    for k, v in values.items():
        if not k.startswith("process."):
            continue
        parts = k.split(".")
        if len(parts) < 3 or parts[1] not in mine:
            continue
        if parts[2] == "gpu_mem" and len(parts) == 3:
            mem += int(v)
        elif parts[2] == "dgpu" and len(parts) == 5 and parts[3].isdigit():
            contexts.add((parts[1], parts[3]))
            gpus.add(parts[3])
            if parts[4] == "mem":
                dgpu_mem += int(v)
            elif parts[4] == "sm":
                sm += float(v)
                on_sm.add((parts[1], parts[3]))
    sm_known = contexts <= on_sm
    return {"gpu_mem_kib": mem, "gpus_busy": len(gpus) + (1 if mem > dgpu_mem else 0),
            "gpu_sm_percent": sm if sm_known and has_dgpu else None}


class TreeFollower:
    """ROOT's tree, sampled by sample(); CPU time and I/O never go down
    (a descendant reaped outside the tree takes its share away)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.hz = os.sysconf("SC_CLK_TCK")
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.last = dict.fromkeys(FIELDS)  # type: Dict[str, Any]
        self.last["processes"] = 0

    def sample(self, values: Optional[Mapping[str, Any]] = None) -> Optional[Dict[str, Any]]:
        """The tree's figures now (FIELDS), the GPU ones from VALUES (a
        snapshot; None: unknown); None when ROOT is gone."""
        procs = tree_pids(self.root)
        if not procs or procs[self.root][2]:
            return None  # gone, or exited (a zombie its parent has not reaped)
        user = sum(t[0] + t[2] for _, t, _ in procs.values()) / self.hz
        system = sum(t[1] + t[3] for _, t, _ in procs.values()) / self.hz
        rss = pss = rd = wr = 0  # type: Optional[int]
        for p, (_, _, zombie) in procs.items():
            if zombie:
                continue  # no memory, and nothing it could hide
            for name, parse in (("statm", None), ("smaps_rollup", "Pss"), ("io", None)):
                try:
                    text = _read(p, name)
                except PermissionError:
                    text = None
                    if name == "statm":
                        rss = None
                    elif name == "smaps_rollup":
                        pss = None
                    else:
                        rd = wr = None
                if not text:
                    continue
                if name == "statm" and rss is not None:
                    rss += int(text.split()[1]) * self.page // 1024
                elif name == "smaps_rollup" and pss is not None:
                    pss += _field(text, "Pss")
                elif name == "io" and rd is not None and wr is not None:
                    rd += _field(text, "read_bytes")
                    wr += _field(text, "write_bytes")
        last = self.last
        f = {"processes": len(procs), "cpu_user_s": max(user, last["cpu_user_s"] or 0.0),
             "cpu_system_s": max(system, last["cpu_system_s"] or 0.0), "rss_kib": rss, "pss_kib": pss,
             "read_bytes": None if rd is None else max(rd, last["read_bytes"] or 0),
             "write_bytes": None if wr is None else max(wr, last["write_bytes"] or 0),
             "gpu_mem_kib": None, "gpu_sm_percent": None, "gpus_busy": None}  # type: Dict[str, Any]
        if values is not None:
            f.update(_gpu(list(procs), values))
        else:  # held from the last snapshot
            for k in ("gpu_mem_kib", "gpu_sm_percent", "gpus_busy"):
                f[k] = last[k]
        self.last = f
        return f


class TreeUsage:
    """What the followed tree used from the moment this was made: the
    interface of measure's own-tree usage (sample(), result())."""

    def __init__(self, follower: TreeFollower) -> None:
        self.follower = follower
        self.base = dict(follower.last)
        self.peak_rss = self.peak_pss = 0
        self.peak_gpu_kib = None  # type: Optional[int]
        # Some sample lacked them (a process hid the file): unknown peaks.
        self.rss_hidden = self.pss_hidden = False

    def sample(self, _gpu_mem_kib: Any = None) -> None:
        f = self.follower.last
        if f["processes"]:
            self.rss_hidden = self.rss_hidden or f["rss_kib"] is None
            self.pss_hidden = self.pss_hidden or f["pss_kib"] is None
        self.peak_rss = max(self.peak_rss, (f["rss_kib"] or 0) * 1024)
        self.peak_pss = max(self.peak_pss, (f["pss_kib"] or 0) * 1024)
        if f["gpu_mem_kib"] is not None:
            self.peak_gpu_kib = max(self.peak_gpu_kib or 0, f["gpu_mem_kib"])

    def result(self) -> Dict[str, Any]:
        f, b = self.follower.last, self.base

        def delta(k: str) -> Any:
            return None if f[k] is None else max(f[k] - (b[k] or 0), 0)

        return {"cpu_user_s": delta("cpu_user_s"), "cpu_system_s": delta("cpu_system_s"),
                "peak_rss_bytes": None if self.rss_hidden else self.peak_rss,
                "peak_pss_bytes": None if self.pss_hidden else self.peak_pss,
                "read_bytes": delta("read_bytes"), "write_bytes": delta("write_bytes"),
                "peak_gpu_mem_kib": self.peak_gpu_kib}


# ---- measure()'s own tree --------------------------------------------------
def _tree(root: int) -> List[int]:
    """ROOT and its descendants (ROOT first, even when /proc has it no more)."""
    return [root] + [p for p in tree_pids(root) if p != root]


def _memory(pid: int) -> Tuple[int, int]:
    """RSS and PSS of PID in bytes (0 where unreadable)."""
    rss = pss = 0
    try:
        with open("/proc/%d/statm" % pid) as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return rss, pss


def _live_cpu(pids: Sequence[int], me: int) -> Tuple[float, float]:
    """User and system CPU seconds of the live descendants (not ME: its own
    comes from getrusage)."""
    hz = os.sysconf("SC_CLK_TCK")
    u = s = 0.0
    for p in pids:
        if p == me:
            continue
        st = _stat(p)
        if st is not None:
            u += st[1][0] / hz
            s += st[1][1] / hz
    return u, s


def _io() -> Tuple[int, int]:
    try:
        with open("/proc/self/io") as f:
            d = dict(line.split(": ") for line in f.read().splitlines())
        return int(d["read_bytes"]), int(d["write_bytes"])
    except (OSError, KeyError, ValueError):
        return 0, 0


class _ProcUsage:
    """CPU time, I/O and peaks of this process tree from a starting point."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.cpu0 = self._cpu()
        self.io0 = _io()
        self.peak_rss = self.peak_pss = self.peak_gpu_kib = 0

    def _cpu(self) -> Tuple[float, float]:
        a = resource.getrusage(resource.RUSAGE_SELF)
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        lu, ls = _live_cpu(_tree(self.me), self.me)
        return a.ru_utime + b.ru_utime + lu, a.ru_stime + b.ru_stime + ls

    def sample(self, gpu_mem_kib: Dict[int, int]) -> None:
        pids = _tree(self.me)
        rss = pss = 0
        for p in pids:
            r, s = _memory(p)
            rss += r
            pss += s
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)
        self.peak_gpu_kib = max(self.peak_gpu_kib, sum(gpu_mem_kib.get(p, 0) for p in pids))

    def result(self) -> Dict[str, Any]:
        u, s = self._cpu()
        r, w = _io()
        return {"cpu_user_s": u - self.cpu0[0], "cpu_system_s": s - self.cpu0[1],
                "peak_rss_bytes": self.peak_rss, "peak_pss_bytes": self.peak_pss,
                "read_bytes": r - self.io0[0], "write_bytes": w - self.io0[1],
                "peak_gpu_mem_kib": self.peak_gpu_kib}
