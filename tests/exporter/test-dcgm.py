#!/usr/bin/python3
"""/metrics/dcgm: dcgm-exporter's series from jetsond-exporter on every fake
board with a GPU and on the PC with fake NVML GPUs.

    test-dcgm.py JETSOND EXPORTER FAKE_NVML

Each board's page against values taken independently from `jetsond --once
--json` on the same board (names, types, units, labels; the Jetson's nearest
sources said in jetsond_source; fields without a true source absent); then
one real Prometheus scraping all of them, and every panel of NVIDIA's own
dashboard (../shared/dcgm/dcgm-exporter-dashboard.json, a copy in this
folder) queried through its HTTP API with the dashboard's own variables,
per board. --no-dcgm turns the path off; /metrics stays free of DCGM
names."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import SOURCE_DIR, Stack, parse_samples, run_tests, wait_for  # noqa: E402
from prometheus_server import Prometheus, grafana_regex  # noqa: E402

JETSOND, EXPORTER, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dcgm-exporter-dashboard.json")

# Every fake board with a GPU: the rail that carries the Jetson GPU's
# power, and whether that rail is the GPU's own (no jetsond_source label).
JETSONS = {
    "nano-jp46": ("POM_5V_GPU", True),
    "xavier-nx-jp51": ("VDD_CPU_GPU_CV", False),
    "agx-orin-jp62": ("VDD_GPU_SOC", False),
    "orin-nano-jp62": ("VDD_CPU_GPU_CV", False),
    "agx-orin-jp72": ("VDD_GPU_SOC", False),
    "agx-thor-jp71": ("VDD_GPU", True),
}
PC = "x86-pc"
# The PC as a server: the fixture's GeForce and T4 (GDDR, before Hopper:
# no memory temperature, no GPM) and an H100 with what only such a GPU has.
H100 = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-4f1c2b7e-90aa-4c1d-8e55-0b3e6f7d2a19",
        "pci_bus_id": "00000000:19:00.0", "minor_number": 4, "utilization": {"gpu": 88, "memory": 41},
        "memory": {"total": 85520809984, "used": 42949672960, "free": 41943040000, "reserved": 628097024},
        "temperature": 47, "memory_temperature": 55, "power_mw": 512345, "energy_mj": 987654321,
        "clocks_mhz": {"graphics": 1980, "sm": 1980, "mem": 2619}, "pstate": 0,
        "pcie_kbps": {"tx": 2000, "rx": 90000}, "pcie_replays": 7, "xids": [],
        "gpm": {"tensor": 63.5, "graphics": 92, "dram": 48.25},
        "nvlink": [{"rx_kib": 1000, "tx_kib": 500, "rx_kibps": 1000, "tx_kibps": 500}] * 2}
# Fields NVIDIA's Jetson GPU has no true source for: never served there.
NO_JETSON_SOURCE = ["DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_FB_RESERVED",
                    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES",
                    "DCGM_FI_PROF_PCIE_RX_BYTES", "DCGM_FI_DEV_VIDEO_CLOCK", "DCGM_FI_DEV_BAR1_USED",
                    "DCGM_FI_DEV_BAR1_TOTAL", "DCGM_FI_DEV_PERSISTENCE_MODE", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
                    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"]
FAKE_DRIVER = "595.78 (fake)"  # the fake NVML's nvmlSystemGetDriverVersion
COUNTERS = {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
            "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
            "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"}


def nvml_config(board):
    path = os.path.join(FIXTURES, board + ".nvml.json")
    return path if os.path.exists(path) else None


def pc_devices():
    return json.load(open(nvml_config(PC)))["devices"] + [H100]


def gpu_zone_offline(root):
    """The GPU's thermal zone power-gated, as on an idle Orin NX: its temp
    reads -256000 (jetsond then has no temp.gpu)."""
    base = os.path.join(root, "sys", "class", "thermal")
    for zone in sorted(z for z in os.listdir(base) if z.startswith("thermal_zone")):
        type_path = os.path.join(base, zone, "type")
        if os.path.exists(type_path) and open(type_path).read().strip().lower().startswith("gpu"):
            temp = os.path.join(base, zone, "temp")
            os.chmod(temp, 0o644)
            os.unlink(temp)  # the copy may share its inode with the fixture
            with open(temp, "w") as f:
                f.write("-256000\n")
            return
    raise AssertionError("no GPU zone in " + base)


class Board:
    """One fake board: a private bus, jetsond (with the fake NVML where
    the board has a config) and the exporter."""

    def __init__(self, board, extra=(), offline_gpu_zone=False):
        self.board = board
        self.stack = Stack(JETSOND, EXPORTER, board=board)
        try:
            if offline_gpu_zone:
                gpu_zone_offline(self.stack.root)
            args = []
            config = nvml_config(board)
            if board == PC:
                config = self.nvml_file = os.path.join(self.stack.dir, "nvml.json")
                with open(config, "w") as f:
                    json.dump({"cuda_driver_version": 12080, "devices": pc_devices()}, f)
            if config:
                os.environ["FAKE_NVML_CONFIG"] = config
                args = ["--nvml-library", FAKE_NVML]
            else:
                os.environ.pop("FAKE_NVML_CONFIG", None)
            self.values = json.loads(subprocess.run(
                [JETSOND, "--sysroot", self.stack.root, "--once", "--json", *args],
                check=True, capture_output=True, text=True).stdout)["values"]
            self.stack.start_daemon(args)
            self.stack.start_exporter(extra)
        except BaseException:
            self.stack.close()
            raise

    def page(self):
        r = self.stack.request("/metrics/dcgm")
        assert r.status == 200, (r.status, r.body)
        assert r.headers["content-type"].startswith("text/plain; version=0.0.4"), r.headers
        return r.body.decode()

    def wait_page(self, *names, also=()):
        """The page once it has NAMES: jetsond's slow tier (GPU-shared
        memory) and the GPUs' identities come after the first sample."""
        text = {}

        def ready():
            text["page"] = self.page()
            return all(name + "{" in text["page"] for name in names) and all(
                x in text["page"] for x in ("Hostname=", *also))
        # GPM's activities need two reads of the costly values (10 s apart).
        wait_for(ready, 45, f"{names} on {self.board}'s /metrics/dcgm")
        return text["page"]

    @property
    def instance(self):
        return f"127.0.0.1:{self.stack.port}"

    def close(self):
        self.stack.__exit__(None, None, None)


def series(text):
    """{name: [(labels, value)]} and {name: type} of a Prometheus text page."""
    out, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
    for (name, labels), value in parse_samples(text).items():
        out.setdefault(name, []).append((dict(labels), value))
    for rows in out.values():
        rows.sort(key=lambda row: row[0].get("gpu", ""))
    return out, types


def only(page, name):
    assert name in page, (name, sorted(page))
    assert len(page[name]) == 1, (name, page[name])
    return page[name][0]


def check_jetson(board, text):
    page, types = series(text)
    v = board.values
    rail, own = JETSONS[board.board]
    for name in page:
        assert types[name] == ("counter" if name in COUNTERS else "gauge"), (name, types[name])
    labels, sm = only(page, "DCGM_FI_DEV_SM_CLOCK")
    assert sm == round(v["gpu.freq"] / 1000), (sm, v["gpu.freq"])
    assert labels["gpu"] == "0" and labels["Hostname"] == socket.gethostname(), labels
    assert labels["modelName"], labels
    # NVML's identity of the SoC's GPU where NVML lists it (Thor).
    config = nvml_config(board.board)
    uuid = json.load(open(config))["devices"][0].get("uuid") if config else None
    assert labels.get("UUID") == uuid, labels
    assert labels.get("DCGM_FI_DRIVER_VERSION") == (FAKE_DRIVER if uuid else None), labels
    if board.board == "agx-thor-jp71":  # a PCI device, as NVML writes it
        assert labels["pci_bus_id"] == "00000000:01:00.0", labels
    else:
        assert "pci_bus_id" not in labels, labels
    labels, mem_clock = only(page, "DCGM_FI_DEV_MEM_CLOCK")
    assert mem_clock == round(v["emc.freq"] / 1000) and labels["jetsond_source"] == "emc.freq", labels
    labels, temp = only(page, "DCGM_FI_DEV_GPU_TEMP")
    if "gpu.temp" in v:
        assert temp == v["gpu.temp"] and "jetsond_source" not in labels, (temp, labels)
    elif "temp.gpu" in v:
        assert temp == v["temp.gpu"] and "jetsond_source" not in labels, (temp, labels)
    else:
        assert temp == v["temp.tj"] and labels["jetsond_source"] == "temp.tj", (temp, labels)
    labels, watts = only(page, "DCGM_FI_DEV_POWER_USAGE")
    assert watts == v[f"power.{rail}.power"] / 1000, (watts, rail)
    assert labels.get("jetsond_source") == (None if own else f"power.{rail}.power"), labels
    labels, mj = only(page, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")
    # jetsond's counter starts with jetsond: compared only for its source.
    assert mj >= 0 and f"energy.{rail}" in v and labels.get("jetsond_source") == (None if own else f"energy.{rail}"), \
        (mj, labels)
    labels, util = only(page, "DCGM_FI_DEV_GPU_UTIL")
    assert util == v["gpu.load"] and "jetsond_source" not in labels, (util, labels)
    labels, copy = only(page, "DCGM_FI_DEV_MEM_COPY_UTIL")
    assert copy == v["emc.load"] and labels["jetsond_source"] == "emc.load", labels
    labels, used = only(page, "DCGM_FI_DEV_FB_USED")
    if "ram.shared" in v:
        assert used == v["ram.shared"] // 1024 and labels["jetsond_source"] == "ram.shared", (used, labels)
    else:  # Thor: the GPU memory of its processes
        total = sum(x for k, x in v.items() if re.fullmatch(r"process\.\d+\.gpu_mem", k))
        assert total and used == total // 1024 and labels["jetsond_source"] == "process.*.gpu_mem", (used, labels)
    labels, total = only(page, "DCGM_FI_DEV_FB_TOTAL")
    assert total == v["ram.total"] // 1024 and labels["jetsond_source"] == "ram.total", labels
    labels, free = only(page, "DCGM_FI_DEV_FB_FREE")
    assert free == v["ram.available"] // 1024 and labels["jetsond_source"] == "ram.available", labels
    for name, key in (("DCGM_FI_DEV_ENC_UTIL", "gpu.encoder_load"), ("DCGM_FI_DEV_DEC_UTIL", "gpu.decoder_load")):
        if key in v:  # NVML's (Thor)
            labels, x = only(page, name)
            assert x == v[key] and "jetsond_source" not in labels, (name, x, labels)
        else:
            assert name not in page, (board.board, name, page[name])
    assert ("gpu.encoder_load" in v) == (board.board == "agx-thor-jp71"), board.board
    for name in NO_JETSON_SOURCE:
        assert name not in page, (board.board, name, page[name])


def check_pc(board, text):
    page, types = series(text)
    v = board.values
    devices = pc_devices()
    for name in page:
        assert types[name] == ("counter" if name in COUNTERS else "gauge"), (name, types[name])
        gpus = [labels["gpu"] for labels, _ in page[name]]
        assert gpus == sorted(set(gpus)), (name, gpus)
    for n, dev in enumerate(devices):
        def one(name):
            found = [(labels, x) for labels, x in page.get(name, []) if labels["gpu"] == str(n)]
            assert len(found) == 1, (name, n, found)
            labels, x = found[0]
            assert labels["UUID"] == dev["uuid"] and labels["pci_bus_id"] == dev["pci_bus_id"], labels
            assert labels["modelName"] == dev["name"] and labels["Hostname"] == socket.gethostname(), labels
            assert labels["DCGM_FI_DRIVER_VERSION"] == FAKE_DRIVER, labels
            assert "jetsond_source" not in labels, labels
            assert labels.get("device") == (f"nvidia{dev['minor_number']}" if "minor_number" in dev else None), labels
            return x
        assert one("DCGM_FI_DEV_SM_CLOCK") == dev["clocks_mhz"]["sm"]
        assert one("DCGM_FI_DEV_MEM_CLOCK") == dev["clocks_mhz"]["mem"]
        assert one("DCGM_FI_DEV_GPU_TEMP") == dev["temperature"]
        assert one("DCGM_FI_DEV_POWER_USAGE") == dev["power_mw"] / 1000
        assert one("DCGM_FI_DEV_GPU_UTIL") == dev["utilization"]["gpu"]
        assert one("DCGM_FI_DEV_MEM_COPY_UTIL") == dev["utilization"]["memory"]
        mib = 1024 * 1024
        assert one("DCGM_FI_DEV_FB_USED") == v[f"dgpu.{n}.mem_used"] // 1024
        assert one("DCGM_FI_DEV_FB_TOTAL") == dev["memory"]["total"] // mib
        reserved = dev["memory"].get("reserved", 0)
        free = dev["memory"]["total"] - v[f"dgpu.{n}.mem_used"] * 1024 - reserved
        assert one("DCGM_FI_DEV_FB_FREE") == free // mib
        for name, field in (("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "energy_mj"),
                            ("DCGM_FI_DEV_ENC_UTIL", "encoder"), ("DCGM_FI_DEV_DEC_UTIL", "decoder")):
            if field in dev:
                assert one(name) == dev[field], name
            else:  # NOT_SUPPORTED in the fake: absent, never 0
                assert all(labels["gpu"] != str(n) for labels, _ in page.get(name, [])), (name, n)
        if "pcie_kbps" in dev:
            assert one("DCGM_FI_PROF_PCIE_RX_BYTES") == v[f"dgpu.{n}.pcie_rx"]
            assert one("DCGM_FI_PROF_PCIE_TX_BYTES") == v[f"dgpu.{n}.pcie_tx"]
        if "reserved" in dev["memory"]:
            assert one("DCGM_FI_DEV_FB_RESERVED") == reserved // mib
        # What only some GPUs have: there, and absent (never 0) elsewhere.
        extras = [("DCGM_FI_DEV_MEMORY_TEMP", dev.get("memory_temperature")),
                  ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", dev.get("pcie_replays")),
                  ("DCGM_FI_DEV_XID_ERRORS", 0 if "xids" in dev else None),
                  # The facts: the GeForce and the T4 have them, the H100 here none.
                  ("DCGM_FI_DEV_VIDEO_CLOCK", dev["clocks_mhz"].get("video")),
                  ("DCGM_FI_DEV_BAR1_USED", dev["bar1"]["used"] // mib if "bar1" in dev else None),
                  ("DCGM_FI_DEV_BAR1_TOTAL", dev["bar1"]["total"] // mib if "bar1" in dev else None),
                  ("DCGM_FI_DEV_PERSISTENCE_MODE", dev.get("persistence_mode"))]
        # ECC's counts only where ECC is on (the T4), absent on the GeForce.
        ecc = dev.get("ecc_errors") if dev.get("ecc_mode", {}).get("current") == 1 else None
        for name, key in (("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "volatile_corrected"),
                          ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "volatile_uncorrected"),
                          ("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "aggregate_corrected"),
                          ("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "aggregate_uncorrected")):
            extras.append((name, ecc[key] if ecc else None))
        for name, key in (("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "tensor"), ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "graphics"),
                          ("DCGM_FI_PROF_DRAM_ACTIVE", "dram")):
            extras.append((name, dev["gpm"][key] / 100 if "gpm" in dev else None))
        if "nvlink" in dev:  # bytes both ways on every link since the driver loaded: only grows
            at_start = sum(link["rx_kib"] + link["tx_kib"] for link in dev["nvlink"]) * 1024
            assert one("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL") >= at_start
        else:
            extras.append(("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", None))
        for name, want in extras:
            if want is None:
                assert all(labels["gpu"] != str(n) for labels, _ in page.get(name, [])), (name, n)
            else:
                assert one(name) == want, (name, n, want)
    # The PC has no Jetson GPU.
    assert all(labels["gpu"] != "igpu" for rows in page.values() for labels, _ in rows)


def check_pc_props(text):
    """/metrics's series of the GPUs' DiscreteGpu properties: identity and
    versions, BAR1's size, the modes; the H100 here says none of them
    (but its identity): absent, never 0."""
    samples = {}
    for (name, labels), v in parse_samples(text).items():
        if name.startswith("jetson_dgpu_"):
            samples.setdefault(name, {})[dict(labels)["gpu"]] = (dict(labels), v)
    info = samples["jetson_dgpu_info"]
    assert sorted(info) == ["0", "1", "2"], info
    labels, v = info["1"]
    assert v == 1 and labels["name"] == "Tesla T4" and labels["driver_version"] == FAKE_DRIVER, labels
    assert labels["cuda_driver_version"] == "12.8" and labels["compute_capability"] == "7.5", labels
    # A label NVML does not say is empty, as jetson_info's (Prometheus: no such label).
    assert info["0"][0]["compute_capability"] == "8.9" and info["2"][0]["compute_capability"] == "", info
    want = {"jetson_dgpu_bar1_total_bytes": {"0": 268435456, "1": 268435456},
            "jetson_dgpu_persistence_mode": {"0": 0, "1": 1},
            "jetson_dgpu_ecc_mode": {"1": 1}, "jetson_dgpu_ecc_mode_pending": {"1": 1},
            "jetson_dgpu_display_mode": {"0": 1, "1": 0}, "jetson_dgpu_display_active": {"0": 1, "1": 0}}
    for name, by_gpu in want.items():
        got = {gpu: v for gpu, (_, v) in samples.get(name, {}).items()}
        assert got == by_gpu, (name, got)
    modes = {gpu: labels["mode"] for gpu, (labels, _) in samples["jetson_dgpu_compute_mode_info"].items()}
    assert modes == {"0": "default", "1": "exclusive_process"}, modes
    # The sample's new keys as families of their own.
    assert samples["jetson_dgpu_bar1_used_bytes"]["1"][1] == 2097152
    assert samples["jetson_dgpu_video_frequency_hertz"]["0"][1] == 1965e6
    ecc = samples["jetson_dgpu_ecc_aggregate_uncorrected_errors_total"]
    assert sorted(ecc) == ["1"] and ecc["1"][1] == 1, ecc  # ECC on the T4 alone


def test_pages():
    """Each board's /metrics/dcgm against its own values; the Orin with its
    GPU zone offline reads the junction, said so; /metrics without a DCGM
    name; --no-dcgm answers 404."""
    for name in [*JETSONS, PC]:
        b = Board(name)
        try:
            names = ["DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_USED"]
            text = b.wait_page(*names, *(["DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"] if name == PC else []),
                               also=["UUID="] if name == "agx-thor-jp71" else [])
            (check_pc if name == PC else check_jetson)(b, text)
            if name == PC:
                check_pc_props(b.stack.scrape())
                # An XID on the H100: the last one's number, that GPU alone;
                # persistence mode on for the GeForce (nvidia-smi -pm 1).
                devices = pc_devices()
                devices[2] = dict(H100, xids=[79])
                devices[0] = dict(devices[0], persistence_mode=1)
                with open(b.nvml_file + ".new", "w") as f:
                    json.dump({"devices": devices}, f)
                os.rename(b.nvml_file + ".new", b.nvml_file)
                def xids():
                    return {x["gpu"]: v for x, v in series(b.page())[0].get("DCGM_FI_DEV_XID_ERRORS", [])}
                wait_for(lambda: xids() == {"0": 0.0, "2": 79.0}, 30, "XID 79 on GPU 2, none on 0, T4 absent")
                def persistence():
                    dcgm = {x["gpu"]: v for x, v in series(b.page())[0].get("DCGM_FI_DEV_PERSISTENCE_MODE", [])}
                    own = {dict(k)["gpu"]: v for (n, k), v in parse_samples(b.stack.scrape()).items()
                           if n == "jetson_dgpu_persistence_mode"}
                    return dcgm == own == {"0": 1.0, "1": 1.0}
                wait_for(persistence, 30, "the GeForce's persistence mode on, in both pages")
            assert "DCGM_" not in b.stack.scrape(), name
        finally:
            b.close()
    b = Board("orin-nano-jp62", offline_gpu_zone=True)
    try:
        assert "temp.gpu" not in b.values and "temp.tj" in b.values, b.values
        check_jetson(b, b.wait_page("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_FB_USED"))
    finally:
        b.close()
    b = Board("agx-orin-jp62", extra=["--no-dcgm"])
    try:
        r = b.stack.request("/metrics/dcgm")
        assert r.status == 404 and b"--no-dcgm" in r.body, (r.status, r.body)
        wait_for(lambda: "jetson_gpu_load_ratio" in b.stack.scrape(), 30, "/metrics served as before")
    finally:
        b.close()


def panel_queries(dash):
    return [(p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]


def test_nvidia_dashboard():
    """Every panel of NVIDIA's dashboard has data for every board through a
    real Prometheus, with the dashboard's variables as Grafana sets them
    (instance chosen, gpu All); the Tensor Core panel has none on a Jetson,
    whose GPU has no such counter."""
    dash = json.load(open(DASHBOARD))
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    assert variables["instance"]["query"] == "label_values(DCGM_FI_DEV_GPU_TEMP, instance)"
    assert variables["gpu"]["query"] == "label_values(DCGM_FI_DEV_GPU_TEMP, gpu)"
    queries = panel_queries(dash)
    assert len(queries) == 8, queries
    started = time.monotonic()
    boards = []
    prom = None
    try:
        for name in [*JETSONS, PC]:
            boards.append(Board(name))
        prom = Prometheus(os.path.join(boards[0].stack.dir, "prometheus"),
                          [b.instance for b in boards], jobs={"dcgm": "/metrics/dcgm"})
        # The instance variable: every board, from the dashboard's query.
        wait_for(lambda: len(prom.label_values("DCGM_FI_DEV_GPU_TEMP", "instance")) == len(boards), 30,
                 "every board in label_values(DCGM_FI_DEV_GPU_TEMP, instance)")
        for b in boards:
            instance = grafana_regex([b.instance])
            gpus = prom.label_values(f'DCGM_FI_DEV_GPU_TEMP{{instance=~"{instance}"}}', "gpu")
            assert gpus == (["0", "1", "2"] if b.board == PC else ["0"]), (b.board, gpus)
            for title, expr in queries:
                promql = expr.replace("$instance", instance).replace("$gpu", grafana_regex(gpus))
                result = prom.query(promql)
                if title == "Tensor Core Utilization" and b.board != PC:
                    # A Jetson's GPU has no such counter.
                    assert result == [], (b.board, title, result)
                elif title == "Tensor Core Utilization":
                    # GPM's: the H100 alone, once its second read is in.
                    wait_for(lambda: [r["gpu"] for r, _ in prom.query(promql)] == ["2"], 45, "the H100's tensor use")
                else:
                    assert result, f"no data for panel {title!r} on {b.board}: {promql}"
                    assert all(v == v for _, v in result), (title, result)  # no NaN
    except BaseException:
        if prom:
            sys.stderr.write(prom.log_text())
        raise
    finally:
        if prom:
            prom.close()
        for b in boards:
            b.close()
    print(f"   {len(boards)} boards, {len(queries)} panels each: {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    if not shutil.which("prometheus"):
        print("SKIP: prometheus is not installed (apt-get install prometheus)")
        sys.exit(77)
    sys.exit(run_tests([test_pages, test_nvidia_dashboard]))
