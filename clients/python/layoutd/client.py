"""The synchronous client: one connection, one request at a time (or many at once through
`pipeline()`), reconnecting after a daemon restart."""
import json
import socket as _socketmodule

from . import _socket
from ._core import Core, Request, UNKNOWN_HANDLE
from ._errors import Cancelled, ConnectionLost, LayoutdError
from ._methods import Methods

READ_BYTES = 1 << 16


def message_line(rid, method, params):
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if rid is not None:
        message["id"] = rid
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def error_of(reply, method):
    error = reply.get("error")
    kind = Cancelled if isinstance(error, dict) and error.get("code") == -32800 else LayoutdError
    return kind.from_json(error, method)


class _Connection:
    """One socket in the line framing: answers kept by id until asked for, notifications
    handed to `on_notification` as they are read."""

    def __init__(self, sock, on_notification, timeout):
        self.sock, self.on_notification = sock, on_notification
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.answers = {}

    def send(self, rid, method, params):
        try:
            self.sock.sendall(message_line(rid, method, params))
        except OSError as error:
            raise ConnectionLost(f"send failed: {error}") from error

    def wait(self, rid):
        """The answer to `rid` (a dict with `result` or `error`)."""
        while rid not in self.answers:
            message = self._read_message()
            if isinstance(message, list):
                continue
            if "id" not in message:
                self.on_notification(message.get("method"), message.get("params"))
            elif message["id"] is None:
                # An error the daemon could not tie to a request (a refused connection, a
                # message it could not read): it closes the connection after it.
                raise LayoutdError.from_json(message.get("error"))
            else:
                self.answers[message["id"]] = message
        return self.answers.pop(rid)

    def _read_message(self):
        while b"\n" not in self.buffer:
            try:
                data = self.sock.recv(READ_BYTES)
            except _socketmodule.timeout as error:
                raise TimeoutError("layoutd did not answer in time") from error
            except OSError as error:
                raise ConnectionLost(f"read failed: {error}") from error
            if not data:
                raise ConnectionLost("the daemon closed the connection")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line) if line.strip() else self._read_message()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Client(Methods):
    """`Client(socket=None)`: connects (lazily) to `socket`, or to the first daemon of the
    search order ($LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/layoutd.sock, the system
    socket); `socket` may be a TCP listener, `tcp:HOST:PORT`, with its `token` (the daemon's
    auth.tokenFile). Offsets are Python string indices (`offset_encoding="utf-8"` or `"utf-16"`
    counts UTF-8 bytes or UTF-16 units instead). `timeout`: seconds an answer may take (None:
    forever). When the daemon goes away, the next call connects again (once) and lays
    retained documents out again as they are used; `reconnect=False` raises
    `ConnectionLost` instead (for tools that check the daemon itself)."""

    def __init__(self, socket=None, *, token=None, timeout=60.0, offset_encoding="utf-32", reconnect=True):
        self._path, self._timeout, self._reconnect = socket, timeout, reconnect
        self._core = Core(offset_encoding, token)
        self._connection = None

    @property
    def socket_path(self):
        return self._path

    def _connect(self):
        if self._connection is None:
            sock, path = _socket.connect(self._path)
            connection = _Connection(sock, self._notified, self._timeout)
            rid = self._core.next_id()
            connection.send(rid, "initialize", self._core.initialize_params())
            reply = connection.wait(rid)
            if "error" in reply:
                connection.close()
                raise error_of(reply, "initialize")
            self._connection = connection
            for listener in self._core.connected(reply["result"]):
                listener(self._core.font_fingerprint)
        return self._connection

    def _notified(self, method, params):
        self._core.notified(method, params)

    def _send(self, request):
        """Sends `request` on the current connection (laying its document out again first
        when the daemon does not know it) → the connection and the request's id."""
        connection = self._connect()
        params = dict(request.params)
        if request.handle is not None:
            relayout = self._core.stale(request.handle)
            if relayout is not None:
                rid = self._core.next_id()
                connection.send(rid, "layout", relayout)
                reply = connection.wait(rid)
                if "error" in reply:
                    raise error_of(reply, "layout")
                self._core.relaid(request.handle, reply["result"])
            params["handle"] = self._core.daemon_handle(request.handle)
        rid = self._core.next_id()
        connection.send(rid, request.method, params)
        return connection, rid

    def _answer(self, request, sent, retry=True):
        """The typed answer to `request`, sent as `rid`; once more on a new connection when
        the daemon went away, or after laying the document out again when it lost it."""
        connection, rid = sent
        try:
            reply = connection.wait(rid)
        except ConnectionLost:
            if connection is self._connection:
                self.close()
            if not retry or not self._reconnect:
                raise
            return self._answer(request, self._send(request), retry=False)
        if "error" in reply:
            error = error_of(reply, request.method)
            if retry and error.code == UNKNOWN_HANDLE and request.handle in self._core.documents:
                self._core.forget_daemon_handle(request.handle)
                return self._answer(request, self._send(request), retry=False)
            raise error
        return request.convert(reply["result"])

    def _run(self, request):
        if request.method == "release" and self._core.stale(request.handle) is not None:
            return request.convert({"released": True})
        try:
            sent = self._send(request)
        except ConnectionLost:
            self.close()
            if not self._reconnect:
                raise
            sent = self._send(request)
        return self._answer(request, sent)

    def pipeline(self):
        """A pipeline: its methods send at once and return `Pending` answers, read when
        asked for (`.result()`), so many requests travel before the first answer comes."""
        return Pipeline(self)

    def on_fonts_changed(self, listener):
        """Calls `listener(fingerprint)` when the daemon's fonts change (a `reload` that
        changed them, or a new daemon with other fonts); notifications are read while the
        client reads answers, or by `poll`."""
        self._core.font_listeners.append(listener)
        if self._connection is not None:
            self.close()
        self._connect()

    def poll(self, timeout=0.0):
        """Reads notifications that came, waiting up to `timeout` seconds for one."""
        connection = self._connect()
        connection.sock.settimeout(timeout or 1e-6)
        try:
            connection.wait(object())
        except (TimeoutError, BlockingIOError):
            pass
        finally:
            connection.sock.settimeout(self._timeout)

    def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Pending:
    """An answer not read yet."""

    def __init__(self, client, request, sent):
        self._client, self._request, self._sent = client, request, sent
        self._done, self._value = False, None

    def result(self):
        if not self._done:
            self._value, self._done = self._client._answer(self._request, self._sent), True
        return self._value


class Pipeline(Methods):
    def __init__(self, client):
        self._client, self._core = client, client._core
        self._pending = []

    def _run(self, request):
        pending = Pending(self._client, request, self._client._send(request))
        self._pending.append(pending)
        return pending

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass
