"""The asyncio client: many requests in flight on one connection (answers matched by id),
`$/cancelRequest` sent when a task awaiting one is cancelled, reconnection after a daemon
restart."""
import asyncio
import json

from . import _socket
from ._core import Core, UNKNOWN_HANDLE
from ._errors import ConnectionLost, LayoutdError
from ._methods import Methods
from .client import error_of, message_line

LINE_LIMIT = 1 << 30


class _AsyncConnection:
    def __init__(self, reader, writer, on_notification):
        self.reader, self.writer, self.on_notification = reader, writer, on_notification
        self.pending = {}
        self.lost = None
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self):
        try:
            while True:
                line = await self.reader.readline()
                if not line:
                    raise ConnectionLost("the daemon closed the connection")
                if line.strip():
                    self._dispatch(json.loads(line))
        except (ConnectionLost, OSError, ValueError) as error:
            self.lost = error if isinstance(error, ConnectionLost) else ConnectionLost(str(error))
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(self.lost)
            self.pending.clear()

    def _dispatch(self, message):
        if not isinstance(message, dict):
            return
        if "id" not in message:
            self.on_notification(message.get("method"), message.get("params"))
            return
        future = self.pending.pop(message["id"], None)
        if future is not None and not future.done():
            future.set_result(message)

    def send(self, rid, method, params):
        if self.lost is None and self.writer.is_closing():
            self.lost = ConnectionLost("the connection is closed")
        if self.lost is not None:
            raise self.lost
        try:
            self.writer.write(message_line(rid, method, params))
        except OSError as error:
            self.lost = ConnectionLost(f"send failed: {error}")
            raise self.lost from error

    async def call(self, rid, method, params):
        """The answer to one request; cancelling the awaiting task cancels it in the daemon
        too (`$/cancelRequest`, as LSP does)."""
        future = asyncio.get_running_loop().create_future()
        self.pending[rid] = future
        try:
            self.send(rid, method, params)
            await self.writer.drain()
            return await future
        except asyncio.CancelledError:
            if self.pending.pop(rid, None) is not None and self.lost is None:
                self.send(None, "$/cancelRequest", {"id": rid})
            raise
        except OSError as error:
            self.lost = ConnectionLost(f"send failed: {error}")
            raise self.lost from error
        finally:
            self.pending.pop(rid, None)

    def close(self):
        self.task.cancel()
        self.writer.close()


class AsyncClient(Methods):
    """`AsyncClient(socket=None)`: as `Client`, its methods coroutines:
    `await client.layout("Hello", 200)`; `asyncio.gather` pipelines them."""

    def __init__(self, socket=None, *, token=None, offset_encoding="utf-32"):
        self._path = socket
        self._core = Core(offset_encoding, token)
        self._connection = None
        self._lock = None

    async def _connect(self):
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._connection is None or self._connection.lost is not None:
                if self._connection is not None:
                    self._connection.close()
                sock, _ = await asyncio.to_thread(_socket.connect, self._path)
                reader, writer = await asyncio.open_connection(sock=sock, limit=LINE_LIMIT)
                connection = _AsyncConnection(reader, writer, self._notified)
                reply = await connection.call(self._core.next_id(), "initialize", self._core.initialize_params())
                if "error" in reply:
                    connection.close()
                    raise error_of(reply, "initialize")
                self._connection = connection
                for listener in self._core.connected(reply["result"]):
                    listener(self._core.font_fingerprint)
            return self._connection

    def _notified(self, method, params):
        self._core.notified(method, params)

    async def _attempt(self, request):
        connection = await self._connect()
        params = dict(request.params)
        if request.handle is not None:
            relayout = self._core.stale(request.handle)
            if relayout is not None:
                reply = await connection.call(self._core.next_id(), "layout", relayout)
                if "error" in reply:
                    raise error_of(reply, "layout")
                self._core.relaid(request.handle, reply["result"])
            params["handle"] = self._core.daemon_handle(request.handle)
        return await connection.call(self._core.next_id(), request.method, params)

    async def _run(self, request):
        if request.method == "release" and self._core.stale(request.handle) is not None:
            return request.convert({"released": True})
        for attempt in (0, 1):
            try:
                reply = await self._attempt(request)
            except ConnectionLost:
                if attempt:
                    raise
                continue
            if "error" in reply:
                error = error_of(reply, request.method)
                if attempt == 0 and error.code == UNKNOWN_HANDLE and request.handle in self._core.documents:
                    self._core.forget_daemon_handle(request.handle)
                    continue
                raise error
            return request.convert(reply["result"])

    async def on_fonts_changed(self, listener):
        """Calls `listener(fingerprint)` when the daemon's fonts change."""
        self._core.font_listeners.append(listener)
        await self.close()
        await self._connect()

    async def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
