"""A Debian 13 (trixie) root for a test: an overlay over the root that
scripts/debian13-root.sh makes once and keeps (the tests never write into
it), with /proc, /sys and /dev bound in. Processes run in it with chroot;
paths are translated between this machine's view (host) and the root's
(inside). Everything is undone by close(), including processes still
running in the root, which only the test can have started."""

import os
import shutil
import subprocess
import tempfile

import harness

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINDS = ["proc", "sys", "dev", "dev/pts"]


def cached_root(cache_dir):
    """The cached root in CACHE_DIR, made first if needed. Exits 77 (a
    skip for meson) with the reason where it cannot be had here."""
    if os.geteuid() != 0:
        print("SKIP: a Debian 13 root needs root (mmdebstrap, mount, chroot)", flush=True)
        raise SystemExit(77)
    rc = subprocess.run(["sh", os.path.join(SOURCE_DIR, "scripts", "debian13-root.sh"), cache_dir]).returncode
    if rc == 77:
        raise SystemExit(77)
    assert rc == 0, f"scripts/debian13-root.sh {cache_dir} failed ({rc})"
    return os.path.join(cache_dir, "root")


class Overlay:
    def __init__(self, lower):
        self.dir = tempfile.mkdtemp(prefix="jetsond-debian13.")
        self.path = os.path.join(self.dir, "merged")
        self.mounted = []
        for name in ("upper", "work", "merged"):
            os.makedirs(os.path.join(self.dir, name))
        try:
            self._mount(["-t", "overlay", "overlay", "-o",
                         f"lowerdir={lower},upperdir={self.dir}/upper,workdir={self.dir}/work"], self.path)
            for d in BINDS:
                self._mount(["--bind", "/" + d], os.path.join(self.path, d))
        except BaseException:
            self.close()
            raise

    def _mount(self, args, target):
        subprocess.run(["mount", *args, target], check=True)
        self.mounted.append(target)

    def host(self, inside):
        return self.path + inside

    def inside(self, host):
        assert host.startswith(self.path + "/"), host
        return host[len(self.path):]

    def command(self, argv, env):
        """ARGV run in the root with exactly ENV (chroot and env exec it, so
        a Popen's pid is the program's)."""
        return ["/usr/sbin/chroot", self.path, "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv]

    def processes(self):
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/root") == self.path:
                    found.append(int(pid))
            except OSError:
                pass
        return found

    def close(self):
        # Left by the test's own session in the root (services its session
        # bus started): by pid, TERM then KILL.
        if self.mounted:
            harness.end_processes(self.processes)
        for target in reversed(self.mounted):
            if subprocess.run(["umount", target]).returncode != 0:
                subprocess.run(["umount", "-l", target])
        self.mounted = []
        shutil.rmtree(self.dir, ignore_errors=True)
