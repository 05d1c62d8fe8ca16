#!/usr/bin/python3
"""jetsond's Cockpit page (cockpit/) in a real Cockpit and a real browser.

A private system bus with the project's policy, python-dbusmock's polkitd
(and systemd where a fan write needs nvfancontrol), jetsond on a copy of a
fake board, cockpit-ws and cockpit-bridge from Debian on that bus, and a
headless Chromium driven through WebDriver (tests/cockpit/cockpit_session.py).
What the page shows is compared with what the bus says (GetSnapshot, the
properties) and with the fake board's files; every wait polls the page
with a deadline only a stall misses.

    test-page.py [--root CACHE_DIR] JETSOND FAKE_NVML ARTIFACT_DIR [--update-docs] [test_NAME...]

Without --root, Cockpit is this machine's (Debian 12's 287). With --root,
cockpit-ws and the bridge are Debian 13's, run in an overlay of the root
that tests/lib/debian13.py makes once in CACHE_DIR, with the checks named in
DEBIAN13_TESTS (values, charts, writes, jetsond restarting, the phone's
width and the console, Cockpit's shell) and the manifest's conditions.

Screenshots (the page at 1280x800 and 390x844, light and dark, each also
as a whole page; and in Cockpit's shell at 1280x800) are written to
ARTIFACT_DIR; --update-docs also copies the shell's to docs/cockpit.png.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from harness import SOURCE_DIR, run_tests  # noqa: E402
import debian13  # noqa: E402
from cockpit_session import CockpitSession, poll  # noqa: E402
from pagetest import (PATH, IFACE, Page, SignalMonitor, metrics_match_rules, polkit_checks, prop,  # noqa: E402
                      snapshot, step)
from board_procs import add_process, real_start, remove_process  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

ARGS = sys.argv[1:]
ROOT_CACHE = None
if ARGS[:1] == ["--root"]:
    ROOT_CACHE, ARGS = os.path.abspath(ARGS[1]), ARGS[2:]
JETSOND, FAKE_NVML, ARTIFACTS = (os.path.abspath(a) for a in ARGS[0:3])
UPDATE_DOCS = "--update-docs" in ARGS[3:]
Page.JETSOND, Page.ARTIFACTS = JETSOND, ARTIFACTS

# Orin Nano (orin-nano-jp62): modes 0 15W, 1 25W (current and default),
# 2 MAXN_SUPER, 3 7W (needs a reboot: 4 cores online instead of 6).
NANO = "orin-nano-jp62"
NVPMODEL_STATUS = "var/lib/nvpmodel/status"
NANO_NVPMODEL_CONF = "etc/nvpmodel/nvpmodel_p3767_0005_super.conf"
NANO_FAN_PWM = "sys/devices/platform/pwm-fan/hwmon/hwmon0/pwm1"
ORIN_RAILGATE = "sys/devices/platform/bus@0/17000000.gpu/railgate_enable"
CPU0_MIN = "sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq"
CPU0_MAX = "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"
ALL_ACTIONS = ["org.jetsond.Jetson1.set-fan", "org.jetsond.Jetson1.set-nvpmodel",
               "org.jetsond.Jetson1.set-jetson-clocks"]


def test_identity_and_values():
    """Identity equals the Board properties; each current value shown (raw
    in data-value, and its text) equals GetSnapshot's. No simulator: the
    fake board's values hold still, so page and snapshot see the same.
    At jetsond's default 1 s, the charts' rate, the page listens to Sample
    and holds no Subscribe() request."""
    with Page("agx-orin-jp62") as p:
        p.ready()
        p.wait("return document.body.dataset.stream === 'Sample'", "the page on Sample")
        assert p.js("return document.body.dataset.subscribed") == "false"
        rules = metrics_match_rules()
        assert any("member='Sample'" in r for r in rules), rules
        assert not any("member='SampleAt'" in r for r in rules), rules
        for name in ("Model", "Module", "SoC", "JetPack", "L4T", "Distribution", "KernelRelease"):
            want = prop("Board", name)
            assert want, name
            assert p.text(f"board-{name}") == want, (name, p.text(f"board-{name}"), want)
        libraries = prop("Board", "Libraries")
        assert json.loads(p.data("board-Libraries", "value")) == libraries
        for name, version in libraries.items():
            assert f"{name} {version}" in p.text("board-Libraries"), (name, version)

        _, values = snapshot()
        tiles = p.js("return [...document.querySelectorAll('#now dd')].map(e => [e.id, e.dataset.key, e.dataset.value, e.textContent])")
        shown = {key: (tile_id, json.loads(raw), text) for tile_id, key, raw, text in tiles}
        for key in ("power.total", "ram.used", "gpu.freq", "fan.0.speed", "nvpmodel.name", "jetson_clocks.active"):
            assert key in values, key
            assert key in shown, (key, sorted(shown))
            assert shown[key][1] == values[key], (key, shown[key], values[key])
        # Texts in their units, from the same values.
        assert shown["power.total"][2].startswith(f"{values['power.total'] / 1000:.2f}".rstrip("0").rstrip(".") + " W")
        assert shown["gpu.freq"][2] == f"{round(values['gpu.freq'] / 1000)} MHz", shown["gpu.freq"]
        assert shown["nvpmodel.name"][2] == values["nvpmodel.name"]
        assert shown["jetson_clocks.active"][2] == ("on" if values["jetson_clocks.active"] else "off")
        hottest = max((k for k in values if k.startswith("temp.")), key=lambda k: values[k])
        assert shown[hottest][0] == "now-temp" and shown[hottest][1] == values[hottest], (hottest, shown.get(hottest))
        # The GPU process table: the processes of the snapshot, by PID.
        pids = sorted({int(k.split(".")[1]) for k in values if k.startswith("process.") and k.endswith(".name")})
        assert pids, "the fixture has GPU processes"
        rows = p.js("return [...document.querySelectorAll('#processes-body tr')].map(r => [Number(r.dataset.pid),"
                    " r.querySelector('[data-field=command]').textContent])")
        assert sorted(pid for pid, _ in rows) == pids, (rows, pids)
        # the board's processes, not this machine's: their names
        for pid, name in rows:
            assert name == values[f"process.{pid}.name"], (pid, name)
        # Engines: one label per engine of the snapshot, on or off as it says.
        engines = {k.split(".")[1]: v for k, v in values.items() if k.startswith("engine.") and k.endswith(".online")}
        assert engines, "the fixture has engines"
        for name, online in engines.items():
            assert p.data(f"engine-{name}", "online") == ("true" if online else "false"), name


def test_throttle_alert():
    """Issue 39: no alert on the still AGX Orin; the simulator raises 2
    over-current events and a GPU thermal cap, and the alert says what
    jetsonctl status says; it goes with the cap."""
    with Page("agx-orin-jp62") as p:
        p.ready()
        p.wait("return document.getElementById('throttle').dataset.reasons === 'none'", "the summary read")
        assert p.js("return document.getElementById('throttle').hidden") is True
        assert p.data("throttle", "ocEvents") == "0"
        sim = ["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                                                "simulate.py"), p.stack.root, "--duration-s", "0"]
        subprocess.run(sim + ["--oc-events", "3=2", "--cap", "gpu-throttle-alert=1"], check=True)
        p.wait("const e = document.getElementById('throttle');"
               " return !e.hidden && e.dataset.reasons === 'thermal_gpu' && e.dataset.ocEvents === '2'",
               "the alert for the cap")
        assert p.text("throttle-text") == "GPU thermal cap now; 2 over-current events since boot", \
            p.text("throttle-text")
        subprocess.run(sim + ["--cap", "gpu-throttle-alert=0"], check=True)
        p.wait("return document.getElementById('throttle').hidden", "the alert gone with the cap")


def test_process_table_sorts():
    """Sorting by a column's header (by keyboard: Enter on its button)."""
    with Page("agx-orin-jp62") as p:
        p.ready()
        order = lambda: p.js("return [...document.querySelectorAll('#processes-body tr')].map(r => Number(r.dataset.pid))")
        assert not p.visible("processes-sort"), "the phone's sort select at 1280 px"
        p.d.find_element(By.CSS_SELECTOR, "th[data-field=pid] button").send_keys(Keys.ENTER)
        p.wait("return document.querySelector('th[data-field=pid]').getAttribute('aria-sort') === 'descending'",
               "PID sorted descending")
        assert order() == sorted(order(), reverse=True), order()
        p.d.find_element(By.CSS_SELECTOR, "th[data-field=pid] button").send_keys(Keys.ENTER)
        p.wait("return document.querySelector('th[data-field=pid]').getAttribute('aria-sort') === 'ascending'",
               "PID sorted ascending")
        assert order() == sorted(order()), order()
        p.d.find_element(By.CSS_SELECTOR, "th[data-field=command] button").send_keys(Keys.ENTER)
        names = p.js("return [...document.querySelectorAll('#processes-body [data-field=command]')]"
                     ".map(e => e.textContent)")
        assert names == sorted(names, key=str.lower) or names == sorted(names), names


def test_process_command_lines():
    """The Command column is the whole command line, read through Cockpit's
    bridge with the session user's rights, for a process of this machine
    that jetsond lists (its start time is this machine's); the board's
    processes keep their names."""
    marker = f"--jetsond-run={os.getpid()}"
    worker = subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(600)", marker])
    try:
        poll(lambda: open(f"/proc/{worker.pid}/cmdline").read().endswith(marker + "\0"), "the worker's command line")
        with Page("agx-orin-jp62") as p:
            p.ready()
            add_process(p.stack, worker.pid, "python3", start=real_start(worker.pid))
            line = f"/usr/bin/python3 -c import time; time.sleep(600) {marker}"
            p.wait("const r = document.querySelector(`#processes-body tr[data-pid='${arguments[0]}']`);"
                   " return r && r.querySelector('[data-field=command]').textContent === arguments[1]",
                   "the whole command line", str(worker.pid), line)
            assert p.js("return document.querySelector(\"#processes-body tr[data-pid='5120'] [data-field=command]\")"
                        ".textContent") == "python3"
            remove_process(p.stack, worker.pid, "python3")
    finally:
        worker.kill()
        worker.wait()


def test_chart_grows_while_visible():
    """The charts grow with every sample, and the page holds a Subscribe()
    request only while it is visible: with jetsond's default period at
    2 s, Interval is the page's 1 s while it shows and 2 s again when it
    is hidden (another tab in front). The page listens to the SampleAt
    signals of its own 1 s only, and its request leaves Sample, which a
    passive listener gets, at jetsond's 2 s."""
    with Page("agx-orin-jp62", simulate=True, daemon_args=("--interval", "2000")) as p:
        p.ready()
        poll(lambda: prop("Metrics", "Interval") == 1000000, "Interval at the page's 1 s")
        listener = SignalMonitor(8)
        p.wait("return document.body.dataset.stream === 'SampleAt' && document.body.dataset.subscribed === 'true'",
               "the page on SampleAt, subscribed")
        rules = metrics_match_rules()
        assert any("member='SampleAt'" in r and "arg0='1000000'" in r for r in rules), rules
        assert not any("member='Sample'" in r for r in rules), rules
        first = int(p.data("chart-cpu", "points"))
        assert first >= 1
        p.wait("return Number(document.getElementById('chart-cpu').dataset.points) >= arguments[0] + 3",
               "3 more points in the CPU chart", first)
        p.by_id("chart-window").find_element(By.CSS_SELECTOR, "[data-minutes='15']").send_keys(Keys.ENTER)
        assert p.js("return [...document.querySelectorAll('#chart-window button')].map(b => b.getAttribute('aria-pressed'))") \
            == ["false", "false", "true"]
        assert p.js("return window.jetsondCharts.windowSeconds") == 900
        series = p.data("chart-cpu", "series").split()
        assert "cpu.load" in series and "cpu.0.load" in series, series
        # The x values are jetsond's timestamps (seconds), one per sample, increasing.
        xs = p.js("return window.jetsondCharts.times.slice()")
        assert xs == sorted(xs) and len(set(xs)) == len(xs), xs
        steps = sorted(b - a for a, b in zip(xs, xs[1:]))
        print(f"figure: {len(xs)} chart points, median spacing {steps[len(steps) // 2]:.3f} s "
              "(jetsond's timestamps, page subscribed at 1 s)", flush=True)
        now_s = snapshot()[0] / 1e6
        assert abs(xs[-1] - now_s) < 30, (xs[-1], now_s)
        step("a passive listener: Sample at jetsond's 2 s while the page's SampleAt come every second")
        seen = listener.result()
        page_stream, broadcast = seen.get("SampleAt 1000000", []), seen.get("Sample", [])
        mean = lambda ts: (ts[-1] - ts[0]) / (len(ts) - 1) / 1e6 if len(ts) > 1 else None  # noqa: E731
        print(f"figure: in 8 s a passive listener got {len(broadcast)} Sample (mean spacing {mean(broadcast) or 0:.3f} s) "
              f"and {len(page_stream)} of the page's SampleAt (mean spacing {mean(page_stream) or 0:.3f} s); "
              f"other streams: {sorted(k for k in seen if k not in ('Sample', 'SampleAt 1000000'))}", flush=True)
        assert len(page_stream) >= 3, f"{len(page_stream)} SampleAt of 1 s in 8 s: the check below could not fail"
        # A busy machine only lengthens the spacing; the page's request
        # must not shorten it to the page's 1 s.
        assert len(broadcast) >= 2 and mean(broadcast) >= 1.5, broadcast
        step("hidden: another tab in front")
        page_tab = p.d.current_window_handle
        p.d.switch_to.new_window("tab")
        p.d.get("about:blank")
        poll(lambda: prop("Metrics", "Interval") == 2000000, "Interval back at jetsond's default once hidden")
        if Page.ROOT is None:
            # Cockpit 337's bridge (Python) never removes a bus match of a
            # channel before the channel closes: there, only the request's
            # release (Interval) is checked.
            poll(lambda: not any("member='SampleAt'" in r for r in metrics_match_rules()), "the page's match released")
        p.d.switch_to.window(page_tab)
        p.wait("return document.visibilityState === 'visible'", "the page visible again")
        poll(lambda: prop("Metrics", "Interval") == 1000000, "Interval at the page's 1 s again")
        p.wait("return document.body.dataset.subscribed === 'true'", "subscribed again")


def test_denied_write():
    """polkit denies: the page shows jetsond's (polkit's) message beside the
    control, the control goes back to the true value, the board's files are
    unchanged."""
    with Page(NANO) as p:
        p.ready()
        status = p.root_file(NVPMODEL_STATUS)
        pwm = p.root_file(NANO_FAN_PWM)
        assert p.js("return document.getElementById('mode').value") == "1"
        Select(p.by_id("mode")).select_by_value("2")
        p.wait("return document.getElementById('mode-message').dataset.error === 'org.freedesktop.DBus.Error.AccessDenied'",
               "the power mode's denial")
        message = p.text("mode-message")
        assert "Not authorized" in message and "set-nvpmodel" in message, message
        p.wait("return document.getElementById('mode').value === '1'", "the mode select back at 25W")
        assert p.root_file(NVPMODEL_STATUS) == status
        assert prop("NVPModel", "Mode") == 1
        # The call allowed interactive authorization: jetsond asked polkit
        # with AllowUserInteraction (flags 1), so a real polkit would have
        # asked for a password (Cockpit's agent) instead of refusing.
        checks = polkit_checks()
        assert ("org.jetsond.Jetson1.set-nvpmodel", 1) in checks, checks

        speed = p.by_id("fan-0-speed")
        speed.clear()
        speed.send_keys("90", Keys.ENTER)
        p.wait("return document.getElementById('fan-0-message').dataset.error === 'org.freedesktop.DBus.Error.AccessDenied'",
               "the fan's denial")
        assert "set-fan" in p.text("fan-0-message")
        assert p.root_file(NANO_FAN_PWM) == pwm
        p.wait("return document.getElementById('fan-0-speed').value === arguments[0]", "the speed back",
               str(round(prop("Fan", "Speed", PATH + "/fan/0"))))


def test_allowed_writes():
    """polkit allows: power mode, fan speed and profile, jetson_clocks change
    the fake board's files and the page follows; a mode that needs a reboot
    offers to become the boot default, which rewrites nvpmodel.conf."""
    with Page(NANO, systemd=True) as p:
        p.stack.polkit_allow(ALL_ACTIONS)
        p.ready()
        step("power mode 25W -> 15W")
        Select(p.by_id("mode")).select_by_value("0")
        poll(lambda: "pmode:0000" in p.root_file(NVPMODEL_STATUS), "nvpmodel's status at mode 0")
        p.wait("return document.getElementById('mode').value === '0' && !document.getElementById('mode').disabled",
               "the select at mode 0")
        assert prop("NVPModel", "Mode") == 0
        assert p.text("mode-message") == ""

        step("power mode 7W needs a reboot: offered as the boot default")
        conf = p.root_file(NANO_NVPMODEL_CONF)
        Select(p.by_id("mode")).select_by_value("3")
        p.wait("return document.getElementById('mode-message').dataset.error === 'org.jetsond.Jetson1.Error.RebootRequired'",
               "RebootRequired")
        assert "reboot" in p.text("mode-message").lower()
        p.wait("return document.getElementById('mode').value === '0'", "the select back at mode 0")
        assert p.visible("mode-reboot-button")
        assert "7W" in p.text("mode-reboot-button"), p.text("mode-reboot-button")
        assert p.root_file(NANO_NVPMODEL_CONF) == conf
        p.by_id("mode-reboot-button").send_keys(Keys.ENTER)
        poll(lambda: prop("NVPModel", "DefaultMode") == 3, "DefaultMode 3")
        assert not p.visible("mode-reboot-button"), "the offer stays after it was taken"
        assert "PM_CONFIG DEFAULT=3" in p.root_file(NANO_NVPMODEL_CONF)
        p.wait("return document.getElementById('mode-default').value === '3'", "the boot default select at 3")
        assert "next boot" in p.text("mode-message")

        step("fan speed 70 %")
        speed = p.by_id("fan-0-speed")
        speed.clear()
        speed.send_keys("70", Keys.ENTER)
        poll(lambda: p.root_file(NANO_FAN_PWM).strip() == str(70 * 255 // 100), "pwm1 at 70 %")
        p.wait("return Math.round(Number(document.getElementById('fan-0-state').dataset.speed)) === 70",
               "the page's fan at 70 %")
        p.wait("return document.getElementById('fan-0-profile').value === 'manual'", "profile manual")

        step("fan profile back to quiet")
        profiles = prop("Fan", "Profiles", PATH + "/fan/0")
        target = "quiet" if "quiet" in profiles else [x for x in profiles if x != "manual"][0]
        Select(p.by_id("fan-0-profile")).select_by_value(target)
        poll(lambda: prop("Fan", "Profile", PATH + "/fan/0") == target, f"profile {target}")
        p.wait("return document.getElementById('fan-0-profile').value === arguments[0]", "the page's profile",
               target)

        step("jetson_clocks on, by keyboard")
        assert p.root_file(CPU0_MIN) != p.root_file(CPU0_MAX)
        p.by_id("clocks-active").send_keys(Keys.SPACE)
        poll(lambda: p.root_file(CPU0_MIN) == p.root_file(CPU0_MAX), "CPU0 min = max")
        poll(lambda: prop("JetsonClocks", "Active") is True, "Active")
        p.wait("return document.getElementById('clocks-active').checked && !document.getElementById('clocks-active').disabled",
               "the switch on")
        p.wait("return document.getElementById('now-clocks') && document.getElementById('now-clocks').textContent === 'on'",
               "jetson_clocks on in the current values")


def test_gpu_caches_and_restore():
    """The GPU's rail gating switch writes railgate_enable; a failing call
    (drop caches where /proc/sys/vm/drop_caches is a directory) shows
    jetsond's own message, word for word as a direct call gets it; restore
    defaults lists its steps and puts rail gating back."""
    with Page("agx-orin-jp62", systemd=True) as p:
        p.stack.polkit_allow(ALL_ACTIONS + ["org.jetsond.Jetson1.set-gpu", "org.jetsond.Jetson1.drop-caches"])
        p.ready()
        assert p.root_file(ORIN_RAILGATE).strip() == "1"
        assert p.js("return document.getElementById('gpu-railgate').checked") is True
        p.by_id("gpu-railgate").send_keys(Keys.SPACE)
        poll(lambda: p.root_file(ORIN_RAILGATE).strip() == "0", "railgate_enable 0")
        p.wait("return !document.getElementById('gpu-railgate').checked && !document.getElementById('gpu-railgate').disabled",
               "the switch off")

        step("drop caches fails (its file is a directory): jetsond's message")
        drop = os.path.join(p.stack.root, "proc/sys/vm/drop_caches")
        if os.path.isfile(drop):
            os.unlink(drop)
        os.makedirs(drop, exist_ok=True)
        direct = subprocess.run(["gdbus", "call", "--system", "--dest", "org.jetsond.Jetson1", "--object-path", PATH,
                                 "--method", IFACE + "Memory.DropCaches"], capture_output=True, text=True)
        p.by_id("drop-caches").send_keys(Keys.ENTER)
        p.wait("return document.getElementById('memory-message').textContent !== '' && "
               "!document.getElementById('drop-caches').disabled", "drop caches' answer")
        step(f"drop caches: {p.text('memory-message')!r}")
        assert direct.returncode != 0, direct.stdout
        name, message = direct.stderr.split("GDBus.Error:", 1)[1].strip().split(": ", 1)
        assert name == "org.jetsond.Jetson1.Error.Failed", direct.stderr
        assert p.data("memory-message", "error") == name, (p.data("memory-message", "error"), name)
        assert p.text("memory-message") == message, (p.text("memory-message"), message)

        step("restore defaults, after a second step")
        p.by_id("restore").send_keys(Keys.ENTER)
        p.wait("return document.activeElement.id === 'restore-cancel'", "the confirmation")
        p.by_id("restore-cancel").send_keys(Keys.ENTER)
        p.wait("return document.activeElement.id === 'restore'", "cancelled")
        assert p.root_file(ORIN_RAILGATE).strip() == "0"
        p.by_id("restore").send_keys(Keys.ENTER)
        p.wait("return document.activeElement.id === 'restore-cancel'", "the confirmation again")
        p.by_id("restore-confirm-button").send_keys(Keys.ENTER)
        poll(lambda: p.root_file(ORIN_RAILGATE).strip() == "1", "railgate_enable back at 1")
        p.wait("return document.getElementById('gpu-railgate').checked", "the switch on again")
        p.wait("return document.getElementById('restore-message').textContent.includes('rail gating')",
               "the steps of restore defaults")
        assert not p.data("restore-message", "error")
        assert "jetson_clocks" in p.text("restore-message")


def test_board_without_fan():
    """A PC (x86-pc: no fan, no nvpmodel, no jetson_clocks): those controls
    and the fan chart are not shown; the Jetson's are (the same page on the
    Orin Nano, as the counterpart). The PC's two NVIDIA GPUs (the fake NVML)
    have their tiles and lines in the GPU chart."""
    os.environ["FAKE_NVML_CONFIG"] = os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json")
    with Page("x86-pc", daemon_args=("--nvml-library", FAKE_NVML)) as p:
        p.ready(2)
        _, values = snapshot()
        for n in (0, 1):
            assert json.loads(p.data(f"now-dgpu-{n}", "value")) == values[f"dgpu.{n}.load"], n
        # Memory as nvidia-smi shows it (NVML v2: 1.25 GiB, not v1's 1.85
        # with the driver's reservation); the PC named by DMI.
        assert p.text("now-dgpu-0").endswith("1.3 GiB of 24 GiB"), p.text("now-dgpu-0")
        assert p.text("board-Model") == "LENOVO 20L7S0ET00"
        p.wait("return document.getElementById('chart-gpu').dataset.series === 'dgpu.0.load dgpu.1.load'",
               "both NVIDIA GPUs in the GPU chart")
        assert p.js("return document.getElementById('fans').children.length") == 0
        assert not p.visible("group-mode") and not p.visible("group-clocks")
        assert p.js("return document.getElementById('chart-card-fan').hidden") is True
        assert p.data("chart-fan", "series") == ""
        assert p.js("return document.getElementById('now-fan')") is None
    with Page(NANO) as p:
        p.ready(2)
        assert p.visible("group-fan-0") and p.visible("group-mode") and p.visible("group-clocks")
        assert p.js("return document.getElementById('chart-card-fan').hidden") is False


def test_jetsond_restarts():
    """jetsond stops: one empty state; it starts again: the page shows the
    board again by itself, with new samples."""
    with Page("agx-orin-jp62", simulate=True) as p:
        p.ready(2)
        p.stack.stop_daemon()
        p.wait("return document.body.dataset.state === 'absent'", "the empty state")
        assert p.visible("empty") and not p.visible("main")
        assert "not running" in p.text("empty-title")
        before = p.samples()
        p.stack.start_daemon()
        owned = time.monotonic()
        p.wait("return document.body.dataset.state === 'ready'", "the page back")
        print(f"figure: page ready again {time.monotonic() - owned:.2f} s after jetsond took its name", flush=True)
        p.wait("return Number(document.body.dataset.samples) >= arguments[0] + 2", "new samples", before)
        assert p.text("board-Model") == prop("Board", "Model")
        assert not p.visible("empty")
        step("a page opened while jetsond is away")
        p.stack.stop_daemon()
        p.d.refresh()
        p.wait("return document.body.dataset.state === 'absent'", "the empty state at once")
        p.stack.start_daemon()
        p.ready(2)


def test_labels_and_keyboard():
    """Every control has a label (its accessible name) and is reachable by
    Tab."""
    with Page(NANO) as p:
        p.ready()
        unlabelled = p.js("""
            return [...document.querySelectorAll('#main input, #main select, #main button')]
                .filter(e => e.offsetParent !== null)
                .filter(e => !(e.labels && e.labels.length > 0 && e.labels[0].textContent.trim())
                             && !(e.getAttribute('aria-label'))
                             && !(e.tagName === 'BUTTON' && e.textContent.trim()))
                .map(e => e.id || e.outerHTML.slice(0, 80))""")
        assert not unlabelled, unlabelled
        controls = set(p.js("return [...document.querySelectorAll('#main input, #main select, #main button')]"
                            ".filter(e => e.offsetParent !== null && !e.disabled).map(e => e.id || e.textContent)"))
        reached = set()
        body = p.d.find_element(By.TAG_NAME, "body")
        body.click()
        for _ in range(len(controls) + 10):
            p.d.switch_to.active_element.send_keys(Keys.TAB)
            reached.add(p.js("const e = document.activeElement; return e.id || e.textContent"))
        missing = controls - reached
        assert not missing, missing


def test_screenshots_and_phone_width():
    """Screenshots at 1280x800 and 390x844 (a phone): at 390 px nothing is
    wider than the screen. And the dark theme, as prefers-color-scheme asks."""
    with Page("agx-orin-jp62", simulate=True) as p:
        p.ready(8)
        p.shoot("cockpit-1280x800.png")
        p.shoot("cockpit-1280-full.png", full_page=True)
        CockpitSession.set_size(p.d, 390, 844)
        p.wait("return window.innerWidth === 390", "the phone's width")
        p.wait("return document.documentElement.scrollWidth <= 390", "no horizontal scrolling at 390 px")
        assert p.js("return document.getElementById('chart-cpu').getBoundingClientRect().right") <= 390
        p.shoot("cockpit-390x844.png")
        step("sorting at the phone's width: the header is hidden, a select sorts")
        assert not p.visible("processes-head") and p.visible("processes-sort")
        Select(p.by_id("processes-sort")).select_by_value("pid:asc")
        pids = p.js("return [...document.querySelectorAll('#processes-body tr')].map(r => Number(r.dataset.pid))")
        assert pids and pids == sorted(pids), pids
        p.shoot("cockpit-390-full.png", full_page=True)
        step("dark, as the shell's style setting says")
        assert not p.js("return document.documentElement.classList.contains('pf-v6-theme-dark')")
        p.js("window.localStorage.setItem('shell:style', 'dark')")
        p.d.refresh()
        p.ready()
        assert p.js("return document.documentElement.classList.contains('pf-v6-theme-dark')")
        p.js("window.localStorage.setItem('shell:style', 'auto')")
        p.d.refresh()
        p.ready()
        assert not p.js("return document.documentElement.classList.contains('pf-v6-theme-dark')")
        step("dark, as the browser prefers")
        CockpitSession.set_size(p.d, 1280, 800)
        p.d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        p.wait("return document.documentElement.classList.contains('pf-v6-theme-dark')", "the dark theme")
        rgb = p.js("return getComputedStyle(document.body).backgroundColor")
        channels = [int(x) for x in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
        assert sum(channels) / 3 < 80, rgb
        p.shoot("cockpit-dark-1280x800.png")


def test_in_cockpit_shell():
    """As a user sees it: Cockpit's shell lists "Jetson" in its menu and
    shows the page in its frame. Going to another page of the menu hides
    the frame: the page releases its Subscribe() request (Interval back at
    jetsond's 2 s) and takes it again on return."""
    with Page(NANO, simulate=True, daemon_args=("--interval", "2000"), shell=True) as p:
        p.ready(3)
        poll(lambda: prop("Metrics", "Interval") == 1000000, "Interval at the page's 1 s")
        if UPDATE_DOCS:
            p.ready(30)  # half a minute of history in the charts
        # The current values and the first charts in view.
        p.js("document.getElementById('main').children[1].scrollIntoView()")
        p.d.switch_to.default_content()
        links = {a.text.strip(): a for a in p.d.find_elements(By.CSS_SELECTOR, "nav a, #host-apps a")}
        assert "Jetson" in links, sorted(links)
        shot = p.shoot("cockpit-shell-1280x800.png")
        if UPDATE_DOCS:
            shutil.copy(shot, os.path.join(SOURCE_DIR, "docs", "cockpit.png"))
            step("copied to docs/cockpit.png")
        others = [name for name in links if name and name != "Jetson"]
        assert others, sorted(links)
        links[others[0]].click()
        step(f"to {others[0]}: the page's frame hidden")
        poll(lambda: prop("Metrics", "Interval") == 2000000, "Interval back at jetsond's default")
        p.d.switch_to.default_content()
        {a.text.strip(): a for a in p.d.find_elements(By.CSS_SELECTOR, "nav a, #host-apps a")}["Jetson"].click()
        poll(lambda: prop("Metrics", "Interval") == 1000000, "Interval at the page's 1 s again")
        poll(lambda: CockpitSession.enter_page_frame(p.d), "the page's frame")
        p.wait("return document.body.dataset.subscribed === 'true'", "subscribed again")


ACTIVATION_FILE = "/usr/share/dbus-1/system-services/org.jetsond.Jetson1.service"


def install_activation_file():
    """jetsond's D-Bus activation file in the root, as the jetsond package
    installs it: the manifest's condition for the page."""
    shutil.copy(os.path.join(SOURCE_DIR, "dbus", "org.jetsond.Jetson1.service"), Page.ROOT.host(ACTIVATION_FILE))


def test_manifest_conditions():
    """Debian 13's Cockpit honours the manifest's "conditions": the bridge
    lists the page only where jetsond's D-Bus activation file exists (the
    jetsond package installs it)."""
    session = CockpitSession("unix:path=/nonexistent", root=Page.ROOT)
    try:
        def listed():
            out = subprocess.run(Page.ROOT.command(["cockpit-bridge", "--packages"], session.env),
                                 check=True, capture_output=True, text=True).stdout
            return any(line.split()[:1] == ["jetsond"] for line in out.splitlines())
        assert listed(), "not listed with jetsond's activation file"
        os.unlink(Page.ROOT.host(ACTIVATION_FILE))
        try:
            assert not listed(), "listed without jetsond's activation file"
        finally:
            install_activation_file()
    finally:
        session.close()


# In Debian 13's Cockpit: what differs from one Cockpit to another (its
# bridge, its shell, its CSS and CSP), not the page's own logic again.
DEBIAN13_TESTS = ["test_identity_and_values", "test_chart_grows_while_visible", "test_allowed_writes",
                  "test_jetsond_restarts", "test_screenshots_and_phone_width", "test_in_cockpit_shell",
                  "test_manifest_conditions"]

if __name__ == "__main__":
    os.makedirs(ARTIFACTS, exist_ok=True)
    tests = [test_identity_and_values, test_throttle_alert, test_process_table_sorts, test_process_command_lines,
             test_chart_grows_while_visible,
             test_denied_write, test_allowed_writes, test_gpu_caches_and_restore, test_board_without_fan, test_jetsond_restarts,
             test_labels_and_keyboard, test_screenshots_and_phone_width, test_in_cockpit_shell]
    only = [a for a in ARGS[3:] if a.startswith("test_")]
    if ROOT_CACHE is None:
        sys.exit(run_tests([t for t in tests if not only or t.__name__ in only]))
    Page.ROOT = debian13.Overlay(debian13.cached_root(ROOT_CACHE))
    try:
        # Every stack's directory, and so its bus socket, inside the root.
        tempfile.tempdir = Page.ROOT.host("/tmp")
        install_activation_file()
        tests.append(test_manifest_conditions)
        sys.exit(run_tests([t for t in tests if t.__name__ in DEBIAN13_TESTS and (not only or t.__name__ in only)]))
    finally:
        Page.ROOT.close()
