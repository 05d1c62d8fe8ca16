#!/usr/bin/python3
"""One user cannot cost the others: for FLOOD_SECONDS (60) the user
"nobody" opens bus connections as fast as one process can, each asking
for Subscribe(10 ms) or SubscribeValues(10 ms) and a 1 ms capture, and
closes the oldest of the eight it holds (tests/integration/flood.c). Meanwhile
another user's exporter ("daemon"), a passive Sample listener, a subscriber at
100 ms and a 10 ms capture (root) run. They keep their rates, judged by
jetsond's own timestamps; new requests of "daemon" and of root are never
refused; jetsond's
CPU and memory are printed and bounded; and once the flood ends nothing is
left behind: the Interval is the default again, and jetsond's descriptors,
match rules on the bus (the names it follows) and RSS are back where they
were.

Usage: test-flood.py JETSOND EXPORTER FLOODER"""
import json
import os
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import harness  # noqa: E402
from jeepney import DBusAddress, MatchRule, message_bus, new_method_call  # noqa: E402
from jeepney.io.blocking import Proxy, open_dbus_connection  # noqa: E402

FLOOD_SECONDS = float(os.environ.get("JETSOND_FLOOD_SECONDS", "60"))
EXPORTER_UID = 1  # "daemon": another user than the flood's
METRICS = DBusAddress("/org/jetsond/Jetson1", bus_name="org.jetsond.Jetson1", interface="org.jetsond.Jetson1.Metrics")
DBUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
STATS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                    interface="org.freedesktop.DBus.Debug.Stats")


def call(conn, address, method, signature=None, body=()):
    reply = conn.send_and_get_reply(new_method_call(address, method, signature, body), timeout=30)
    if reply.header.message_type.name == "error":
        raise RuntimeError("%s: %s" % (method, reply.body))
    return reply.body


class Stream(threading.Thread):
    """The timestamps of jetsond's MEMBER signals (of the stream at PERIOD_US
    for SampleAt), on a connection of its own that subscribes when asked."""

    def __init__(self, member, period_us=None):
        super().__init__(daemon=True)
        self.conn = open_dbus_connection(bus="SYSTEM")
        # The bus resolves the well-known sender; jeepney's own filter
        # compares header fields as they are (a unique name): no sender.
        local = MatchRule(type="signal", interface="org.jetsond.Jetson1.Metrics", member=member)
        rule = MatchRule(type="signal", sender="org.jetsond.Jetson1", interface="org.jetsond.Jetson1.Metrics",
                         member=member)
        if period_us:
            rule.add_arg_condition(0, str(period_us))
            local.add_arg_condition(0, str(period_us))
        Proxy(message_bus, self.conn).AddMatch(rule)
        self.queue_cm = self.conn.filter(local, bufsize=100000)
        self.queue = self.queue_cm.__enter__()
        if period_us:
            call(self.conn, METRICS, "Subscribe", "t", (period_us,))
        self.at = period_us is not None
        self.stamps = []
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                msg = self.conn.recv_until_filtered(self.queue, timeout=0.5)
            except TimeoutError:
                continue
            except OSError:   # the bus went away at the end
                return
            self.stamps.append(msg.body[1] if self.at else msg.body[0])

    def gaps_between(self, start_us, end_us):
        stamps = [s for s in self.stamps if start_us <= s <= end_us]
        return [b - a for a, b in zip(stamps, stamps[1:])]


class CaptureReader(threading.Thread):
    def __init__(self, interval_s):
        super().__init__(daemon=True)
        from jetsond.capture import Capture
        self.capture = Capture(interval_s, ["ram.used"])
        self.times_ns = []
        self.dropped = 0
        self.stop = False

    def run(self):
        size = self.capture.header.record_size
        while not self.stop:
            try:
                data = self.capture.read(0.5)
            except OSError:   # closed at the end
                return
            if data is None:
                return
            for off in range(0, len(data), size):
                t, dropped = struct.unpack_from("=QQ", data, off)
                self.times_ns.append(t)
                self.dropped += dropped


def jetsond_state(stack, conn):
    pid = stack.daemon.pid
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    owner = call(conn, DBUS, "GetNameOwner", "s", ("org.jetsond.Jetson1",))[0]
    stats = dict(call(conn, STATS, "GetConnectionStats", "s", (owner,))[0])
    return {
        "cpu_s": ticks / os.sysconf("SC_CLK_TCK"),
        "rss_kib": stack.rss_kib(pid),
        "fds": len(os.listdir("/proc/%d/fd" % pid)),
        "match_rules": stats["MatchRules"][1],
    }


def test_flood(stack):
    flooder = sys.argv[3]
    root = open_dbus_connection(bus="SYSTEM")
    passive = Stream("Sample")
    fast = Stream("SampleAt", 100000)
    capture = CaptureReader(0.01)
    for t in (passive, fast, capture):
        t.start()
    stack.start_exporter(uid=EXPORTER_UID)
    time.sleep(3)  # every stream settled
    before = jetsond_state(stack, root)
    start_wall = time.time()
    start_mono = time.monotonic()
    proc = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", flooder,
                             str(FLOOD_SECONDS)], stdout=subprocess.PIPE, text=True)
    scrapes, worst_age, peak_rss, peak_fds, refused, probes = 0, 0.0, 0, 0, [], 0
    while proc.poll() is None:
        time.sleep(2)
        # The exporter's own Sample stays fresh.
        text = stack.scrape()
        ts = harness.value(harness.parse_samples(text), "jetson_sample_timestamp_seconds")
        worst_age = max(worst_age, time.time() - ts)
        scrapes += 1
        # Another unprivileged user's request is never refused, whatever
        # nobody holds: one Subscribe(10 ms) and one 1 ms capture as
        # "daemon".
        other = json.loads(subprocess.run(["setpriv", "--reuid=daemon", "--regid=daemon", "--clear-groups", flooder,
                                           "30", "1", "1"], check=True, capture_output=True, text=True).stdout)
        probes += 1
        if other["subscribe"]["ok"] != 1 or other["capture"]["ok"] != 1:
            refused.append(("daemon", other))
        # Nor root's.
        conn = open_dbus_connection(bus="SYSTEM", enable_fds=True)
        try:
            for method, sig, body in (("Subscribe", "t", (10000,)), ("OpenCapture", "tas", (1000, ["ram.*"]))):
                reply = conn.send_and_get_reply(new_method_call(METRICS, method, sig, body), timeout=30)
                if reply.header.message_type.name == "error":
                    refused.append((method, reply.body))
                elif method == "OpenCapture":
                    reply.body[0].close()
        finally:
            conn.close()
        st = jetsond_state(stack, root)
        peak_rss, peak_fds = max(peak_rss, st["rss_kib"]), max(peak_fds, st["fds"])
    flood_s = time.monotonic() - start_mono
    end_wall = time.time()
    counts = json.loads(proc.stdout.read())
    during = jetsond_state(stack, root)
    for t in (passive, fast, capture):
        t.stop = True
    print("figure: flood by nobody for %.0f s: %s" % (flood_s, json.dumps(counts)))
    print("figure: %.0f connections/s; jetsond's CPU %.1f %% of one core meanwhile; RSS %d KiB before, peak %d; "
          "fds %d before, peak %d; match rules %d before" % (
              counts["connections"] / flood_s, 100 * (during["cpu_s"] - before["cpu_s"]) / flood_s,
              before["rss_kib"], peak_rss, before["fds"], peak_fds, before["match_rules"]))
    assert counts["connections"] > 100, counts
    assert probes > 5 and not refused, (probes, refused)
    # Nobody got at most its share: Busy once it held its limit.
    assert counts["subscribe"]["busy"] + counts["subscribe_values"]["busy"] > 0, counts
    assert counts["subscribe"]["other"] == counts["subscribe_values"]["other"] == counts["capture"]["other"] == 0, \
        counts

    # The others kept their rates (jetsond's timestamps; the first and last
    # seconds of the flood left out).
    lo, hi = int((start_wall + 1) * 1e6), int((end_wall - 1) * 1e6)
    gaps = passive.gaps_between(lo, hi)
    print("figure: passive Sample: %d intervals, longest %.3f s" % (len(gaps), max(gaps) / 1e6))
    harness.assert_period(gaps, 1000000, "a passive Sample listener during the flood")
    assert max(gaps) < 2500000, "a passive listener went %.2f s without a Sample" % (max(gaps) / 1e6)
    gaps = fast.gaps_between(lo, hi)
    print("figure: SampleAt 100 ms: %d intervals, longest %.3f s" % (len(gaps), max(gaps) / 1e6))
    harness.assert_period(gaps, 100000, "a 100 ms subscriber during the flood")
    mono_lo, mono_hi = (start_mono + 1) * 1e9, (start_mono + flood_s - 1) * 1e9
    times = [t for t in capture.times_ns if mono_lo <= t <= mono_hi]
    cgaps = [b - a for a, b in zip(times, times[1:])]
    print("figure: 10 ms capture: %d records, %d dropped, longest gap %.1f ms" % (
        len(times), capture.dropped, max(cgaps) / 1e6))
    harness.assert_period(cgaps, 10000000, "a 10 ms capture during the flood")
    print("figure: exporter: %d scrapes, oldest sample %.2f s" % (scrapes, worst_age))
    assert worst_age < 3.5, "the exporter's sample was %.2f s old" % worst_age

    # Nothing left behind once nobody's connections are gone.
    props = DBusAddress("/org/jetsond/Jetson1", bus_name="org.jetsond.Jetson1",
                        interface="org.freedesktop.DBus.Properties")
    harness.wait_for(lambda: call(root, props, "Get", "ss", ("org.jetsond.Jetson1.Metrics", "Interval"))[0][1]
                     == 100000, 10, "the Interval of the remaining subscriber (100 ms)")
    for t in (passive, fast, capture):
        t.join()
    fast.conn.close()
    passive.conn.close()
    capture.capture.close()
    harness.wait_for(lambda: call(root, props, "Get", "ss", ("org.jetsond.Jetson1.Metrics", "Interval"))[0][1]
                     == 1000000, 10, "the default Interval")
    after = harness.wait_for(lambda: (lambda s: s if s["fds"] <= before["fds"] and
                                      s["match_rules"] <= before["match_rules"] else None)(jetsond_state(stack, root)),
                             10, "jetsond's descriptors and match rules back to where they were")
    print("figure: after the flood: fds %d, match rules %d, RSS %d KiB (%+d KiB)" % (
        after["fds"], after["match_rules"], after["rss_kib"], after["rss_kib"] - before["rss_kib"]))
    if not harness.sanitized(stack.jetsond_path):
        assert after["rss_kib"] - before["rss_kib"] < 4096, "RSS grew by %d KiB" % (after["rss_kib"] - before["rss_kib"])
        assert peak_rss - before["rss_kib"] < 16384, "RSS peaked %d KiB above" % (peak_rss - before["rss_kib"])
    root.close()


if __name__ == "__main__":
    # The bus's statistics (the match rules jetsond holds) for root.
    stats = ('<policy user="root"><allow send_destination="org.freedesktop.DBus" '
             'send_interface="org.freedesktop.DBus.Debug.Stats"/></policy>')
    with harness.Stack(sys.argv[1], sys.argv[2], extra_policy=stats) as stack:
        stack.start_daemon()
        sys.exit(harness.run_on(stack, [test_flood]))
