"""Loaded by every Python process started with this folder on PYTHONPATH (the no-network test).

Any connection to a non-loopback address is refused and written to $NETGUARD_LOG.
"""

import ipaddress
import os
import socket

_LOG = os.environ.get("NETGUARD_LOG")
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _loopback(host) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _record(what: str) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {what}\n")


def _check(address) -> None:
    if isinstance(address, tuple) and not _loopback(address[0]):
        _record(f"connect {address!r}")
        raise OSError(f"netguard: outbound connection to {address!r} blocked")


def connect(self, address):  # type: ignore[no-untyped-def]
    _check(address)
    return _connect(self, address)


def connect_ex(self, address):  # type: ignore[no-untyped-def]
    _check(address)
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if not _loopback(host):
        _record(f"resolve {host!r}")
        raise socket.gaierror(f"netguard: name resolution of {host!r} blocked")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = connect  # type: ignore[method-assign]
socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
