"""The Python tests' stack (exporter, jetsonctl top and completion, the
GNOME Shell extension): a private system bus with the project's policy,
a copy of a fake board (optionally brought to life by the simulator),
python-dbusmock's polkitd, systemd and logind when asked, jetsond serving
the board and, for the exporter tests, jetsond-exporter serving HTTP on a
socket this harness passes to it as systemd would (LISTEN_FDS), so no
port is ever guessed. Everything started is stopped by PID."""

import gzip
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "fixtures", "gen"))


# No deadline is shorter than this: a busy machine is late by
# milliseconds or seconds, a stall never answers.
MIN_DEADLINE_S = 30


def assert_period(gaps, period, what, percent=20):
    """Fails unless the intervals GAPS (jetsond's own timestamps) say it kept
    PERIOD: their median, or, where it missed more than half the ticks (a
    machine so busy its thread did not run in time), the median of the
    single-tick intervals (under 1.5 periods), at least a tenth of them. A
    missed tick only lengthens an interval to about a multiple of the
    period, so a wrong period still fails (tests/integration/spacing.c
    does the same in C)."""
    gaps = sorted(gaps)
    assert gaps, "%s: no interval" % what
    slack = period * percent / 100
    median = gaps[len(gaps) // 2]
    if abs(median - period) <= slack:
        return
    single = [g for g in gaps if g < 1.5 * period]
    figures = "%s: median interval %.6g over %d (ticks missed), %d single-tick intervals%s" % (
        what, median, len(gaps), len(single), ", median %.6g" % single[len(single) // 2] if single else "")
    print("figure: " + figures)
    assert len(single) >= max(5, len(gaps) / 10) and abs(single[len(single) // 2] - period) <= slack, \
        "%s; want %.6g ± %d %%" % (figures, period, percent)


def end_processes(list_pids, wait_s=10):
    """TERM, then KILL, the processes LIST_PIDS() returns, waiting up to
    WAIT_S after each signal for LIST_PIDS() to leave them out (a zombie
    should not be listed: its /proc entries read empty)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = list_pids()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while list_pids() and time.monotonic() < deadline:
            time.sleep(0.05)


def wait_for(predicate, timeout, what):
    """Polls PREDICATE until it returns something true, and returns that.
    TIMEOUT is how long an idle machine may take; the deadline is at least
    MIN_DEADLINE_S, so only a stall fails, and a wait past TIMEOUT prints
    its figure instead."""
    start = time.monotonic()
    deadline = start + max(timeout, MIN_DEADLINE_S)
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            took = time.monotonic() - start
            if took > timeout:
                print(f"figure: waited {took:.2f} s for {what} (expected within {timeout} s on an idle machine)")
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {max(timeout, MIN_DEADLINE_S)} s waiting for {what}")


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def text(self):
        return self.body.decode("utf-8")


WRAPPED = bool(os.environ.get("EXPORTER_TEST_WRAPPER"))


def sanitized(path):
    """Built with AddressSanitizer: its quarantine keeps freed memory (RSS
    grows by design) and LeakSanitizer checks for leaks at exit instead."""
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


class Stack:
    def __init__(self, jetsond, exporter, board="agx-orin-jp62", simulate=False, interval_ms=None,
                 extra_policy=""):
        self.jetsond_path, self.exporter_path = jetsond, exporter
        self.dir = tempfile.mkdtemp(prefix="jetsond-exporter-test.")
        os.chmod(self.dir, 0o755)
        self.procs = []
        self.daemon = self.exporter = None
        self.interval_ms = interval_ms
        conf = open(os.path.join(SOURCE_DIR, "tests/integration/system-bus.conf.in")).read()
        conf = conf.replace("@BUSDIR@", self.dir).replace("@SRCDIR@", SOURCE_DIR).replace("@EXTRA@", extra_policy)
        with open(os.path.join(self.dir, "bus.conf"), "w") as f:
            f.write(conf)
        out = subprocess.run(["dbus-daemon", "--config-file=" + os.path.join(self.dir, "bus.conf"),
                              "--fork", "--print-address=1", "--print-pid=1"],
                             check=True, capture_output=True, text=True).stdout.split("\n")
        self.address, self.bus_pid = out[0], int(out[1])
        # This process's clients find the bus there until close() puts
        # back what was there before (another stack's, or nothing).
        self.outer_address = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        self.root = os.path.join(self.dir, "root")
        subprocess.run(["sh", os.path.join(SOURCE_DIR, "tests/fixtures/make-sysroot.sh"), board, self.root],
                       check=True, stdout=subprocess.DEVNULL)
        if simulate:
            self.procs.append(subprocess.Popen(
                [sys.executable, os.path.join(SOURCE_DIR, "tests/fixtures/simulate.py"), self.root,
                 "--period-ms", "100"]))
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]

    # ---- processes ---------------------------------------------------
    def start_daemon(self, extra=()):
        args = [self.jetsond_path, "--sysroot", self.root, "--system", *extra]
        if self.interval_ms:
            args += ["--interval", str(self.interval_ms)]
        self.daemon_log = open(os.path.join(self.dir, "jetsond.log"), "ab")
        self.daemon = subprocess.Popen(args, stderr=self.daemon_log)
        wait_for(self.name_owned, 30, "jetsond on the bus")

    # ---- python-dbusmock's polkitd and systemd ---------------------------
    def start_mock(self, template, bus_name):
        """A python-dbusmock TEMPLATE on the private system bus, owning
        BUS_NAME (the bus policy lets root own polkit's, systemd's and
        logind's names); stopped by close()."""
        self.procs.append(subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: subprocess.run(["busctl", "--system", "status", bus_name],
                                        capture_output=True).returncode == 0, 30, bus_name)

    def start_systemd_with_nvfancontrol(self):
        """dbusmock's systemd with nvfancontrol.service running, as a fan
        profile change needs it, and the unit-file calls of SetOnBoot."""
        self.start_mock("systemd", "org.freedesktop.systemd1")
        for method, *args in (("org.freedesktop.DBus.Mock.AddMockUnit", "nvfancontrol.service"),
                              ("org.freedesktop.DBus.Mock.AddMethod", "org.freedesktop.systemd1.Manager",
                               "Subscribe", "", "", ""),
                              # JetsonClocks.SetOnBoot enables or disables jetsond.service.
                              ("org.freedesktop.DBus.Mock.AddMethod", "org.freedesktop.systemd1.Manager",
                               "EnableUnitFiles", "asbb", "ba(sss)", "ret = (True, [])"),
                              ("org.freedesktop.DBus.Mock.AddMethod", "org.freedesktop.systemd1.Manager",
                               "DisableUnitFiles", "asb", "a(sss)", "ret = []"),
                              ("org.freedesktop.DBus.Mock.AddMethod", "org.freedesktop.systemd1.Manager",
                               "Reload", "", "", ""),
                              ("org.freedesktop.systemd1.Manager.StartUnit", "nvfancontrol.service", "replace")):
            subprocess.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.systemd1", "--object-path",
                            "/org/freedesktop/systemd1", "--method", method, *args],
                           check=True, stdout=subprocess.DEVNULL)

    @staticmethod
    def polkit_allow(actions):
        """dbusmock's polkitd allows ACTIONS from now on (and denies the rest)."""
        subprocess.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.PolicyKit1", "--object-path",
                        "/org/freedesktop/PolicyKit1/Authority", "--method", "org.freedesktop.DBus.Mock.SetAllowed",
                        str(list(actions))], check=True, stdout=subprocess.DEVNULL)

    def name_owned(self):
        r = subprocess.run(["busctl", "--system", "status", "org.jetsond.Jetson1"], capture_output=True)
        return r.returncode == 0

    def stop_daemon(self):
        self.daemon.send_signal(signal.SIGTERM)
        status = self.daemon.wait(timeout=30)
        self.daemon = None
        return status

    def start_exporter(self, extra=(), socket_activated=True, uid=None):
        """The exporter, taking the harness's socket as systemd passes it;
        as user UID (and its group) if given, as DynamicUser= runs it."""
        listener = self.listener

        def pass_socket():
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            if listener.fileno() == 3:  # dup2(3, 3) would leave it close-on-exec
                os.set_inheritable(3, True)
            else:
                os.dup2(listener.fileno(), 3)
            os.environ["LISTEN_FDS"] = "1"
            os.environ["LISTEN_PID"] = str(os.getpid())

        self.exporter_log_path = os.path.join(self.dir, "exporter.log")
        # run-tests.sh runs it under valgrind this way.
        wrapper = os.environ.get("EXPORTER_TEST_WRAPPER", "").split()
        self.exporter = subprocess.Popen([*wrapper, self.exporter_path, *extra],
                                         stderr=open(self.exporter_log_path, "ab"),
                                         preexec_fn=pass_socket if socket_activated else None,
                                         # Python's own descriptors are close-on-exec:
                                         # only the dup2'd fd 3 is inherited.
                                         close_fds=False)
        wait_for(lambda: self.try_get("/") is not None, 30, "the exporter's HTTP server")

    def exporter_log(self):
        return open(self.exporter_log_path).read()

    def rss_kib(self, pid):
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def close(self):
        """Stops everything; returns the exporter's exit status if it was
        still running (SIGTERM must end it with 0, also under valgrind)."""
        status = None
        for p in [self.exporter, self.daemon, *self.procs]:
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    code = p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    code = p.wait()
                if p is self.exporter:
                    status = code
        try:
            os.kill(self.bus_pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.listener.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.outer_address is None:
            os.environ.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.outer_address
        return status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        logs = ""
        for log in ("exporter.log", "jetsond.log"):
            path = os.path.join(self.dir, log)
            if os.path.exists(path):
                logs += f"---- {log}\n" + open(path, errors="replace").read()
        if exc[0] is not None:
            sys.stderr.write(logs)
        status = self.close()
        if exc[0] is None and status not in (None, 0):
            raise AssertionError(f"the exporter ended with status {status} on SIGTERM\n{logs}")

    # ---- HTTP ----------------------------------------------------------
    def request(self, path, method="GET", headers=None, port=None, host="127.0.0.1", body=None):
        c = http.client.HTTPConnection(host, port or self.port, timeout=30)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, body)

    def try_get(self, path):
        try:
            return self.request(path)
        except OSError:
            return None

    def scrape(self, headers=None):
        r = self.request("/metrics", headers=headers)
        assert r.status == 200, r.status
        body = r.body
        if r.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        return body.decode("utf-8")


# ---- the text formats ----------------------------------------------------
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_labels(text):
    labels, pos = {}, 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        assert m, f"bad labels: {text!r}"
        labels[m.group(1)] = m.group(2).encode().decode("unicode_escape")
        pos = m.end()
    return labels


def parse_samples(text):
    """{(name, frozenset(labels)): float} of every sample line."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        key = (m.group(1), frozenset(parse_labels(m.group(3) or "").items()))
        assert key not in samples, f"duplicate sample {line!r}"
        samples[key] = float(m.group(4))
    return samples


def value(samples, metric, **labels):
    """The value of the sample METRIC whose labels include LABELS."""
    found = [v for (n, ls), v in samples.items() if n == metric and set(labels.items()) <= set(ls)]
    assert len(found) == 1, f"{metric}{labels}: {len(found)} samples"
    return found[0]


def run_tests(tests):
    """Runs each test function; exit status as meson expects."""
    failed = 0
    for t in tests:
        start = time.monotonic()
        try:
            t()
            print(f"ok   {t.__name__} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception as e:  # report every test, then fail
            import traceback
            traceback.print_exc()
            print(f"FAIL {t.__name__}: {e}", flush=True)
            failed += 1
    return 1 if failed else 0


def run_on(stack, functions):
    """run_tests() of FUNCTIONS, each called with STACK."""
    tests = []
    for f in functions:
        bound = (lambda f: lambda: f(stack))(f)
        bound.__name__ = f.__name__
        tests.append(bound)
    return run_tests(tests)
