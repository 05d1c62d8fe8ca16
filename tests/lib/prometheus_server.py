"""Debian's prometheus for the exporter's tests: a server in a directory of
the test's own, scraping given targets every second, queried through its
HTTP API as Grafana queries it."""

import json
import os
import re
import socket
import subprocess
import urllib.parse
import urllib.request

from harness import wait_for


def grafana_regex(values):
    """A multi-value variable's selection as Grafana's Prometheus data
    source writes it into a query: each value regex-escaped (inside a
    PromQL string, so the backslash doubled), one value alone, several as
    (a|b)."""
    escaped = [re.sub(r"([\\$^*{}\[\]'+?.()|])", r"\\\\\1", v) for v in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


class Prometheus:
    """Scrapes TARGETS ("host:port") every second, once for each job of
    JOBS ({job name: metrics path}), evaluating RULE_FILES every second
    where given."""

    def __init__(self, directory, targets, jobs=None, rule_files=()):
        jobs = jobs or {"jetson": "/metrics"}
        self.dir = directory
        os.makedirs(self.dir, exist_ok=True)
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
""")
            for job, path in jobs.items():
                f.write(f"""  - job_name: {job}
    metrics_path: {path}
    static_configs:
      - targets: {json.dumps(list(targets))}
""")
        self.log_path = os.path.join(self.dir, "prometheus.log")
        self.log = open(self.log_path, "w")
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

    def label_values(self, selector, label):
        """Grafana's label_values(SELECTOR, LABEL), sorted."""
        r = self.get(f"/api/v1/label/{label}/values", **{"match[]": selector})
        assert r["status"] == "success", r
        return sorted(r["data"])

    def log_text(self):
        return open(self.log_path, errors="replace").read()

    def close(self):
        self.proc.terminate()
        self.proc.wait(30)
