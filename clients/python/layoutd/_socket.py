"""Where the daemon listens: the search order every layoutd client follows (docs/protocol.md,
Transport): $LAYOUTD_SOCKET when set (and nothing else), else the first of
$XDG_RUNTIME_DIR/layoutd/layoutd.sock, /run/layoutd/layoutd.sock and
/tmp/layoutd-$UID/layoutd.sock that accepts a connection. An address may also be a TCP
listener, `tcp:HOST:PORT` (`tcp:[::1]:7000` for IPv6), or `unix:PATH`."""
import os
import socket

from ._errors import NoDaemon

CONNECT_TIMEOUT = 10.0


def candidates(environ=None):
    """The socket paths to try, in order."""
    env = os.environ if environ is None else environ
    if env.get("LAYOUTD_SOCKET"):
        return [env["LAYOUTD_SOCKET"]]
    paths = []
    if env.get("XDG_RUNTIME_DIR"):
        paths.append(os.path.join(env["XDG_RUNTIME_DIR"], "layoutd", "layoutd.sock"))
    paths.append("/run/layoutd/layoutd.sock")
    paths.append(f"/tmp/layoutd-{os.getuid()}/layoutd.sock")
    return paths


def open_socket(address, timeout=CONNECT_TIMEOUT):
    """A blocking socket connected to `address` (a socket path, `unix:PATH` or
    `tcp:HOST:PORT`), its timeout `timeout`; OSError when it cannot connect, ValueError for
    an address that is neither."""
    if address.startswith("tcp:"):
        host, sep, port = address[4:].rpartition(":")
        if not sep or not port.isdigit() or not host:
            raise ValueError(f"{address!r}: write tcp:HOST:PORT, e.g. tcp:127.0.0.1:7000")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        sock = socket.create_connection((host, int(port)), timeout=timeout)
        # Each request is one small write: sent at once, not held for the last one's ack.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    path = address[5:] if address.startswith("unix:") else address
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    return sock


def connect(path=None):
    """A connected blocking socket to `path` (any address `open_socket` takes), or to the
    first candidate that accepts; and the address it reached. NoDaemon when none does."""
    tried = []
    for candidate in [path] if path else candidates():
        try:
            sock = open_socket(candidate)
        except OSError as error:
            tried.append(f"{candidate} ({error.strerror or error})")
            continue
        sock.settimeout(None)
        return sock, candidate
    raise NoDaemon(tried)
