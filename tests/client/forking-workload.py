"""A job that forks, for following a process tree (jetsonctl record and
measure --pid, jetsond.measure(pid=...)): after START_S the parent starts
N children; each touches MEM_MIB of memory, burns CPU_S of CPU, writes
WRITE_MIB to a file in DIR and syncs it, then holds its memory until every
child is at that point and HOLD_S more have passed, so that the tree holds
N x MEM_MIB at once. The parent reaps them, waits TAIL_S and exits.

It prints, as one JSON line on stdout, what it knows it did: the
children's CPU time and storage writes as each read its own (os.times(),
/proc/self/io: on a file system that does not count storage writes, such
as tmpfs, that is 0) and the memory held at once.

usage: forking-workload.py DIR N MEM_MIB CPU_S WRITE_MIB [START_S HOLD_S TAIL_S]
"""
import json
import os
import sys
import time


def write_bytes():
    with open("/proc/self/io") as f:
        return int(dict(line.split(": ") for line in f.read().splitlines())["write_bytes"])


def child(i, directory, mem_mib, cpu_s, write_mib, ready_w, go_r):
    t0 = os.times()
    block = bytearray(mem_mib << 20)
    for k in range(0, len(block), 4096):
        block[k] = 1
    start = time.process_time()
    while time.process_time() - start < cpu_s:
        pass
    w0 = write_bytes()
    path = os.path.join(directory, "workload-%d-%d" % (os.getpid(), i))
    with open(path, "wb") as f:
        chunk = b"x" * (1 << 20)
        for _ in range(write_mib):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
    written = write_bytes() - w0
    os.unlink(path)
    t1 = os.times()
    cpu = (t1.user - t0.user) + (t1.system - t0.system)
    os.write(ready_w, (json.dumps({"cpu_s": cpu, "write_bytes": written}) + "\n").encode())
    os.read(go_r, 1)  # EOF once the parent let go
    block[0] = 2
    os._exit(0)


def main():
    directory, n, mem_mib, cpu_s, write_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(
        sys.argv[4]), int(sys.argv[5])
    start_s, hold_s, tail_s = (float(x) for x in (sys.argv[6:9] if len(sys.argv) > 8 else (0.5, 0.5, 0.5)))
    time.sleep(start_s)
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pids = []
    for i in range(n):
        pid = os.fork()
        if pid == 0:
            os.close(ready_r)
            os.close(go_w)
            child(i, directory, mem_mib, cpu_s, write_mib, ready_w, go_r)
        pids.append(pid)
    os.close(ready_w)
    os.close(go_r)
    reports = []
    with os.fdopen(ready_r, "rb") as ready:
        while len(reports) < n:
            line = ready.readline()
            if not line:
                break
            reports.append(json.loads(line))
        time.sleep(hold_s)
        os.close(go_w)
        for pid in pids:
            os.waitpid(pid, 0)
    time.sleep(tail_s)
    print(json.dumps({"children": n, "cpu_s": sum(r["cpu_s"] for r in reports),
                      "write_bytes": sum(r["write_bytes"] for r in reports),
                      "mem_kib_held": n * mem_mib * 1024}), flush=True)


main()
