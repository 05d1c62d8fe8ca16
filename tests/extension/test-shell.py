#!/usr/bin/python3
"""The GNOME Shell extension in a real, headless GNOME Shell.

A private system bus with the project's policy, python-dbusmock's logind
(the shell needs it) and polkitd, jetsond on a simulated AGX Orin, and
gnome-shell --headless in a session bus of its own with the extension and
a test-only helper (unsafe-mode@tests.jetsond.org, which opens
org.gnome.Shell.Eval and the Screenshot API to this test) enabled.

    test-shell.py [--root CACHE_DIR] JETSOND EXTENSION_DIR ARTEFACT_DIR [--update-docs]

EXTENSION_DIR is a built extension (build/gnome-shell-extension/...); with
--root, its zip beside it (EXTENSION_DIR.shell-extension.zip) is installed
with gnome-extensions, as from extensions.gnome.org.
Without --root the shell is this machine's (GNOME Shell 43, Debian 12),
in dbus-run-session. With --root it is the one of a Debian 13 root
(GNOME Shell 48; tests/lib/debian13.py, made once in CACHE_DIR): the shell,
its session bus and what that bus starts run in an overlay of the root,
while the system bus (its socket inside the root), the mocks and jetsond
run here, as in the other mode.

Screenshots are written to ARTEFACT_DIR; --update-docs also copies the menu
screenshot to docs/extension-menu.png for the README.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)
import debian13  # noqa: E402  (the Debian 13 root)

UUID = "jetsond@jetsond.org"
HELPER = "unsafe-mode@tests.jetsond.org"
IND = f"Main.panel.statusArea['{UUID}']"
PYTHON = "/usr/bin/python3"  # Debian's, which has dbusmock and gi

ARGS = sys.argv[1:]
ROOT_CACHE = None
if ARGS[:1] == ["--root"]:
    ROOT_CACHE, ARGS = os.path.abspath(ARGS[1]), ARGS[2:]

if ROOT_CACHE is None and os.environ.get("JETSOND_EXTENSION_TEST_SESSION") != "1":
    # The shell and this test share a session bus of their own, and a
    # scratch home: services the bus starts (dconf) inherit it from here.
    os.environ["JETSOND_EXTENSION_TEST_SESSION"] = "1"
    home = tempfile.mkdtemp(prefix="jetsond-shell-test.")
    runtime = os.path.join(home, "runtime")
    os.makedirs(runtime, mode=0o700)
    os.environ.update(HOME=home, XDG_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                      XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local/share"))
    for variable in ("DISPLAY", "WAYLAND_DISPLAY"):
        os.environ.pop(variable, None)
    os.execvp("dbus-run-session", ["dbus-run-session", "--", PYTHON, *sys.argv])

import gi  # noqa: E402
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import GdkPixbuf, Gio, GLib  # noqa: E402

JETSOND, EXTENSION_DIR, ARTEFACTS = (os.path.abspath(a) for a in ARGS[0:3])
UPDATE_DOCS = "--update-docs" in ARGS[3:]

# The shell calls logind; this test reads the match rules the shell holds.
EXTRA_POLICY = """<policy user="root">
    <allow own="org.freedesktop.login1"/>
    <allow send_destination="org.freedesktop.login1"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>"""


def step(text):
    print(f"-- {text}", flush=True)


def js_round(x):
    """Math.round: halves go up (Python's round() goes to even)."""
    return math.floor(x + 0.5)


class HostSession:
    """The session on this machine, inside dbus-run-session (re-executed
    above): programs run here, paths are the same for both."""
    root = None

    def __init__(self):
        self.home = os.environ["HOME"]
        self.env = dict(os.environ)

    def command(self, argv):
        return argv

    def host(self, path):
        return path

    def close(self):
        shutil.rmtree(self.home, ignore_errors=True)


class RootSession:
    """The session in an overlay of the Debian 13 root: a session bus of its
    own started there (its socket in the root's runtime directory, which
    this test reaches through the overlay's path), and the environment the
    shell and every program run in the root get."""

    def __init__(self, root, system_bus_socket):
        self.root = root
        scratch = tempfile.mkdtemp(prefix="jetsond-shell48.", dir=root.host("/tmp"))
        os.chmod(scratch, 0o755)
        self.home = root.inside(scratch)
        runtime = os.path.join(scratch, "runtime")
        os.makedirs(runtime, mode=0o700)
        self.env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.home, "LANG": "C.UTF-8",
                    "XDG_RUNTIME_DIR": root.inside(runtime),
                    "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={root.inside(system_bus_socket)}",
                    "DBUS_SESSION_BUS_ADDRESS": f"unix:path={root.inside(runtime)}/bus"}
        out = subprocess.run(self.command(["dbus-daemon", "--session", "--fork", "--nosyslog", "--print-pid=1",
                                           f"--address={self.env['DBUS_SESSION_BUS_ADDRESS']}"]),
                             check=True, capture_output=True, text=True).stdout
        self.bus_pid = int(out.split()[0])
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={runtime}/bus"

    def command(self, argv):
        return self.root.command(argv, self.env)

    def host(self, path):
        return self.root.host(path)

    def close(self):
        try:
            os.kill(self.bus_pid, 15)
        except ProcessLookupError:
            pass


class Shell:
    def __init__(self, session, scratch):
        self.session = session
        self.home = session.home
        extensions = session.host(os.path.join(self.home, ".local/share/gnome-shell/extensions"))
        if ROOT_CACHE is None:
            shutil.copytree(EXTENSION_DIR, os.path.join(extensions, UUID))
        else:
            # As a user installs the zip from extensions.gnome.org: built
            # beside the directory, without a compiled schema, which
            # gnome-extensions compiles as it unpacks it.
            zip_inside = os.path.join(self.home, UUID + ".shell-extension.zip")
            shutil.copy(EXTENSION_DIR + ".shell-extension.zip", session.host(zip_inside))
            self.run(["gnome-extensions", "install", "--force", zip_inside])
            assert os.path.exists(os.path.join(extensions, UUID, "schemas", "gschemas.compiled")), \
                "gnome-extensions install did not compile the schema"
        helper = HELPER if ROOT_CACHE is None else os.path.join("esm", HELPER)
        shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), helper),
                        os.path.join(extensions, HELPER))
        for key, value in [("enabled-extensions", f"['{UUID}', '{HELPER}']"),
                           ("disable-user-extensions", "false"),
                           ("welcome-dialog-last-shown-version", "'999'")]:
            self.run(["gsettings", "set", "org.gnome.shell", key, value])
        self.log_path = os.path.join(scratch, "gnome-shell.log")
        self.proc = None

    def run(self, argv, **kwargs):
        """ARGV in the shell's session (in the root, with --root)."""
        return subprocess.run(self.session.command(argv), check=True, env=self.session.env, **kwargs)

    def start(self):
        self.proc = subprocess.Popen(
            self.session.command(["gnome-shell", "--headless", "--wayland", "--no-x11",
                                  "--virtual-monitor", "1024x768"]),
            env=self.session.env, stdout=subprocess.DEVNULL, stderr=open(self.log_path, "wb"))
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        harness.wait_for(lambda: self.proc.poll() is not None or self.shell_version(), 60, "gnome-shell")
        assert self.proc.poll() is None, "gnome-shell died:\n" + self.log()
        harness.wait_for(lambda: self.eval_ok("global.context.unsafe_mode"), 30,
                         "the helper extension's unsafe mode")
        self.major = int(self.shell_version().split(".")[0])
        print(f"   GNOME Shell {self.shell_version()}", flush=True)
        # What changed in the shell's own JavaScript between 43 and 48:
        # its modules became ES modules (not under imports.ui), and
        # notifications became GObjects with a body and Action objects.
        if self.major >= 45:
            self.dot = self.eval("(async () => (await import('resource:///org/gnome/shell/ui/popupMenu.js'))"
                                 ".Ornament.DOT)()")
            self.js = {"body": "n.body", "activate": "activate()",
                       "gc": "(async () => (await import('system')).default.gc())()"}
        else:
            self.dot = self.eval("imports.ui.popupMenu.Ornament.DOT")
            self.js = {"body": "n.bannerBodyText", "activate": "callback()", "gc": "imports.system.gc()"}

    def log(self):
        return open(self.log_path, errors="replace").read()

    def call(self, path, iface, method, args=None, reply=None):
        return self.bus.call_sync("org.gnome.Shell", path, iface, method, args,
                                  GLib.VariantType(reply) if reply else None, 0, 20000, None).unpack()

    def shell_version(self):
        try:
            return self.call("/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
                             GLib.Variant("(ss)", ("org.gnome.Shell", "ShellVersion")))[0]
        except GLib.Error:
            return None

    def eval_ok(self, code):
        try:
            return self.eval(code)
        except (AssertionError, GLib.Error):
            return None

    def eval(self, code):
        ok, result = self.call("/org/gnome/Shell", "org.gnome.Shell", "Eval", GLib.Variant("(s)", (code,)))
        assert ok, f"Eval failed: {result}\n{code}"
        return json.loads(result) if result else None

    def extension_info(self, uuid):
        return self.call("/org/gnome/Shell", "org.gnome.Shell.Extensions", "GetExtensionInfo",
                         GLib.Variant("(s)", (uuid,)))[0]

    def extension(self, method):
        self.call("/org/gnome/Shell", "org.gnome.Shell.Extensions", method, GLib.Variant("(s)", (UUID,)))

    def screenshot(self, box, name):
        """Saves the part of BOX on the 1024x768 screen as ARTEFACTS/NAME."""
        x, y, w, h = (int(v) for v in box)
        x, y = max(0, x), max(0, y)
        w, h = min(w, 1024 - x), min(h, 768 - y)
        inside = os.path.join(self.home, name)
        ok, used = self.call("/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot", "ScreenshotArea",
                             GLib.Variant("(iiiibs)", (x, y, w, h, False, inside)))
        assert ok, f"screenshot {name} failed"
        shutil.copy(self.session.host(inside), os.path.join(ARTEFACTS, name))
        return used

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def distinct_colours(path):
    pixbuf = GdkPixbuf.Pixbuf.new_from_file(path)
    data, n, stride = pixbuf.get_pixels(), pixbuf.get_n_channels(), pixbuf.get_rowstride()
    return len({bytes(data[y * stride + x * n: y * stride + x * n + 3])
                for y in range(pixbuf.get_height()) for x in range(pixbuf.get_width())})


# ---- jetsond's side, seen with busctl / gdbus ---------------------------------
def snapshot():
    out = subprocess.run(["gdbus", "call", "--system", "--dest", "org.jetsond.Jetson1", "--object-path",
                          "/org/jetsond/Jetson1", "--method", "org.jetsond.Jetson1.Metrics.GetSnapshot"],
                         capture_output=True, text=True, check=True).stdout
    return GLib.Variant.parse(GLib.VariantType("(ta{sv})"), out.strip(), None, None).unpack()[1]


def expected_label(values):
    """The top-bar line for a sample, written independently of format.js."""
    parts = []
    for label, key in (("GPU", "gpu.load"), ("CPU", "cpu.load")):
        if key in values:
            parts.append(f"{label} {js_round(values[key])}%")
    if "power.total" in values:
        parts.append(f"{values['power.total'] / 1000:.1f} W")
    temps = [v for k, v in values.items() if k.startswith("temp.")]
    if temps:
        parts.append(f"{js_round(max(temps))} °C")
    return "  ".join(parts)


def prop(path, iface, name):
    out = subprocess.run(["busctl", "--system", "--json=short", "get-property", "org.jetsond.Jetson1",
                          path, f"org.jetsond.Jetson1.{iface}", name], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["data"]


def jetsond_error(path, iface, method, args):
    """The human message of the D-Bus error jetsond answers METHOD with."""
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
    try:
        bus.call_sync("org.jetsond.Jetson1", path, f"org.jetsond.Jetson1.{iface}", method, args, None,
                      Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION, 20000, None)
    except GLib.Error as e:  # "GDBus.Error:NAME: message"
        assert e.message.startswith("GDBus.Error:"), e.message
        return e.message.split(": ", 1)[1]
    raise AssertionError(f"{method} succeeded")


def shell_match_rules(shell_pid):
    """The system-bus match rules held by the shell's connections."""
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
    rules = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Debug.Stats",
                          "GetAllMatchRules", None, None, 0, 5000, None).unpack()[0]
    mine = []
    for name, name_rules in rules.items():
        try:
            pid = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)), None, 0, 5000,
                                None).unpack()[0]
        except GLib.Error:
            continue
        if pid == shell_pid:
            mine += name_rules
    return mine


# The period the extension asks for on a jetsond at its default 1 s
# (Format.valuesInterval): ValuesAt signals carry it as their first
# argument, and its match rule names it (arg0).
EXTENSION_PERIOD = "1000000"


def monitor(seconds):
    """Every signal jetsond broadcast in SECONDS, as gdbus monitor prints
    them: its match rule names no arg0, so it sees every period's."""
    return subprocess.run(["timeout", str(seconds), "gdbus", "monitor", "--system", "--dest", "org.jetsond.Jetson1",
                           "--object-path", "/org/jetsond/Jetson1"], capture_output=True, text=True).stdout


def signals(out, member, period=None):
    """How many MEMBER signals (of PERIOD, their first argument) OUT has."""
    head = f"org.jetsond.Jetson1.Metrics.{member} ("
    return out.count(head + (f"'{period}'," if period is not None else ""))


def values_signals(seconds):
    """How many ValuesAt signals of the extension's period jetsond broadcast
    in SECONDS: it sends them only while a connection holds a
    SubscribeValues() request for that period."""
    return signals(monitor(seconds), "ValuesAt", EXTENSION_PERIOD)


# ---- the extension's side, through Eval ---------------------------------------
def label(shell):
    return shell.eval(f"{IND} ? {IND}._label.text : null")


def menu_items(shell):
    """The menu's items, [text, has the dot] where a choice."""
    return shell.eval(f"""(() => {{
    const ind = {IND};
    const texts = section => section._getMenuItems().filter(i => i.visible)
        .map(i => [i.label.text, i._ornament === {shell.dot}]);
    return {{
        status: ind._statusItem.label.text,
        details: texts(ind._detailsSection).map(([t]) => t),
        modesShown: ind._modesHeader.visible,
        modes: texts(ind._modesSection),
        clocksShown: ind._clocksItem.visible,
        clocksOn: ind._clocksItem.state,
        gpuShown: ind._gpuScalingItem.visible,
        gpuOn: ind._gpuScalingItem.state,
        fans: ind._fansSection._getMenuItems().map(i => [i.label.text,
            i.menu._getMenuItems().map(p => [p.label.text, p._ornament === {shell.dot}])]),
    }};
}})()""")


def notifications(shell):
    return shell.eval(f"""(() => {{
    const source = {IND}.notifier._source;
    return source ? source.notifications.map(n => ({{title: n.title, body: {shell.js['body']},
        actions: n.actions.map(a => a.label)}})) : [];
}})()""")


def wait_notification(shell, title):
    def find():
        found = [n for n in notifications(shell) if n["title"] == title]
        return found[-1] if found else None
    return harness.wait_for(find, 15, f"the notification {title!r}; have {notifications(shell)}")


def box_of(shell, actor):
    return shell.eval(f"""(() => {{ const a = {actor}; const [x, y] = a.get_transformed_position();
        const [w, h] = a.get_transformed_size(); return [x, y, w, h]; }})()""")


def main():
    os.makedirs(ARTEFACTS, exist_ok=True)
    root = stack = session = shell = None
    try:
        if ROOT_CACHE:
            root = debian13.Overlay(debian13.cached_root(ROOT_CACHE))
            # The stack's directory, and so the system bus's socket, inside
            # the root: the shell there reaches it at the same place.
            tempfile.tempdir = root.host("/tmp")
        stack = harness.Stack(JETSOND, None, board="agx-orin-jp62", simulate=True, extra_policy=EXTRA_POLICY)
        session = RootSession(root, os.path.join(stack.dir, "system_bus_socket")) if root else HostSession()
        stack.start_mock("logind", "org.freedesktop.login1")
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.start_systemd_with_nvfancontrol()
        stack.start_daemon()
        shell = Shell(session, stack.dir)
        shell.start()
        run(stack, shell)
        print(f"ok   the extension in a headless GNOME Shell {shell.shell_version()}", flush=True)
    except BaseException:
        if shell and shell.proc:
            sys.stderr.write("---- gnome-shell log\n" + shell.log())
        if stack:
            sys.stderr.write("---- jetsond log\n" + open(os.path.join(stack.dir, "jetsond.log"),
                                                          errors="replace").read())
        raise
    finally:
        if shell and shell.proc:
            shell.stop()
        if session:
            session.close()
        if stack:
            stack.close()
        if root:
            root.close()


def run(stack, shell):
    calls_log = os.path.join(stack.root, ".fake", "calls.log")

    def calls():
        return open(calls_log).read() if os.path.exists(calls_log) else ""

    step("both extensions are ENABLED with no error")
    for uuid in (UUID, HELPER):
        info = harness.wait_for(lambda: shell.extension_info(uuid).get("state") in (1.0, 3.0) and
                                shell.extension_info(uuid), 30, f"{uuid} to load")
        assert info["state"] == 1.0 and info.get("error", "") == "", f"{uuid}: {info}"
    shell.eval("Main.overview.hide()")

    step("the top bar shows jetsond's latest sample")
    def label_matches():
        text, values = label(shell), snapshot()
        return text if text == expected_label(values) else None
    text = harness.wait_for(label_matches, 15, f"the label to match the sample (it says {label(shell)!r})")
    assert text.startswith("GPU ") and " CPU " in text and " W " in text and text.endswith(" °C"), text

    step("another client subscribed at 10 ms: the indicator still gets its own period's samples only")
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)  # this test's own connection: the request lasts while it does

    def metrics(method, args=None):
        bus.call_sync("org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", method, args,
                      None, Gio.DBusCallFlags.NONE, 5000, None)
    counts = lambda: shell.eval(f"[{IND}._samples, {IND}._refreshes]")  # noqa: E731
    metrics("Subscribe", GLib.Variant("(t)", (10000,)))
    harness.wait_for(lambda: prop("/org/jetsond/Jetson1", "Metrics", "Interval") == 10000, 10, "Interval 10 ms")
    (s0, r0), t0 = counts(), time.monotonic()
    out = monitor(3)
    (s1, r1), took = counts(), time.monotonic() - t0
    metrics("Unsubscribe")
    samples, refreshes = s1 - s0, r1 - r0
    fast, own = signals(out, "SampleAt", "10000"), signals(out, "ValuesAt", EXTENSION_PERIOD)
    print(f"figure: with the board read every 10 ms jetsond sent {fast} SampleAt of 10 ms and {own} ValuesAt of "
          f"the extension's 1 s in {took:.1f} s; the indicator got {samples} samples and refreshed {refreshes} times")
    assert fast >= 20, f"only {fast} SampleAt in {took:.1f} s at 10 ms: the check below could not fail"
    # Its own 1 s period (a tick late at most each), not the 10 ms of
    # another client's request: that stream never reaches the shell.
    assert 1 <= samples <= took / 1.0 + 2, f"{samples} samples in {took:.1f} s ({fast} SampleAt of 10 ms sent)"
    # One refresh may be of a sample from before the count began.
    assert refreshes <= min(samples + 1, took / 0.5 + 2), f"{refreshes} refreshes for {samples} samples"
    harness.wait_for(label_matches, 15, f"the label at the default interval again (it says {label(shell)!r})")

    step("a setting hides its item in the top bar at once")
    ext_dir = os.path.join(shell.home, ".local/share/gnome-shell/extensions", UUID)
    gsettings = ["gsettings", "--schemadir", os.path.join(ext_dir, "schemas")]
    shell.run(gsettings + ["set", "org.gnome.shell.extensions.jetsond", "show-gpu-load", "false"])
    harness.wait_for(lambda: (label(shell) or "GPU").startswith("CPU "), 10,
                     f"the GPU item to go (the label says {label(shell)!r})")
    shell.run(gsettings + ["reset", "org.gnome.shell.extensions.jetsond", "show-gpu-load"])
    harness.wait_for(label_matches, 10, f"the GPU item back (the label says {label(shell)!r})")

    step("the menu: board, details, power modes, jetson_clocks, GPU 3D scaling, fan profiles")
    menu = menu_items(shell)
    assert menu["status"] == "NVIDIA Jetson AGX Orin Developer Kit · JetPack 6.2", menu
    assert [d.split(" ")[0] for d in menu["details"]] == ["CPU", "GPU", "RAM", "Board", "tj"] or \
        [d.split(" ")[0] for d in menu["details"]][:4] == ["CPU", "GPU", "RAM", "Board"], menu["details"]
    assert menu["modesShown"] and menu["modes"] == [
        ["MAXN", True], ["MODE_15W", False], ["MODE_30W (at next boot)", False], ["MODE_50W", False]], menu
    assert menu["clocksShown"] and menu["clocksOn"] is False, menu
    assert menu["gpuShown"] and menu["gpuOn"] is True, menu
    assert len(menu["fans"]) == 1 and menu["fans"][0][0].startswith("Fan 0 (pwmfan): cool, "), menu
    assert menu["fans"][0][1] == [["cool", True], ["quiet", False], ["manual", False]], menu

    step("screenshots: the indicator and its open menu")
    panel_box = box_of(shell, IND)
    shell.screenshot(panel_box, "indicator.png")
    colours = distinct_colours(os.path.join(ARTEFACTS, "indicator.png"))
    assert colours >= 8, f"the indicator's region looks empty ({colours} colours)"
    shell.eval(f"{IND}.menu.open(false)")
    harness.wait_for(lambda: shell.eval(f"{IND}.menu.isOpen"), 5, "the menu to open")
    time.sleep(0.5)  # let the menu's first frame be drawn
    menu_box = box_of(shell, f"{IND}.menu.actor")
    left = min(panel_box[0], menu_box[0]) - 8
    shot = [max(0, left), 0, min(1024, max(panel_box[0] + panel_box[2], menu_box[0] + menu_box[2]) + 8) - max(0, left),
            min(768, menu_box[1] + menu_box[3] + 8)]
    shell.screenshot(shot, "indicator-menu.png")
    assert distinct_colours(os.path.join(ARTEFACTS, "indicator-menu.png")) > colours
    if UPDATE_DOCS:
        shutil.copy(os.path.join(ARTEFACTS, "indicator-menu.png"), os.path.join(SOURCE_DIR, "docs", "extension-menu.png"))
    shell.eval(f"{IND}.menu.close(false)")

    step("the settings window: its page with GTK 4 and libadwaita on the shell's display")
    test_prefs = os.path.join(shell.home, "test-prefs.js")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-prefs.js"),
                shell.session.host(test_prefs))
    prefs_env = dict(WAYLAND_DISPLAY="wayland-0", GSETTINGS_BACKEND="memory",
                     JETSOND_TEST_SCHEMA_DIR=os.path.join(ext_dir, "schemas"))
    shell.session.env.update(prefs_env)
    try:
        prefs = subprocess.run(shell.session.command(["gjs", test_prefs, ext_dir]), capture_output=True,
                               text=True, timeout=60, env=shell.session.env)
    finally:
        for key in prefs_env:
            del shell.session.env[key]
    assert prefs.returncode == 0 and "not ok" not in prefs.stdout, prefs.stdout + prefs.stderr
    assert prefs.stdout.count("ok - ") == 13, prefs.stdout
    # As "gnome-extensions prefs" does: the Extensions app opens the window.
    # It is started by the session bus, which tells it the display as
    # gnome-session would.
    shell.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "UpdateActivationEnvironment", GLib.Variant("(a{ss})", ({"WAYLAND_DISPLAY": "wayland-0"},)),
                        None, 0, 5000, None)
    shell.bus.call_sync("org.gnome.Shell.Extensions", "/org/gnome/Shell/Extensions", "org.gnome.Shell.Extensions",
                        "OpenExtensionPrefs", GLib.Variant("(ssa{sv})", (UUID, "", {})), None, 0, 20000, None)
    titles = "global.get_window_actors().map(a => a.meta_window.get_title())"
    harness.wait_for(lambda: "Jetson Monitor" in " ".join(t or "" for t in shell.eval(titles)), 30,
                     f"the extension's settings window (windows: {shell.eval(titles)})")
    box = harness.wait_for(lambda: (lambda b: b if b[2] > 0 else None)(shell.eval(
        """(() => { const w = global.get_window_actors().find(a =>
        (a.meta_window.get_title() || '').includes('Jetson Monitor')).meta_window.get_frame_rect();
        return [w.x, w.y, w.width, w.height]; })()""")), 15, "the settings window to be placed")
    time.sleep(1)  # its first frame
    shell.screenshot(box, "prefs.png")
    shell.eval("""global.get_window_actors().find(a => (a.meta_window.get_title() || '')
        .includes('Jetson Monitor')).meta_window.delete(global.get_current_time())""")

    step("a power mode polkit denies: a notification, no nvpmodel run")
    shell.eval(f"{IND}.chooseMode(3)")
    n = wait_notification(shell, "Power mode MODE_50W: not authorized")
    assert n["body"] == jetsond_error("/org/jetsond/Jetson1", "NVPModel", "SetMode", GLib.Variant("(u)", (3,))), n
    assert "-m 3" not in calls(), calls()
    assert prop("/org/jetsond/Jetson1", "NVPModel", "Mode") == 0

    step("a power mode polkit allows: nvpmodel -m 3, and the menu follows")
    stack.polkit_allow(["org.jetsond.Jetson1.set-nvpmodel"])
    shell.eval(f"{IND}.chooseMode(3)")
    harness.wait_for(lambda: "nvpmodel -m 3" in calls(), 15, "nvpmodel -m 3 in calls.log")
    harness.wait_for(lambda: prop("/org/jetsond/Jetson1", "NVPModel", "Mode") == 3, 15, "Mode 3")
    harness.wait_for(lambda: ["MODE_50W", True] in menu_items(shell)["modes"], 15, "MODE_50W checked in the menu")

    step("a mode that needs a reboot: the notification offers the boot default, which works")
    shell.eval(f"{IND}.chooseMode(1)")
    n = wait_notification(shell, "Power mode MODE_15W needs a reboot")
    assert n["actions"] == ["Apply at next boot"], n
    shell.eval(f"""{IND}.notifier._source.notifications
        .find(n => n.title === 'Power mode MODE_15W needs a reboot').actions[0].{shell.js['activate']}""")
    harness.wait_for(lambda: prop("/org/jetsond/Jetson1", "NVPModel", "DefaultMode") == 1, 15, "DefaultMode 1")
    wait_notification(shell, "Power mode MODE_15W at next boot")
    harness.wait_for(lambda: ["MODE_15W (at next boot)", False] in menu_items(shell)["modes"], 10,
                     "MODE_15W marked as the boot mode in the menu")

    step("jetson_clocks denied: the switch goes back, a notification says why")
    shell.eval(f"{IND}._clocksItem.toggle()")
    wait_notification(shell, "jetson_clocks on: not authorized")
    harness.wait_for(lambda: menu_items(shell)["clocksOn"] is False, 5, "the switch back off")
    assert prop("/org/jetsond/Jetson1", "JetsonClocks", "Active") is False

    step("GPU 3D scaling denied, then allowed: enable_3d_scaling follows the switch")
    scaling_file = os.path.join(stack.root, "sys/devices/platform/bus@0/17000000.gpu/enable_3d_scaling")
    shell.eval(f"{IND}._gpuScalingItem.toggle()")
    wait_notification(shell, "GPU 3D scaling off: not authorized")
    harness.wait_for(lambda: menu_items(shell)["gpuOn"] is True, 5, "the GPU switch back on")
    assert open(scaling_file).read() == "1\n"
    stack.polkit_allow(["org.jetsond.Jetson1.set-nvpmodel", "org.jetsond.Jetson1.set-gpu"])
    shell.eval(f"{IND}._gpuScalingItem.toggle()")
    harness.wait_for(lambda: open(scaling_file).read() == "0\n", 15, "enable_3d_scaling 0")
    harness.wait_for(lambda: prop("/org/jetsond/Jetson1", "Gpu", "Scaling3D") is False, 15, "Scaling3D false")
    harness.wait_for(lambda: menu_items(shell)["gpuOn"] is False, 10, "the GPU switch off")

    step("a fan profile polkit allows")
    stack.polkit_allow(["org.jetsond.Jetson1.set-nvpmodel", "org.jetsond.Jetson1.set-fan"])
    shell.eval(f"{IND}.chooseFanProfile(0, 'quiet')")
    harness.wait_for(lambda: prop("/org/jetsond/Jetson1/fan/0", "Fan", "Profile") == "quiet", 20, "profile quiet")
    harness.wait_for(lambda: menu_items(shell)["fans"][0][1][1] == ["quiet", True], 10, "quiet checked in the menu")

    step("throttling starts: one notification in jetsonctl status's words; a reason that joins is added to it (issue 39)")
    sim = ["/usr/bin/python3", os.path.join(SOURCE_DIR, "tests/fixtures/simulate.py"), stack.root, "--duration-s", "0"]
    subprocess.run(sim + ["--cap", "gpu-throttle-alert=1"], check=True)
    n = wait_notification(shell, "Jetson is throttled")
    assert n["body"] == "Clocks held down by GPU thermal cap. 0 over-current events since boot.", n
    subprocess.run(sim + ["--oc-events", "1=2"], check=True)
    want = "Clocks held down by over-current, GPU thermal cap. 2 over-current events since boot."
    harness.wait_for(lambda: [n["body"] for n in notifications(shell) if n["title"] == "Jetson is throttled"] == [want],
                     15, f"one notification saying {want!r}; have {notifications(shell)}")
    subprocess.run(sim + ["--cap", "gpu-throttle-alert=0"], check=True)

    step("jetsond leaves: the indicator says so")
    stack.stop_daemon()
    harness.wait_for(lambda: label(shell) == "jetsond not running", 10, "'jetsond not running'")
    menu = menu_items(shell)
    assert menu["status"].startswith("jetsond is not running") and menu["details"] == [], menu
    assert not menu["modesShown"] and not menu["clocksShown"] and menu["fans"] == [], menu
    assert not menu["gpuShown"], menu

    step("jetsond comes back on a PC (no fan, nvpmodel, jetson_clocks or integrated GPU): those items are hidden")
    pc_root = os.path.join(stack.dir, "pc-root")
    subprocess.run(["sh", os.path.join(SOURCE_DIR, "tests/fixtures/make-sysroot.sh"), "x86-pc", pc_root],
                   check=True, stdout=subprocess.DEVNULL)
    stack.root = pc_root
    stack.start_daemon()
    harness.wait_for(label_matches, 15, f"samples from the new jetsond (the label says {label(shell)!r})")
    menu = harness.wait_for(lambda: (lambda m: m if m["status"] != "" and "Jetson" not in m["status"] else None)(
        menu_items(shell)), 10, "the PC's board line")
    assert not menu["modesShown"] and menu["modes"] == [], menu
    assert not menu["clocksShown"] and not menu["gpuShown"] and menu["fans"] == [], menu
    assert menu["details"], menu

    step("no JavaScript error from the extension in the shell's log")
    bad = [line for line in shell.log().splitlines()
           if "JS ERROR" in line or (UUID in line and ("rror" in line or "arning" in line))]
    assert not bad, "\n".join(bad)

    step("the extension follows the compact stream of its own period: ValuesAt with its arg0, not Sample, "
         "from the new jetsond too")
    held = [r for r in shell_match_rules(shell.proc.pid) if "org.jetsond" in r or "/org/jetsond" in r]
    values_rules = [r for r in held if "member='ValuesAt'" in r]
    assert values_rules and all(f"arg0='{EXTENSION_PERIOD}'" in r for r in values_rules), held
    assert not any("member='Sample" in r or "member='Values'" in r for r in held), held
    seen = values_signals(3)
    assert seen > 0, "no ValuesAt signal while the extension is enabled: the check below could not fail"

    step("disable() leaves nothing behind: no indicator, no notification source, no match rule, no request")
    shell.extension("DisableExtension")
    harness.wait_for(lambda: shell.extension_info(UUID)["state"] == 2.0, 15, "state DISABLED")
    assert shell.eval(f"{IND} === undefined") is True
    assert shell.eval("Main.messageTray.getSources().filter(s => s.title === 'Jetson').length") == 0
    # Proxies unsubscribe when they are finalized: once the extension has
    # dropped every reference, a garbage collection finalizes them.
    shell.eval(shell.js["gc"])
    left = lambda: [r for r in shell_match_rules(shell.proc.pid) if "jetsond" in r]  # noqa: E731
    harness.wait_for(lambda: not left(), 10, f"the shell's jetsond match rules to go: {left()}")
    # The shell's bus connection stays: only Unsubscribe() ends the request.
    harness.wait_for(lambda: values_signals(2) == 0, 10, f"jetsond to stop sending ValuesAt ({seen} in 3 s before)")
    shell.extension("EnableExtension")
    harness.wait_for(lambda: shell.extension_info(UUID)["state"] == 1.0, 15, "state ENABLED again")
    harness.wait_for(label_matches, 15, f"the label again after enabling (it says {label(shell)!r})")


if __name__ == "__main__":
    main()
