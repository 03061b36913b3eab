"""What the scripts share to run layoutd: a daemon started on a temporary socket and reached
through the package layoutd (clients/python, put on sys.path here): its typed client for
plain calls, and its raw connection (`layoutd.wire`) for the tools that time or check the
wire itself (bench, soak's load, protocol-examples).

    from layoutd_client import Daemon
    with Daemon(binary, config).start() as daemon:
        daemon.wait_until_listening()
        daemon.client().layout("Hello", 360)                     # the package's typed client
        daemon.connect().call("layout", {"text": "Hello", "width": 360})   # layoutd.wire

The names scripts import from here (Connection, DaemonHung, ConnectionDropped, encode,
request_message, LayoutdError) are the package's. Standard library only.
"""
import ctypes
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
from layoutd.wire import Connection, ConnectionDropped, DaemonHung, encode, request_message  # noqa: E402,F401

START_TIMEOUT = 60.0     # exec to a socket that accepts (or to READY=1)


class DaemonStartFailed(Exception):
    """The daemon exited, or never listened, at start."""


LayoutdError = layoutd.LayoutdError


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
        """A new raw connection (`layoutd.wire.Connection`), retried while the daemon is starting."""
        try:
            return Connection.with_retry(self.sock, retry_seconds, **kwargs)
        except OSError as error:
            raise DaemonStartFailed(f"layoutd did not listen on {self.sock}: {error}")

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
