#!/usr/bin/env python3
"""A real Prometheus server (Debian's prometheus) scraping jetsond-exporter
every second on the static fake AGX Orin: what PromQL answers equals the
board's facts, the energy counter's rate equals the board power, the
metadata carries OpenMetrics units (so the OpenMetrics path was taken),
and when jetsond leaves, jetson_up drops to 0 and the board's series go
stale, then come back; and the Grafana dashboard's every query on the
seven fake boards at once. Usage: test-prometheus.py JETSOND EXPORTER FAKE_NVML"""

import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import SOURCE_DIR, Stack, run_tests, wait_for
from prometheus_server import Prometheus, grafana_regex

import boards

# tests/container/container-exporter.py loads this file for Prometheus alone.
JETSOND, EXPORTER, FAKE_NVML = (sys.argv[1:] + [None] * 3)[:3]
ORIN = boards.AGX_ORIN
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "exporter",
                         "grafana-dashboard.json")
SIMULATE = os.path.join(SOURCE_DIR, "tests", "fixtures", "simulate.py")


def test_prometheus_scrapes_the_board():
    with Stack(JETSOND, EXPORTER) as s:
        s.start_daemon()
        s.start_exporter()
        prom = Prometheus(os.path.join(s.dir, "prometheus"), [f"127.0.0.1:{s.port}"])
        try:
            prom.wait_value('up{job="jetson"}', 1)
            prom.wait_value("jetson_up", 1)
            targets = prom.get("/api/v1/targets")["data"]["activeTargets"]
            assert targets[0]["health"] == "up" and targets[0]["lastError"] == "", targets

            # The board's facts, through PromQL.
            assert prom.one('jetson_fan_rpm{fan="0"}') == ORIN["fan"]["rpm"]
            assert prom.one('jetson_temperature_celsius{zone="cpu"}') == dict(ORIN["thermal"])["cpu-thermal"] / 1000
            assert prom.one("count(jetson_cpu_frequency_hertz)") == ORIN["cpu"]["n"]
            assert prom.one('jetson_cpu_frequency_hertz{cpu="2"}') == ORIN["cpu"]["cur"][2] * 1000
            assert prom.one("max(jetson_cpu_max_frequency_hertz) / 1e9") == ORIN["cpu"]["scaling_max"] / 1e6
            info = prom.query("jetson_info")
            assert len(info) == 1, info
            labels = info[0][0]
            assert (labels["model"], labels["soc"], labels["l4t"], labels["jetpack"], labels["cuda_arch"]) == (
                ORIN["dt"]["model"], ORIN["soc"], ORIN["l4t"], ORIN["jetpack"], ORIN["cuda_arch"]), labels
            assert prom.one('jetson_nvpmodel_mode{name="MAXN"}') == 0
            # Each rail: volts and amperes as the INA3221 files say, watts
            # their product (jetsond's integer mW).
            rails = [c for p in ORIN["power"] for c in p["ch"] if c[0] != "NC"]
            assert prom.one("count(jetson_rail_power_watts)") == len(rails)
            for name, mv, ma, _, _ in rails:
                assert prom.one(f'jetson_rail_voltage_volts{{rail="{name}"}}') == mv / 1000
                assert prom.one(f'jetson_rail_current_amperes{{rail="{name}"}}') == ma / 1000
                assert prom.one(f'jetson_rail_power_watts{{rail="{name}"}}') == (mv * ma // 1000) / 1000, name
            # Each zone that reads: its °C; offline (-256 °C) and unreadable
            # zones are absent.
            zones = {z.split("-")[0]: t / 1000 for z, t in ORIN["thermal"] if t != "" and t > -256000}
            got = {labels["zone"]: v for labels, v in prom.query("jetson_temperature_celsius")}
            assert got == zones, (got, zones)

            # Per-core loads: the fixture's second /proc/stat, written in
            # place (jetsond re-reads the open file), gives known loads,
            # which jetsond then holds while the counters stand still.
            stat_b = open(os.path.join(SOURCE_DIR, "tests/fixtures/proc-stat/agx-orin-jp62-b")).read()
            with open(os.path.join(s.root, "proc/stat"), "r+") as f:
                f.write(stat_b)
                f.truncate()
            prom.wait_value("jetson_cpu_total_load_ratio", 0.55)
            for cpu, (_, percent, _) in enumerate(ORIN["stat"]["cores"]):
                assert prom.one(f'jetson_cpu_load_ratio{{cpu="{cpu}"}}') == percent / 100, cpu
            # Joins across families work as dashboards use them.
            assert prom.one('sum(jetson_process_gpu_memory_bytes{user="nvidia"}) / 1024') == \
                10240 + 30720 + 262144 + 65536

            # The energy counter integrates the board power (constant on a
            # static board): its increase over the sample's own clock is
            # the power. Both series come from one instant query, so from
            # one scrape, whose sample timestamp says when the counter was
            # read; rate() over a short window would instead count whole
            # 1-second counter steps against scrape times, an aliasing any
            # loaded machine shows (dashboards use [1m] or more).
            power = prom.one("jetson_board_power_watts")

            def energy_at():
                got = {labels["__name__"]: v for labels, v in prom.query(
                    '{__name__=~"jetson_board_energy_joules_total|jetson_sample_timestamp_seconds"}')}
                return got["jetson_board_energy_joules_total"], got["jetson_sample_timestamp_seconds"]
            e0, t0 = energy_at()
            e1, t1 = wait_for(lambda: (lambda e, t: (e, t) if t - t0 >= 3 else None)(*energy_at()), 6,
                              "three seconds of samples")
            rate = (e1 - e0) / (t1 - t0)
            print(f"figure: board energy {e1 - e0:.3f} J over {t1 - t0:.3f} s of samples: {rate:.3f} W "
                  f"against {power:.3f} W")
            assert abs(rate - power) < 0.05 * power, (rate, power)
            assert prom.one("resets(jetson_board_energy_joules_total[1m])") == 0
            # Every energy counter increases between two scrapes.
            def counters():
                return dict((l.get("rail", "board"), v) for l, v in prom.query(
                    "jetson_rail_energy_joules_total or jetson_board_energy_joules_total"))
            before = counters()
            after = wait_for(lambda: (lambda a: a if all(a[k] > before[k] for k in a) else None)(counters()), 2.5,
                             "every energy counter to increase")
            assert len(after) == len(rails) + 1 and after.keys() == before.keys(), (before, after)

            # OpenMetrics was negotiated: only it carries UNIT lines.
            meta = prom.get("/api/v1/metadata", metric="jetson_board_energy_joules")["data"]
            assert meta["jetson_board_energy_joules"][0]["type"] == "counter", meta
            assert meta["jetson_board_energy_joules"][0]["unit"] == "joules", meta
            meta = prom.get("/api/v1/metadata", metric="jetson_cpu_governor")["data"]
            assert meta["jetson_cpu_governor"][0]["type"] == "info", meta

            # jetsond leaves: the exporter still answers (up stays 1),
            # jetson_up becomes 0 and the board's series go stale.
            s.stop_daemon()
            prom.wait_value("jetson_up", 0)
            wait_for(lambda: prom.query('jetson_fan_rpm') == [], 15, "jetson_fan_rpm stale")
            assert prom.one('up{job="jetson"}') == 1
            s.start_daemon()
            prom.wait_value("jetson_up", 1)
            prom.wait_value('jetson_fan_rpm{fan="0"}', ORIN["fan"]["rpm"])
        except BaseException:
            sys.stderr.write(prom.log_text())
            raise
        finally:
            prom.close()


# The fleet test_grafana_dashboard runs, each board simulated (loads,
# rates), the JetPack 7 ones and the PC with their fake NVML (the PC's
# two discrete GPUs).
DASHBOARD_BOARDS = ["agx-orin-jp62", "orin-nano-jp62", "xavier-nx-jp51", "nano-jp46", "agx-thor-jp71",
                    "agx-orin-jp72", "x86-pc"]
NVML_BOARDS = {"agx-thor-jp71", "agx-orin-jp72", "x86-pc"}
# What the test makes happen on some boards (simulate.py, after
# Prometheus has their first samples), and the queries that answer only
# where it happened: (panel title, refId) -> event. Such a query must
# answer on the boards of its event and on no other.
EVENTS = {
    "throttled": {"agx-orin-jp62": ["--cap", "gpu-throttle-alert=1", "--oc-events", "2=3"]},
    # Over-current throttles only in the sample that counts the events
    # (jetson_throttled 1 for a second): raised where the cap holds.
    "over-current": {"agx-orin-jp62": []},
    "rebooted": {"xavier-nx-jp51": []},   # its /proc/uptime goes back
}
EVENT_QUERIES = {
    ("Throttled", "B"): "throttled",
    ("Time throttled in the range", "A"): "throttled",
    ("Over-current events", "A"): "over-current",
    ("Over-current events in the range", "A"): "over-current",
    ("Boards rebooted in the range", "A"): "rebooted",
}
# Boards with the families a query names where it rightly answers nothing:
# (panel title, refId) -> {board: why}.
ANSWERS_NOTHING = {
    ("Engines on", "A"): {"agx-thor-jp71": "its one engine, the PVA, is off (clk_enable_count 0)"},
}
# Grafana's interval variables, as the test sets them: a window longer
# than the test, so an event stays in it (also under qemu).
INTERVALS = {"$__rate_interval": "5m", "$__range": "1h"}


def test_grafana_dashboard():
    """exporter/grafana-dashboard.json against a real Prometheus scraping
    the seven simulated fake boards at once: every query of every panel,
    with the dashboard's variables as Grafana fills them (All, every value
    chosen, one board, one GPU), answers with data from each board that
    has the families it names (and, for a query about an event, from the
    boards where the test made it happen, and no other), each series
    naming its board; every query answers somewhere; it names only
    families the exporter has."""
    start = time.monotonic()
    dash = json.load(open(DASHBOARD))
    families = {line.split("\t")[0] for line in subprocess.run(
        [EXPORTER, "--list-metrics"], check=True, capture_output=True, text=True).stdout.splitlines()}
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), ids
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    assert variables.keys() == {"instance", "gpu"}, variables.keys()
    assert variables["instance"]["query"] == "label_values(jetson_up, instance)"
    assert variables["gpu"]["query"] == "label_values(jetson_dgpu_load_ratio, gpu)"
    for v in variables.values():
        assert v["multi"] and v["includeAll"] and v["allValue"] == ".*", v
    queries = []          # (panel title, refId, expr, families named)
    for p in dash["panels"]:
        assert p["targets"], p["title"]
        for t in p["targets"]:
            expr, key = t["expr"], (p["title"], t["refId"])
            names = set(re.findall(r"\b(jetson_[a-z0-9_]+)", expr))
            assert names and names <= families, (key, names - families)
            # Every selector takes the board variable; a discrete GPU's
            # the GPU variable too; nothing else is left to fill.
            for name, selector in re.findall(r"\b(jetson_[a-z0-9_]+)(\{[^}]*\})?", expr):
                assert 'instance=~"$instance"' in selector, (key, name, expr)
                assert name.startswith("jetson_dgpu_") == ('gpu=~"$gpu"' in selector), (key, name, expr)
            rest = re.sub(r"\$(instance|gpu)\b", "", expr)
            for var, value in INTERVALS.items():
                rest = rest.replace(var, value)
            assert "$" not in rest, (key, expr)
            queries.append((*key, expr, names))
    assert set(EVENT_QUERIES) <= {q[:2] for q in queries}, set(EVENT_QUERIES) - {q[:2] for q in queries}
    assert len(queries) >= 35, len(queries)

    with contextlib.ExitStack() as stacks:
        # The boards' copies made side by side; then each jetsond on its
        # own bus (the harness's Stack takes the bus from the environment).
        with concurrent.futures.ThreadPoolExecutor(len(DASHBOARD_BOARDS)) as pool:
            made = [pool.submit(Stack, JETSOND, EXPORTER, board=board) for board in DASHBOARD_BOARDS]
        for f in made:
            if not f.exception():
                stacks.enter_context(f.result())
        boards = [f.result() for f in made]
        fleet = {f"127.0.0.1:{s.port}": (board, s) for board, s in zip(DASHBOARD_BOARDS, boards)}
        # Prometheus starts while the boards do (its first scrapes wait
        # on the exporters' listening sockets).
        prom = Prometheus(os.path.join(boards[0].dir, "prometheus"), [f"127.0.0.1:{s.port}" for s in boards])
        stacks.callback(prom.close)
        for board, s in zip(DASHBOARD_BOARDS, boards):
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = s.address
            s.procs.append(subprocess.Popen([sys.executable, SIMULATE, s.root, "--period-ms", "500"]))
            if board in NVML_BOARDS:
                os.environ["FAKE_NVML_CONFIG"] = os.path.join(SOURCE_DIR, "tests/fixtures", board + ".nvml.json")
            s.start_daemon(["--nvml-library", FAKE_NVML] if board in NVML_BOARDS else [])
            os.environ.pop("FAKE_NVML_CONFIG", None)
            s.start_exporter()
        try:
            def up():
                return {labels["instance"] for labels, v in prom.query("jetson_up") if v == 1}
            wait_for(lambda: up() == fleet.keys(), 10, "jetson_up 1 from every board")
            instances = prom.get("/api/v1/label/instance/values", **{"match[]": "jetson_up"})["data"]
            assert sorted(instances) == sorted(fleet), instances
            gpus = prom.get("/api/v1/label/gpu/values", **{"match[]": "jetson_dgpu_load_ratio"})["data"]
            assert gpus == ["0", "1"], gpus

            # The events, once Prometheus has seen the boards before them.
            board_instance = {board: i for i, (board, _) in fleet.items()}
            stack_of = {board: s for board, s in fleet.values()}
            for event, where in EVENTS.items():
                for board, args in where.items():
                    if args:
                        subprocess.run([sys.executable, SIMULATE, stack_of[board].root, "--duration-s", "0",
                                        *args], check=True)

            def reboot():
                # The simulator adds to the uptime it reads: a lower value
                # written stays lower (written again in the unlikely case
                # the simulator's tick wrote over it).
                for board in EVENTS["rebooted"]:
                    path = os.path.join(stack_of[board].root, "proc/uptime")
                    if float(open(path).read().split()[0]) > 1000:
                        with open(path, "r+") as f:
                            f.write("60.00 30.00\n")
                            f.truncate()
                return prom.query('resets(jetson_uptime_seconds[1h]) > 0')
            wait_for(reboot, 5, "the reboot seen by Prometheus")

            # Which families each board has.
            present = {i: set() for i in fleet}
            for labels, _ in prom.query('group by (instance, __name__) ({__name__=~"jetson_.+"})'):
                present[labels["instance"]].add(labels["__name__"])

            def expected(title, ref, names):
                """The instances where the query must answer."""
                where = {i for i in fleet if names <= present[i]}
                event = EVENT_QUERIES.get((title, ref))
                if event:
                    where &= {board_instance[b] for b in EVENTS[event]}
                return where - {board_instance[b] for b in ANSWERS_NOTHING.get((title, ref), {})}

            def run(expr, instance, gpu):
                promql = expr.replace("$instance", instance).replace("$gpu", gpu)
                for var, value in INTERVALS.items():
                    promql = promql.replace(var, value)
                return promql, prom.query(promql)

            every_instance, every_gpu = grafana_regex(sorted(fleet)), grafana_regex(gpus)
            answered = {}
            for title, ref, expr, names in queries:
                want = expected(title, ref, names)
                assert want, f"panel {title!r} {ref} answers on no board: {expr}"
                answered.setdefault(title, set()).update(fleet[i][0] for i in want)

                # All, then every value chosen: each board expected, and
                # no other (rate() needs two scrapes in its window).
                for instance, gpu in ((".*", ".*"), (every_instance, every_gpu)):
                    last = {}

                    def boards_answering():
                        promql, result = run(expr, instance, gpu)
                        last["got"] = got = {labels.get("instance") for labels, _ in result}
                        return (promql, got) if want <= got else None
                    try:
                        promql, got = wait_for(boards_answering, 4, f"data for panel {title!r} {ref}: {expr}")
                    except AssertionError as e:
                        raise AssertionError(f"{e}; none from {sorted(fleet[i][0] for i in want - last['got'])}")
                    assert got == want, (title, ref, promql, sorted(fleet[i][0] for i in got if i in fleet))
                # One board chosen: that board's series alone.
                for i in fleet:
                    promql, result = run(expr, grafana_regex([i]), ".*")
                    got = {labels.get("instance") for labels, _ in result}
                    assert got == ({i} if i in want else set()), (title, ref, fleet[i][0], promql, result)
                # One GPU chosen: that GPU's series alone.
                if "$gpu" in expr:
                    for g in gpus:
                        promql, result = run(expr, ".*", grafana_regex([g]))
                        assert result and {labels["gpu"] for labels, _ in result} == {g}, (title, promql, result)
            for title, where in answered.items():
                print(f"panel {title!r}: {', '.join(sorted(where))}")
        except BaseException:
            sys.stderr.write(prom.log_text())
            raise
    print(f"figure: dashboard test {time.monotonic() - start:.1f} s for {len(queries)} queries on {len(fleet)} boards")


if __name__ == "__main__":
    if not shutil.which("prometheus"):
        print("prometheus is not installed (apt-get install prometheus)")
        sys.exit(77)
    sys.exit(run_tests([test_prometheus_scrapes_the_board, test_grafana_dashboard]))
