#!/usr/bin/env python3
"""A real Prometheus server (Debian's prometheus) scraping jetsond-exporter
every second on the static fake AGX Orin: what PromQL answers equals the
board's facts, the energy counter's rate equals the board power, the
metadata carries OpenMetrics units (so the OpenMetrics path was taken),
and when jetsond leaves, jetson_up drops to 0 and the board's series go
stale, then come back. Usage: test-prometheus.py JETSOND EXPORTER"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import SOURCE_DIR, Stack, run_tests, wait_for

import boards

JETSOND, EXPORTER = sys.argv[1], sys.argv[2]
ORIN = boards.AGX_ORIN
DASHBOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "exporter",
                         "grafana-dashboard.json")


class Prometheus:
    """Debian's prometheus scraping STACK's exporter every second (job
    "jetson"), with RULE_FILES evaluated every second where given."""

    def __init__(self, stack, rule_files=()):
        self.dir = os.path.join(stack.dir, "prometheus")
        os.mkdir(self.dir)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: {json.dumps(list(rule_files))}
scrape_configs:
  - job_name: jetson
    static_configs:
      - targets: ['127.0.0.1:{stack.port}']
""")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            ["prometheus", "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(self.dir, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
            stdout=self.log, stderr=self.log)
        wait_for(self.ready, 60, "Prometheus ready")

    def get(self, path, **params):
        url = f"http://127.0.0.1:{self.port}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)

    def ready(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def query(self, promql):
        """[(labels, value)] of an instant query."""
        r = self.get("/api/v1/query", query=promql)
        assert r["status"] == "success", r
        return [(x["metric"], float(x["value"][1])) for x in r["data"]["result"]]

    def one(self, promql):
        result = self.query(promql)
        assert len(result) == 1, (promql, result)
        return result[0][1]

    def wait_value(self, promql, want, timeout=15):
        def check():
            result = self.query(promql)
            return len(result) == 1 and result[0][1] == want
        wait_for(check, timeout, f"{promql} == {want}")

    def close(self):
        self.proc.terminate()
        self.proc.wait(30)


def test_prometheus_scrapes_the_board():
    with Stack(JETSOND, EXPORTER) as s:
        s.start_daemon()
        s.start_exporter()
        prom = Prometheus(s)
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
            sys.stderr.write(open(os.path.join(prom.dir, "prometheus.log")).read())
            raise
        finally:
            prom.close()


def test_grafana_dashboard():
    """exporter/grafana-dashboard.json: every query of every panel, with
    the board variable set to all boards, answers with data from a real
    Prometheus scraping a simulated board, and names only families the
    exporter has."""
    dash = json.load(open(DASHBOARD))
    families = {line.split("\t")[0] for line in subprocess.run(
        [EXPORTER, "--list-metrics"], check=True, capture_output=True, text=True).stdout.splitlines()}
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), ids
    exprs = [(p["title"], t["expr"]) for p in dash["panels"] for t in p["targets"]]
    assert len(exprs) >= 15, exprs
    for title, expr in exprs:
        names = set(re.findall(r"\b(jetson_[a-z0-9_]+)", expr))
        assert names and names <= families, (title, names - families)
    with Stack(JETSOND, EXPORTER, simulate=True) as s:
        s.start_daemon()
        s.start_exporter()
        prom = Prometheus(s)
        try:
            prom.wait_value("jetson_up", 1)
            values = prom.get("/api/v1/label/instance/values", **{"match[]": "jetson_up"})["data"]
            assert values == [f"127.0.0.1:{s.port}"], values
            # rate() needs two scrapes in its window: 4 s on an idle
            # machine, more on a busy one.
            for title, expr in exprs:
                promql = expr.replace("$instance", ".*").replace("$__rate_interval", "5s")
                wait_for(lambda: prom.query(promql), 4, f"data for panel {title!r}: {promql}")
        except BaseException:
            sys.stderr.write(open(os.path.join(prom.dir, "prometheus.log")).read())
            raise
        finally:
            prom.close()


if __name__ == "__main__":
    if not shutil.which("prometheus"):
        print("prometheus is not installed (apt-get install prometheus)")
        sys.exit(77)
    sys.exit(run_tests([test_prometheus_scrapes_the_board, test_grafana_dashboard]))
