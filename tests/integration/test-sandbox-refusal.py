#!/usr/bin/python3
"""A sandbox that hides a file jetsond needs is said, once, by path
(issue 34, item 4):

    test-sandbox-refusal.py JETSOND

jetsond serves a copy of the AGX Orin (JetPack 6) from a private mount
namespace (unshare -m) in which, as a systemd unit's rules would, the fan's
pwm1 and /proc/sys/vm/drop_caches are read-only bind mounts, and without
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (as under the unit's
CapabilityBoundingSet=) the GPU thermal zone's temp file has mode 000.
Asserted: the log says "PATH: not accessible under this service's sandbox
(ERROR); see jetsond.service" exactly once per path however many samples
and calls met it; the zone's key is absent (not 0); Fan.SetSpeed and
Memory.DropCaches answer org.jetsond.Jetson1.Error.Failed with that text,
every time, and change nothing; and without the sandbox the same calls
succeed (so the refusal is the sandbox's doing)."""

import os
import re
import subprocess
import sys
import time

import dbus
import dbus.bus

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND = os.path.abspath(sys.argv[1])
NAME, ROOT_PATH, PREFIX = "org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1."
SANDBOX = "not accessible under this service's sandbox"
PWM = "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"
DROP = "proc/sys/vm/drop_caches"
ZONE = "sys/devices/virtual/thermal/thermal_zone1/temp"      # gpu-thermal: temp.gpu
ACTIONS = [PREFIX + "set-fan", PREFIX + "drop-caches"]


def call(bus, path, iface, method, sig="", args=()):
    try:
        bus.call_blocking(NAME, path, PREFIX + iface, method, sig, list(args), timeout=60)
        return "", ""
    except dbus.exceptions.DBusException as e:
        return e.get_dbus_name(), e.get_dbus_message()


class SandboxedStack(harness.Stack):
    def start_sandboxed(self):
        """jetsond in a mount namespace of its own with PWM and DROP
        read-only, and without the DAC capabilities."""
        script = (f'set -e; for f in "{self.root}/{PWM}" "{self.root}/{DROP}"; do '
                  'mount --bind "$f" "$f"; mount -o remount,bind,ro "$f"; done; '
                  'exec setpriv --bounding-set -dac_override,-dac_read_search "$@"')
        self.daemon_log = open(os.path.join(self.dir, "jetsond.log"), "ab")
        self.daemon = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
             self.jetsond_path, "--sysroot", self.root, "--system", "--interval", "100"],
            stderr=self.daemon_log)
        harness.wait_for(self.name_owned, 30, "jetsond on the bus")

    def log(self):
        return open(os.path.join(self.dir, "jetsond.log"), errors="replace").read()


def snapshot(bus):
    return bus.call_blocking(NAME, ROOT_PATH, PREFIX + "Metrics", "GetSnapshot", "", [], timeout=60)


def sample_times(bus):
    return snapshot(bus)[0]


def test_refusals_said_once():
    with SandboxedStack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.start_systemd_with_nvfancontrol()
        stack.polkit_allow(ACTIONS)
        os.chmod(os.path.join(stack.root, ZONE), 0)
        pwm_before = open(os.path.join(stack.root, PWM)).read()
        stack.start_sandboxed()
        bus = dbus.bus.BusConnection(stack.address)
        try:
            # Many samples (every 100 ms) and each write twice.
            first = sample_times(bus)
            harness.wait_for(lambda: sample_times(bus) > first + 1_000_000, 5, "ten samples")
            answers = [call(bus, ROOT_PATH + "/fan/0", "Fan", "SetSpeed", "d", [80.0]) for _ in range(2)]
            answers += [call(bus, ROOT_PATH, "Memory", "DropCaches") for _ in range(2)]
            values = snapshot(bus)[1]
        finally:
            bus.close()
        assert stack.stop_daemon() == 0
        log = stack.log()

        for name, message in answers:
            assert name == PREFIX + "Error.Failed", (name, message)
            assert re.search(r"(pwm1|drop_caches): " + re.escape(SANDBOX) +
                             r" \(Read-only file system\); see jetsond\.service", message), message
        assert open(os.path.join(stack.root, PWM)).read() == pwm_before, "the read-only pwm1 changed"

        assert "temp.gpu" not in values, f"temp.gpu read as {values.get('temp.gpu')} from an unreadable file"
        assert "temp.cpu" in values, "the other zones must still be read"
        for what, error in ((os.path.basename(os.path.dirname(ZONE)) + "/temp", "Permission denied"),
                            ("pwm1", "Read-only file system"), ("drop_caches", "Read-only file system")):
            # The path's own warning ("<4>PATH: not accessible ..."); each
            # failed call is logged as well, as every failed call is.
            lines = [ln for ln in log.splitlines()
                     if re.search(r"^(<\d>)?/\S*" + re.escape(what) + ": " + re.escape(SANDBOX) + r" \(" + error +
                                  r"\); see jetsond\.service", ln)]
            assert len(lines) == 1, f"{what}: {len(lines)} sandbox lines in the log, want 1:\n" + "\n".join(lines)


def test_no_sandbox_no_refusal():
    """The same calls on the same board without the sandbox succeed and
    log nothing of the kind: the refusals above are the sandbox's."""
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.start_systemd_with_nvfancontrol()
        stack.polkit_allow(ACTIONS)
        stack.start_daemon()
        bus = dbus.bus.BusConnection(stack.address)
        try:
            assert call(bus, ROOT_PATH + "/fan/0", "Fan", "SetSpeed", "d", [80.0]) == ("", "")
            assert call(bus, ROOT_PATH, "Memory", "DropCaches") == ("", "")
            assert "temp.gpu" in snapshot(bus)[1]
        finally:
            bus.close()
        assert stack.stop_daemon() == 0
        log = open(os.path.join(stack.dir, "jetsond.log"), errors="replace").read()
        assert SANDBOX not in log, log


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("needs root (mount namespaces, bind mounts)")
        sys.exit(77)
    start = time.monotonic()
    status = harness.run_tests([test_refusals_said_once, test_no_sandbox_no_refusal])
    print(f"figure: sandbox refusal tests {time.monotonic() - start:.1f} s")
    sys.exit(status)
