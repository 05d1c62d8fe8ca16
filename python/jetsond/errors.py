"""jetsond's D-Bus errors as Python exceptions (introspection/errors.md).

Every exception carries jetsond's own message (``str(e)``) and the D-Bus
error name (``e.dbus_name``). Programs branch on the class, never on the
message text."""

from typing import Dict, Optional, Type


class JetsondError(Exception):
    """Base of every error this package raises for jetsond."""

    dbus_name = ""  # type: str

    def __init__(self, message: str, dbus_name: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        if dbus_name is not None:
            self.dbus_name = dbus_name


class NotRunning(JetsondError):
    """jetsond is not on the bus (not installed, stopped, restarting) or the
    system bus itself cannot be reached."""


class AccessDenied(JetsondError, PermissionError):
    """polkit refused the action (or no agent answered)."""

    dbus_name = "org.freedesktop.DBus.Error.AccessDenied"


class InteractiveAuthorizationRequired(AccessDenied):
    """polkit would allow the action after authentication, but the call was
    made with ``interactive=False``."""

    dbus_name = "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"


class NotSupported(JetsondError):
    """The board lacks the feature (no nvpmodel, no fan PWM, ...)."""

    dbus_name = "org.jetsond.Jetson1.Error.NotSupported"


class Busy(JetsondError):
    """Another change to the same resource is running, or the limit on
    open captures is reached."""

    dbus_name = "org.jetsond.Jetson1.Error.Busy"


class Failed(JetsondError):
    """A tool or the kernel reported an error; the message quotes it."""

    dbus_name = "org.jetsond.Jetson1.Error.Failed"


class Timeout(JetsondError, TimeoutError):
    """A tool did not finish within jetsond's time limit."""

    dbus_name = "org.jetsond.Jetson1.Error.Timeout"


class RebootRequired(JetsondError):
    """The power mode needs a reboot: use ``set_default_nvpmodel()``."""

    dbus_name = "org.jetsond.Jetson1.Error.RebootRequired"


class ReadOnly(JetsondError, PermissionError):
    """A per-user jetsond (``Jetson(bus="session")``, ``jetsond --user``)
    changes nothing: every write is refused; use the system service."""

    dbus_name = "org.jetsond.Jetson1.Error.ReadOnly"


class InvalidArgs(JetsondError, ValueError):
    """An argument is out of range (checked before polkit is asked)."""

    dbus_name = "org.freedesktop.DBus.Error.InvalidArgs"


class NotFound(JetsondError, FileNotFoundError):
    """No such object (a fan index the board lacks) or no swap file."""

    dbus_name = "org.freedesktop.DBus.Error.FileNotFound"


class UnknownProcess(JetsondError, ProcessLookupError):
    """jetsond cannot see the calling process in its /proc, so it cannot
    translate PIDs between the caller's PID namespace and its own."""

    dbus_name = "org.jetsond.Jetson1.Error.UnknownProcess"


_BY_NAME = {c.dbus_name: c for c in (
    AccessDenied, InteractiveAuthorizationRequired, NotSupported, Busy, Failed, Timeout,
    RebootRequired, InvalidArgs, NotFound, UnknownProcess, ReadOnly)}  # type: Dict[str, Type[JetsondError]]
_BY_NAME["org.freedesktop.DBus.Error.UnknownObject"] = NotFound
_BY_NAME["org.freedesktop.DBus.Error.UnknownInterface"] = NotSupported
for _n in ("ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected", "NoServer", "NoSuchUnixProcess"):
    _BY_NAME["org.freedesktop.DBus.Error." + _n] = NotRunning


class NoSuchGpu(JetsondError, LookupError):
    """An index, UUID, PCI bus id or CUDA_VISIBLE_DEVICES entry that names
    no GPU, or more than one (raised by this package, not by jetsond)."""


def from_dbus(name: str, message: str) -> JetsondError:
    """The exception for the D-Bus error NAME with MESSAGE."""
    cls = _BY_NAME.get(name, JetsondError)
    if cls is NotRunning:
        message = "jetsond is not running (start it with: systemctl start jetsond): " + message
    return cls(message, name)
