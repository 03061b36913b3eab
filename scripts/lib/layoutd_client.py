"""What the scripts share to run layoutd: a daemon started on a temporary socket, a client of
the package layoutd (clients/python, put on sys.path here) for plain calls, and raw
connections speaking JSON-RPC 2.0 in line-delimited JSON (one message a line, as
docs/protocol.md frames them) for the tools that time or check the wire itself (bench,
soak's load, protocol-examples).

    from layoutd_client import Daemon
    with Daemon(binary, config).start() as daemon:
        daemon.wait_until_listening()
        daemon.client().layout("Hello", 360)                     # the package's typed client
        daemon.connect().call("layout", {"text": "Hello", "width": 360})   # raw lines

Every read has a timeout by default (DaemonHung), a closed or broken socket is ConnectionDropped, and an
error answer to `call` is LayoutdError. Standard library only.
"""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "clients", "python"))
import layoutd  # noqa: E402

READ_TIMEOUT = 60.0      # longer than the daemon's requestSeconds (30 s): no answer means hung
CONNECT_TIMEOUT = 10.0
START_TIMEOUT = 60.0     # exec to a socket that accepts (or to READY=1)
# Bytes asked of each recv: below the allocator's mmap threshold, so that a small reply does
# not cost a large buffer mapped and unmapped.
RECEIVE_BYTES = 1 << 16


class DaemonHung(Exception):
    """No answer (or no room to send) within the timeout."""


class ConnectionDropped(Exception):
    """The daemon closed the connection, or it broke, while the client still used it."""


class DaemonStartFailed(Exception):
    """The daemon exited, or never listened, at start."""


class LayoutdError(layoutd.LayoutdError):
    """An error answer to a raw connection's request (the package's error, so one `except`
    catches both); `error` is the JSON-RPC error object."""

    def __init__(self, method, error):
        if isinstance(error, dict):
            super().__init__(error.get("code"), error.get("message", ""), error.get("data"), method)
        else:
            super().__init__(-32603, str(error), None, method)
        self.args = (f"layoutd: {error}",)
        self.error = error


def encode(message):
    """One message as a line of the wire format."""
    return json.dumps(message).encode() + b"\n"


def request_message(rid, method, params):
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def describe_exit(code):
    """A process's return code in words."""
    if code is None:
        return "running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def log_tail(path, lines=20):
    """The last lines of a log file (none when it cannot be read)."""
    if path is None:
        return []
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines()[-lines:]
    except OSError:
        return []


def toolchain_env():
    """The environment with /opt/swift on PATH when swift is not there already (as scripts/env.sh)."""
    env = dict(os.environ)
    if shutil.which("swift") is None and os.access("/opt/swift/usr/bin/swift", os.X_OK):
        env["PATH"] = "/opt/swift/usr/bin:" + env.get("PATH", "")
    return env


def build_release(root, products=None):
    """`swift build -c release` in `root`, for each of `products` (None: everything); its
    output is dropped. Raises SystemExit naming the command when it fails."""
    commands = [["swift", "build", "-c", "release"]] if products is None else \
        [["swift", "build", "-c", "release", "--product", p] for p in products]
    for cmd in commands:
        done = subprocess.run(cmd, cwd=root, env=toolchain_env(), stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed in {root} (exit {done.returncode})")


def _die_with_parent():
    """In the daemon's child process: SIGTERM when the script dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Connection:
    """One Unix-socket connection to layoutd: lines out, lines in, a timeout on every read
    by default.

    `call` sends one request and returns its result; `send_raw` and `read_line` /
    `read_message` are for pipelining (several requests out before their answers are read)
    and for exact bytes. Ids count up from `first_id`. With read_timeout None the socket
    blocks (no poll before each read: the bench times round trips with it)."""

    def __init__(self, path, first_id=0, connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(connect_timeout)
        try:
            self.sock.connect(path)
        except OSError:
            self.sock.close()
            raise
        self.read_timeout = self.timeout = read_timeout
        self.sock.settimeout(read_timeout)
        self.buffer = b""
        self.next_id = first_id
        self.closed = False

    @classmethod
    def with_retry(cls, path, seconds=30.0, **kwargs):
        """A connection once the daemon on `path` accepts, trying for up to `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return cls(path, **kwargs)
            except OSError:
                if time.monotonic() >= deadline:
                    raise DaemonStartFailed(f"layoutd did not listen on {path}")
                time.sleep(0.05)

    # -- encoding

    def new_id(self):
        self.next_id += 1
        return self.next_id

    def request(self, method, params):
        """A request line with the next id, not sent."""
        return encode(request_message(self.new_id(), method, params))

    def batch(self, calls):
        """A batch line of the (method, params) pairs, with the next ids, not sent."""
        return encode([request_message(self.new_id(), m, p) for m, p in calls])

    # -- sending and reading

    def send_raw(self, data):
        """Bytes as they are (whole lines, one or many)."""
        try:
            self.sock.sendall(data)
        except socket.timeout:
            raise DaemonHung(f"could not send for {self.timeout:.0f} s (the daemon stopped reading)")
        except OSError as e:
            raise ConnectionDropped(f"send failed: {e}")

    def read_line(self, timeout=None):
        """The next line, without its newline. DaemonHung when no bytes come for `timeout`
        seconds (None: the connection's read timeout)."""
        end = self.buffer.find(b"\n")
        if end < 0:
            self._set_timeout(self.read_timeout if timeout is None else timeout)
            chunks, size = [self.buffer], len(self.buffer)
            while end < 0:
                data = self._receive()
                end = data.find(b"\n")
                if end >= 0:
                    end += size
                chunks.append(data)
                size += len(data)
            self.buffer = b"".join(chunks)
        line, self.buffer = self.buffer[:end], self.buffer[end + 1:]
        return line

    def _set_timeout(self, timeout):
        # Set only when it changes: each change is a system call, and a timed round trip
        # should cost the client no more than its send and its reads.
        if timeout != self.timeout:
            self.sock.settimeout(timeout)
            self.timeout = timeout

    def _receive(self):
        try:
            data = self.sock.recv(RECEIVE_BYTES)
        except socket.timeout:
            raise DaemonHung(f"no answer within {self.timeout:.0f} s")
        except OSError as e:
            raise ConnectionDropped(f"read failed: {e}")
        if not data:
            raise ConnectionDropped("the daemon closed the connection")
        return data

    def read_message(self, timeout=None):
        """The next line, parsed."""
        return json.loads(self.read_line(timeout))

    def round_trip(self, line, timeout=None):
        """Sends one request line and returns its answer's line."""
        self.send_raw(line)
        return self.read_line(timeout)

    def call(self, method, params=None, timeout=None):
        """One request, answered before the next: its result, or LayoutdError."""
        rid = self.new_id()
        self.send_raw(encode(request_message(rid, method, {} if params is None else params)))
        reply = self.read_message(timeout)
        if isinstance(reply, dict) and "error" in reply:
            raise LayoutdError(method, reply["error"])
        if not isinstance(reply, dict) or reply.get("id") != rid:
            raise LayoutdError(method, f"answer {str(reply)[:120]} where one to id {rid} was expected")
        return reply["result"]

    def call_batch(self, calls, timeout=None):
        """The (method, params) pairs as one batch: its answer, the list of responses as the
        daemon sent them (error answers included)."""
        self.send_raw(self.batch(calls))
        return self.read_message(timeout)

    # -- closing

    def close(self):
        """Closes at once; whatever is outstanding is dropped."""
        if not self.closed:
            self.closed = True
            try:
                self.sock.close()
            except OSError:
                pass

    def close_gracefully(self, timeout=10.0):
        """Half-closes, reads to end of file, closes; returns the bytes not yet read."""
        extra = b""
        if self.closed:
            return extra
        try:
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(timeout)
            while True:
                data = self.sock.recv(1 << 16)
                if not data:
                    break
                extra += data
        except OSError:
            pass
        self.close()
        return self.buffer + extra

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Daemon:
    """One layoutd process on its own socket: in a temporary folder of its own unless `sock`
    names one (the folder is removed by `stop`).

    binary, config: the layoutd and its --config. env: its environment (None: this one).
    log_path: its stdout and stderr go there (None: stdout dropped, stderr inherited).
    notify: a NOTIFY_SOCKET datagram socket is made for it, for `wait_until_ready`.
    own_session: it runs in a session of its own (Ctrl-C reaches only the script, which
    stops it) and gets SIGTERM when the script dies."""

    def __init__(self, binary, config, sock=None, *, env=None, log_path=None, log_level="warning",
                 notify=False, own_session=False, extra_args=()):
        self.binary, self.config, self.env, self.log_path = binary, config, env, log_path
        self.log_level, self.notify, self.own_session, self.extra_args = log_level, notify, own_session, extra_args
        self.folder = None if sock else tempfile.mkdtemp(prefix="layoutd-")
        self.sock = sock or os.path.join(self.folder, "layoutd.sock")
        self.process = None
        self.notify_socket = None
        self.started_at = None

    @property
    def pid(self):
        return self.process.pid

    def start(self):
        """Execs the daemon (and returns self); `started_at` is perf_counter just before."""
        env = self.env
        if self.notify:
            env = dict(os.environ if env is None else env, NOTIFY_SOCKET=self._bind_notify_socket())
        cmd = [self.binary, "--socket", self.sock, "--config", self.config, "--log-level", self.log_level,
               *self.extra_args]
        out = open(self.log_path, "wb") if self.log_path else subprocess.DEVNULL
        extra = {"start_new_session": True, "preexec_fn": _die_with_parent} if self.own_session else {}
        try:
            self.started_at = time.perf_counter()
            self.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL if self.own_session else None,
                                            stdout=out, stderr=subprocess.STDOUT if self.log_path else None,
                                            env=env, **extra)
        finally:
            if self.log_path:
                out.close()
        return self

    def _bind_notify_socket(self):
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="layoutd-")
        path = os.path.join(self.folder, "notify")
        self.notify_socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify_socket.bind(path)
        return path

    def wait_until_ready(self, timeout=START_TIMEOUT):
        """Waits for READY=1 on the notify socket (as systemd would); returns the seconds
        from exec to it."""
        self.notify_socket.settimeout(timeout)
        try:
            while b"READY=1" not in self.notify_socket.recv(4096):
                pass
        except socket.timeout:
            raise DaemonStartFailed(f"layoutd sent no READY=1 within {timeout:.0f} s")
        return time.perf_counter() - self.started_at

    def wait_until_listening(self, timeout=START_TIMEOUT):
        """Waits until the socket accepts a connection (that one is closed again)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DaemonStartFailed(f"layoutd exited at start ({describe_exit(self.process.returncode)}):\n  "
                                        + "\n  ".join(log_tail(self.log_path)))
            try:
                Connection(self.sock).close()
                return
            except OSError:
                time.sleep(0.05)
        raise DaemonStartFailed(f"layoutd did not accept connections within {timeout:.0f} s")

    def connect(self, retry_seconds=30.0, **kwargs):
        """A new raw connection, retried while the daemon is starting."""
        return Connection.with_retry(self.sock, retry_seconds, **kwargs)

    def client(self, **kwargs):
        """A `layoutd.Client` of this daemon (it connects on first use); for a tool checking
        the daemon, one that does not reconnect behind its back. Once the daemon listens."""
        self.wait_until_listening()
        return layoutd.Client(self.sock, **{"reconnect": False, **kwargs})

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=10.0):
        """SIGTERM, then SIGKILL after `timeout`; removes the daemon's own folder."""
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.notify_socket is not None:
            self.notify_socket.close()
            self.notify_socket = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
