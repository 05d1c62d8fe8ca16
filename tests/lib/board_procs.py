"""Processes put into (and taken out of) a running fake board's copy, as
jetsond reads its sysroot: the AGX Orin fixture's python3 (PID 5120) under
another PID and name, in the nvmap tables and /proc. STACK is a
harness.Stack (its root is the board's copy)."""

import os
import shutil


def fixture_start(stack, pid):
    """When the board's PID started, seconds since the Unix epoch, as its
    /proc says: /proc/stat's btime plus stat's starttime (100 ticks a
    second)."""
    btime = next(int(line.split()[1]) for line in open(os.path.join(stack.root, "proc", "stat"))
                 if line.startswith("btime "))
    stat = open(os.path.join(stack.root, "proc", str(pid), "stat")).read()
    return btime + int(stat.rsplit(")", 1)[1].split()[19]) / 100


def add_process(stack, pid, name, ppid=None, start=None):
    """PID in the board's nvmap table and its /proc, as jetsond reads the
    sysroot: the fixture's python3 with another pid and name, and PPID and
    START (seconds since the Unix epoch) when given."""
    src, dst = os.path.join(stack.root, "proc", "5120"), os.path.join(stack.root, "proc", str(pid))
    shutil.copytree(src, dst)
    with open(os.path.join(dst, "stat")) as f:
        head, fields = f.read().replace("5120 (python3)", f"{pid} ({name})", 1).rsplit(")", 1)
    fields = fields.split()
    if ppid is not None:
        fields[1] = str(ppid)
    if start is not None:
        btime = fixture_start(stack, 5120) - int(fields[19]) / 100
        fields[19] = str(round((start - btime) * 100))
    with open(os.path.join(dst, "stat"), "w") as f:
        f.write(head + ") " + " ".join(fields) + "\n")
    with open(os.path.join(dst, "comm"), "w") as f:
        f.write(name + "\n")
    # jetsond reads iovmm/maps (clients where there is none): a client row
    # and one handle, before the total line where the table ends
    row = f"user {name:>28} {pid:>8} {4096:>10}K\n" \
          f"{0:>45} {4096:>10}K      300      1 00000000a1b2c3d4 {4096:>34}K\n\n"
    for table_name in ("maps", "clients"):
        path = os.path.join(stack.root, "sys", "kernel", "debug", "nvmap", "iovmm", table_name)
        with open(path) as f:
            table = f.read()
        table = table.replace("\ntotal", "\n" + row + "total", 1) if "\ntotal" in table else table + row
        with open(path, "w") as f:
            f.write(table)


def remove_process(stack, pid, name):
    """Takes PID back out of the board's nvmap table and /proc."""
    shutil.rmtree(os.path.join(stack.root, "proc", str(pid)), ignore_errors=True)
    for table_name in ("maps", "clients"):
        path = os.path.join(stack.root, "sys", "kernel", "debug", "nvmap", "iovmm", table_name)
        with open(path) as f:
            table = f.read()
        start = table.find(f"user {name:>28} {pid:>8} ")
        if start >= 0:
            end = table.find("\n\n", start) if table_name == "maps" else table.find("\n", start)
            table = table[:start] + table[end + (2 if table_name == "maps" else 1):]
        with open(path, "w") as f:
            f.write(table)


def real_start(pid):
    """When this machine's PID started, seconds since the Unix epoch, as
    jetsonctl computes it from the real /proc."""
    btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime "))
    stat = open(f"/proc/{pid}/stat").read()
    return btime + int(stat.rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
