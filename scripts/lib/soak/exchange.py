"""One load client's side of the wire: its requests sent on its connection (renewed after
disconnects), every answer matched to its request and checked, and the counts, latencies and
failures that come of it."""
import json
import time

from .checks import check_result
from .common import FAILURE_SAMPLES, short
from .connection import Pending, TrackedConnection


def new_tally():
    return {"sent": 0, "answered": 0, "cancel_sent": 0, "cancelled": 0, "cancel_late": 0, "abandoned": 0,
            "mismatched": 0, "missing": 0, "duplicated": 0, "foreign": 0, "unexpected_errors": 0,
            "connections": 0, "disconnects": 0, "dropped_by_daemon": 0, "timeouts": 0, "bursts": 0,
            "batches": 0, "updates_checked": 0, "releases": 0, "client_errors": 0}


class Exchange:
    """Client `index`'s requests and answers. Each connection's ids start at an id base of its
    own, so that an answer meant for an earlier connection shows as foreign."""

    def __init__(self, index, path):
        self.index, self.path = index, path
        self.tally = new_tally()
        self.latency = {}
        self.failures = []
        self.conn = None
        self.id_base = (index + 1) * 10**12

    def fail(self, text):
        if len(self.failures) < FAILURE_SAMPLES:
            self.failures.append(f"client {self.index}: {text}")

    def connect(self):
        self.conn = TrackedConnection(self.path, self.id_base)
        self.id_base += 10**8
        self.tally["connections"] += 1

    # -- sending

    def request(self, method, params, check, expect, key, on_result=None):
        """A request line and its Pending, registered on the connection (not sent yet)."""
        rid = self.conn.new_id()
        p = Pending(rid, method, check, expect, key, on_result)
        self.conn.pending[rid] = p
        return p, json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n"

    def send_requests(self, items, cancel=()):
        """Send the requests at once (pipelined); cancel the ids in `cancel` right after each."""
        blob = []
        for p, line in items:
            blob.append(line)
            if p.id in cancel:
                p.cancelled = True
                blob.append(json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": p.id}}).encode() + b"\n")
                self.tally["cancel_sent"] += 1
        now = time.monotonic()
        for p, _ in items:
            p.sent = now
        self.tally["sent"] += len(items)
        self.conn.send_raw(b"".join(blob))

    def send_batch(self, items):
        """Send the requests as one batch; returns when it was sent (monotonic)."""
        ids = [p.id for p, _ in items]
        for p, _ in items:
            p.batch = ids
        body = b"[" + b",".join(line.rstrip(b"\n") for _, line in items) + b"]\n"
        self.tally["batches"] += 1
        self.tally["sent"] += len(items)
        now = time.monotonic()
        for p, _ in items:
            p.sent = now
        self.conn.send_raw(body)
        return now

    # -- receiving

    def handle_answer(self, message):
        """Match one answer (or batch answer) to its request and check it."""
        if isinstance(message, list):
            self.handle_batch_answer(message)
            return
        if not isinstance(message, dict) or "unreadable" in message:
            self.tally["foreign"] += 1
            self.fail(f"an answer that is not a JSON-RPC response: {short(message)}")
            return
        rid = message.get("id")
        p = self.conn.pending.pop(rid, None)
        if p is None:
            if rid in self.conn.answered:
                self.tally["duplicated"] += 1
                self.fail(f"duplicate answer to id {rid}: {short(message)}")
            else:
                self.tally["foreign"] += 1
                self.fail(f"answer to an id never sent on this connection: {short(message)}")
            return
        self.conn.answered.add(rid)
        self.tally["answered"] += 1
        if "error" in message:
            self.handle_error(p, message["error"])
        else:
            self.handle_result(p, message.get("result"))

    def handle_batch_answer(self, message):
        ids = [m.get("id") if isinstance(m, dict) else None for m in message]
        first = self.conn.pending.get(ids[0]) if ids else None
        if first is None or first.batch is None or ids != first.batch:
            self.tally["foreign"] += 1
            self.fail(f"batch answer with ids {ids} matches no batch sent")
            return
        for m in message:
            self.handle_answer(m)

    def handle_error(self, p, error):
        """The only error expected is -32800 for a request that was cancelled."""
        code = error.get("code") if isinstance(error, dict) else None
        if code == -32800 and p.cancelled:
            self.tally["cancelled"] += 1
            return
        self.tally["unexpected_errors"] += 1
        self.fail(f"{p.method} {p.key}{' (cancelled)' if p.cancelled else ''} answered error {short(error)}")
        if p.on_result:
            p.on_result(None, False)

    def handle_result(self, p, result):
        if p.batch is None:
            self.latency.setdefault(p.method, []).append((time.monotonic() - p.sent) * 1000.0)
        if p.cancelled:
            self.tally["cancel_late"] += 1
        where = check_result(p, result)
        if where:
            self.tally["mismatched"] += 1
            self.fail(f"{p.method} {p.key} differs from the quiet daemon's: {where}")
        if p.on_result:
            p.on_result(result, where is None)

    def read_answers(self, count=None, timeout=None):
        """Read until `count` answers came (None: until nothing is outstanding)."""
        got = 0
        while self.conn.pending and (count is None or got < count):
            self.handle_answer(self.conn.read_message(timeout))
            got += 1

    # -- ending a connection

    def finish_connection(self):
        """Wait for every outstanding answer, then close; bytes after the last are duplicates."""
        self.read_answers()
        extra = self.conn.close_gracefully()
        for line in extra.split(b"\n"):
            if line.strip():
                try:
                    self.handle_answer(json.loads(line))
                except ValueError:
                    self.tally["foreign"] += 1
                    self.fail(f"unreadable bytes after the last answer: {short(line.decode('utf-8', 'replace'))}")
        self.conn = None

    def abandon_connection(self):
        """Close mid-burst: what is outstanding is abandoned by the client."""
        self.tally["abandoned"] += len(self.conn.pending)
        self.tally["disconnects"] += 1
        for p in self.conn.pending.values():
            if p.method == "update" and p.on_result:
                p.on_result(None, False)
        self.conn.close()
        self.conn = None

    def lose_connection(self, why):
        """The daemon hung or dropped us: outstanding requests are missing."""
        missing = list(self.conn.pending.values())
        self.tally["missing"] += len(missing)
        methods = {}
        for p in missing:
            methods[p.method] = methods.get(p.method, 0) + 1
        self.fail(f"{why}; {len(missing)} request(s) unanswered {methods}, ids {[p.id for p in missing][:10]}")
        for p in missing:
            if p.on_result:
                p.on_result(None, False)
        self.conn.close()
        self.conn = None
