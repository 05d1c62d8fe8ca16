#!/usr/bin/python3
"""jetsonctl top in a real terminal (tmux), against jetsond on a private
system bus with python-dbusmock's polkitd and systemd:

    test-top.py JETSOND JETSONCTL

The AGX Orin fake board is static here, so the screen's values are the
fixture's (tests/fixtures/agx-orin-jp62.expected.md)."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)
from board_procs import add_process, fixture_start, real_start, remove_process  # noqa: E402

JETSOND, JETSONCTL = (os.path.abspath(a) for a in sys.argv[1:3])
# The fake NVML for the PC board's two GPUs (optional: without it those
# tests are left out and say so).
FAKE_NVML = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
SOCKET = f"jetsonctl-top-test-{os.getpid()}"
# The process list's title row: nvitop's columns, the GPU contexts (C, G,
# C+G) untitled between PID and USER.
LIST_HEADER = re.compile(r"PID +USER")
SESSIONS = 0


def tmux(*args, check=True):
    # The environment of now: the stack has set DBUS_SYSTEM_BUS_ADDRESS.
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    return subprocess.run(["tmux", "-L", SOCKET, *args], env=env, capture_output=True, text=True, check=check).stdout


class Top:
    """jetsonctl top in a detached tmux session of WIDTH x HEIGHT; its exit
    status lands in a file when it ends."""

    def __init__(self, stack, width, height, args=(), env=None, wrapper=""):
        # A server of its own: a new session on the socket of a server
        # still going away fails.
        global SOCKET, SESSIONS
        SESSIONS += 1
        SOCKET = f"jetsonctl-top-test-{os.getpid()}-{SESSIONS}"
        self.status_file = os.path.join(stack.dir, "top.status")
        if os.path.exists(self.status_file):
            os.unlink(self.status_file)
        command = " ".join([wrapper, JETSONCTL, "top", *args]).strip()
        prefix = " ".join(f"{k}={v}" for k, v in (env or {}).items())
        self.height = height
        tmux("new-session", "-d", "-x", str(width), "-y", str(height),
             f"{prefix} {command}; echo $? > {self.status_file}; sleep 60")

    def screen(self, escapes=False):
        return tmux("capture-pane", "-p", *(["-e"] if escapes else []))

    def lines(self):
        return self.screen().split("\n")

    def wait_for(self, predicate, what, timeout=10):
        """The screen, once PREDICATE holds for it."""
        return harness.wait_for(lambda: (lambda s: s if predicate(s) else None)(self.screen()), timeout,
                                f"{what}; the screen:\n{self.screen()}")

    def wait_for_frame(self, predicate, what, timeout=10):
        """The screen once PREDICATE holds for a whole frame: the footer
        drawn on the last line and the same screen captured twice in a row.
        curses writes a frame in pieces, top to bottom, and on a busy machine
        a capture can fall between them; a test that asserts on what it did
        not wait for must wait for this instead."""
        previous = [None]

        def whole():
            s = self.screen()
            lines = s.split("\n")
            done = (s == previous[0] and len(lines) >= self.height and
                    lines[self.height - 1].startswith(" q quit") and predicate(s))
            previous[0] = s
            return s if done else None
        return harness.wait_for(whole, timeout, f"{what}, drawn whole; the screen:\n{self.screen()}")

    def keys(self, *keys):
        tmux("send-keys", *keys)

    def sgr_click(self, x, y):
        """A left click at column X, row Y (0-based) as an SGR report
        (mode 1006: 1-based, any size): press, then release."""
        for end in ("M", "m"):
            tmux("send-keys", "-l", f"\x1b[<0;{x + 1};{y + 1}{end}")

    def click(self, x, y):
        """A left click at column X, row Y (0-based): press and release as
        a terminal reports them in the mode ncurses asked tmux for (X10
        encoding, 32 + button, 32 + 1-based column and row)."""
        for button in (0, 3):
            tmux("send-keys", "-l", "\x1b[M" + chr(32 + button) + chr(33 + x) + chr(33 + y))

    def exit_status(self):
        harness.wait_for(lambda: os.path.exists(self.status_file) and open(self.status_file).read().strip(), 10,
                         "jetsonctl top to end")
        return int(open(self.status_file).read())

    def close(self):
        tmux("kill-server", check=False)
        harness.wait_for(lambda: subprocess.run(["tmux", "-L", SOCKET, "has-session"],
                                                capture_output=True).returncode != 0, 10, "tmux to end")


def interval(stack):
    out = subprocess.run(["busctl", "--system", "get-property", "org.jetsond.Jetson1", "/org/jetsond/Jetson1",
                          "org.jetsond.Jetson1.Metrics", "Interval"], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[1])


def calls(stack):
    path = os.path.join(stack.root, ".fake", "calls.log")
    return open(path).read() if os.path.exists(path) else ""


def test_layout_80x24(stack):
    top = Top(stack, 80, 24)
    try:
        screen = top.wait_for_frame(lambda s: LIST_HEADER.search(s) and process_rows(s), "the process list")
        lines = screen.split("\n")
        assert lines[0].startswith("NVIDIA Jetson AGX Orin Developer Kit - JetPack 6.2  up 0d 03:25"), lines[0]
        assert lines[1].startswith("mode MAXN  jetson_clocks off  fan0 cool 40% 2100 rpm"), lines[1]
        # 12 cores in two columns of six; the fixture's frequencies (kHz) in
        # whole MHz as every command (and tegrastats) shows them
        assert re.match(r"CPU0 +\[ +\] +- +729 MHz +CPU6 ", lines[2]), lines[2]
        assert re.match(r"CPU5 .* 2201 MHz +CPU11 .* 1728 MHz$", lines[7].rstrip()), lines[7]
        assert re.match(r"GPU +\[\|+ +\] +35% +306 MHz \(306-1300\)", lines[8]), lines[8]
        assert re.match(r"EMC +\[\|+ +\] +20% +2133 MHz \(204-3199\)", lines[9]), lines[9]
        assert lines[10].startswith("RAM   3577 MiB/62795 MiB ["), lines[10]   # MiB, as every command
        assert "swap 3.8 MiB/31397 MiB" in lines[10] and "GPU shared 512 MiB" in lines[10], lines[10]
        assert lines[11].startswith("Power  board ~7113 mW"), lines[11]
        assert "VDD_GPU_SOC          2392 mW" in screen and "VIN_SYS_5V0          4020 mW" in screen
        assert "tj 46.5°C" in screen and "cpu 46.5°C" in screen
        assert "DLA1 1600" in screen and "VIC 115" in screen and "NVENC" not in screen  # engines that are on
        header = next(i for i, line in enumerate(lines) if LIST_HEADER.search(line))
        first = lines[header + 1].split()
        # nvitop's columns: the GPU (the SoC's own here), PID (and its contexts, none known on the SoC's GPU),
        # user, GPU memory, SM, CPU, share of RAM, running time (the fixture's start: years ago), command
        assert lines[header].split() == ["GPU", "PID", "USER", "GPU-MEM", "%SM", "%CPU", "%MEM", "TIME", "COMMAND"]
        assert first[:8] == ["SoC", "5120", "nvidia", "256", "MiB", "-", "0.0", "1.6"], lines[header + 1]
        assert first[9:] == ["days", "python3"], lines[header + 1]
        assert abs(float(first[8]) - (time.time() - fixture_start(stack, 5120)) / 86400) < 0.2, lines[header + 1]
        assert len(lines) >= 24 and lines[23].startswith(" q quit  Tab/1-8 Overview  s sort (GPU-MEM)  / filter  h help"), \
            lines[23]
        assert all(len(line) <= 80 for line in lines)
    finally:
        top.close()


def test_layout_160x50_and_resize(stack):
    top = Top(stack, 160, 50)
    try:
        lines = top.wait_for_frame(lambda s: LIST_HEADER.search(s) and process_rows(s), "the process list").split("\n")
        # four columns of cores: CPU0, CPU3, CPU6, CPU9 on one row
        assert re.match(r"CPU0 .*CPU3 .*CPU6 .*CPU9 ", lines[2]), lines[2]
        rails = next(line for line in lines if "VDD_GPU_SOC" in line)
        assert "VDD_CPU_CV" in rails and "VIN_SYS_5V0" in rails and "VDDQ_VDD2_1V8AO" in rails, rails
        assert sum(1 for line in lines if re.match(r"SoC +\d+ +(root|nvidia) ", line)) == 5
        assert lines[49].startswith(" q quit")
        tmux("resize-window", "-x", "100", "-y", "30")
        top.wait_for(lambda s: re.match(r"CPU0 .*CPU6 ", s.split("\n")[2]) and len(s.split("\n")) >= 30 and
                     s.split("\n")[29].startswith(" q quit"), "the layout for 100x30")
    finally:
        top.close()


def process_rows(screen):
    lines = screen.split("\n")
    header = next(i for i, line in enumerate(lines) if LIST_HEADER.search(line))
    rows = []
    for line in lines[header + 1:]:
        if not re.match(r"(SoC|\d+) +\d+ ", line):
            break
        rows.append(line.split())
    return rows


def test_sort_keys(stack):
    """Every column both ways, by keys and by clicks on the titles."""
    top = Top(stack, 80, 30)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the process list")

        def pids(what, predicate=lambda s: True):
            screen = top.wait_for(lambda s: what in s and predicate(s), what)
            return [r[1] for r in process_rows(screen)]

        assert pids("sort (GPU-MEM)") == ["5120", "5377", "4102", "1834", "2351"]
        top.keys("r")
        assert pids("sort (GPU-MEM, reversed)") == ["2351", "1834", "4102", "5377", "5120"]
        top.keys("s")    # %SM: none has one, by PID
        assert pids("sort (%SM)") == ["1834", "2351", "4102", "5120", "5377"]
        top.keys("s")
        top.keys("s")    # %MEM: RSS of RAM
        assert pids("sort (%MEM)") == ["5120", "2351", "4102", "1834", "5377"]
        top.keys("s")    # TIME: the longest running first
        assert pids("sort (TIME)") == ["1834", "2351", "4102", "5120", "5377"]
        top.keys("r")
        assert pids("sort (TIME, reversed)") == ["5377", "5120", "4102", "2351", "1834"]
        top.keys("s")
        assert pids("sort (COMMAND)") == ["5377", "2351", "5120", "4102", "1834"]   # "(my) app" first, any case
        top.keys("r")
        assert pids("sort (COMMAND, reversed)") == ["1834", "4102", "5120", "2351", "5377"]
        top.keys(">")    # round to the first column
        assert pids("sort (GPU)") == ["1834", "2351", "4102", "5120", "5377"]
        top.keys("<")
        assert pids("sort (COMMAND)")[0] == "5377"
        top.keys("<")
        assert pids("sort (TIME)")[0] == "1834"
        top.keys("<")
        top.keys("<")
        assert pids("sort (%CPU)")[0] == "1834"
        # a click on a column title sorts by it, a second one turns it round
        header = next(i for i, line in enumerate(top.lines()) if LIST_HEADER.search(line))
        top.click(7, header)
        assert pids("sort (PID)") == ["1834", "2351", "4102", "5120", "5377"]
        top.click(7, header)
        assert pids("sort (PID, reversed)") == ["5377", "5120", "4102", "2351", "1834"]
        top.click(17, header)
        assert pids("sort (USER)") == ["2351", "4102", "5120", "5377", "1834"]
    finally:
        top.close()


def test_filter_and_selection(stack):
    top = Top(stack, 80, 24)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the process list")
        # judged on the frame that shows the filter applied: one drawn
        # while the keys were still arriving may show the prompt over the
        # whole list (seen once on a loaded machine)
        top.keys("/", "root", "Enter")
        top.wait_for(lambda s: "filter: root" in s and [r[1] for r in process_rows(s)] == ["1834"],
                     "the filter leaving root's process only")
        top.keys("/", "BSpace", "BSpace", "BSpace", "BSpace", "5120", "Enter")
        top.wait_for(lambda s: "filter: 5120" in s and [r[1] for r in process_rows(s)] == ["5120"],
                     "the PID filter leaving 5120 only")
        top.keys("/", "BSpace", "BSpace", "BSpace", "BSpace", "nothing-like-it", "Enter")
        top.wait_for(lambda s: "no process matches the filter" in s, "an empty list")
        top.keys("Escape")
        screen = top.wait_for(lambda s: "filter:" not in s and len(process_rows(s)) == 5, "the filter cleared")
        # the selection, shown in reverse video, moves with the keys and a click
        top.keys("Down")
        top.wait_for(lambda s: is_selected(top, "5120"), "5120 selected")
        assert not is_selected(top, "5377")
        top.keys("j")
        top.wait_for(lambda s: is_selected(top, "5377") and not is_selected(top, "5120"), "5377 selected")
        header = next(i for i, line in enumerate(top.lines()) if LIST_HEADER.search(line))
        top.click(20, header + 4)
        top.wait_for(lambda s: is_selected(top, "1834"), "1834 selected by a click")
    finally:
        top.close()


def test_signals(stack):
    """A signal to a process the test started ends it after a 'y'; one to
    a PID this machine runs under another command is refused; as another
    user, other users' processes are dimmed and refused before anything."""
    sleeper = subprocess.Popen(["sleep", "600"])
    add_process(stack, sleeper.pid, "sleep")
    top = Top(stack, 80, 24)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s) and f" {sleeper.pid} " in s, "the test's process in the list")
        top.keys("/", str(sleeper.pid), "Enter", "Down", "T")
        top.wait_for(lambda s: f"Send SIGTERM to PID {sleeper.pid} (sleep)? y/n" in s, "the confirmation")
        top.keys("n")
        top.wait_for(lambda s: "Not sent" in s, "no signal")
        assert sleeper.poll() is None
        top.keys("T")
        top.wait_for(lambda s: "? y/n" in s, "the confirmation")
        top.keys("y")
        top.wait_for(lambda s: f"Sent SIGTERM to PID {sleeper.pid} (sleep)" in s, "the signal sent")
        assert sleeper.wait(timeout=30) == -15
        # the fixture's Xorg is not this machine's process 1834 (or there is none)
        top.keys("/", *["BSpace"] * 8, "1834", "Enter", "Down", "K")
        top.wait_for(lambda s: "Send SIGKILL to PID 1834 (Xorg)? y/n" in s, "the confirmation")
        top.keys("y")
        top.wait_for(lambda s: re.search(r"Refused: PID 1834 (is not running on this machine|here is .*, not Xorg)", s),
                     "the refusal")
    finally:
        top.close()
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
        remove_process(stack, sleeper.pid, "sleep")
    # not root: nvidia's and root's processes are others'
    top = Top(stack, 80, 24, env={"SETPRIV": ""}, wrapper="setpriv --reuid=nobody --regid=nogroup --clear-groups")
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the list as nobody")
        line = selected_line(top, "5120")
        assert re.search(r"\x1b\[([0-9;]*;)?2(;[0-9;]*)?m", line), f"another user's process not dimmed: {line!r}"
        top.keys("Down", "I")
        top.wait_for(lambda s: "Send SIGINT to PID 5120 (python3)? y/n" in s, "the confirmation")
        top.keys("y")
        top.wait_for(lambda s: "Refused: PID 5120 is nvidia's; only root signals other users' processes" in s,
                     "the refusal as nobody")
    finally:
        top.close()


def test_environment_screen(stack):
    """Issue 42: 'e' shows the selected process's environment, read by
    jetsonctl from /proc with the caller's rights: the test's own child's as
    its user; as nobody, the same (root's) process is "not permitted"."""
    sleeper = subprocess.Popen(["sleep", "600"], env={"TRAINING_RUN": "issue42", "PATH": "/usr/bin:/bin"})
    add_process(stack, sleeper.pid, "sleep")
    try:
        for wrapper, want in ((None, "TRAINING_RUN=issue42"), ("setpriv --reuid=nobody --regid=nogroup --clear-groups",
                                                              "not permitted")):
            top = Top(stack, 80, 24, **({"env": {"SETPRIV": ""}, "wrapper": wrapper} if wrapper else {}))
            try:
                top.wait_for(lambda s: LIST_HEADER.search(s) and f" {sleeper.pid} " in s, "the test's process")
                top.keys("/", str(sleeper.pid), "Enter", "Down", "e")
                top.wait_for(lambda s: f"Environment of process {sleeper.pid}" in s and want in s, want)
                top.keys("Escape")
                top.wait_for(lambda s: LIST_HEADER.search(s) and "Environment of" not in s, "the list back")
            finally:
                top.close()
    finally:
        sleeper.kill()
        sleeper.wait()
        remove_process(stack, sleeper.pid, "sleep")


def test_command_lines(stack):
    """COMMAND is the whole command line where the caller may read it, read
    by jetsonctl from /proc with its own rights: the test's python3 with its
    arguments, found by the filter by one of them; as nobody under a /proc
    with hidepid=invisible (root's process hidden), its name alone. The
    fixture's processes, whose PIDs this machine may run under other
    commands and starts, keep their names."""
    marker = f"--jetsond-run={os.getpid()}"
    worker = subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(600)", marker])
    harness.wait_for(lambda: open(f"/proc/{worker.pid}/cmdline").read().endswith(marker + "\0"), 30,
                     "the worker's command line")
    # jetsond's start time for it is this machine's: the same process
    add_process(stack, worker.pid, "python3", start=real_start(worker.pid))
    line = f"/usr/bin/python3 -c import time; time.sleep(600) {marker}"
    try:
        # jetsonctl status reads them the same way (once jetsond lists it)
        def status():
            return subprocess.run([JETSONCTL, "status"], capture_output=True, text=True, check=True).stdout
        harness.wait_for(lambda: f" {worker.pid} " in status(), 30, "the worker in jetsond's list")
        text = status()
        assert re.search(rf"\b{worker.pid} +\S+ .*  {re.escape(line)}$", text, re.M), text
        doc = json.loads(subprocess.run([JETSONCTL, "status", "--json"], capture_output=True, text=True,
                                        check=True).stdout)
        assert doc["commands"].get(str(worker.pid)) == line, doc["commands"]
        assert "5120" not in doc["commands"], doc["commands"]
        top = Top(stack, 160, 30)
        try:
            top.wait_for(lambda s: LIST_HEADER.search(s) and line in s, "the whole command line")
            screen = top.screen()
            # the fixture's python3 (PID 5120) is the board's, not this machine's
            assert any(r[1] == "5120" and r[-1] == "python3" for r in process_rows(screen)), screen
            top.keys("/", *marker[2:14], "Enter")
            top.wait_for(lambda s: "filter: " in s and [r[1] for r in process_rows(s)] == [str(worker.pid)],
                         "the filter by an argument")
        finally:
            top.close()
        hidden = ("unshare --mount --propagation private /bin/sh -c 'mount -t proc -o hidepid=invisible proc /proc"
                  " && exec setpriv --reuid=nobody --regid=nogroup --clear-groups \"$0\" \"$@\"'")
        top = Top(stack, 160, 30, env={"SETPRIV": ""}, wrapper=hidden)
        try:
            top.wait_for(lambda s: LIST_HEADER.search(s) and any(r[1] == str(worker.pid) and r[-1] == "python3"
                                                                 for r in process_rows(s)),
                         "the name alone, the process hidden from nobody")
            assert marker not in top.screen()
        finally:
            top.close()
    finally:
        worker.kill()
        worker.wait()
        remove_process(stack, worker.pid, "python3")


def test_tree(stack):
    """'t' shows the list as a tree from jetsond's process.PID.ppid (never
    this machine's /proc): a process the board runs under the fixture's
    python3 5120 is its child; the fixture's others, whose parents jetsond
    does not list, stay roots (a parent known by its PID alone is shown
    only over two or more)."""
    add_process(stack, 7001, "worker", ppid=5120)
    try:
        tree_at_sizes(stack)
    finally:
        remove_process(stack, 7001, "worker")


def tree_at_sizes(stack):
    for width, height in ((80, 24), (120, 45)):
        top = Top(stack, width, height)
        try:
            top.wait_for(lambda s: " 7001 " in s, "the child in the list")
            top.keys("t")
            rows = 6 if height > 24 else 2
            screen = top.wait_for_frame(lambda s: "└ worker" in s and "tree" in s and len(process_rows(s)) >= rows,
                                        f"the tree at {width}x{height}")
            lines = screen.split("\n")
            child = next(i for i, line in enumerate(lines) if "└ worker" in line)
            parent = lines[child - 1]
            assert re.match(r"SoC +5120 .* python3$", parent.rstrip()), parent
            assert parent.index("python3") + 2 == lines[child].index("worker"), (parent, lines[child])
            assert re.match(r"SoC +7001 ", lines[child]), lines[child]
            # no row for a parent outside jetsond's list: each row a process of the board
            pids = [r[1] for r in process_rows(screen)]
            assert set(pids) <= {"1834", "2351", "4102", "5120", "5377", "7001"} and len(set(pids)) == len(pids), pids
            assert "└" not in screen.replace("└ worker", ""), screen
            top.keys("t")
            top.wait_for(lambda s: "└" not in s and "tree" not in s, "the flat list again")
        finally:
            top.close()


def test_time_column(stack):
    """TIME is the running time from jetsond's process.PID.start_time and
    the sample's time, as nvitop writes it: H:MM:SS for a process the
    board started an hour ago (bounded by the clock around the capture,
    never by how fast this machine is), days for the fixture's; sorting by
    TIME puts the longest running first."""
    started = time.time() - 3725
    add_process(stack, 7002, "fresh", start=started)
    try:
        for width, height in ((80, 24), (200, 60)):
            before = time.time()
            top = Top(stack, width, height)
            try:
                screen = top.wait_for_frame(lambda s: re.search(r" 7002 .* \d+:\d\d:\d\d +fresh", s),
                                            f"the new process's TIME at {width}x{height}")
                after = time.time()
                line = next(line for line in screen.split("\n") if " 7002 " in line)
                h, m, sec = map(int, re.search(r" (\d+):(\d\d):(\d\d) +fresh", line).groups())
                shown = h * 3600 + m * 60 + sec
                # the sample's time is at most a few samples before the capture
                assert before - started - 10 <= shown <= after - started + 1, (shown, before - started, line)
                print(f"figure: TIME {h}:{m:02d}:{sec:02d} shown {after - started - shown:.1f} s behind the clock")
                old = next(line for line in screen.split("\n") if re.match(r"SoC +1834 ", line))
                days = float(re.search(r"([0-9.]+) days +Xorg", old).group(1))
                assert abs(days - (after - fixture_start(stack, 1834)) / 86400) < 0.2, old
                # s to TIME (GPU-MEM, %SM, %CPU, %MEM, TIME): the newest last
                top.keys("s", "s", "s", "s")
                screen = top.wait_for_frame(lambda s: "sort (TIME)" in s and len(process_rows(s)) >= 6,
                                            "sorted by TIME") if height > 24 else None
                if screen:
                    pids = [r[1] for r in process_rows(screen)]
                    assert pids[0] == "1834" and pids[-1] == "7002", pids
            finally:
                top.close()
    finally:
        remove_process(stack, 7002, "fresh")


def test_sgr_mouse(stack):
    """jetsonctl top asks for SGR mouse reports (mode 1006) even where the
    terminfo entry is X10's (tmux's own): tmux says the pane asked for it,
    and an SGR click selects a row, at 80x24 and beyond X10's 223 columns.
    (The other tests click in X10, what a terminal without 1006 sends.)"""
    for width, height, x in ((80, 24, 20), (240, 50, 230)):
        top = Top(stack, width, height)
        try:
            screen = top.wait_for_frame(lambda s: LIST_HEADER.search(s) and len(process_rows(s)) == 5,
                                        f"the list at {width}x{height}")
            flags = tmux("display-message", "-p", "#{mouse_sgr_flag} #{mouse_standard_flag}").split()
            assert flags == ["1", "1"], flags
            header = next(i for i, line in enumerate(screen.split("\n")) if LIST_HEADER.search(line))
            third = process_rows(screen)[2][1]
            top.sgr_click(x, header + 3)
            top.wait_for(lambda s: is_selected(top, third), f"{third} selected by an SGR click at column {x}")
            # a click on a column title sorts by it: %CPU at column 43
            top.sgr_click(43, header)
            top.wait_for(lambda s: "sort (%CPU)" in s, "the sort by an SGR click")
        finally:
            top.close()


def edit_nvml(path, change):
    """The fake NVML's config at PATH changed by CHANGE(config), replaced
    whole (a new inode: the fake reads it again at once)."""
    config = json.load(open(path))
    change(config)
    with open(path + ".new", "w") as f:
        json.dump(config, f)
    os.rename(path + ".new", path)


def test_type_filter(stack):
    """nvitop's compute/graphics filter on the PC's two GPUs: 'x' steps
    through compute (C, C+G), only compute, graphics (G, C+G), only
    graphics and back to all; --graphics starts with one; a process in
    both of NVML's lists is C+G. Each row's contexts in the TYPE place."""
    def rows_of(screen):
        return sorted((r[0], r[1], r[2]) for r in process_rows(screen))
    nvml = os.environ["FAKE_NVML_CONFIG"]
    top = Top(stack, 80, 24)
    try:
        every = [("0", "2345", "G"), ("0", "4242", "C"), ("1", "4242", "C")]
        top.wait_for_frame(lambda s: rows_of(s) == every, "the three rows with their contexts")
        for title, want in (("compute", [("0", "4242", "C"), ("1", "4242", "C")]),
                            ("only compute", [("0", "4242", "C"), ("1", "4242", "C")]),
                            ("graphics", [("0", "2345", "G")]),
                            ("only graphics", [("0", "2345", "G")])):
            top.keys("x")
            top.wait_for_frame(lambda s: re.search(rf"(^| ){title}( |$)", s, re.M) and rows_of(s) == want,
                               f"the {title} filter")
        top.keys("x")
        top.wait_for_frame(lambda s: rows_of(s) == every and "compute" not in s and "graphics" not in s, "all again")
        # 2345 in both lists: C+G, kept by compute but not by only compute
        edit_nvml(nvml, lambda d: d["devices"][0]["processes"][1].update(type="both"))
        top.wait_for_frame(lambda s: ("0", "2345", "C+G") in rows_of(s), "2345 as C+G")
        top.keys("x")
        top.wait_for_frame(lambda s: "compute" in s and ("0", "2345", "C+G") in rows_of(s) and len(rows_of(s)) == 3,
                           "C+G kept by compute")
        top.keys("x")
        top.wait_for_frame(lambda s: "only compute" in s and len(rows_of(s)) == 2, "C+G left out by only compute")
        top.keys("Escape")
        top.wait_for_frame(lambda s: len(rows_of(s)) == 3 and "compute" not in s, "Esc clears it")
    finally:
        top.close()
        shutil.copy(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json"), nvml)
    top = Top(stack, 200, 60, args=["--graphics"])
    try:
        top.wait_for_frame(lambda s: "graphics" in s and rows_of(s) == [("0", "2345", "G")], "--graphics at 200x60")
    finally:
        top.close()
    r = subprocess.run([JETSONCTL, "top", "--compute", "--graphics"], capture_output=True, text=True)
    assert r.returncode == 2 and "exclude each other" in r.stderr, r


def test_help_lists_every_key(stack):
    """Every key client/top/top_keys.c binds on the screen is on the help
    screen."""
    source = open(os.path.join(SOURCE_DIR, "client", "top", "top_keys.c")).read()
    body = source[source.index("bool jc_top_key("):]
    body = body[body.index("t->message[0] = '\\0';"):]
    names = {"KEY_DOWN": "Down", "KEY_UP": "Up", "KEY_HOME": "Home", "KEY_END": "End", "KEY_LEFT": "Left",
             "KEY_RIGHT": "Right", "KEY_BTAB": "Shift-Tab", "KEY_MOUSE": "mouse", "27": "Esc", "'\\t'": "Tab",
             "'\\n'": "Enter", "'\\r'": "Enter", "KEY_ENTER": "Enter"}
    bound = set()
    for m in re.finditer(r"key == ('\\[tnr]'|'.'|KEY_\w+|27)", body):
        k = m.group(1)
        bound.add(names.get(k, k.strip("'")))
    if "key >= '1' && key < '1' + JC_PAGE_N" in body:
        bound.add("1-8")
    assert len(bound) > 25, bound
    top = Top(stack, 120, 45)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        top.keys("?")

        def missing(screen):
            keys_text = set()
            for line in screen.split("\n"):
                keys_text.update(re.split(r"[ ,()]+", line))
            return sorted(k for k in bound if k not in keys_text)
        # the whole help drawn (a busy machine may show it row by row), then
        # every bound key on it: a key left out times out, listed
        top.wait_for(lambda s: "jetsonctl top: keys" in s and "quit" in s, "the help screen")
        # One capture may catch the help half drawn on a busy machine: wait
        # for the whole list; a key truly left out times out, named.
        top.wait_for(lambda s: not missing(s), "every bound key on the help screen (missing: "
                     f"{missing(top.screen())})")
        top.keys("x")
        top.wait_for(lambda s: "jetsonctl top: keys" not in s, "the help to close")
        top.keys("h")
        top.wait_for(lambda s: "jetsonctl top: keys" in s, "the help by h")
    finally:
        top.close()


def selected_line(top, pid):
    """The screen's line (with its escapes) of the row of PID."""
    return next((line for line in top.screen(escapes=True).split("\n") if re.search(rf" {pid} ", line)), "")


def is_selected(top, pid):
    """PID's row starts in bold or reverse video (tmux writes an attribute
    where it changes: the selected row's start)."""
    return re.match(r"(\x1b\[[0-9;]*m)*\x1b\[[0-9;]*[17]m", selected_line(top, pid)) is not None


def test_power_mode_and_fan_keys(stack):
    top = Top(stack, 80, 24)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        top.keys("m")
        top.wait_for(lambda s: "Power mode" in s and "1  MAXN (0)  (current)" in s and "4  MODE_50W (3)" in s,
                     "the power mode chooser with its modes")
        top.keys("4")
        top.wait_for(lambda s: "switching power mode: not authorized (org.jetsond.Jetson1.set-nvpmodel)" in s,
                     "the denial")
        assert "nvpmodel -m 3" not in calls(stack)

        stack.polkit_allow(["org.jetsond.Jetson1.set-nvpmodel", "org.jetsond.Jetson1.set-fan"])
        top.keys("m")
        top.wait_for(lambda s: "Power mode" in s, "the power mode chooser")
        top.keys("4")
        top.wait_for(lambda s: "Power mode MODE_50W (3) set" in s, "the change")
        assert "nvpmodel -m 3" in calls(stack)
        top.wait_for(lambda s: "mode MODE_50W" in s, "the new mode in the header")

        top.keys("f")
        top.wait_for(lambda s: "Fan profile" in s and "1  fan0 cool  (current)" in s and "2  fan0 quiet" in s,
                     "the fan profile chooser with its profiles")
        top.keys("2")
        top.wait_for(lambda s: "Fan 0 profile quiet set" in s, "the fan change")
        top.wait_for(lambda s: "fan0 quiet" in s, "the new profile in the header")

        top.keys("m")
        top.wait_for(lambda s: "Power mode" in s, "the chooser")
        top.keys("Escape")
        top.wait_for(lambda s: "Power mode" not in s and "q quit" in s, "the chooser to close")
    finally:
        top.close()


def test_subscription_and_exit(stack):
    top = Top(stack, 80, 24, args=["--interval", "200"])
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        assert interval(stack) == 200000
        top.keys("q")
        assert top.exit_status() == 0
        harness.wait_for(lambda: interval(stack) == 1000000, 10, "the subscription to be released")
    finally:
        top.close()


def test_colours(stack):
    top = Top(stack, 80, 24)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        assert re.search(r"\x1b\[3[1-3]m", top.screen(escapes=True)), "no colour with colours on"
    finally:
        top.close()
    for env in ({"NO_COLOR": "1"}, {"TERM": "vt100"}):
        top = Top(stack, 80, 24, env=env)
        try:
            top.wait_for(lambda s: LIST_HEADER.search(s), f"the screen with {env}")
            assert not re.search(r"\x1b\[3[1-3]m", top.screen(escapes=True)), f"colours with {env}"
        finally:
            top.close()


BRAILLE = re.compile("[\u2801-\u28ff]")


def snapshot():
    """GetSnapshot's a{sv} as a dict of plain values."""
    import json
    out = subprocess.run(["busctl", "--system", "--json=short", "call", "org.jetsond.Jetson1", "/org/jetsond/Jetson1",
                          "org.jetsond.Jetson1.Metrics", "GetSnapshot"], capture_output=True, text=True, check=True)
    return {k: v["data"] for k, v in json.loads(out.stdout)["data"][1].items()}


def graph_columns(lines, row, start, end):
    """How many cells of LINES[ROW][START:END] hold graph dots."""
    return len(BRAILLE.findall(lines[row][start:end])) if row < len(lines) else 0


def test_graphs_grow_and_keep_their_width(stack):
    """The GPU page's load graph (the left half) fills from the right as
    samples arrive, one braille cell per two samples, and after a resize
    is drawn again within the new width."""
    top = Top(stack, 120, 45, args=["--interval", "200"])
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        top.keys("3")
        # the first dots, not just the title: a frame drawn before the first
        # samples reached the graph has no row to measure (CI under ASan
        # caught it that way and then watched the title's own row)
        def dots_under_title(s):
            lines = s.split("\n")
            title = next((i for i, line in enumerate(lines) if line.startswith("load 35%")), None)
            return title is not None and any(BRAILLE.search(line[:59]) for line in lines[title + 1:])
        screen = top.wait_for(dots_under_title, "the GPU page with its first dots")
        lines = screen.split("\n")
        title = next(i for i, line in enumerate(lines) if line.startswith("load 35%"))
        # the graph's bottom row: the last row of dots under the title
        bottom = max(i for i in range(title + 1, len(lines)) if BRAILLE.search(lines[i][:59]) or i == title + 1)
        first = graph_columns(lines, bottom, 0, 59)
        # more samples, wider graph (35% is steady on this board: no row grows taller)
        grown = top.wait_for(lambda s: graph_columns(s.split("\n"), bottom, 0, 59) >= first + 3,
                             f"the load graph to grow past {first} cells")
        cells = graph_columns(grown.split("\n"), bottom, 0, 59)
        # the newest samples at the right edge of the left half, nothing past it
        assert BRAILLE.match(grown.split("\n")[bottom][58]), grown
        assert not BRAILLE.search(grown.split("\n")[bottom][59:61]), grown
        assert re.search(r"load 35% +\d+s +frequency 306 MHz +\d+s", grown), grown
        tmux("resize-window", "-x", "80", "-y", "24")
        small = top.wait_for(lambda s: len(s.split("\n")) >= 24 and s.split("\n")[23].startswith(" q quit") and
                             any(BRAILLE.search(line[:39]) for line in s.split("\n")), "the graph at 80x24")
        assert all(len(line) <= 80 for line in small.split("\n"))
        assert not any(BRAILLE.search(line[39:40]) for line in small.split("\n")), small
        print(f"figure: {cells} of 59 cells after the wait at 120x45")
    finally:
        top.close()


def test_pages_equal_the_snapshot(stack):
    """Each page by its number and by Tab, with the values of GetSnapshot."""
    top = Top(stack, 120, 45)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        snap = snapshot()
        top.keys("2")
        screen = top.wait_for_frame(lambda s: "CPU total" in s and "Tab/1-8 CPU" in s, "the CPU page")
        for n in range(12):
            assert re.search(rf"CPU{n} +{snap[f'cpu.{n}.freq'] // 1000} MHz", screen), (n, screen)
        # The still board moves once (fixtures/proc-stat: cpu0 user 36 %,
        # system 18 %, nice 1 %), and the titles carry the split; put back,
        # the counters go back and the loads are gone again.
        stat = os.path.join(stack.root, "proc", "stat")
        with open(stat) as f:
            before = f.read()
        with open(os.path.join(SOURCE_DIR, "tests", "fixtures", "proc-stat", "agx-orin-jp62-b")) as f:
            moved = f.read()
        try:
            with open(stat, "w") as f:  # in place: jetsond keeps it open
                f.write(moved)
            screen = top.wait_for_frame(lambda s: "CPU0  " in s and " usr 36% nice 1% sys 18%" in s, "the split")
            assert re.search(r"CPU total usr 37% nice 1% sys 18%", screen), screen
        finally:
            with open(stat, "w") as f:
                f.write(before)
        top.wait_for_frame(lambda s: "CPU total usr" not in s, "the split gone with the loads")
        top.keys("Tab")
        screen = top.wait_for_frame(lambda s: "SoC GPU" in s and "rail gating" in s, "the GPU page by Tab")
        assert (f"load {snap['gpu.load']:.0f}%  {snap['gpu.freq'] // 1000} MHz "
                f"({snap['gpu.min_freq'] // 1000}-{snap['gpu.max_freq'] // 1000} MHz)") in screen, screen
        assert f"governor {snap['gpu.governor']}" in screen
        assert f"3D scaling {'on' if snap['gpu.3d_scaling'] else 'off'}" in screen
        assert f"rail gating {'on' if snap['gpu.railgate'] else 'off'}" in screen
        assert f"EMC {snap['emc.load']:.0f}% of {snap['emc.freq'] // 1000} MHz" in screen
        top.keys("Tab")
        screen = top.wait_for_frame(lambda s: "RAM used" in s and "largest free block" in s, "the memory page")
        assert f"RAM used {snap['ram.used'] // 1024} MiB" in screen, screen
        assert f"total {snap['ram.total'] // 1024} MiB" in screen and f"cached {snap['ram.cached'] // 1024} MiB" in screen
        assert f"largest free block {snap['ram.lfb']} x 4 MiB" in screen
        top.keys("5")
        screen = top.wait_for_frame(lambda s: "RAIL" in s and "AVERAGE" in s and "Board ~" in s, "the power page")
        for rail in ("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"):
            assert re.search(rf"{rail} +{snap[f'power.{rail}.power']} mW +(\d+ mW|measuring\.\.\.)", screen), rail
        assert re.search(rf"^Board ~ \(avg (\d+ mW|measuring\.\.\.)\) {snap['power.total']} mW", screen, re.M), screen
        for zone in ("cpu", "gpu", "tj"):
            assert re.search(rf"(^|[ \u2801-\u28ff]){zone} +{snap[f'temp.{zone}']:.1f}°C", screen, re.M), zone
        # each zone's trip points beside it (the fixture's device tree)
        assert re.search(r"(^|[ \u2801-\u28ff])cpu +[\d.]+°C +trip 99/104\.5 ", screen, re.M), screen
        assert re.search(r"(^|[ \u2801-\u28ff])tj +[\d.]+°C +crit 104\.5 ", screen, re.M), screen
        # every rail's average comes, from the energy counters
        top.wait_for(lambda s: "measuring" not in s, "the averages")
        top.keys("BTab")
        top.wait_for(lambda s: "RAM used" in s, "back to the memory page by Shift-Tab")
        top.keys("1")
        top.wait_for(lambda s: LIST_HEADER.search(s) and "CPU total" not in s, "the overview")
    finally:
        top.close()


def test_window_and_style_keys(stack):
    """'w' doubles each graph's window (its span doubles), 'g' switches
    braille and blocks; a terminal without UTF-8 gets ASCII graphs."""
    top = Top(stack, 120, 45)
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        top.keys("3")
        # 59 cells of 2 samples each at 1 s: 1m58s
        screen = top.wait_for(lambda s: re.search(r"^load 35% +1m58s", s, re.M), "the GPU page")
        top.keys("w")
        screen = top.wait_for(lambda s: "w zoom x2" in s, "the wider window")
        assert re.search(r"^load 35% +3m56s", screen, re.M), screen
        top.keys("W")
        top.wait_for(lambda s: "w zoom x1" in s and re.search(r"^load 35% +1m58s", s, re.M), "back to x1")
        assert BRAILLE.search(top.screen())
        top.keys("g")
        top.wait_for(lambda s: not BRAILLE.search(s) and re.search("[\u2581-\u2588]", s), "block graphs")
    finally:
        top.close()
    top = Top(stack, 80, 24, env={"LC_ALL": "C", "LANG": "C"})
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen in the C locale")
        top.keys("3")
        screen = top.wait_for(lambda s: "SoC GPU" in s and re.search(r"\|{10}", s), "ASCII graphs")
        assert not BRAILLE.search(screen)
    finally:
        top.close()


def test_engines_control_info_and_process_screen(stack):
    """Pages 6 to 8 with GetSnapshot's and Board's values, the control
    page's writes denied then allowed through polkit, and the selected
    process's own graphs."""
    top = Top(stack, 120, 45, args=["--interval", "200"])
    try:
        top.wait_for(lambda s: LIST_HEADER.search(s), "the screen")
        snap = snapshot()
        top.keys("6")
        screen = top.wait_for(lambda s: re.search(r"^APE +on", s, re.M), "the engines page")
        for name in ("APE", "DLA1", "NVDEC", "SE", "VIC"):
            assert re.search(rf"(^|\s){name} +on +{snap[f'engine.{name}.freq'] // 1000} MHz", screen, re.M), name
        for name in ("DLA0", "NVENC", "NVJPG"):
            assert re.search(rf"(^|\s){name} +off", screen, re.M), name
        top.keys("8")
        screen = top.wait_for(lambda s: "KernelRelease" in s, "the info page")
        assert re.search(r"^Model +NVIDIA Jetson AGX Orin Developer Kit", screen, re.M), screen
        assert re.search(r"^L4T +36\.4\.3", screen, re.M) and re.search(r"^JetPack +6\.2", screen, re.M)
        assert "cuda 12.6.68" in screen and "tensorrt 10.3.0.30" in screen, screen
        top.keys("7")
        screen = top.wait_for(lambda s: "GPU rail gating" in s, "the control page")
        assert re.search(r"c +jetson_clocks +off", screen) and re.search(r"S +GPU 3D scaling +on", screen), screen
        top.keys("S")
        top.wait_for(lambda s: "switching GPU 3D scaling: not authorized (org.jetsond.Jetson1.set-gpu)" in s,
                     "the denial")
        stack.polkit_allow(["org.jetsond.Jetson1.set-gpu"])
        top.keys("S")
        top.wait_for(lambda s: "GPU 3D scaling off" in s, "the change")
        top.wait_for(lambda s: re.search(r"S +GPU 3D scaling +off", s), "the new state from the samples")
        assert snapshot()["gpu.3d_scaling"] is False
        top.keys("S")
        top.wait_for(lambda s: re.search(r"S +GPU 3D scaling +on", s), "3D scaling back on")
        top.keys("G")
        top.wait_for(lambda s: re.search(r"G +GPU rail gating +off", s) and "GPU rail gating off" in s, "gating off")
        assert snapshot()["gpu.railgate"] is False
        top.keys("G")
        top.wait_for(lambda s: re.search(r"G +GPU rail gating +on", s), "rail gating back on")
        top.keys("c")
        top.wait_for(lambda s: "switching jetson_clocks: not authorized (org.jetsond.Jetson1.set-jetson-clocks)" in s,
                     "jetson_clocks denied")
        assert "jetson_clocks" not in calls(stack)
        # c, S and G change nothing on any other page
        top.keys("2")
        top.wait_for(lambda s: "CPU total" in s and "not authorized" not in s, "the CPU page")
        top.keys("c", "S", "G", "7")
        screen = top.wait_for(lambda s: "GPU rail gating" in s, "the control page again")
        assert "not authorized" not in screen and re.search(r"S +GPU 3D scaling +on", screen), screen
        assert re.search(r"G +GPU rail gating +on", screen), screen
        # the keys went in order, each write waited for: none was made
        for prop in ("Scaling3D", "Railgate"):
            out = subprocess.run(["busctl", "--system", "get-property", "org.jetsond.Jetson1", "/org/jetsond/Jetson1",
                                  "org.jetsond.Jetson1.Gpu", prop], capture_output=True, text=True, check=True).stdout
            assert out.strip() == "b true", (prop, out)
        # the process screen: its graphs fill as samples come
        top.keys("1", "Down", "Enter")
        screen = top.wait_for(lambda s: "Process 5120  python3  (nvidia)" in s and "GPU memory 256 MiB" in s,
                              "the process screen")
        assert "RSS 1024 MiB" in screen and "CPU (of one core) 0%" in screen, screen
        top.wait_for(lambda s: len(BRAILLE.findall(s)) > 20, "the process's graphs")
        top.keys("Escape")
        top.wait_for(lambda s: LIST_HEADER.search(s) and "Process 5120" not in s, "back to the list")
    finally:
        top.close()


def test_needs_a_terminal(stack):
    r = subprocess.run([JETSONCTL, "top"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert r.returncode == 2 and "top needs a terminal" in r.stderr, r
    r = subprocess.run([JETSONCTL, "top", "--interval", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and "--interval 0 is out of range" in r.stderr, r


def test_pc_two_gpus(stack):
    """The PC board with two NVML GPUs at 200x60 and 80x24: a device
    panel per GPU with GetSnapshot's values and DiscreteGpu's names, the
    process rows per GPU with their SM, every line within the width."""
    snap = snapshot()
    top = Top(stack, 200, 60)
    try:
        # NVML's processes may come a sample before their /proc names
        screen = top.wait_for_frame(lambda s: len(process_rows(s)) == 3 and "python3" in s and "firefox-esr" in s,
                                    "the PC's screen")
        assert re.search(r"^GPU0 +\[\|+ +\] +37%", screen, re.M) and re.search(r"^GPU1 +\[", screen, re.M), screen
        # A PC named by DMI; each GPU's device line under its load; the
        # Power section with the RAPL zones and the GPUs against their limits.
        assert screen.split("\n")[0].startswith("LENOVO 20L7S0ET00"), screen
        for n, name in ((0, "NVIDIA GeForce RTX 4090"), (1, "Tesla T4")):
            used, total = snap[f"dgpu.{n}.mem_used"] // 1024, snap[f"dgpu.{n}.mem_total"] // 1024
            line = (f"      {name}  MEM {used} MiB/{total} MiB  {snap[f'dgpu.{n}.temp']:.0f}°C  "
                    f"{snap[f'dgpu.{n}.power'] / 1000:.0f}/{snap[f'dgpu.{n}.power_limit'] / 1000:.0f} W")
            assert re.search("^" + re.escape(line) + ("  fan 40%" if n == 0 else "") + " *$", screen, re.M), \
                (line, screen)
        assert re.search(r"^Power *$", screen, re.M) and re.search(r"  RAPL_PACKAGE_0 +\d+ mW", screen), screen
        assert re.search(rf"  GPU0 of 450 W +{snap['dgpu.0.power']} mW", screen), screen
        assert re.search(rf"  GPU1 of 70 W +{snap['dgpu.1.power']} mW", screen), screen
        rows = process_rows(screen)
        # %CPU needs two readings: "-" until then
        # GPU, PID and its contexts (compute), user, GPU-MEM, %SM, %CPU, %MEM, TIME, command
        assert ["0", "4242", "C", "alice", "1024", "MiB", "35"] == rows[0][:7] and rows[0][7] in ("-", "0.0"), rows
        assert ["6.5", "days", "python3"] == [rows[0][8]] + rows[0][10:], rows
        assert abs(float(rows[0][9]) - (time.time() - fixture_start(stack, 4242)) / 86400) < 0.2, rows
        assert any(r[:3] == ["1", "4242", "C"] for r in rows) and any(r[:3] == ["0", "2345", "G"] for r in rows), rows
        assert all(len(line) <= 200 for line in top.lines())
        top.keys("3")
        # Both panels whole: a busy machine may show one drawn half.
        want = [f"MEM {snap[f'dgpu.{n}.mem_used'] // 1024} MiB / {snap[f'dgpu.{n}.mem_total'] // 1024} MiB"
                for n in (0, 1)] + [f"UTIL {snap[f'dgpu.{n}.load']:3.0f}%" for n in (0, 1)] + ["GPU1 Tesla T4"]
        screen = top.wait_for(lambda s: all(w in s for w in want), "both device panels")
        for n, name in ((0, "NVIDIA GeForce RTX 4090"), (1, "Tesla T4")):
            head = next(line for line in screen.split("\n") if line.startswith(f"GPU{n} {name}"))
            assert f"{snap[f'dgpu.{n}.temp']:.0f}°C" in head and f"P{snap[f'dgpu.{n}.pstate']}" in head, head
            assert (f"{snap[f'dgpu.{n}.power'] / 1000:.0f} W / {snap[f'dgpu.{n}.power_limit'] / 1000:.0f} W"
                    in head), head
            used, total = snap[f"dgpu.{n}.mem_used"] // 1024, snap[f"dgpu.{n}.mem_total"] // 1024
            assert f"MEM {used} MiB / {total} MiB" in screen and f"UTIL {snap[f'dgpu.{n}.load']:3.0f}%" in screen
        assert "fan 40%" in screen and f"graphics {snap['dgpu.0.freq'] // 1000} MHz" in screen, screen
        # Each panel's facts and modes (DiscreteGpu), nvidia-smi's columns:
        # the GeForce without ECC, the T4 with it and without a video clock.
        facts = [line.strip() for line in screen.split("\n") if line.startswith("  CUDA ")]
        assert facts == ["CUDA 12.8  cc 8.9  Pers Off  Disp.A On  Compute default  BAR1 3.0 MiB / 256 MiB  "
                         "video 1965 MHz",
                         "CUDA 12.8  cc 7.5  Pers On  Disp.A Off  Compute exclusive_process  ECC On (uncorr. 0)  "
                         "BAR1 2.0 MiB / 256 MiB"], facts
        # nvidia-smi -pm 1 on the GeForce: shown once jetsond reads the
        # modes again (every 10 s) and announces the change.
        nvml = os.environ["FAKE_NVML_CONFIG"]
        try:
            edit_nvml(nvml, lambda d: d["devices"][0].update(persistence_mode=1))
            top.wait_for(lambda s: "CUDA 12.8  cc 8.9  Pers On  " in s, "persistence mode on", timeout=25)
        finally:
            shutil.copy(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json"), nvml)
        top.keys("5")
        screen = top.wait_for(lambda s: "RAIL" in s and "GPU1 of 70 W" in s, "the power page with the GPUs")
        assert re.search(rf"(^| )GPU0 of 450 W +{snap['dgpu.0.power']} mW +(\d+ mW|measuring\.\.\.)", screen, re.M), screen
        top.keys("3")
        tmux("resize-window", "-x", "80", "-y", "24")
        small = top.wait_for(lambda s: len(s.split("\n")) >= 24 and "GPU0 NVIDIA" in s and
                             s.split("\n")[23].startswith(" q quit"), "the GPU page at 80x24")
        assert all(len(line) <= 80 for line in small.split("\n"))
        # The overview's device line whole at 80 columns, the fan included.
        top.keys("1")
        small = top.wait_for(lambda s: "GeForce RTX 4090  MEM" in s, "the overview at 80x24")
        assert re.search(r"^      NVIDIA GeForce RTX 4090  MEM .* W  fan 40%$", small, re.M), small
    finally:
        top.close()


def test_pc_only(stack):
    """--only 1: the T4's panel and its process rows alone; a bad ID is a
    usage error before the screen is taken."""
    top = Top(stack, 160, 50, args=("--only", "GPU-0d3c"))
    try:
        top.wait_for(lambda s: "Tesla T4" in s and LIST_HEADER.search(s), "the T4")
        screen = top.screen()
        assert "RTX 4090" not in screen, screen
        rows = process_rows(screen)
        assert rows and all(r[0] == "1" for r in rows), rows
    finally:
        top.close()
    r = subprocess.run([JETSONCTL, "top", "--only", "5"], capture_output=True, text=True)
    assert r.returncode == 2 and '"5" names no GPU' in r.stderr, (r.returncode, r.stderr)


def test_nano_80x24(stack):
    """The Jetson Nano (JetPack 4.6) at 80x24: the essentials and its GPU
    page from GetSnapshot."""
    snap = snapshot()
    top = Top(stack, 80, 24)
    try:
        screen = top.wait_for(lambda s: "q quit" in s and "GPU" in s, "the Nano's screen")
        assert "Jetson Nano" in screen.split("\n")[0] or "Nano" in screen.split("\n")[0], screen
        assert re.search(r"(^| )CPU3 ", screen, re.M) and re.search(r"^GPU +\[", screen, re.M), screen
        assert re.search(r"^RAM ", screen, re.M), screen
        top.keys("3")
        screen = top.wait_for(lambda s: "SoC GPU" in s, "the Nano's GPU page")
        assert f"{snap['gpu.freq'] // 1000} MHz" in screen, screen
        assert all(len(line) <= 80 for line in top.lines())
    finally:
        top.close()


def test_every_page_at_every_size(stack):
    """Each page at 80x24, 120x45 and 200x60: every line within the
    width, the footer on the last line naming the page, the header on the
    first, and graphs on the pages that have them (no page left blank)."""
    names = ["Overview", "CPU", "GPU", "Memory", "Power", "Engines", "Control", "Info"]
    for width, height in ((80, 24), (120, 45), (200, 60)):
        top = Top(stack, width, height)
        try:
            top.wait_for(lambda s: "q quit" in s and "Waiting" not in s, f"the screen at {width}x{height}")
            for n, name in enumerate(names, 1):
                top.keys(str(n))
                footer = f"{n} {name}" if width >= 140 else f"Tab/1-8 {name}"

                def drawn(s):
                    lines = s.split("\n")
                    return len(lines) >= height and lines[height - 1].startswith(" q quit") and \
                        footer in lines[height - 1] and any(line.strip() for line in lines[2:height - 1])
                screen = top.wait_for(drawn, f"page {n} at {width}x{height}")
                lines = screen.split("\n")
                assert all(len(line) <= width for line in lines), (n, width, screen)
                assert lines[0].strip() and not lines[0].startswith(" "), screen
                # RAM in use is on every board (the fixtures' CPU loads and
                # a PC's RAPL rails stay at nothing)
                if name == "Memory":
                    top.wait_for(lambda s: BRAILLE.search(s), f"graphs on page {n} at {width}x{height}")
        finally:
            top.close()


def test_throttle_marker_and_power_page(stack):
    """Issue 39: the simulator raises 3 over-current events and a GPU thermal
    cap; the header's marker names the cap (the events' moment passes with
    one reading), the Power page has status's throttle line and the cap
    itself; the marker goes when the cap does."""
    sim = ["/usr/bin/python3", os.path.join(SOURCE_DIR, "tests", "fixtures", "simulate.py"), stack.root,
           "--duration-s", "0"]
    top = Top(stack, 100, 40)
    try:
        top.wait_for_frame(lambda s: "THROTTLED" not in s, "no marker on the still board")
        subprocess.run(sim + ["--oc-events", "1=3", "--cap", "gpu-throttle-alert=1"], check=True)
        screen = top.wait_for_frame(lambda s: s.split("\n")[0].rstrip().endswith("THROTTLED GPU thermal cap"),
                                    "the marker")
        top.keys("5")
        line = "Throttle  GPU thermal cap now; 3 over-current events since boot"
        screen = top.wait_for_frame(lambda s: line in s and "Caps      gpu-throttle-alert 1/2" in s,
                                    "the throttle rows of the power page")
        subprocess.run(sim + ["--cap", "gpu-throttle-alert=0"], check=True)
        screen = top.wait_for_frame(lambda s: "Throttle  none now; 3 over-current events since boot" in s and
                                    "Caps      none" in s and "THROTTLED" not in s, "the cap gone")
        top.keys("1")
    finally:
        top.close()


def test_dgpu_throttle_marker(stack):
    """Issue 39 on a PC: a discrete GPU (0: the T4 answers no reasons, and
    NVML asks it again only every 10 s) held down by its power cap and a
    thermal slowdown (NVML's clock event reasons 0x4 and 0x40) puts the
    marker in the header as status says it; idling (0x1) does not."""
    nvml = os.environ["FAKE_NVML_CONFIG"]

    def set_reasons(mask):
        edit_nvml(nvml, lambda d: d["devices"][0].update(throttle=mask))
    top = Top(stack, 120, 30)
    try:
        top.wait_for_frame(lambda s: "GPU1" in s and "THROTTLED" not in s, "no marker on the PC")
        set_reasons(0x4 | 0x40)
        top.wait_for_frame(lambda s: s.split("\n")[0].rstrip().endswith("THROTTLED dGPU 0: sw_power_cap, hw_thermal"),
                           "the dGPU's marker")
        set_reasons(0x1)
        top.wait_for_frame(lambda s: "GPU1" in s and "THROTTLED" not in s, "no marker while the GPU idles")
    finally:
        top.close()
        shutil.copy(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json"), nvml)


def main():
    with harness.Stack(JETSOND, None) as stack:
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.start_systemd_with_nvfancontrol()
        stack.start_daemon()
        status = harness.run_on(stack, (test_layout_80x24, test_layout_160x50_and_resize, test_sort_keys,
                             test_filter_and_selection, test_signals, test_environment_screen, test_command_lines, test_tree, test_time_column, test_sgr_mouse,
                             test_help_lists_every_key,
                             test_power_mode_and_fan_keys, test_subscription_and_exit, test_colours,
                             test_graphs_grow_and_keep_their_width, test_pages_equal_the_snapshot,
                             test_window_and_style_keys, test_engines_control_info_and_process_screen,
                             test_every_page_at_every_size, test_throttle_marker_and_power_page,
                             test_needs_a_terminal))
    with harness.Stack(JETSOND, None, board="nano-jp46") as stack:
        stack.start_daemon()
        status |= harness.run_on(stack, (test_nano_80x24, test_every_page_at_every_size))
    if FAKE_NVML:
        with harness.Stack(JETSOND, None, board="x86-pc") as stack:
            # a copy the type filter's test changes (C+G) and puts back
            os.environ["FAKE_NVML_CONFIG"] = os.path.join(stack.dir, "nvml.json")
            shutil.copy(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json"), os.environ["FAKE_NVML_CONFIG"])
            stack.start_daemon(["--nvml-library", FAKE_NVML])
            # the GPUs' objects come with their first readings
            harness.wait_for(lambda: "dgpu.1.load" in snapshot(), 10, "the second GPU")
            status |= harness.run_on(stack, (test_pc_two_gpus, test_pc_only, test_type_filter, test_dgpu_throttle_marker,
                                  test_every_page_at_every_size))
    else:
        print("skipped test_pc_two_gpus: no fake NVML given")
    sys.exit(status)


if __name__ == "__main__":
    main()
