#!/usr/bin/python3
"""Cockpit and a headless Chromium on a test's private system bus.

cockpit-ws from Debian serves the page from the source tree (cockpit/, put
on XDG_DATA_DIRS as the package "jetsond") with --local-session, so no
login is needed: each page load starts a cockpit-bridge as this user on the
system bus that DBUS_SYSTEM_BUS_ADDRESS names, loopback only, on a free
port. Chromium from Debian (chromium, chromium-driver) drives the page with
python3-selenium. Everything started is stopped by PID: cockpit-ws, and
the bridge, ssh-agent and session dbus-daemon that each page load starts
(found by a marker in their environment, which they inherit).

With ROOT (a tests/lib/debian13.Overlay), cockpit-ws and everything it
starts run in that Debian 13 root instead, from a copy of the page put in
the root, on the system bus whose address is given as the root sees it;
Chromium stays on this machine and reaches cockpit-ws on loopback.

As a program, against a bus and jetsond already running (the main job):

    DBUS_SYSTEM_BUS_ADDRESS=unix:path=... \\
        /usr/bin/python3 tests/cockpit/cockpit_session.py --screenshot OUT.png \
            [--width 1280 --height 800] [--shell | --full-page]

waits until the page shows the board with some samples in its charts, and
saves a screenshot: of the page alone, or (--shell) inside Cockpit's shell
with its menu, as a user sees it.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import harness  # noqa: E402

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGE_DIR = os.path.join(SOURCE_DIR, "cockpit")
COCKPIT_WS = "/usr/lib/cockpit/cockpit-ws"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# No deadline is shorter: a busy machine is late by seconds, a stall never answers.
DEADLINE_S = 30


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def poll(predicate, what, timeout=DEADLINE_S):
    """PREDICATE's first true value, polled until TIMEOUT seconds (a stall)."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # the page is between two states
            last_error = e
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}" +
                         (f" (last error: {last_error})" if last_error else ""))


class CockpitSession:
    def __init__(self, bus_address=None, page_dir=PAGE_DIR, root=None):
        self.bus_address = bus_address or os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
        self.root = root
        self.dir = tempfile.mkdtemp(prefix="jetsond-cockpit-test.", dir=root.host("/tmp") if root else None)
        os.chmod(self.dir, 0o755)
        # The session's directory as cockpit-ws sees it.
        seen = root.inside(self.dir) if root else self.dir
        self.marker = f"JETSOND_COCKPIT_TEST={seen}"
        share = os.path.join(self.dir, "share", "cockpit")
        os.makedirs(share)
        if root:
            shutil.copytree(page_dir, os.path.join(share, "jetsond"))
        else:
            os.symlink(page_dir, os.path.join(share, "jetsond"))
        os.makedirs(os.path.join(self.dir, "home"))
        os.makedirs(os.path.join(self.dir, "runtime"), mode=0o700)
        self.env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": os.path.join(seen, "home"),
            "XDG_RUNTIME_DIR": os.path.join(seen, "runtime"),
            "XDG_DATA_DIRS": os.path.join(seen, "share") + ":/usr/share",
            "XDG_CONFIG_DIRS": os.path.join(seen, "etc"),
            "DBUS_SYSTEM_BUS_ADDRESS": self.bus_address,
            "LANG": "C.UTF-8",
            "JETSOND_COCKPIT_TEST": seen,
        }
        self.ws = None
        self.drivers = []
        self.port = None

    # ---- cockpit-ws ----------------------------------------------------------
    def start(self):
        for _ in range(5):
            self.port = free_port()
            self.ws_log = open(os.path.join(self.dir, "cockpit-ws.log"), "ab")
            argv = [COCKPIT_WS, "--local-session=cockpit-bridge", "--no-tls",
                    "--port", str(self.port), "--address", "127.0.0.1"]
            self.ws = subprocess.Popen(self.root.command(argv, self.env) if self.root else argv,
                                       env=None if self.root else self.env,
                                       stdout=self.ws_log, stderr=subprocess.STDOUT)
            try:
                poll(lambda: self.ws.poll() is not None or self._answers(), "cockpit-ws")
            except AssertionError:
                self.close()
                raise
            if self.ws.poll() is None:
                return self
            # The port was taken between free_port() and cockpit-ws: another one.
        raise AssertionError("cockpit-ws did not start:\n" + self.log())

    def _answers(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/cockpit/static/login.html", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    @property
    def url(self):
        """The page alone (what the shell puts in its frame)."""
        return f"http://127.0.0.1:{self.port}/cockpit/@localhost/jetsond/index.html"

    @property
    def shell_url(self):
        """The page in Cockpit's shell: menu on the left, the page in a frame."""
        return f"http://127.0.0.1:{self.port}/jetsond"

    def log(self):
        path = os.path.join(self.dir, "cockpit-ws.log")
        return open(path, errors="replace").read() if os.path.exists(path) else ""

    # ---- Chromium ------------------------------------------------------------
    def browser(self, width=1280, height=800, shell=False):
        """A headless Chromium (selenium WebDriver) with the page open, its
        console log kept; closed by close(). With SHELL, the page is opened
        in Cockpit's shell and the driver is switched into the page's frame
        (driver.switch_to.default_content() goes back to the shell)."""
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    f"--window-size={width},{height}", f"--user-data-dir={tempfile.mkdtemp(dir=self.dir)}",
                    "--lang=en-US"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(CHROMEDRIVER, log_path=os.path.join(self.dir, "chromedriver.log"))
        driver = webdriver.Chrome(service=service, options=options)
        self.drivers.append(driver)
        self.set_size(driver, width, height)
        if not shell:
            driver.get(self.url)
            return driver
        driver.get(self.shell_url)
        poll(lambda: self.enter_page_frame(driver), "the page's frame in the shell")
        return driver

    @staticmethod
    def enter_page_frame(driver):
        """Switches DRIVER into the shell's frame of the page, if there is one."""
        driver.switch_to.default_content()
        frames = driver.find_elements("css selector", "iframe[name='cockpit1:localhost/jetsond']")
        if not frames:
            return False
        driver.switch_to.frame(frames[0])
        return True

    @staticmethod
    def set_size(driver, width, height):
        """The viewport at WIDTH x HEIGHT CSS pixels: headless Chromium keeps
        windows at least 500 px wide, so a phone's width is emulated."""
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    @staticmethod
    def state(driver):
        return driver.execute_script("return document.body ? document.body.dataset.state : null")

    @staticmethod
    def wait_ready(driver, samples=1):
        """The page shows the board and has received SAMPLES samples."""
        poll(lambda: driver.execute_script(
            "return document.body.dataset.state === 'ready' && Number(document.body.dataset.samples || 0) >= arguments[0]",
            samples), f"the page ready with {samples} samples")

    @staticmethod
    def screenshot(driver, path, full_page=False):
        """The viewport (with FULL_PAGE, the whole page's height) as a PNG
        at PATH; the viewport's size is kept."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if not full_page:
            driver.save_screenshot(path)
            return path
        width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        full = driver.execute_script("return document.documentElement.scrollHeight")
        CockpitSession.set_size(driver, width, max(full, 1))
        driver.save_screenshot(path)
        CockpitSession.set_size(driver, width, height)
        return path

    # ---- the end -------------------------------------------------------------
    def session_pids(self):
        """What cockpit-ws started (bridges, ssh-agent, session buses): every
        process whose environment holds this session's marker."""
        pids = []
        marker = self.marker.encode()
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        pids.append(int(name))
            except OSError:
                continue
        return pids

    def close(self):
        for driver in self.drivers:
            try:
                driver.quit()
            except Exception:
                pass
        self.drivers = []
        if self.ws and self.ws.poll() is None:
            self.ws.send_signal(signal.SIGTERM)
            try:
                self.ws.wait(timeout=DEADLINE_S)
            except subprocess.TimeoutExpired:
                self.ws.kill()
                self.ws.wait()
        harness.end_processes(self.session_pids)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if exc[0] is not None:
            sys.stderr.write("---- cockpit-ws.log\n" + self.log())
        self.close()


def main():
    parser = argparse.ArgumentParser(description="Screenshot of jetsond's Cockpit page on the bus of "
                                                 "DBUS_SYSTEM_BUS_ADDRESS (jetsond already running).")
    parser.add_argument("--screenshot", required=True, metavar="OUT.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--samples", type=int, default=5, help="samples to wait for before the shot (default 5)")
    parser.add_argument("--full-page", action="store_true", help="the whole page, not only the first screen")
    parser.add_argument("--shell", action="store_true",
                        help="the page inside Cockpit's shell (menu and frame), as a user sees it")
    args = parser.parse_args()
    if "DBUS_SYSTEM_BUS_ADDRESS" not in os.environ:
        parser.error("DBUS_SYSTEM_BUS_ADDRESS must name the bus jetsond is on")
    with CockpitSession() as session:
        driver = session.browser(args.width, args.height, shell=args.shell)
        session.wait_ready(driver, args.samples)
        session.screenshot(driver, args.screenshot, full_page=args.full_page and not args.shell)
    print(f"cockpit_session: page screenshot in {args.screenshot}")


if __name__ == "__main__":
    main()
