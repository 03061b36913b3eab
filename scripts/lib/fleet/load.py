"""The fleet test's clients: each on its own connection through HAProxy, a few requests in
flight at a time, a new connection every so often (so that a node back from the dead gets
clients again), and — as layoutd's clients do — what a dead connection left unanswered sent
again on a new one. Every answer is kept as a digest of its bytes, its id taken out, for
comparing with a quiet daemon's answer to the same request."""
import hashlib
import json
import random
import threading
import time

from layoutd.wire import Connection, ConnectionDropped, DaemonHung, encode, request_message

DEPTH = 4                 # requests in flight on a connection
ROTATE_EVERY = 150        # answers on one connection before a new one is made
READ_TIMEOUT = 30.0       # an answer later than this is a hung node: a failure
RECONNECT_SECONDS = 20.0  # how long a client tries to get a working connection


def request_pool(paragraphs, seed, size=400):
    """`size` stateless requests (method, params) drawn from the corpus: whole paragraphs and
    pieces of them cut at random (as chat messages are), `layout` or `measure`, at a few
    widths. Stateless, so any node may answer any of them."""
    rng = random.Random(seed)
    pool = []
    for _ in range(size):
        text = rng.choice(paragraphs)
        if rng.random() < 0.6:
            start = rng.randrange(len(text))
            text = text[start:start + rng.randint(10, 80)]
        method = rng.choice(["layout", "measure"])
        pool.append((method, {"text": text, "width": rng.choice([120, 240, 360, 600])}))
    return pool


def answer_digest(line, rid):
    """The answer's bytes with its id replaced by 0, hashed: equal digests, equal answers."""
    own = b'"id":' + json.dumps(rid).encode()
    return hashlib.blake2b(line.replace(own, b'"id":0', 1), digest_size=16).hexdigest()


class FleetClient(threading.Thread):
    def __init__(self, index, address, pool, until, seed):
        super().__init__(daemon=True)
        self.index, self.address, self.pool, self.until = index, address, pool, until
        self.rng = random.Random(seed)
        self.sent = {}          # id → index into the pool
        self.digests = {}       # id → answer_digest
        self.duplicates, self.foreign, self.failures = [], [], []
        self.resent = self.reconnects = self.connections = 0
        self.next = 0

    def run(self):
        try:
            self.load()
        except Exception as error:  # noqa: BLE001 — any failure is reported, not lost
            self.failures.append(f"client {self.index}: {type(error).__name__}: {error}")

    def load(self):
        outstanding = {}
        connection, answered = self.connect(), 0
        while time.monotonic() < self.until or outstanding:
            try:
                if answered < ROTATE_EVERY:
                    self.top_up(connection, outstanding)
                if not outstanding:
                    connection.close()
                    connection, answered = self.connect(), 0
                    continue
                self.take(connection.read_line(READ_TIMEOUT), outstanding)
                answered += 1
            except ConnectionDropped:
                connection.close()
                connection, answered = self.reconnect(outstanding), 0
            except DaemonHung as hung:
                self.failures.append(f"client {self.index}: {hung} ({len(outstanding)} requests in flight)")
                return
        connection.close()

    def top_up(self, connection, outstanding):
        """Sends requests until DEPTH are in flight (none once the time is up)."""
        while len(outstanding) < DEPTH and time.monotonic() < self.until:
            rid = f"c{self.index}-{self.next}"
            self.next += 1
            choice = self.rng.randrange(len(self.pool))
            method, params = self.pool[choice]
            line = encode(request_message(rid, method, params))
            self.sent[rid] = choice
            outstanding[rid] = line
            connection.send_raw(line)

    def take(self, line, outstanding):
        rid = json.loads(line).get("id")
        if rid in self.digests:
            self.duplicates.append(rid)
        elif rid not in self.sent:
            self.foreign.append(rid)
        else:
            self.digests[rid] = answer_digest(line, rid)
            outstanding.pop(rid, None)

    def connect(self):
        deadline = time.monotonic() + RECONNECT_SECONDS
        while True:
            try:
                connection = Connection(self.address, read_timeout=READ_TIMEOUT)
                self.connections += 1
                return connection
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def reconnect(self, outstanding):
        """A new connection with every unanswered request sent again on it, in order."""
        deadline = time.monotonic() + RECONNECT_SECONDS
        while True:
            self.reconnects += 1
            connection = self.connect()
            try:
                for line in outstanding.values():
                    connection.send_raw(line)
                self.resent += len(outstanding)
                return connection
            except ConnectionDropped:
                connection.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
