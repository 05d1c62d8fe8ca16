#!/usr/bin/python3
"""jetsond --capture: capture, redact, replay (issue 38).

    test-capture.py JETSOND FAKE_NVML [SLOWFS]

- Round trip on every fake board in tests/fixtures: capture a copy made by
  make-sysroot.sh (its GPUs through the fake NVML where the board has a
  BOARD.nvml.json), unpack, replay with --sysroot (and the captured
  .capture/nvml.json through the fake NVML): the same identity, the same
  --once --json keys, and every value that two reads of the original agree
  on (but the sysroot's own disk space) the same.
- This machine itself, captured from "/": the same identity (serial aside,
  redacted) and keys (but processes, which come and go, and loads, rates
  that a still file cannot give), and nothing written but the archive
  (strace).
- With --duration 1 on this machine, played back by replay-series.py: the
  loads too.
- No secret survives: a serial, a MAC, a host name and a user name planted
  in a copy of the AGX Orin, where jetsond reads, are in the archive with
  --no-redact and nowhere in it nor in the report without.
- Bad input: a FIFO, an unreadable file, an endless file, a loop of links
  and a link out of the root, all where jetsond reads: the capture ends,
  says each in the report, takes none of them (the links as links only);
  a file whose read never returns (slowfs) is given up after 2 s.
- The archive appears whole or not at all.
- figure: size and time of the AGX Orin (JetPack 7.2) capture."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
JETSOND = os.path.abspath(sys.argv[1])
FAKE_NVML = os.path.abspath(sys.argv[2])
SLOWFS = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
INTERVAL = "100"
# Not of the files: statvfs() of the sysroot directory itself, and the
# energy jetsond integrates over its own run's time.
NOT_CAPTURED = ("disk.total_bytes", "disk.free_bytes", "disk.available_bytes", "energy.")
# The health keys of a GPU (docs/nvidia-gpus.md).
HEALTH = ("mem_temp", "pcie_replay", "xid", "xid_count")


def boards():
    return sorted(b for b in os.listdir(FIXTURES)
                  if os.path.isfile(os.path.join(FIXTURES, b, "proc", "stat")))


def make_sysroot(board, dest):
    subprocess.run(["sh", os.path.join(FIXTURES, "make-sysroot.sh"), board, dest],
                   check=True, stdout=subprocess.DEVNULL)


def nvml_args(config):
    if not config:
        return [], dict(os.environ)
    env = dict(os.environ, FAKE_NVML_CONFIG=config)
    return ["--nvml-library", FAKE_NVML], env


def once(sysroot, nvml_config=None, interval=INTERVAL):
    args, env = nvml_args(nvml_config)
    cmd = [JETSOND, "--once", "--json", "--interval", interval] + args
    if sysroot:
        cmd += ["--sysroot", sysroot]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, env=env, timeout=60).stdout
    return json.loads(out)


def capture(sysroot, archive, *extra, nvml_config=None, wrap=()):
    args, env = nvml_args(nvml_config)
    if "strace" in wrap:   # LeakSanitizer cannot run under ptrace
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    cmd = list(wrap) + [JETSOND, "--capture", archive, "--interval", INTERVAL] + args + list(extra)
    if sysroot:
        cmd += ["--sysroot", sysroot]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          timeout=60, text=True, check=True)


def unpack(archive, dest):
    os.makedirs(dest)
    subprocess.run(["tar", "xzf", archive, "-C", dest], check=True)


def nvml_of(unpacked):
    path = os.path.join(unpacked, ".capture", "nvml.json")
    return path if os.path.exists(path) else None


def archive_bytes(archive):
    """Every name, link target and content of the archive, as one blob."""
    blob = io.BytesIO()
    with tarfile.open(archive, "r:gz") as t:
        for m in t.getmembers():
            blob.write(m.name.encode() + b"\0" + m.linkname.encode() + b"\0")
            if m.isfile():
                blob.write(t.extractfile(m).read())
    return blob.getvalue()


class Capture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="jetsond-capture-")
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def assert_same_reading(self, original, replay, static=None, identity_skip=()):
        for k, v in original["board"].items():
            if k not in identity_skip:
                self.assertEqual(replay["board"].get(k), v, "identity: " + k)
        self.assertEqual(sorted(original["values"]), sorted(replay["values"]))
        for k in static or ():
            self.assertEqual(replay["values"][k], original["values"][k], "static value " + k)
        if static is not None:
            for k in ("swaps", "fans", "nvpmodel"):
                self.assertEqual(replay[k], original[k], k)

    def test_round_trip_every_board(self):
        for board in boards():
            with self.subTest(board=board):
                root = self.path(board, "root")
                make_sysroot(board, root)
                config = os.path.join(FIXTURES, board + ".nvml.json")
                config = config if os.path.exists(config) else None
                first, second = once(root, config), once(root, config)
                static = [k for k, v in first["values"].items()
                          if second["values"].get(k) == v and not k.startswith(NOT_CAPTURED)]
                archive = self.path(board, "capture.tar.gz")
                capture(root, archive, "--no-redact", nvml_config=config)
                unpacked = self.path(board, "replay")
                unpack(archive, unpacked)
                self.assertEqual(nvml_of(unpacked) is not None, config is not None)
                replay = once(unpacked, nvml_of(unpacked))
                self.assert_same_reading(first, replay, static)
                # Redacted: the same but for the serial and user names;
                # no NVML UUID left.
                capture(root, archive, nvml_config=config)
                if config:
                    with open(config) as f:
                        uuids = [d["uuid"] for d in json.load(f)["devices"] if d.get("uuid")]
                    blob = archive_bytes(archive)
                    for uuid in uuids:
                        self.assertNotIn(uuid.encode(), blob)
                redacted = self.path(board, "redacted")
                unpack(archive, redacted)
                replay = once(redacted, nvml_of(redacted))
                self.assert_same_reading(first, replay, identity_skip=("serial",))
                if first["board"]["serial"]:
                    self.assertNotEqual(replay["board"]["serial"], first["board"]["serial"])
                    self.assertEqual(len(replay["board"]["serial"]), len(first["board"]["serial"]))

    def test_nvlink_and_mig(self):
        """A PC whose first GPU has two NVLink links (a driver without the
        all-links scope) and whose second is an H100 with MIG on (two MIG
        devices, a process in one) and its memory temperature, replay count
        and XID events: the capture's NVML JSON replays the same NVLink
        counters, MIG devices, process instance and health (the XID before
        registration being history: xid 0); redacted, no MIG UUID is
        left."""
        root = self.path("root")
        make_sysroot("x86-pc", root)
        with open(os.path.join(FIXTURES, "x86-pc.nvml.json")) as f:
            devices = json.load(f)["devices"]
        devices[0]["nvlink"] = [{"rx_kib": 123456, "tx_kib": 654321}, {"rx_kib": 1000, "tx_kib": 2000}]
        devices[0]["nvlink_all_links"] = False
        devices[1] = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-h100-secret", "pci_bus_id": "00000000:02:00.0",
                      "memory": {"total": 85899345920, "used": 32212254720, "free": 53687091200},
                      "temperature": 45, "power_mw": 300000, "utilization": {"gpu": 0, "memory": 0},
                      "processes": [{"pid": 4242, "type": "compute", "used_memory": 10737418240, "gpu_instance": 9}],
                      "mig": {"mode": 1, "max_devices": 7, "devices": [
                          {"slot": 1, "uuid": "MIG-secret-1111", "gpu_instance": 2, "compute_instance": 0,
                           "utilization": {"gpu": 80, "memory": 1},
                           "memory": {"total": 21474836480, "used": 1073741824, "free": 20401094656}},
                          {"slot": 5, "uuid": "MIG-secret-5555", "gpu_instance": 9, "compute_instance": 0,
                           "memory": {"total": 10737418240, "used": 10737418240, "free": 0}}]},
                      "memory_temperature": 61, "pcie_replays": 5, "xids": [43]}
        config = self.path("nvml.json")
        with open(config, "w") as f:
            json.dump({"devices": devices}, f)
        original = once(root, config)["values"]
        wanted = sorted(k for k in original if ".nvlink" in k or ".mig." in k or k.endswith(".gpu_instance")
                        or k.startswith("dgpu.1.") and k.split(".")[-1] in HEALTH)
        # the fixture's own keys, or the test proves nothing
        for key in ("dgpu.0.nvlink_rx_total", "dgpu.0.nvlink_tx_total", "dgpu.1.mig.5.mem_used",
                    "dgpu.1.mig.1.load", "dgpu.1.mig.5.uuid", "process.4242.dgpu.1.gpu_instance",
                    "dgpu.1.mem_temp", "dgpu.1.pcie_replay", "dgpu.1.xid", "dgpu.1.xid_count"):
            self.assertIn(key, wanted)
        # the links' sum where the driver has no all-links scope
        self.assertEqual(original["dgpu.0.nvlink_rx_total"], (123456 + 1000) * 1024)
        for redact in (False, True):
            archive = self.path("nvml-%s.tar.gz" % redact)
            capture(root, archive, *(() if redact else ("--no-redact",)), nvml_config=config)
            unpacked = self.path("nvml-replay-%s" % redact)
            unpack(archive, unpacked)
            replay = once(unpacked, nvml_of(unpacked))["values"]
            self.assertEqual(sorted(k for k in replay if ".nvlink" in k or ".mig." in k or k.endswith(".gpu_instance")
                                    or k.startswith("dgpu.1.") and k.split(".")[-1] in HEALTH), wanted)
            for k in wanted:
                if not k.endswith(".uuid"):
                    self.assertEqual(replay[k], original[k], k)
            self.assertEqual(replay["dgpu.1.mig.5.uuid"] == original["dgpu.1.mig.5.uuid"], not redact)
            if redact:
                self.assertNotIn(b"secret", archive_bytes(archive))

    def test_this_machine(self):
        archive = self.path("host.tar.gz")
        trace = self.path("strace.log")
        before = once(None)
        # Every file opened for writing, created, renamed or removed.
        capture(None, archive, wrap=["strace", "-f", "-qq", "-o", trace, "-e",
                                     "trace=open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,"
                                     "unlink,unlinkat,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat"])
        written = []
        with open(trace) as f:
            for line in f:
                if "= -1" in line or "(" not in line:
                    continue
                call = line.split("(", 1)[0].split()[-1]
                if call in ("open", "openat") and not any(
                        flag in line for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")):
                    continue
                written.append(line.strip())
        for line in written:
            self.assertIn(archive, line, "written outside the archive: " + line)
        self.assertTrue(written, "strace saw the archive written")
        self.assertEqual(os.listdir(self.tmp).count("host.tar.gz"), 1)
        unpacked = self.path("replay")
        unpack(archive, unpacked)
        replay = once(unpacked)
        # Processes come and go between the two reads, and a load (and
        # the CPU's user/nice/system/idle split of it) is a rate of change
        # that files read as they were cannot have (docs/capture.md):
        # compare the rest.
        def steady(reading):
            reading["values"] = {k: v for k, v in reading["values"].items()
                                 if not k.startswith("process.") and not k.endswith("load")
                                 and not (k.startswith("cpu.") and k.rsplit(".", 1)[1] in
                                          ("user", "nice", "system", "idle"))}
            return reading
        self.assert_same_reading(steady(before), steady(replay), identity_skip=("serial",))

    def test_this_machine_series(self):
        """With --duration the files that change come along, and played
        back (replay-series.py) they give the loads a still tree cannot."""
        archive = self.path("host.tar.gz")
        before = once(None)
        report = capture(None, archive, "--duration", "1").stdout
        self.assertRegex(report, "Time series: 10 steps of 100 ms, [1-9][0-9]* changed files")
        unpacked = self.path("replay")
        unpack(archive, unpacked)
        with open(os.path.join(unpacked, ".capture", "series", "index")) as f:
            self.assertEqual(len([l for l in f if not l.startswith("#")]), 10)
        self.assertTrue(os.path.exists(os.path.join(unpacked, ".capture", "series", "0001", "proc", "stat")))
        player = subprocess.Popen(["/usr/bin/python3", os.path.join(FIXTURES, "replay-series.py"), unpacked, "--loop"])
        try:
            time.sleep(0.2)
            replay = once(unpacked, interval="400")
        finally:
            player.terminate()
            player.wait(10)
        def steady(reading):
            reading["values"] = {k: v for k, v in reading["values"].items() if not k.startswith("process.")}
            return reading
        self.assert_same_reading(steady(before), steady(replay), identity_skip=("serial",))
        self.assertIn("cpu.load", replay["values"])

    def plant_secrets(self, root):
        secrets = {"serial": "SN77XQ2049RTY", "mac": "4a:5b:6c:7d:8e:9f",
                   "host": "orin-of-mallory", "user": "mallory"}
        # Where they live...
        with open(os.path.join(root, "sys/firmware/devicetree/base/serial-number"), "wb") as f:
            f.write(secrets["serial"].encode() + b"\0")
        with open(os.path.join(root, "etc/hostname"), "w") as f:
            f.write(secrets["host"] + "\n")
        with open(os.path.join(root, "etc/passwd"), "a") as f:
            f.write("mallory:x:1001:1001:Mallory Q. Public,,,:/home/mallory:/bin/bash\n")
        # ... and where jetsond reads that they recur.
        with open(os.path.join(root, "etc/fstab"), "a") as f:
            f.write("# %s on %s (eth0 %s), serial %s\n/dev/sdb1 /home/mallory ext4 defaults 0 2\n"
                    % (secrets["user"], secrets["host"], secrets["mac"].upper(), secrets["serial"]))
        return secrets

    def test_no_secret_survives(self):
        root = self.path("root")
        make_sysroot("agx-orin-jp72", root)
        secrets = self.plant_secrets(root)
        plain = self.path("plain.tar.gz")
        capture(root, plain, "--no-redact")
        blob = archive_bytes(plain).lower()
        for what, s in secrets.items():
            self.assertIn(s.lower().encode(), blob, "planted where jetsond reads: " + what)
        archive = self.path("redacted.tar.gz")
        report = capture(root, archive).stdout
        blob = archive_bytes(archive).lower()
        for what, s in secrets.items():
            self.assertNotIn(s.lower().encode(), blob, what + " in the archive")
            self.assertNotIn(s.lower(), report.lower(), what + " in the report")
        self.assertIn(b"user1001:x:1001:1001::", blob)
        for line in ("serial numbers", "MAC addresses: 1", "the host name", "user names", "command lines"):
            self.assertIn(line, report)

    def test_bad_input(self):
        root = self.path("root")
        make_sysroot("agx-orin-jp72", root)
        zone = os.path.join(root, "sys/class/thermal")
        fifo = "sys/devices/virtual/thermal/thermal_zone0/temp"
        os.unlink(os.path.join(root, fifo))
        os.mkfifo(os.path.join(root, fifo))
        # Endless as far as a reader can tell: far larger than kept.
        endless = "proc/meminfo"
        with open(os.path.join(root, endless), "r+b") as f:
            f.truncate(1 << 30)
        unreadable = "etc/nv_tegra_release"
        os.chmod(os.path.join(root, unreadable), 0)
        os.symlink("thermal_zone98", os.path.join(zone, "thermal_zone99"))
        os.symlink("thermal_zone99", os.path.join(zone, "thermal_zone98"))
        os.symlink("../../../../../../../../etc", os.path.join(zone, "thermal_zone97"))
        os.chmod(self.tmp, 0o777)
        archive = self.path("bad.tar.gz")
        # Not as root, who reads a file of mode 000.
        wrap = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
        start = time.monotonic()
        report = capture(root, archive, wrap=wrap).stdout
        self.assertLess(time.monotonic() - start, 30)
        self.assertRegex(report, "/%s: not a regular file" % fifo)
        self.assertRegex(report, "/%s: longer than \\d+ bytes" % endless)
        self.assertRegex(report, "/%s: unreadable \\(Permission denied\\)" % unreadable)
        self.assertRegex(report, "thermal_zone9[89][^\n]*: a loop of symbolic links")
        self.assertRegex(report, "thermal_zone97[^\n]*: leads outside the root")
        with tarfile.open(archive, "r:gz") as t:
            members = {m.name: m for m in t.getmembers()}
        self.assertNotIn(fifo, members)
        self.assertNotIn(unreadable, members)
        self.assertLessEqual(members[endless].size, 64 << 20)
        for link in ("thermal_zone97", "thermal_zone98", "thermal_zone99"):
            self.assertTrue(members["sys/class/thermal/" + link].issym())
        self.assertFalse([n for n in members if n.startswith("sys/class/thermal/thermal_zone97/")])
        self.assertEqual(sorted(os.listdir(self.tmp)), ["bad.tar.gz", "root"])

    @contextlib.contextmanager
    def slow_board(self, path, rule="block"):
        """A fake AGX Orin JP7.2 under slowfs with RULE for PATH ("block":
        its reads never return, a wedged driver; "endless": they never
        reach the end); yields the mount."""
        source = self.path("source")
        make_sysroot("agx-orin-jp72", source)
        mount, control = self.path("mnt"), self.path("control")
        os.makedirs(mount)
        os.makedirs(control)
        with open(os.path.join(control, rule), "w") as f:
            f.write(path + "\n")
        fs = subprocess.Popen([SLOWFS, source, mount, control], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(os.path.join(mount, "proc", "stat")):
                self.assertLess(time.monotonic(), deadline, "slowfs did not mount")
                self.assertIsNone(fs.poll(), "slowfs ended")
                time.sleep(0.01)
            yield mount
        finally:
            with open(os.path.join(control, rule), "w") as f:
                f.write("")
            fs.terminate()
            fs.wait(30)
            subprocess.run(["fusermount3", "-u", "-z", mount], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @unittest.skipUnless(SLOWFS and os.path.exists("/dev/fuse"), "slowfs and /dev/fuse")
    def test_stuck_file(self):
        """A stuck file jetsond only tests for costs the capture 2 s."""
        stuck = "etc/systemd/system/nvfancontrol.service"
        with self.slow_board(stuck) as mount:
            archive = self.path("stuck.tar.gz")
            start = time.monotonic()
            report = capture(mount, archive).stdout
            took = time.monotonic() - start
            self.assertRegex(report, "/%s: no answer within 2 s" % stuck)
            self.assertLess(took, 20)
            with tarfile.open(archive, "r:gz") as t:
                self.assertNotIn(stuck, t.getnames())
                self.assertIn("proc/stat", t.getnames())

    @unittest.skipUnless(SLOWFS and os.path.exists("/dev/fuse"), "slowfs and /dev/fuse")
    def test_stuck_probe(self):
        """A file every sample reads that never answers: the probe is given
        up after its 10 s deadline, the archive holds what was read until
        then, the report says so and names the file (the tree's own read of
        it has no answer either), and the exit status is 2."""
        stuck = "proc/meminfo"
        with self.slow_board(stuck) as mount:
            archive = self.path("probe.tar.gz")
            args, env = nvml_args(None)
            start = time.monotonic()
            run = subprocess.run([JETSOND, "--capture", archive, "--interval", INTERVAL, "--sysroot", mount] + args,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60, text=True)
            took = time.monotonic() - start
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("The probe did not finish: no answer within 10 s", run.stdout)
            self.assertIn("the probe had no answer within 10 s; writing what it read until then", run.stderr)
            self.assertRegex(run.stdout, "/%s: no answer within 2 s" % stuck)
            self.assertGreaterEqual(took, 10)
            self.assertLess(took, 40)
            print(f"figure: a capture whose probe is stuck ends after {took:.1f} s")
            with tarfile.open(archive, "r:gz") as t:
                names = t.getnames()
            self.assertNotIn(stuck, names)
            # the board's identity was read before the first sample
            self.assertIn("etc/nv_tegra_release", names)
            self.assertIn(".capture/summary.txt", names)
            self.assertEqual(sorted(os.listdir(self.tmp)), ["control", "mnt", "probe.tar.gz", "source"])

    @unittest.skipUnless(SLOWFS and os.path.exists("/dev/fuse"), "slowfs and /dev/fuse")
    def test_endless_file(self):
        """A file whose reads never reach the end (slowfs "endless", as a
        driver that never returns 0), one every sample reads: the probe
        finishes, the archive keeps its first 32 MiB and the report says
        it was cut."""
        endless = "proc/meminfo"
        with self.slow_board(endless, "endless") as mount:
            archive = self.path("endless.tar.gz")
            start = time.monotonic()
            report = capture(mount, archive).stdout
            took = time.monotonic() - start
            self.assertRegex(report, "/%s: longer than %d bytes \\(endless\\?\\): cut there" % (endless, 32 << 20))
            self.assertNotIn("The probe did not finish", report)
            self.assertLess(took, 40)
            print(f"figure: a capture with an endless file ends after {took:.1f} s")
            with tarfile.open(archive, "r:gz") as t:
                member = t.getmember(endless)
                self.assertEqual(member.size, 32 << 20)
                head = t.extractfile(member).read(4096)
            with open(os.path.join(self.path("source"), endless), "rb") as f:
                self.assertTrue(head.startswith(f.read()))

    def test_atomic(self):
        root = self.path("root")
        make_sysroot("agx-orin-jp62", root)
        archive = self.path("a.tar.gz")
        with open(archive, "w") as f:
            f.write("the previous archive")
        # The directory is the sysroot's file: the capture fails and leaves
        # the previous archive and no temporary file.
        bad = os.path.join(root, "etc", "os-release", "x.tar.gz")
        r = subprocess.run([JETSOND, "--capture", bad, "--sysroot", root], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn(bad, r.stderr)
        capture(root, archive)
        self.assertTrue(tarfile.is_tarfile(archive))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["a.tar.gz", "root"])

    def test_import_as_fixture(self):
        root = self.path("root")
        make_sysroot("x86-pc", root)
        config = os.path.join(FIXTURES, "x86-pc.nvml.json")
        archive = self.path("pc.tar.gz")
        capture(root, archive, "--duration", "1", nvml_config=config)
        fixtures = self.path("fixtures")
        os.makedirs(fixtures)
        subprocess.run(["/usr/bin/python3", os.path.join(FIXTURES, "gen", "import_capture.py"), archive, "my-pc",
                        "--jetsond", JETSOND, "--fake-nvml", FAKE_NVML, "--fixtures", fixtures],
                       check=True, stdout=subprocess.DEVNULL)
        imported = os.path.join(fixtures, "my-pc")
        self.assertEqual(sorted(os.listdir(fixtures)),
                         ["my-pc", "my-pc.capture.txt", "my-pc.expected.md", "my-pc.nvml.json"])
        self.assertEqual(sorted(os.listdir(os.path.join(imported, ".capture"))), ["series"])
        self.assertTrue(os.path.exists(os.path.join(imported, ".capture", "series", "index")))
        # As make-sysroot.sh copies a board (links kept).
        copy = self.path("copy")
        shutil.copytree(imported, copy, symlinks=True)
        first = once(root, config)
        replay = once(copy, os.path.join(fixtures, "my-pc.nvml.json"))
        self.assert_same_reading(first, replay, identity_skip=("serial",))
        with open(os.path.join(fixtures, "my-pc.expected.md")) as f:
            md = f.read()
        self.assertIn(first["board"]["model"], md)
        self.assertIn("`dgpu.0.mem_total`", md)
        # An archive that writes through its own link out of the tree is refused.
        evil = self.path("evil.tar.gz")
        outside = self.path("outside")
        os.makedirs(outside)
        with tarfile.open(evil, "w:gz") as t:
            link = tarfile.TarInfo("sys")
            link.type, link.linkname = tarfile.SYMTYPE, outside
            t.addfile(link)
            data = tarfile.TarInfo("sys/owned")
            data.size = 5
            t.addfile(data, io.BytesIO(b"owned"))
        r = subprocess.run(["/usr/bin/python3", os.path.join(FIXTURES, "gen", "import_capture.py"), evil, "evil",
                            "--jetsond", JETSOND, "--fixtures", fixtures], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("goes through a link out of the tree", r.stderr)
        self.assertEqual(os.listdir(outside), [])

    def test_figure_agx_orin(self):
        root = self.path("root")
        make_sysroot("agx-orin-jp72", root)
        archive = self.path("orin.tar.gz")
        start = time.monotonic()
        capture(root, archive)
        took = time.monotonic() - start
        size = os.path.getsize(archive)
        print("figure: capture of the AGX Orin (JetPack 7.2) fake board: %d bytes compressed, %.2f s "
              "(two samples %s ms apart)" % (size, took, INTERVAL))
        self.assertLessEqual(size, 1 << 20)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
