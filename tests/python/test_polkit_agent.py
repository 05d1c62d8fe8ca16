"""Interactive authorization with the real polkitd: a write from
jetsond.Jetson() made by an unprivileged user (bin, for whom the shipped
policy says auth_admin) is answered by an authentication agent, as a
desktop's or pkttyagent's would be.

The agent is registered by root for the caller's process (a unix-process
subject, as `pkttyagent --process PID` does) and implements polkit's
AuthenticationAgent interface on the private bus. When it agrees it tells
polkitd the admin identity authenticated, as polkit-agent-helper-1 does
after PAM (root may call AuthenticationAgentResponse2); when it refuses it
answers BeginAuthentication with polkit's Cancelled error, as a user who
dismisses the dialog. So the whole path is real: jetsond passes
allow-interactive-authorization on to polkitd, polkitd finds the agent,
asks it, and the write lands or the caller gets AccessDenied. What the
C test test-polkit cannot see (no agent runs there) is seen here: without
the flag (interactive=False) the agent is never asked and the caller gets
InteractiveAuthorizationRequired.

polkitd runs as in tests/integration/test-polkit.c: start-polkitd.sh, the
shipped actions and example rule and the test rules, in a private mount
namespace. Needs root, the user bin and mount namespaces; skipped
otherwise."""

import os
import pwd
import shutil
import subprocess
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(SOURCE, "python"))
from harness import Stack, wait_for  # noqa: E402

from jeepney import DBusAddress, MessageType, new_error, new_method_call, new_method_return  # noqa: E402
from jeepney.io.blocking import open_dbus_connection  # noqa: E402

JETSOND = os.environ["JETSOND"]
AUTHORITY = DBusAddress("/org/freedesktop/PolicyKit1/Authority", bus_name="org.freedesktop.PolicyKit1",
                        interface="org.freedesktop.PolicyKit1.Authority")
AGENT_PATH = "/org/jetsond/test/AuthenticationAgent"
AGENT_IFACE = "org.freedesktop.PolicyKit1.AuthenticationAgent"
FAN_ACTION = "org.jetsond.Jetson1.set-fan"

# The caller: waits until the agent is registered for its process, then
# writes the fan speed and prints what happened.
CALLER = r"""
import sys
import jetsond
print("ready", flush=True)
sys.stdin.readline()
percent, interactive = int(sys.argv[1]), sys.argv[2] == "1"
with jetsond.Jetson(interactive=interactive) as j:
    try:
        j.set_fan_speed(percent)
        print("written")
    except jetsond.AccessDenied as e:
        print("refused", type(e).__name__, e.dbus_name, str(e).replace("\n", " "))
"""


def start_time(pid):
    """The process's start time in clock ticks (/proc/PID/stat field 22), which
    polkit keeps with the pid so that a reused pid is not the same subject."""
    stat = open("/proc/%d/stat" % pid).read()
    return int(stat.rsplit(")", 1)[1].split()[19])


class Agent:
    """polkit's AuthenticationAgent for one process, on its own thread.
    `allow` says how it answers; `asked` lists (action id, identities)."""

    def __init__(self, pid, allow):
        self.allow = allow
        self.asked = []
        self.conn = open_dbus_connection(bus="SYSTEM")
        subject = ("unix-process", {"pid": ("u", pid), "start-time": ("t", start_time(pid))})
        self.subject = subject
        reply = self.conn.send_and_get_reply(new_method_call(AUTHORITY, "RegisterAuthenticationAgent", "(sa{sv})ss",
                                                             (subject, "C", AGENT_PATH)), timeout=30)
        assert reply.header.message_type == MessageType.method_return, reply.body
        self.stopping = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stopping:
            try:
                msg = self.conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            h = msg.header
            if h.message_type != MessageType.method_call:
                continue
            member = h.fields.get(3)  # HeaderFields.member
            if member == "BeginAuthentication":
                action_id, _message, _icon, _details, cookie, identities = msg.body
                self.asked.append((action_id, identities))
                if self.allow:
                    # What polkit-agent-helper-1 tells polkitd after PAM
                    # accepted the password of identities[0] (uid 0 may).
                    with open_dbus_connection(bus="SYSTEM") as helper:
                        r = helper.send_and_get_reply(new_method_call(
                            AUTHORITY, "AuthenticationAgentResponse2", "us(sa{sv})", (0, cookie, identities[0])),
                            timeout=30)
                        assert r.header.message_type == MessageType.method_return, r.body
                    self.conn.send(new_method_return(msg))
                else:
                    self.conn.send(new_error(msg, "org.freedesktop.PolicyKit1.Error.Cancelled", "s",
                                             ("The user dismissed the dialog (test agent)",)))
            elif member == "CancelAuthentication":
                self.conn.send(new_method_return(msg))
            else:
                self.conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (str(member),)))

    def close(self):
        self.stopping = True
        self.thread.join(timeout=30)
        self.conn.send_and_get_reply(new_method_call(AUTHORITY, "UnregisterAuthenticationAgent", "(sa{sv})s",
                                                     (self.subject, AGENT_PATH)), timeout=30)
        self.conn.close()


def group_file(path):
    """The host's /etc/group plus a "jetson" group for the example rule,
    seen by polkitd alone (as test-polkit.c writes it)."""
    lines = [l for l in open("/etc/group").read().splitlines() if l and not l.startswith("jetson:")]
    used = {int(l.split(":")[2]) for l in lines if l.count(":") >= 3 and l.split(":")[2].isdigit()}
    gid = next(g for g in range(60000, 65000) if g not in used)
    with open(path, "w") as f:
        f.write("\n".join(lines + ["jetson:x:%d:nobody" % gid]) + "\n")
    os.chmod(path, 0o644)


def polkit_on_bus():
    return subprocess.run(["busctl", "--system", "status", "org.freedesktop.PolicyKit1"],
                          capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def world():
    if os.geteuid() != 0:
        pytest.skip("needs root (polkitd, and calls as another user)")
    try:
        pwd.getpwnam("bin")
    except KeyError:
        pytest.skip("the user bin must exist")
    with Stack(JETSOND, None) as s:
        pk = os.path.join(s.dir, "polkit")
        actions, rules = os.path.join(pk, "actions"), os.path.join(pk, "rules.d")
        os.makedirs(actions)
        os.makedirs(rules)
        shutil.copy(os.path.join(SOURCE, "polkit", "org.jetsond.Jetson1.policy"), actions)
        shutil.copy(os.path.join(SOURCE, "polkit", "50-jetsond-jetson-group.rules.example"),
                    os.path.join(rules, "50-jetsond-jetson-group.rules"))
        shutil.copy(os.path.join(SOURCE, "tests", "integration", "polkit-test.rules"),
                    os.path.join(rules, "10-jetsond-test.rules"))
        group_file(os.path.join(pk, "group"))
        log = open(os.path.join(s.dir, "polkitd.log"), "ab")
        polkitd = subprocess.Popen(["sh", os.path.join(SOURCE, "tests", "integration", "start-polkitd.sh"),
                                    actions, rules, os.path.join(pk, "group")], stdout=log, stderr=log)
        s.procs.append(polkitd)
        try:
            wait_for(lambda: polkitd.poll() is not None or polkit_on_bus(), 30, "polkitd on the bus")
        except AssertionError:
            raise AssertionError(open(os.path.join(s.dir, "polkitd.log"), errors="replace").read())
        if polkitd.poll() is not None:
            text = open(os.path.join(s.dir, "polkitd.log"), errors="replace").read()
            if polkitd.returncode == 77:
                pytest.skip(text.strip())
            raise AssertionError("polkitd exited with %d:\n%s" % (polkitd.returncode, text))
        s.start_systemd_with_nvfancontrol()
        s.start_daemon()  # after polkitd: jetsond connects to it at start
        yield s


def call_as_bin(percent, allow, interactive=True):
    """Runs CALLER as bin with an agent that answers ALLOW registered for it;
    returns (the caller's last line, what the agent was asked)."""
    user = pwd.getpwnam("bin")

    def drop():
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"), PYTHONDONTWRITEBYTECODE="1", HOME="/")
    child = subprocess.Popen(["/usr/bin/python3", "-c", CALLER, str(percent), "1" if interactive else "0"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, preexec_fn=drop, env=env, cwd="/")
    agent = None
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        agent = Agent(child.pid, allow)
        out, err = child.communicate("go\n", timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if agent:
            agent.close()
    assert child.returncode == 0, err
    return out.strip().splitlines()[-1], agent.asked


def fan_pwm(world):
    import jetsond
    with jetsond.Jetson(world.address) as j:
        return j.snapshot()["fan.0.pwm"]


def test_agent_allows_and_the_write_lands(world):
    before = fan_pwm(world)
    assert before != 204
    line, asked = call_as_bin(80, allow=True)
    assert line == "written", line
    assert [a for a, _ in asked] == [FAN_ACTION], asked
    # auth_admin: polkitd asks for an administrator; with no admin rule, root.
    assert ("unix-user", {"uid": ("u", 0)}) in asked[0][1], asked
    wait_for(lambda: fan_pwm(world) == 204, 30, "fan PWM 204 (80 %)")


def test_agent_refuses_and_nothing_changes(world):
    before = fan_pwm(world)
    line, asked = call_as_bin(30, allow=False)
    assert line.startswith("refused AccessDenied org.freedesktop.DBus.Error.AccessDenied"), line
    assert [a for a, _ in asked] == [FAN_ACTION], asked
    assert fan_pwm(world) == before


def test_without_the_flag_no_agent_is_asked(world):
    """interactive=False: jetsond does not pass the flag on, polkitd asks no
    agent, and the challenge comes back as InteractiveAuthorizationRequired."""
    before = fan_pwm(world)
    line, asked = call_as_bin(30, allow=True, interactive=False)
    assert line.startswith("refused InteractiveAuthorizationRequired "
                           "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"), line
    assert asked == []
    assert fan_pwm(world) == before
