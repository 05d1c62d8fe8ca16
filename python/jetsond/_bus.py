"""The D-Bus side: one blocking jeepney connection to the system bus (or the
session bus, for a per-user jetsond), calls
that turn D-Bus errors into this package's exceptions, and properties with
their variants unwrapped. jeepney is imported here only, so the record,
statistics and jtop-shape code works without it."""

import os
import socket
from typing import Any, Dict, List, Optional, Tuple

from .errors import JetsondError, NotRunning, from_dbus

BUS_NAME = "org.jetsond.Jetson1"
PATH = "/org/jetsond/Jetson1"
IFACE = "org.jetsond.Jetson1."
DEFAULT_TIMEOUT = 120.0
RUN_SOCKET = "/run/dbus/system_bus_socket"  # writes run tools and may wait for a polkit agent


def unwrap(value: Any) -> Any:
    """A jeepney variant (signature, value) as its plain value, recursively
    for a{sv}."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0] in (
            "s", "b", "d", "u", "t", "i", "x", "n", "q", "y", "o", "g", "as", "a{ss}", "a{su}", "a{sv}",
            "a(us)", "a(ssttib)", "v"):
        sig, inner = value
        if sig == "a{sv}":
            return {k: unwrap(v) for k, v in inner.items()}
        if sig == "v":
            return unwrap(inner)
        return inner
    return value


class Bus:
    """A connection to the bus jetsond is on (the system bus, or ADDRESS:
    a D-Bus address such as unix:path=/run/dbus/system_bus_socket;
    bus_address() gives the session bus's)."""

    def __init__(self, address: Optional[str] = None, enable_fds: bool = False,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        from jeepney.io.blocking import open_dbus_connection
        self.timeout = timeout
        try:
            self.conn = open_dbus_connection(bus=system_bus_address(address), enable_fds=enable_fds)
        except (OSError, socket.error, KeyError, ValueError) as e:
            raise NotRunning("cannot connect to the bus (%s): %s"
                             % (address or os.environ.get("DBUS_SYSTEM_BUS_ADDRESS",
                                                          "/run/dbus/system_bus_socket"), e))

    def close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass

    def call(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (),
             path: str = PATH, destination: str = BUS_NAME, interactive: bool = False,
             timeout: Optional[float] = None) -> Tuple[Any, ...]:
        msg = method_call(interface, method, signature, body, path, destination, interactive)
        try:
            reply = self.conn.send_and_get_reply(msg, timeout=self.timeout if timeout is None else timeout)
        except (OSError, EOFError) as e:  # the bus went away, or no reply in time
            raise NotRunning("lost the connection to the system bus: %s" % (e,))
        return reply_body(reply)

    def jcall(self, interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (),
              path: str = PATH, interactive: bool = False) -> Tuple[Any, ...]:
        """A method of jetsond's interface org.jetsond.Jetson1.INTERFACE."""
        return self.call(IFACE + interface, method, signature, body, path=path, interactive=interactive)

    def get_all(self, interface: str, path: str = PATH) -> Dict[str, Any]:
        (props,) = self.call("org.freedesktop.DBus.Properties", "GetAll", "s", (IFACE + interface,), path=path)
        return {k: unwrap(v) for k, v in props.items()}

    def get(self, interface: str, name: str, path: str = PATH) -> Any:
        (value,) = self.call("org.freedesktop.DBus.Properties", "Get", "ss", (IFACE + interface, name), path=path)
        return unwrap(value)

    def managed_objects(self) -> Dict[str, Dict[str, Dict[str, Any]]]:
        (objs,) = self.call("org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        return {path: {iface: {k: unwrap(v) for k, v in props.items()} for iface, props in ifaces.items()}
                for path, ifaces in objs.items()}

    def name_has_owner(self) -> bool:
        (owned,) = self.call("org.freedesktop.DBus", "NameHasOwner", "s", (BUS_NAME,),
                             path="/org/freedesktop/DBus", destination="org.freedesktop.DBus")
        return bool(owned)

    def add_match(self, rule: str) -> None:
        self.call("org.freedesktop.DBus", "AddMatch", "s", (rule,),
                  path="/org/freedesktop/DBus", destination="org.freedesktop.DBus")

    def remove_match(self, rule: str) -> None:
        self.call("org.freedesktop.DBus", "RemoveMatch", "s", (rule,),
                  path="/org/freedesktop/DBus", destination="org.freedesktop.DBus")

    def receive(self, timeout: Optional[float]) -> Any:
        """The next message, or None after TIMEOUT seconds."""
        try:
            return self.conn.receive(timeout=timeout)
        except TimeoutError:
            return None
        except (OSError, EOFError) as e:
            raise NotRunning("lost the connection to the system bus: %s" % (e,))


def system_bus_address(address: Optional[str]) -> str:
    """ADDRESS, else the system bus: DBUS_SYSTEM_BUS_ADDRESS, else
    /run/dbus/system_bus_socket where it exists (jeepney's default is the
    spec's /var/run path, which a container given only the /run socket may
    not have), else jeepney's default."""
    if address:
        return address
    if not os.environ.get("DBUS_SYSTEM_BUS_ADDRESS") and os.path.exists(RUN_SOCKET):
        return "unix:path=" + RUN_SOCKET
    return "SYSTEM"


def bus_address(address: Optional[str], bus: str) -> Optional[str]:
    """The address to connect to: ADDRESS if given, else BUS's: None for
    "system" (system_bus_address() finds it), the session bus's for
    "session" (a per-user jetsond, jetsond --user)."""
    if bus not in ("system", "session"):
        raise ValueError('bus must be "system" or "session", not %r' % (bus,))
    if address or bus == "system":
        return address
    return session_bus_address()


def session_bus_address() -> str:
    """DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus, where a login
    session's bus listens (sd-bus looks there too; jeepney only reads the
    variable); NotRunning when neither is set (su, ssh without a login
    session, cron)."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if address:
        return address
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return "unix:path=" + os.path.join(runtime, "bus")
    raise NotRunning("cannot connect to the session bus: there is none here: neither DBUS_SESSION_BUS_ADDRESS "
                     "nor XDG_RUNTIME_DIR is set (a graphical or systemd-logind login session sets them; "
                     "su and sudo do not)")


def method_call(interface: str, method: str, signature: str = "", body: Tuple[Any, ...] = (),
                path: str = PATH, destination: str = BUS_NAME, interactive: bool = False) -> Any:
    from jeepney import DBusAddress, new_method_call
    from jeepney.low_level import MessageFlag
    msg = new_method_call(DBusAddress(path, destination, interface), method, signature or None, body)
    if interactive:
        msg.header.flags |= MessageFlag.allow_interactive_authorization
    return msg


def reply_body(reply: Any) -> Tuple[Any, ...]:
    """The body of REPLY, or the exception of the error it is."""
    from jeepney import MessageType
    from jeepney.low_level import HeaderFields
    if reply.header.message_type == MessageType.error:
        name = reply.header.fields.get(HeaderFields.error_name, "")
        text = reply.body[0] if reply.body and isinstance(reply.body[0], str) else name
        raise from_dbus(name, text)
    return tuple(reply.body)


def snapshot_values(values: Dict[str, Any]) -> Dict[str, Any]:
    return {k: unwrap(v) for k, v in values.items()}


__all__ = ["Bus", "BUS_NAME", "PATH", "JetsondError", "unwrap", "snapshot_values", "List"]
