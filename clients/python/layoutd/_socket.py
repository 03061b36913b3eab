"""Where the daemon listens: the search order every layoutd client follows (docs/protocol.md,
Transport): $LAYOUTD_SOCKET when set (and nothing else), else the first of
$XDG_RUNTIME_DIR/layoutd/layoutd.sock, /run/layoutd/layoutd.sock and
/tmp/layoutd-$UID/layoutd.sock that accepts a connection."""
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


def connect(path=None):
    """A connected blocking socket to `path`, or to the first candidate that accepts; and the
    path it reached. NoDaemon when none does."""
    tried = []
    for candidate in [path] if path else candidates():
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(candidate)
        except OSError as error:
            sock.close()
            tried.append(f"{candidate} ({error.strerror or error})")
            continue
        sock.settimeout(None)
        return sock, candidate
    raise NoDaemon(tried)
