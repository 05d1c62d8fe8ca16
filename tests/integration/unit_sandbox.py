"""What the file system and device rules of a systemd service unit allow,
read from the unit file as systemd reads it (systemd.exec(5),
systemd.resource-control(5), systemd 247 to 252). Used by
test-unit-paths.py to check every path jetsond writes and every device it
opens against systemd/jetsond.service.in, without systemd as PID 1.

Only the settings that decide whether a path may be written or a device
opened are modelled: ProtectSystem=, ProtectHome=, ProtectKernelTunables=,
ProtectControlGroups=, ProtectKernelLogs=, ReadWritePaths=, ReadOnlyPaths=,
InaccessiblePaths=, StateDirectory= and its kin, RuntimeDirectory=,
PrivateTmp=, PrivateDevices=, DevicePolicy=, DeviceAllow= and the
char-rtc that ProtectClock= adds."""

import fnmatch
import os
import posixpath

# The pseudo devices PrivateDevices=yes leaves in its private /dev, and the
# ones DevicePolicy=closed (or auto with a DeviceAllow= list) lets through.
PSEUDO_DEVICES = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}
PRIVATE_DEV_TREES = ("/dev/pts", "/dev/shm", "/dev/mqueue", "/dev/hugepages")

# ProtectKernelTunables=yes: read-only (and a few inaccessible) kernel
# interfaces, systemd 252's list.
TUNABLES_READ_ONLY = ("/proc/acpi", "/proc/apm", "/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq",
                      "/proc/latency_stats", "/proc/mttr", "/proc/scsi", "/proc/sys", "/proc/sysrq-trigger",
                      "/proc/timer_stats", "/sys", "/sys/kernel/debug", "/sys/kernel/tracing")
TUNABLES_INACCESSIBLE = ("/proc/kallsyms", "/proc/kcore")

TRUE = ("1", "yes", "true", "on")


def parse_unit(text):
    """{setting: [values in order]} of the [Service] section, with
    continuation lines joined and comments dropped. An empty assignment is
    kept as "" (it resets a list)."""
    settings, section, pending = {}, None, ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if section != "Service" or "=" not in line:
            continue
        key, value = (s.strip() for s in line.split("=", 1))
        settings.setdefault(key, []).append(value)
    return settings


def under(path, top):
    return path == top or top == "/" or path.startswith(top.rstrip("/") + "/")


class Sandbox:
    """The rules of one unit. RESOLVE maps a board path to its canonical
    form (symlinks followed, as systemd does for the paths it sets up and
    the kernel for every access); EXISTS says whether a board path exists
    (ReadWritePaths= without "-" must, or the unit fails to start)."""

    def __init__(self, text, resolve=lambda p: p, exists=lambda p: True):
        self.settings = parse_unit(text)
        self.resolve, self.exists = resolve, exists
        self.mounts = []      # (path, writable: True / False / None for inaccessible, rule)
        self.start_errors = []
        self._file_system()
        self._devices()

    # ---- settings ------------------------------------------------------
    def last(self, key, default=""):
        values = self.settings.get(key)
        return values[-1] if values else default

    def flag(self, key):
        return self.last(key).lower() in TRUE

    def words(self, key):
        """Space-separated values of every assignment; "" resets."""
        out = []
        for v in self.settings.get(key, []):
            out = [] if v == "" else out + v.split()
        return out

    # ---- file system ---------------------------------------------------
    def _add(self, path, writable, rule, explicit=False):
        self.mounts.append((path, writable, rule, explicit))

    def _paths(self, key, writable):
        for entry in self.words(key):
            optional = entry.startswith("-")
            path = entry.lstrip("-+")
            if not self.exists(path):
                if not optional:
                    self.start_errors.append(f"{key}={entry}: {path} does not exist on this board, "
                                             "so the unit fails to start (no \"-\" prefix)")
                continue
            self._add(self.resolve(path), writable, f"{key}={entry}", explicit=True)

    def _file_system(self):
        system = self.last("ProtectSystem", "no").lower()
        if system == "strict":
            self._add("/", False, "ProtectSystem=strict")
            for api in ("/dev", "/proc", "/sys"):
                self._add(api, True, "ProtectSystem=strict (API file system)")
        elif system in TRUE or system == "full":
            for top in ("/usr", "/boot", "/efi") + (("/etc",) if system == "full" else ()):
                self._add(top, False, f"ProtectSystem={system}")
        home = self.last("ProtectHome", "no").lower()
        if home in TRUE:
            for top in ("/home", "/root", "/run/user"):
                self._add(top, None, "ProtectHome=yes")
        elif home in ("read-only", "tmpfs"):
            for top in ("/home", "/root", "/run/user"):
                self._add(top, home == "tmpfs", f"ProtectHome={home}")
        if self.flag("ProtectKernelTunables"):
            for top in TUNABLES_READ_ONLY:
                self._add(top, False, "ProtectKernelTunables=yes")
            for top in TUNABLES_INACCESSIBLE:
                self._add(top, None, "ProtectKernelTunables=yes")
        if self.flag("ProtectControlGroups"):
            self._add("/sys/fs/cgroup", False, "ProtectControlGroups=yes")
        if self.flag("ProtectKernelLogs"):
            for top in ("/proc/kmsg", "/dev/kmsg"):
                self._add(top, None, "ProtectKernelLogs=yes")
        if self.flag("PrivateTmp"):
            for top in ("/tmp", "/var/tmp"):
                self._add(top, True, "PrivateTmp=yes")
        for key, base in (("StateDirectory", "/var/lib"), ("CacheDirectory", "/var/cache"),
                          ("LogsDirectory", "/var/log"), ("RuntimeDirectory", "/run")):
            for name in self.words(key):
                self._add(posixpath.join(base, name.split(":")[0]), True, f"{key}={name}", explicit=True)
        self._paths("ReadWritePaths", True)
        self._paths("ReadOnlyPaths", False)
        self._paths("InaccessiblePaths", None)

    def write_rule(self, path):
        """None if the unit lets PATH (a canonical board path) be written,
        else the rule that refuses it. The deepest mount over PATH decides
        (systemd mounts parents first); at the same depth an explicit
        ReadWritePaths=/ReadOnlyPaths=/InaccessiblePaths= or a *Directory=
        wins over the implicit protections, as its mount comes last."""
        best = None
        for top, writable, rule, explicit in self.mounts:
            if under(path, top):
                key = (len(top.rstrip("/")) if top != "/" else 0, explicit)
                if best is None or key >= best[0]:
                    best = (key, writable, rule)
        if best is None or best[1]:
            return None
        return best[2] + (" (inaccessible)" if best[1] is None else " (read-only)")

    def leads_to_writable(self, path):
        """Whether PATH is above a directory the unit makes writable (which
        systemd creates, or which must exist for its mount)."""
        return any(explicit and writable and top != path and under(top, path)
                   for top, writable, _, explicit in self.mounts)

    # ---- devices -------------------------------------------------------
    def _devices(self):
        self.private_devices = self.flag("PrivateDevices")
        policy = self.last("DevicePolicy", "auto").lower()
        self.allow = []
        for v in self.settings.get("DeviceAllow", []):
            if v == "":
                self.allow = []
                continue
            spec, _, access = v.partition(" ")
            self.allow.append((spec, access.strip() or "rwm", f"DeviceAllow={v}"))
        if self.flag("ProtectClock"):
            self.allow.append(("char-rtc", "r", "DeviceAllow=char-rtc r (added by ProtectClock=yes)"))
        if self.private_devices:
            policy = "closed"   # PrivateDevices=yes implies DevicePolicy=closed
        if policy == "auto" and self.allow:
            policy = "closed"   # auto restricts as soon as anything is listed
        self.policy = policy

    def device_rule(self, path, names, access):
        """None if the unit lets PATH (a /dev node whose driver registers
        NAMES in /proc/devices) be opened for ACCESS ("r", "w", "rw"), else
        the rule that refuses it."""
        if self.private_devices and path not in PSEUDO_DEVICES and not path.startswith(PRIVATE_DEV_TREES):
            return "PrivateDevices=yes (its private /dev has only the pseudo devices, so the node is not there)"
        if self.policy == "auto":
            return None
        if self.policy == "closed" and path in PSEUDO_DEVICES:
            return None
        for spec, allowed, _ in self.allow:
            if not set(access) <= set(allowed):
                continue
            if spec.startswith("char-") and any(fnmatch.fnmatchcase(n, spec[5:]) for n in names):
                return None
            if spec.startswith("/dev/") and spec == path:
                return None
        listed = "; ".join(r for _, _, r in self.allow) or "no DeviceAllow="
        return (f"DevicePolicy={self.policy}: no DeviceAllow= grants {access} on {path} "
                f"(driver {'/'.join(names) or 'unknown'}; {listed})")


# /proc/devices names of the drivers behind the nodes jetsond or NVML may
# open. The NVIDIA driver registers major 195 as "nvidia-frontend" (older
# drivers) or "nvidia" (current ones); nvidia-uvm and nvidia-caps get
# majors of their own.
def device_names(path):
    base = os.path.basename(path)
    if path.startswith("/dev/nvidia-caps/"):
        return ["nvidia-caps"]
    if base in ("nvidia-uvm", "nvidia-uvm-tools"):
        return ["nvidia-uvm"]
    if base == "nvidiactl" or base == "nvidia-modeset" or (base.startswith("nvidia") and base[6:].isdigit()):
        return ["nvidia-frontend", "nvidia"]
    if path in ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"):
        return ["mem"]
    if base.startswith("rtc"):
        return ["rtc"]
    if path in ("/dev/tty", "/dev/ptmx"):
        return [path]
    return []
