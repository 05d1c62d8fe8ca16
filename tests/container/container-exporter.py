#!/usr/bin/python3
"""The host side of scripts/test-container.sh's exporter part: the
Kubernetes DaemonSet's container (exporter/kubernetes/jetsond-exporter.yaml)
run by podman with exactly the manifest's restrictions, and a real
Prometheus scraping it.

    container-exporter.py ROOT WORK JETSOND

ROOT is an unpacked Debian 12 root with jetsond-exporter installed. On
the host: a private system bus and JETSOND on a fake AGX Orin. The podman
options come from the manifest (tests/exporter/kubernetes_manifest.py):
user nobody, a read-only root file system, every capability dropped, no
new privileges, the host's network, the bus socket read-only as the only
mount; the exporter on a free port of 127.0.0.1 instead of 9837. Checked:

- the exporter's process as the kernel sees it: uid 65534, no effective
  or bounding capability, no_new_privs, its root mounted read-only;
- Prometheus scrapes it as the manifest's ServiceMonitor names its two
  endpoints: job jetsond (`up` and `jetson_up` 1, the board's RAM equal to
  jetsond's snapshot on the host, a rail's power there) and job
  jetsond-dcgm, /metrics/dcgm (the GPU's utilization, its shared memory);
- the alerting rules (exporter/jetsond-rules.yml) loaded by that
  Prometheus: none fires for this healthy board.
Prints the wall times as `figure:` lines. Exit 0 when all pass, 1 else."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "exporter"))
import harness  # noqa: E402
from checks import Checks  # noqa: E402
import kubernetes_manifest as km  # noqa: E402
from prometheus_server import Prometheus  # noqa: E402

RULES = os.path.join(SOURCE_DIR, "exporter", "jetsond-rules.yml")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def exporter_pid():
    """The host PID of the container's jetsond-exporter (its comm cut to 15
    characters; in a PID namespace of its own), None while it is not up."""
    for e in os.listdir("/proc"):
        try:
            with open(f"/proc/{e}/comm") as f:
                if f.read().strip() != "jetsond-exporte":
                    continue
            with open(f"/proc/{e}/status") as f:
                nspid = [ln for ln in f if ln.startswith("NSpid:")][0].split()[1:]
        except (OSError, IndexError):
            continue
        if len(nspid) > 1:
            return int(e)
    return None


def main():
    root, work, jetsond = sys.argv[1:4]
    checked = Checks()
    docs = km.documents()
    pod, container = km.restrictions(docs)
    jobs = km.scrape_jobs(docs)
    with harness.Stack(jetsond, None) as stack:
        stack.start_daemon()
        snap = json.loads(subprocess.run([os.path.join(os.path.dirname(jetsond), "..", "client", "jetsonctl"),
                                          "--json", "get", "ram.total"], capture_output=True, text=True,
                                         check=True).stdout)
        port = free_port()
        opts, command = km.podman_options(pod, container, os.path.join(stack.dir, "system_bus_socket"),
                                          f"127.0.0.1:{port}")
        argv = ["podman", "--runtime", "/usr/sbin/runc", "run", "--rm", *opts, "--rootfs", root, *command]
        print("   $ " + " ".join(argv), flush=True)
        log = open(os.path.join(work, "exporter-container.log"), "w")
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdout=log, stderr=log)
        prom = None
        try:
            harness.wait_for(lambda: exporter_pid() is not None, 60, "the exporter in the container")
            pid = exporter_pid()

            def as_the_kernel_sees_it():
                status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status").read().splitlines())
                assert status["Uid"].split() == ["65534"] * 4, f"Uid {status['Uid']}"
                assert int(status["CapEff"], 16) == 0 and int(status["CapBnd"], 16) == 0, \
                    f"CapEff {status['CapEff']} CapBnd {status['CapBnd']}"
                assert status["NoNewPrivs"].strip() == "1", f"NoNewPrivs {status['NoNewPrivs']}"
                mounts = [line.split() for line in open(f"/proc/{pid}/mountinfo")]
                rootfs = [m for m in mounts if m[4] == "/"]
                assert rootfs and "ro" in rootfs[-1][5].split(","), f"the root is mounted {rootfs[-1][5]}"
                bus = [m for m in mounts if m[4] == km.SOCKET]
                assert bus and "ro" in bus[-1][5].split(","), f"the bus socket is mounted {bus}"
            checked("the exporter runs as nobody, without capabilities, no_new_privs, on a read-only root",
                    as_the_kernel_sees_it)

            prom = Prometheus(tempfile.mkdtemp(prefix="prometheus.", dir=work), [f"127.0.0.1:{port}"], jobs, [RULES])
            print(f"   figure: container exporter and Prometheus up in {time.monotonic() - started:.1f} s")

            def scraped():
                prom.wait_value('up{job="jetsond"}', 1, timeout=60)
                prom.wait_value("jetson_up", 1, timeout=60)
                assert prom.one("jetson_ram_total_bytes") == snap["ram.total"] * 1024, \
                    (prom.one("jetson_ram_total_bytes"), snap["ram.total"])
                assert prom.query("jetson_rail_power_watts"), "no rail"
            checked("a real Prometheus scrapes the container's exporter: the board's values", scraped)

            def dcgm_scraped():
                prom.wait_value('up{job="jetsond-dcgm"}', 1, timeout=60)
                harness.wait_for(lambda: prom.query('DCGM_FI_DEV_GPU_UTIL{job="jetsond-dcgm",gpu="0"}'), 30,
                                 "DCGM_FI_DEV_GPU_UTIL")
                assert prom.one('DCGM_FI_DEV_FB_TOTAL{job="jetsond-dcgm"}') == snap["ram.total"] // 1024
            checked("the same Prometheus scrapes /metrics/dcgm as the ServiceMonitor's second endpoint", dcgm_scraped)

            def rules_quiet():
                def evaluated():
                    groups = prom.get("/api/v1/rules")["data"]["groups"]
                    return len(groups) == 2 and all(r["health"] == "ok" for g in groups for r in g["rules"])
                harness.wait_for(evaluated, 60, "every rule evaluated, healthy")
                time.sleep(2)   # a few evaluations with the board's samples
                alerts = prom.get("/api/v1/alerts")["data"]["alerts"]
                assert not alerts, f"alerts for a healthy board: {alerts}"
            checked("the alerting rules loaded, none firing or pending for a healthy board", rules_quiet)
        finally:
            if prom:
                prom.close()
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
        if checked.failures:
            print(open(os.path.join(work, "exporter-container.log")).read())
    return 1 if checked.failures else 0


if __name__ == "__main__":
    sys.exit(main())
