"""One load client's connection: the shared client's socket and framing, plus the ids still
outstanding (`pending`) and already answered (`answered`) on it."""
import json

from layoutd.wire import Connection

from .common import CONNECT_TIMEOUT, READ_TIMEOUT


class Pending:
    """A request sent and not yet answered: how its answer is checked (`check` against
    `expect`, `key` naming its template), and what to do with the result (`on_result`)."""
    __slots__ = ("id", "method", "check", "expect", "sent", "cancelled", "key", "on_result", "batch")

    def __init__(self, rid, method, check, expect, key, on_result=None):
        self.id, self.method, self.check, self.expect, self.key = rid, method, check, expect, key
        self.on_result, self.sent, self.cancelled, self.batch = on_result, 0.0, False, None


class TrackedConnection(Connection):
    """A connection whose ids count up from `id_base` and which knows what it still awaits."""

    def __init__(self, path, id_base):
        super().__init__(path, first_id=id_base, connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT)
        self.pending = {}      # id -> Pending
        self.answered = set()  # ids answered on this connection

    def read_message(self, timeout=None):
        """The next message; a line that is not JSON comes back as {"unreadable": text}."""
        line = self.read_line(timeout)
        try:
            return json.loads(line)
        except ValueError:
            return {"unreadable": line.decode("utf-8", "replace")}
