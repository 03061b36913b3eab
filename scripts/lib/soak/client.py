"""A load client: one process, its own connection (renewed after disconnects) and its own
seeded mix of single `layout`s, documents (`layout` with `retain`, probes, `update`s,
`release`), pipelined bursts with `$/cancelRequest` after some requests, batches, the odd
`stats`, and disconnects mid-burst."""
import random
import signal
import time
import traceback

from layoutd.wire import ConnectionDropped, DaemonHung

from .common import MAX_HELD_HANDLES
from .exchange import Exchange
from .requests import RequestMaker


class Budget:
    """The --requests-max budget shared by every client process (None: no limit)."""

    def __init__(self, value, limit):
        self.value, self.limit = value, limit

    def reserve(self, n):
        """How many of n requests the budget still allows (those are counted as spent)."""
        if self.limit is None:
            return n
        with self.value.get_lock():
            grant = max(0, min(n, self.limit - self.value.value))
            self.value.value += grant
        return grant

    def spent(self):
        return self.limit is not None and self.value.value >= self.limit


class LoadClient:
    """Client `index`: its exchange with the daemon, its requests and what it holds."""

    def __init__(self, index, path, layouts, docs, seed, deadline, stop, budget, progress):
        self.index = index
        self.progress = progress  # shared array: each client's count of requests sent so far
        self.rng = random.Random(seed * 1000003 + index)
        self.deadline, self.stop, self.budget = deadline, stop, budget
        self.ex = Exchange(index, path)
        self.make = RequestMaker(self.ex, self.rng, layouts, docs)

    @property
    def held(self):
        return self.make.held

    def should_stop(self):
        return self.stop.is_set() or time.monotonic() >= self.deadline

    def send_and_read(self, items, cancel=()):
        self.ex.send_requests(items, cancel)
        self.ex.read_answers()

    # -- actions

    def do_single_layout(self):
        self.send_and_read([self.make.layout()])

    def do_open_document(self):
        self.send_and_read([self.make.open_document()])

    def do_probe(self):
        self.send_and_read([self.make.probe(self.rng.choice(self.held))])

    def do_update_or_release(self):
        held = self.rng.choice(self.held)
        if held.state + 1 < len(held.doc["texts"]) and self.rng.random() < 0.85:
            self.send_and_read([self.make.update(held)])
        else:
            self.send_and_read([self.make.release(held)])

    def do_cancelled_single(self):
        item = self.make.layout() if not self.held or self.rng.random() < 0.6 else self.make.probe(self.rng.choice(self.held))
        self.send_and_read([item], cancel={item[0].id})

    def burst_items(self, n):
        """n requests for a burst, the ids to cancel: updates of one streamed document now
        and then, probes of the others, layouts."""
        streaming = self.rng.choice(self.held) if self.held and self.rng.random() < 0.4 else None
        others = [h for h in self.held if h is not streaming]
        items, cancel = [], set()
        for _ in range(n):
            r = self.rng.random()
            if streaming and r < 0.2 and streaming.state + 1 < len(streaming.doc["texts"]):
                items.append(self.make.update(streaming))
                continue
            if others and r < 0.55:
                items.append(self.make.probe(self.rng.choice(others)))
            else:
                items.append(self.make.layout())
            if self.rng.random() < 0.2:
                cancel.add(items[-1][0].id)
        return items, cancel

    def do_burst(self):
        """5–20 requests without waiting, some cancelled; now and then the socket is closed mid-burst."""
        n = self.budget.reserve(self.rng.randint(5, 20))
        if n == 0:
            return
        items, cancel = self.burst_items(n)
        self.ex.tally["bursts"] += 1
        self.ex.send_requests(items, cancel)
        if self.rng.random() < 0.12:
            self.ex.read_answers(self.rng.randrange(0, max(1, n // 2)))
            if self.ex.conn.pending:
                self.ex.abandon_connection()
                self.ex.connect()
                self.release_dirty()
                return
        self.ex.read_answers()

    def release_dirty(self):
        """Release the handles whose state is unknown (an update abandoned, failed or mismatched)."""
        for held in [h for h in self.held if h.dirty]:
            self.send_and_read([self.make.release(held)])

    def do_batch(self):
        n = self.budget.reserve(self.rng.randint(2, 6))
        if n == 0:
            return
        items = [self.make.probe(self.rng.choice(self.held)) if self.held and self.rng.random() < 0.5
                 else self.make.layout() for _ in range(n)]
        sent = self.ex.send_batch(items)
        self.ex.handle_answer(self.ex.conn.read_message())
        self.ex.latency.setdefault("batch", []).append((time.monotonic() - sent) * 1000.0)
        self.ex.read_answers()

    def do_stats(self):
        self.send_and_read([self.ex.request("stats", {}, "stats", None, "stats")])

    def pick_action(self):
        held = len(self.held)
        table = [(self.do_single_layout, 20), (self.do_burst, 20), (self.do_cancelled_single, 6), (self.do_batch, 5),
                 (self.do_stats, 0.5)]
        if held < MAX_HELD_HANDLES:
            table.append((self.do_open_document, 10))
        if held:
            table += [(self.do_probe, 22), (self.do_update_or_release, 16)]
        total = sum(w for _, w in table)
        r = self.rng.random() * total
        for action, w in table:
            r -= w
            if r < 0:
                return action
        return table[0][0]

    # -- the run

    def run(self):
        try:
            self.ex.connect()
        except OSError as e:
            self.ex.fail(f"cannot connect ({e}); this client stops")
            return
        while not self.should_stop():
            action = self.pick_action()
            if action not in (self.do_burst, self.do_batch) and self.budget.reserve(1) == 0:
                break
            if not self.run_action(action):
                return
            self.progress[self.index] = self.ex.tally["sent"]
            if self.budget.spent():
                break
        self.release_everything()

    def run_action(self, action):
        """One action, on a new connection if the last was abandoned; False: this client stops."""
        try:
            if self.ex.conn is None:
                self.ex.connect()
            self.release_dirty()
            action()
        except DaemonHung as e:
            self.ex.tally["timeouts"] += 1
            self.ex.lose_connection(f"daemon hung: {e}; this client stops")
            return False
        except ConnectionDropped as e:
            self.ex.tally["dropped_by_daemon"] += 1
            self.ex.lose_connection(f"connection lost: {e}")
            return self.reconnect_or_give_up()
        except OSError as e:
            self.ex.fail(f"cannot connect again ({e}); this client stops")
            return False
        return True

    def reconnect_or_give_up(self):
        try:
            self.ex.connect()
            return True
        except OSError as e:
            self.ex.fail(f"cannot connect again ({e}); this client stops")
            return False

    def release_everything(self):
        """Release the handles still held and close the connection gracefully."""
        try:
            if self.ex.conn is None:
                self.ex.connect()
            self.ex.read_answers()
            while self.held:
                self.send_and_read([self.make.release(self.held[0])])
            self.ex.finish_connection()
        except (DaemonHung, ConnectionDropped) as e:
            self.ex.tally["timeouts" if isinstance(e, DaemonHung) else "dropped_by_daemon"] += 1
            self.ex.lose_connection(f"while closing: {e}")
        except OSError as e:
            self.ex.fail(f"cannot connect to release the handles still held ({e})")


def run_client_process(index, path, layouts, docs, seed, deadline, stop, budget, progress, results):
    """Entry of a client process: Ctrl-C is the parent's business; it stops us through `stop`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    client = LoadClient(index, path, layouts, docs, seed, deadline, stop, budget, progress)
    ex = client.ex
    try:
        client.run()
    except Exception:
        ex.tally["client_errors"] += 1
        ex.fail("crashed: " + traceback.format_exc().strip().replace("\n", " | "))
    finally:
        if ex.conn is not None:
            ex.tally["missing"] += len(ex.conn.pending)
            ex.conn.close()
    results.put({"index": index, "tally": ex.tally, "latency": ex.latency, "failures": ex.failures})
