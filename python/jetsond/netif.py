"""The host name and this machine's network addresses per interface, as
jtop's ``jetson.local_interfaces`` gives them: read here, in the caller's
network namespace (a container sees its own interfaces, as jtop run in it
would), not by jetsond. No subprocess and no pip package: the kernel's
SIOCGIFCONF ioctl for IPv4 (every address, aliases included) and
/proc/net/if_inet6 for IPv6."""

import array
import fcntl
import socket
import struct
from typing import Any, Dict, List, Tuple

_SIOCGIFCONF = 0x8912
_IFNAMSIZ = 16


def _ifreq_size() -> int:
    """sizeof(struct ifreq): the name and a union of 24 bytes on 64-bit
    Linux (its largest member, struct ifmap, has pointer-sized fields),
    16 on 32-bit."""
    return 40 if struct.calcsize("P") == 8 else 32


def _ipv4() -> List[Tuple[str, str]]:
    """(interface, address) for every IPv4 address, in the kernel's order."""
    size = _ifreq_size()
    n = 64
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while True:
            buf = array.array("B", b"\0" * (n * size))
            addr, _ = buf.buffer_info()
            # struct ifconf: int ifc_len, then (padded on 64-bit) the buffer's address.
            ifc = struct.pack("iP", len(buf), addr)
            used = struct.unpack("iP", fcntl.ioctl(s.fileno(), _SIOCGIFCONF, ifc))[0]
            if used < len(buf) - size:  # a full buffer may have cut the list: grow it
                break
            n *= 2
    raw = buf.tobytes()
    out = []  # type: List[Tuple[str, str]]
    for i in range(0, used, size):
        name = raw[i:i + _IFNAMSIZ].split(b"\0", 1)[0].decode("utf-8", "replace")
        # struct sockaddr_in after the name: family (2), port (2), address (4).
        out.append((name, socket.inet_ntoa(raw[i + _IFNAMSIZ + 4:i + _IFNAMSIZ + 8])))
    return out


def _ipv6(path: str = "/proc/net/if_inet6") -> List[Tuple[str, str]]:
    """(interface, address) for every IPv6 address; none where the kernel
    has no IPv6 (the file is missing)."""
    out = []  # type: List[Tuple[str, str]]
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        fields = line.split()
        if len(fields) == 6 and len(fields[0]) == 32:
            try:
                packed = bytes.fromhex(fields[0])
            except ValueError:
                continue
            out.append((fields[5], socket.inet_ntop(socket.AF_INET6, packed)))
    return out


def local_interfaces() -> Dict[str, Any]:
    """{"hostname": the host name, "interfaces": {NAME: its first IPv4
    address}, "addresses": {NAME: [every IPv4 address, then every IPv6
    one]}}: "hostname" and "interfaces" as jtop's local_interfaces
    (an interface without an IPv4 address is not in "interfaces", as in
    jtop); "addresses" is jetsond's, with IPv6 and aliases."""
    try:
        v4 = _ipv4()
    except OSError:  # no AF_INET socket (a sandbox): no IPv4 addresses, not an error
        v4 = []
    interfaces = {}  # type: Dict[str, str]
    addresses = {}  # type: Dict[str, List[str]]
    for name, addr in v4 + _ipv6():
        if ":" not in addr:
            interfaces.setdefault(name, addr)
        addresses.setdefault(name, []).append(addr)
    return {"hostname": socket.gethostname(), "interfaces": interfaces, "addresses": addresses}
