#!/usr/bin/env python3
"""jetsond-exporter against jetsond on a private system bus: the values of
the fake board in both formats, gzip, jetsond leaving and coming back,
stalled samples, the HTTP surface, concurrent scrapes, the listen options
and the loss of the bus. Usage: test-service.py JETSOND EXPORTER"""

import http.client
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from harness import WRAPPED, Stack, parse_samples, run_tests, sanitized, value, wait_for

import boards
import memory

JETSOND, EXPORTER = sys.argv[1], sys.argv[2]
ORIN = boards.AGX_ORIN
PROM_TYPE = "text/plain; version=0.0.4; charset=utf-8"
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
OM_ACCEPT = {"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}


def up_stack(**kw):
    s = Stack(JETSOND, EXPORTER, **kw)
    try:
        s.start_daemon()
        s.start_exporter()
    except BaseException:
        s.close()
        raise
    return s


def wait_up(s, want):
    return wait_for(lambda: f"\njetson_up {want}\n" in "\n" + s.scrape(), 10, f"jetson_up {want}")


def promtool(text):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_fixture_values():
    """Every kind of family, compared with the fake board's own facts."""
    with up_stack() as s:
        wait_up(s, 1)
        r = s.request("/metrics")
        assert r.headers["content-type"] == PROM_TYPE, r.headers
        promtool(r.text)
        m = parse_samples(r.text)
        thermal = dict(ORIN["thermal"])
        assert value(m, "jetson_temperature_celsius", zone="cpu") == thermal["cpu-thermal"] / 1000
        assert value(m, "jetson_temperature_celsius", zone="soc0") == thermal["soc0-thermal"] / 1000
        # Offline zones (-256 °C) and unreadable ones are left out.
        assert not any(n == "jetson_temperature_celsius" and ("zone", "cv0") in ls for n, ls in m)
        # Trip points (gen/boards.py's, from the device tree): an offline zone keeps its own;
        # tj has no passive trip, so no throttle series.
        for zone in ("cpu", "cv0", "soc2"):
            trips = dict((t, c) for t, c in ORIN["thermal_trips"][zone + "-thermal"])
            assert value(m, "jetson_temperature_throttle_trip_celsius", zone=zone) == trips["passive"] / 1000
            assert value(m, "jetson_temperature_critical_trip_celsius", zone=zone) == trips["critical"] / 1000
        assert value(m, "jetson_temperature_critical_trip_celsius", zone="tj") == 104.5
        assert not any(n == "jetson_temperature_throttle_trip_celsius" and ("zone", "tj") in ls for n, ls in m)
        # Swap traffic: vmstat's pages times the page size, in bytes.
        pages_in, pages_out = memory.swap_traffic(ORIN)
        assert pages_in and pages_out
        assert value(m, "jetson_swap_in_bytes_total") == pages_in * os.sysconf("SC_PAGE_SIZE")
        assert value(m, "jetson_swap_out_bytes_total") == pages_out * os.sysconf("SC_PAGE_SIZE")
        assert value(m, "jetson_fan_rpm", fan="0") == ORIN["fan"]["rpm"]
        assert value(m, "jetson_fan_pwm", fan="0") == ORIN["fan"]["pwm"]
        assert abs(value(m, "jetson_fan_speed_ratio", fan="0") - ORIN["fan"]["pwm"] / 255) < 1e-3
        assert value(m, "jetson_fan_profile_info", fan="0", profile=ORIN["fan"]["profile"]) == 1
        for cpu, khz in enumerate(ORIN["cpu"]["cur"]):
            assert value(m, "jetson_cpu_frequency_hertz", cpu=str(cpu)) == khz * 1000
            assert value(m, "jetson_cpu_governor_info", cpu=str(cpu), governor="schedutil") == 1
        assert value(m, "jetson_gpu_load_ratio") == ORIN["gpu"]["load"] / 1000
        assert value(m, "jetson_gpu_frequency_hertz") == ORIN["gpu"]["cur"]
        assert value(m, "jetson_emc_frequency_hertz") == ORIN["emc"]["rate"]
        rails = {c[0]: c for p in ORIN["power"] for c in p["ch"] if c[0] != "NC"}
        for name, mv, ma, warn, crit in rails.values():
            assert value(m, "jetson_rail_voltage_volts", rail=name) == mv / 1000
            assert value(m, "jetson_rail_current_amperes", rail=name) == ma / 1000
            assert value(m, "jetson_rail_crit_current_amperes", rail=name) == crit / 1000
            assert value(m, "jetson_rail_energy_joules_total", rail=name) >= 0
        assert value(m, "jetson_ram_total_bytes") == 64302080 * 1024
        assert value(m, "jetson_nvpmodel_mode", name="MAXN") == ORIN["nvpmodel"]["current"]
        assert value(m, "jetson_nvpmodel_default_mode") == ORIN["nvpmodel"]["default"]
        assert value(m, "jetson_clocks_active") == 0
        assert value(m, "jetson_info", model=ORIN["dt"]["model"], module=ORIN["module"][1], soc=ORIN["soc"],
                     l4t=ORIN["l4t"], jetpack=ORIN["jetpack"], cuda_arch=ORIN["cuda_arch"]) == 1
        assert value(m, "jetson_process_gpu_memory_bytes", pid="5120", name="python3", user="nvidia") == 262144 * 1024
        assert value(m, "jetson_process_gpu_memory_bytes", pid="5377", name="(my) app") == 65536 * 1024
        assert value(m, "jetson_uptime_seconds") == 12345
        assert abs(value(m, "jetson_sample_timestamp_seconds") - time.time()) < 5
        # Every family of a sample key carries HELP and TYPE.
        names = {n for n, _ in m}
        for n in names:
            assert f"# TYPE {n} " in r.text and f"# HELP {n} " in r.text, n


def test_unprivileged():
    """As a user with no rights (nobody), as systemd's DynamicUser= runs
    it: the bus policy lets it read everything it exports."""
    with Stack(JETSOND, EXPORTER) as s:
        s.start_daemon()
        s.start_exporter(uid=65534)
        wait_up(s, 1)
        assert open(f"/proc/{s.exporter.pid}/status").read().count("\t65534") >= 4
        m = parse_samples(s.scrape())
        assert value(m, "jetson_fan_rpm", fan="0") == ORIN["fan"]["rpm"]
        assert value(m, "jetson_info", soc="tegra234") == 1
        assert value(m, "jetson_nvpmodel_default_mode") == ORIN["nvpmodel"]["default"]


def test_openmetrics():
    with up_stack() as s:
        wait_up(s, 1)
        r = s.request("/metrics", headers=OM_ACCEPT)
        assert r.headers["content-type"] == OM_TYPE, r.headers
        text = r.text
        assert text.endswith("\n# EOF\n") and text.count("# EOF") == 1
        lines = text.splitlines()
        # Metadata per family once, UNIT matching the name's suffix, and
        # every sample named after the family it follows.
        family, seen = None, set()
        for line in lines[:-1]:
            if line.startswith("# TYPE "):
                _, _, family, kind = line.split(" ")
                assert family not in seen, family
                seen.add(family)
                suffixes = {"counter": ("_total",), "info": ("_info",)}.get(kind, ("",))
            elif line.startswith("# UNIT "):
                _, _, name, unit = line.split(" ")
                assert name == family and family.endswith("_" + unit), line
            elif not line.startswith("#"):
                name = line.split("{")[0].split(" ")[0]
                assert name in {family + sfx for sfx in suffixes}, (line, family)
        m = parse_samples(text.replace("# EOF\n", ""))
        assert value(m, "jetson_board_energy_joules_total") >= 0
        assert "# TYPE jetson_board_energy_joules counter" in lines
        assert "# UNIT jetson_board_energy_joules joules" in lines
        assert "# TYPE jetson_cpu_governor info" in lines
        assert "# TYPE jetson info" in lines
        assert value(m, "jetson_fan_rpm", fan="0") == ORIN["fan"]["rpm"]


def test_gzip():
    with up_stack() as s:
        wait_up(s, 1)
        r = s.request("/metrics", headers={"Accept-Encoding": "gzip, deflate"})
        assert r.headers.get("content-encoding") == "gzip", r.headers
        assert "Accept-Encoding" in r.headers["vary"]
        import gzip
        text = gzip.decompress(r.body).decode()
        plain = s.request("/metrics")
        assert "content-encoding" not in plain.headers
        # Same families and series (values of counters move on).
        assert set(parse_samples(text)) == set(parse_samples(plain.text))
        assert len(r.body) * 4 < len(plain.body), (len(r.body), len(plain.body))
        om = s.request("/metrics", headers={**OM_ACCEPT, "Accept-Encoding": "gzip"})
        assert gzip.decompress(om.body).decode().endswith("# EOF\n")


def test_jetsond_leaves_and_returns():
    """jetson_up 0 at the first scrape after jetsond leaves, nothing cached
    shown as live; back without restarting the exporter."""
    with up_stack() as s:
        wait_up(s, 1)
        pid = s.exporter.pid
        assert s.stop_daemon() == 0
        # The name is gone when stop_daemon returns; the signal reaches
        # the exporter within a moment.
        def down_page():
            text = s.scrape()
            return text if "jetson_up 0" in text else None
        text = wait_for(down_page, 2, "jetson_up 0")
        assert [line for line in text.splitlines() if not line.startswith("#")] == ["jetson_up 0"], text
        om = s.request("/metrics", headers=OM_ACCEPT).text
        assert [line for line in om.splitlines() if not line.startswith("#")] == ["jetson_up 0"], om
        s.start_daemon()
        wait_up(s, 1)
        m = parse_samples(s.scrape())
        assert value(m, "jetson_fan_rpm", fan="0") == ORIN["fan"]["rpm"]
        assert value(m, "jetson_info", soc="tegra234") == 1
        assert s.exporter.pid == pid and s.exporter.poll() is None
        log = s.exporter_log()
        assert "jetsond left the bus" in log and "jetsond is on the bus" in log, log


def test_exporter_first():
    """Started before jetsond: jetson_up 0, then 1 when jetsond comes."""
    s = Stack(JETSOND, EXPORTER)
    with s:
        s.start_exporter()
        assert [l for l in s.scrape().splitlines() if not l.startswith("#")] == ["jetson_up 0"]
        s.start_daemon()
        wait_up(s, 1)


def test_stalled_jetsond():
    """jetsond keeps its name but sends nothing (stopped): after three
    intervals and a second the page says jetson_up 0."""
    with up_stack(interval_ms=200) as s:
        wait_up(s, 1)
        os.kill(s.daemon.pid, signal.SIGSTOP)
        try:
            stopped = time.monotonic()
            wait_up(s, 0)
            waited = time.monotonic() - stopped
            assert 1.2 < waited < 4, waited
        finally:
            os.kill(s.daemon.pid, signal.SIGCONT)
        wait_up(s, 1)


def test_http_surface():
    with up_stack() as s:
        r = s.request("/")
        assert r.status == 200 and r.headers["content-type"].startswith("text/html")
        assert 'href="/metrics"' in r.text
        r = s.request("/nothing")
        assert r.status == 404 and "/metrics" in r.text
        r = s.request("/metrics", method="POST")
        assert r.status == 405 and r.headers["allow"] == "GET, HEAD"
        r = s.request("/metrics", method="PUT", body=b"x" * 100000)
        assert r.status == 405
        assert s.request("/metrics").status == 200
        r = s.request("/metrics", method="HEAD")
        assert r.status == 200 and r.body == b""
        # Keep-alive, as Prometheus scrapes: every page and a 404 on one
        # connection, which the exporter never closes.
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        c.connect()
        sock = c.sock
        for path, status in (("/metrics", 200), ("/metrics/dcgm", 200), ("/nothing", 404), ("/metrics", 200)):
            c.request("GET", path, headers={"Accept-Encoding": "gzip"})
            r = c.getresponse()
            r.read()
            assert r.status == status and r.getheader("Connection") != "close", (path, r.status, r.getheaders())
            assert c.sock is sock, f"the connection was closed after {path}"
        c.close()


def test_concurrent_scrapes():
    """50 clients scraping 200 times each (20 under valgrind): every answer
    complete, memory flat."""
    rounds = 20 if WRAPPED else 200
    with up_stack(interval_ms=100) as s:
        wait_up(s, 1)
        for _ in range(200):  # warm up allocator and pages
            s.scrape()
        before = s.rss_kib(s.exporter.pid)
        errors = []

        def client():
            try:
                for i in range(rounds):
                    text = s.scrape({"Accept-Encoding": "gzip"} if i % 2 else None)
                    if "jetson_fan_rpm" not in text or not text.rstrip().split("\n")[-1].startswith(
                            "jetson_sample_timestamp_seconds"):
                        errors.append("incomplete page")
            except Exception as e:
                errors.append(repr(e))

        start = time.monotonic()
        threads = [threading.Thread(target=client) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        after = s.rss_kib(s.exporter.pid)
        print(f"    {50 * rounds} scrapes by 50 clients in {elapsed:.1f} s; exporter RSS {before} -> {after} KiB")
        assert not errors, errors[:5]
        # Under valgrind and ASan their own tools check for leaks (at the
        # exit the harness checks), and their allocators keep memory.
        if not WRAPPED and not sanitized(EXPORTER):
            assert after - before < 8 * 1024, (before, after)
        assert s.exporter.poll() is None


def test_listen_option():
    s = Stack(JETSOND, EXPORTER)
    with s:
        s.start_daemon()
        port = s.port
        s.listener.close()  # free the port for --listen
        p = subprocess.Popen([EXPORTER, "--listen", f"127.0.0.1:{port}"], stderr=subprocess.PIPE)
        try:
            wait_for(lambda: s.try_get("/metrics"), 10, "--listen")
            wait_for(lambda: "jetson_up 1" in s.scrape(), 10, "jetson_up 1")
        finally:
            p.terminate()
            assert p.wait(10) == 0
        for bad, message in (("nonsense", "is not ADDR:PORT"), ("127.0.0.1:0", "port must be"),
                             ("127.0.0.1:70000", "port must be"), ("[::1:9", "[ADDR]:PORT")):
            r = subprocess.run([EXPORTER, "--listen", bad], capture_output=True, text=True, timeout=10)
            assert r.returncode == 1 and message in r.stderr, (bad, r.returncode, r.stderr)
        r = subprocess.run([EXPORTER, "--bogus"], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and "bogus" in r.stderr
        r = subprocess.run([EXPORTER, "--version"], capture_output=True, text=True, timeout=10)
        assert r.returncode == 0 and r.stdout.startswith("jetsond-exporter ")


def test_bus_lost():
    """The bus going away ends the exporter with status 1 (systemd restarts
    it), not a zombie answering jetson_up 0 forever."""
    with up_stack() as s:
        wait_up(s, 1)
        os.kill(s.bus_pid, signal.SIGTERM)
        assert s.exporter.wait(timeout=10) == 1
        assert "lost the connection to the bus" in s.exporter_log()


def test_not_a_jetson():
    """A PC: what Linux offers, no nvpmodel families, still valid text."""
    with up_stack(board="x86-pc") as s:
        wait_up(s, 1)
        text = s.scrape()
        promtool(text)
        m = parse_samples(text)
        assert not any(n.startswith("jetson_nvpmodel") for n, _ in m)
        assert value(m, "jetson_up") == 1
        assert any(n == "jetson_cpu_frequency_hertz" for n, _ in m)
        # RAPL zones as rails (static counters: 0 W), no board total.
        assert value(m, "jetson_rail_power_watts", rail="RAPL_PACKAGE_0") == 0
        assert value(m, "jetson_rail_energy_joules_total", rail="RAPL_PACKAGE_0_DRAM") == 0
        assert not any(n.startswith("jetson_board_") for n, _ in m)
        assert value(m, "jetson_temperature_celsius", zone="coretemp_package_id_0") == 51


def simulate_once(s, *extra):
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                                     "simulate.py"), s.root, "--duration-s", "0", *extra], check=True)


def throttle_counters(board):
    """Issue 39: jetson_throttle_oc_events_total rises by exactly the events the
    simulator raises, per channel, also across a counter that goes back (a
    driver reload: its new value is counted, never a wrapped difference) and
    one that reads garbage (nothing counted, the state says so); the cap and
    the reasons are gauges."""
    with up_stack(board=board, interval_ms=100) as s:
        wait_up(s, 1)

        def metrics():
            return parse_samples(s.scrape())

        def events(m, ch):
            return value(m, "jetson_throttle_oc_events_total", channel=ch)


        m = metrics()
        assert events(m, "1") == 0 and events(m, "2") == 0 and events(m, "3") == 0
        assert value(m, "jetson_throttle_oc_armed", channel="2") == 1
        assert value(m, "jetson_throttled") == 0
        simulate_once(s, "--oc-events", "2=3", "--cap", "gpu-throttle-alert=1")
        wait_for(lambda: events(metrics(), "2") == 3, 30, "3 events on channel 2")
        simulate_once(s, "--oc-events", "1=2")
        wait_for(lambda: events(metrics(), "1") == 2, 30, "2 events on channel 1")
        m = metrics()
        assert events(m, "2") == 3 and events(m, "3") == 0
        assert value(m, "jetson_throttle_oc_boot_events", channel="2") == 3
        assert value(m, "jetson_throttle_cap_state", device="gpu-throttle-alert") == 1
        assert value(m, "jetson_throttle_active", reason="thermal_gpu") == 1
        assert value(m, "jetson_throttle_active", reason="thermal_cpu") == 0
        assert value(m, "jetson_throttled") == 1
        # Bad input: garbage counts nothing; back to 1 (below 3) counts 1.
        simulate_once(s, "--oc-counter", "2=garbage")
        wait_for(lambda: value(metrics(), "jetson_throttle_oc_failed_reads_total", channel="2") >= 1, 30,
                 "channel 2 unreadable")
        assert events(metrics(), "2") == 3
        simulate_once(s, "--oc-counter", "2=1")
        wait_for(lambda: value(metrics(), "jetson_throttle_oc_resets_total", channel="2") == 1, 30,
                 "channel 2 went back")
        assert events(metrics(), "2") == 4
        simulate_once(s, "--cap", "gpu-throttle-alert=0")
        wait_for(lambda: value(metrics(), "jetson_throttled") == 0, 30, "no longer throttled")
        promtool(s.scrape())


def test_throttle_counters_orin():
    throttle_counters("agx-orin-jp62")


def test_throttle_counters_thor():
    throttle_counters("agx-thor-jp71")


def test_signals_and_sigterm():
    with up_stack() as s:
        wait_up(s, 1)
        s.exporter.send_signal(signal.SIGTERM)
        assert s.exporter.wait(timeout=10) == 0


if __name__ == "__main__":
    sys.exit(run_tests([
        test_fixture_values, test_unprivileged, test_openmetrics, test_gzip, test_jetsond_leaves_and_returns, test_exporter_first,
        test_stalled_jetsond, test_http_surface, test_concurrent_scrapes, test_listen_option, test_bus_lost,
        test_not_a_jetson, test_throttle_counters_orin, test_throttle_counters_thor, test_signals_and_sigterm,
    ]))
