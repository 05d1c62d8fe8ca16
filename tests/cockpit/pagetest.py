"""What the Cockpit page tests share (tests/cockpit/test-page.py): the bus
as the tests read it (busctl and gdbus, never the page's own way), and Page,
one stack (private bus, dbusmock's polkitd and systemd, jetsond on a copy
of a fake board) with Cockpit and a browser on jetsond's page."""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from harness import Stack  # noqa: E402
from cockpit_session import CockpitSession, poll  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

PATH = "/org/jetsond/Jetson1"
IFACE = "org.jetsond.Jetson1."


def step(text):
    print(f"-- {text}", flush=True)


# ---- the bus, as the test reads it (busctl, not the page's way) -------------
def busctl_json(*args):
    out = subprocess.run(["busctl", "--system", "--json=short", *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def snapshot():
    """GetSnapshot as (timestamp_usec, {key: value})."""
    reply = busctl_json("call", "org.jetsond.Jetson1", PATH, IFACE + "Metrics", "GetSnapshot")
    timestamp, values = reply["data"]
    return timestamp, {key: entry["data"] for key, entry in values.items()}


def prop(iface, name, path=PATH):
    return busctl_json("get-property", "org.jetsond.Jetson1", path, IFACE + iface, name)["data"]


def metrics_match_rules():
    """Every connection's match rules on the bus that name one of jetsond's
    Metrics signals (member=...), as the bus holds them (Debug.Stats, which
    STATS_POLICY lets the tests' root call)."""
    reply = busctl_json("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Debug.Stats",
                        "GetAllMatchRules")
    return [rule for rules in reply["data"][0].values() for rule in rules
            if IFACE + "Metrics" in rule and "member=" in rule]


class SignalMonitor:
    """Every signal jetsond broadcasts while it runs, as gdbus monitor (a
    passive listener: its match rule names no member and no arg0) prints
    them; started at once, read by result() after SECONDS."""

    def __init__(self, seconds):
        # Into a file, which never makes gdbus wait, and line-buffered:
        # timeout's TERM must not drop what gdbus printed.
        self.out = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(["stdbuf", "-oL", "timeout", str(seconds), "gdbus", "monitor", "--system",
                                      "--dest", "org.jetsond.Jetson1", "--object-path", PATH],
                                     stdout=self.out, stderr=subprocess.DEVNULL, text=True)

    def result(self):
        """{"Sample": [timestamp, ...], "SampleAt PERIOD": [timestamp, ...]}."""
        self.proc.wait()
        self.out.seek(0)
        out = self.out.read()
        self.out.close()
        seen = {}
        for m in re.finditer(r"\.Metrics\.(Sample) \(uint64 (\d+),|\.Metrics\.(SampleAt) \('(\d+)', uint64 (\d+),", out):
            name = m.group(1) or f"SampleAt {m.group(4)}"
            seen.setdefault(name, []).append(int(m.group(2) or m.group(5)))
        return seen


def polkit_checks():
    """(action, flags) of every CheckAuthorization dbusmock's polkitd got."""
    out = subprocess.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.PolicyKit1", "--object-path",
                          "/org/freedesktop/PolicyKit1/Authority", "--method", "org.freedesktop.DBus.Mock.GetCalls"],
                         check=True, capture_output=True, text=True).stdout
    return [(m.group(1), int(m.group(2))) for m in
            re.finditer(r"'CheckAuthorization', \[.*?<'([^']+)'>, <@a\{ss\} [^>]*>, <uint32 (\d+)>", out)]


# Lets the tests (root) read every connection's match rules.
STATS_POLICY = """<policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>"""


class Page:
    """The stack, Cockpit and one browser on the page. The test program
    sets JETSOND (the daemon to run) and ARTIFACTS (where screenshots go),
    and ROOT (a tests/lib/debian13.Overlay) for Cockpit in a Debian 13 root;
    the stack's directory is then in that root (tempfile.tempdir)."""

    JETSOND = None
    ARTIFACTS = None
    ROOT = None

    def __init__(self, board, simulate=False, polkit=True, systemd=False, daemon_args=(), width=1280, height=800,
                 shell=False):
        self.stack = Stack(self.JETSOND, None, board=board, simulate=simulate, extra_policy=STATS_POLICY)
        self.cockpit = None
        try:
            if polkit:
                self.stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
            if systemd:
                self.stack.start_systemd_with_nvfancontrol()
            self.stack.start_daemon(extra=daemon_args)
            if self.ROOT:
                # The bus's socket is in the root: its address as seen there.
                address = self.stack.address.replace(self.ROOT.path, "", 1)
                self.cockpit = CockpitSession(address, root=self.ROOT).start()
            else:
                self.cockpit = CockpitSession(self.stack.address).start()
            self.d = self.cockpit.browser(width, height, shell=shell)
        except BaseException:
            self.close()
            raise

    def close(self, failed=False):
        if self.cockpit:
            if failed:
                sys.stderr.write("---- cockpit-ws.log\n" + self.cockpit.log())
                for driver in self.cockpit.drivers:
                    for entry in driver.get_log("browser"):
                        sys.stderr.write(f"console: {entry}\n")
            self.cockpit.close()
        if failed:
            log = os.path.join(self.stack.dir, "jetsond.log")
            if os.path.exists(log):
                sys.stderr.write("---- jetsond.log\n" + open(log, errors="replace").read())
        self.stack.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        failed = exc[0] is not None
        try:
            if not failed:
                self.assert_clean_console()
        except BaseException:
            failed = True
            raise
        finally:
            self.close(failed=failed)

    # ---- the page ------------------------------------------------------------
    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def by_id(self, element_id):
        return self.d.find_element(By.ID, element_id)

    def ready(self, samples=1):
        self.cockpit.wait_ready(self.d, samples)

    def wait(self, script, what, *args):
        """Polls SCRIPT (JavaScript returning a value) until it is truthy."""
        return poll(lambda: self.js(script, *args), what)

    def samples(self):
        return int(self.js("return Number(document.body.dataset.samples || 0)"))

    def text(self, element_id):
        return self.js("const e = document.getElementById(arguments[0]); return e ? e.textContent : null",
                       element_id)

    def data(self, element_id, name):
        return self.js("const e = document.getElementById(arguments[0]); return e ? e.dataset[arguments[1]] : null",
                       element_id, name)

    def visible(self, element_id):
        """Shown: in the document and not inside anything hidden."""
        return self.js("const e = document.getElementById(arguments[0]);"
                       "return e !== null && e.offsetParent !== null", element_id)

    def root_file(self, rel):
        with open(os.path.join(self.stack.root, rel)) as f:
            return f.read()

    def assert_clean_console(self):
        """No error in the browser's console (CSP, JavaScript, failed loads).
        A file of Cockpit's own packages that the distribution left out
        (Debian 13's Cockpit ships its shell without the Red Hat fonts) is
        Cockpit's matter, not the page's: printed, not failed."""
        severe = [e for e in self.d.get_log("browser") if e["level"] == "SEVERE"]
        theirs = [e for e in severe if e.get("source") == "network" and
                  re.search(r"/cockpit/@localhost/(?!jetsond/)[^/ ]+/\S+ - Failed to load resource", e["message"])]
        for e in theirs:
            print(f"note: Cockpit's own file missing: {e['message']}", flush=True)
        severe = [e for e in severe if e not in theirs]
        assert not severe, f"errors in the browser console: {severe}"

    def shoot(self, name, full_page=False):
        path = os.path.join(self.ARTIFACTS, name)
        CockpitSession.screenshot(self.d, path, full_page)
        step(f"screenshot {path}")
        return path


# ---- the tests -----------------------------------------------------------
