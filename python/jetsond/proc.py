"""What /proc says of a process that jetsond never sends over the bus: its
whole command line, read here with the caller's own rights, so a program
sees exactly what ps would show it (a process hidden by hidepid, a kernel
thread or another machine's PID gives None, and the lists keep jetsond's
name, the 15-character comm)."""

import os
from typing import List, Optional


def _start_time(pid: int, proc: str) -> Optional[float]:
    """When PID started, seconds since the Unix epoch, as jetsond computes
    process.PID.start_time: /proc/stat's btime plus field 22 of its stat."""
    try:
        with open(os.path.join(proc, str(pid), "stat")) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(os.path.join(proc, "stat")) as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith("btime "))
        return btime + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, StopIteration):
        return None


def command_line(pid: int, name: Optional[str] = None, start_time: Optional[float] = None,
                 proc: str = "/proc") -> Optional[List[str]]:
    """PID's arguments (nvitop's ``cmdline()``), or None where they cannot be
    read or are empty (a kernel thread, a zombie). NAME (jetsond's
    process.PID.name) and START_TIME (process.PID.start_time), when given,
    must still be PID's: a PID reused since, or a simulated board's, gives
    None rather than another process's line."""
    try:
        with open(os.path.join(proc, str(pid), "cmdline"), "rb") as f:
            raw = f.read(8 << 20)
    except OSError:
        return None
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    if not args:
        return None
    if name:
        try:
            with open(os.path.join(proc, str(pid), "comm"), "rb") as f:
                comm = f.read().rstrip(b"\n").decode("utf-8", "replace")
        except OSError:
            return None
        # comm is cut at 15 bytes, as is jetsond's name
        if comm[:15] != name[:15]:
            return None
    if start_time is not None:
        started = _start_time(pid, proc)
        if started is None or abs(started - start_time) > 0.5:
            return None
    return args


def command(args: Optional[List[str]], name: Optional[str]) -> str:
    """What a list shows (nvitop's ``command()``): the arguments joined by
    spaces, or NAME where they could not be read."""
    return " ".join(args) if args else (name or "")
