"""The wire as it is: one connection, JSON-RPC 2.0 in line-delimited JSON (one message a line,
docs/protocol.md, Transport), bytes out and lines in. For tools that time or check the
protocol itself: batches, pipelined writes, exact bytes, partial lines. `layoutd.Client`
is the way for everything else (typed results, string-index offsets, reconnects).

    from layoutd.wire import Connection
    with Connection() as conn:                      # None: the search order
        print(conn.call("ping"))                    # {'pong': True}
        print(conn.call_batch([("ping", {}), ("nope", {})]))

Every read has a timeout by default (`DaemonHung`); a closed or broken socket is
`ConnectionDropped`; an error answer to `call` is `layoutd.LayoutdError`.
"""
import json
import socket
import time

from ._errors import ConnectionLost, LayoutdError
from ._socket import connect, open_socket

READ_TIMEOUT = 60.0      # longer than the daemon's requestSeconds (30 s): no answer means hung
CONNECT_TIMEOUT = 10.0
# Bytes asked of each recv: below the allocator's mmap threshold, so that a small reply does
# not cost a large buffer mapped and unmapped.
RECEIVE_BYTES = 1 << 16


class DaemonHung(TimeoutError):
    """No answer (or no room to send) within the timeout."""


class ConnectionDropped(ConnectionLost):
    """The daemon closed the connection, or it broke, while the client still used it."""


def encode(message):
    """One message as a line of the wire format."""
    return json.dumps(message).encode() + b"\n"


def request_message(rid, method, params):
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


class Connection:
    """One connection to layoutd (a Unix socket path, `unix:PATH` or `tcp:HOST:PORT`):
    lines out, lines in, a timeout on every read by default.

    `call` sends one request and returns its result; `send_raw` and `read_line` /
    `read_message` are for pipelining (several requests out before their answers are read)
    and for exact bytes. Ids count up from `first_id`. With read_timeout None the socket
    blocks (no poll before each read: the bench times round trips with it)."""

    def __init__(self, path=None, first_id=0, connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT):
        if path is None:
            path = connect(None)[1]   # the search order's first socket that accepts
        self.path = path
        self.sock = open_socket(path, connect_timeout)
        self.read_timeout = self.timeout = read_timeout
        self.sock.settimeout(read_timeout)
        self.buffer = b""
        self.next_id = first_id
        self.closed = False

    @classmethod
    def with_retry(cls, path, seconds=30.0, **kwargs):
        """A connection once the daemon on `path` accepts, trying for up to `seconds` (the
        last OSError when it never does)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return cls(path, **kwargs)
            except OSError:
                if time.monotonic() >= deadline:
                    raise
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
            raise LayoutdError.from_json(reply["error"], method)
        if not isinstance(reply, dict) or reply.get("id") != rid:
            raise LayoutdError(-32603, f"answer {str(reply)[:120]} where one to id {rid} was expected", None, method)
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
