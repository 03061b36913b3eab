"""The load phase, watched from the parent: the client processes for the duration, the
daemon's RSS, fds and the requests sent sampled every SAMPLE_SECONDS, and what went wrong."""
import multiprocessing
import queue
import time

from layoutd_client import describe_exit

from .client import Budget, run_client_process
from .common import READ_TIMEOUT, SAMPLE_SECONDS, step
from .monitor import count_fds, read_rss_mb


class LoadRun:
    """The clients of one load phase and what the parent collects of them."""

    def __init__(self, args, sock, daemon, layouts, docs):
        ctx = multiprocessing.get_context("fork")
        self.daemon = daemon
        self.stop, self.results = ctx.Event(), ctx.Queue()
        self.progress = ctx.Array("q", args.clients, lock=False)
        budget = Budget(ctx.Value("q", 0), args.requests_max)
        self.start = time.monotonic()
        self.deadline = self.start + args.minutes * 60.0
        self.clients = [ctx.Process(target=run_client_process,
                                    args=(i, sock, layouts, docs, args.seed, self.deadline, self.stop, budget,
                                          self.progress, self.results),
                                    daemon=True) for i in range(args.clients)]
        self.samples = [(0.0, read_rss_mb(daemon.pid), count_fds(daemon.pid), 0)]
        self.collected, self.notes = {}, []

    def collect(self, timeout=0.5):
        """One client's results if they come within `timeout`; False if none came."""
        try:
            r = self.results.get(timeout=timeout)
        except queue.Empty:
            return False
        self.collected[r["index"]] = r
        return True

    def sample(self, now):
        self.samples.append((now - self.start, read_rss_mb(self.daemon.pid), count_fds(self.daemon.pid),
                             sum(self.progress)))

    def watch(self):
        """Until every client reported (or could not): samples, a progress line a minute, and
        the clients stopped if the daemon dies or they overrun."""
        next_sample, last_report = self.start + SAMPLE_SECONDS, self.start
        while len(self.collected) < len(self.clients):
            self.collect()
            now = time.monotonic()
            if now >= next_sample:
                self.sample(now)
                next_sample += SAMPLE_SECONDS
            if now - last_report >= 60:
                last_report = now
                s = self.samples[-1]
                step(f"{(now - self.start) / 60:.0f} min: layoutd RSS {s[1] or 0:.1f} MB, {s[2]} fds, {s[3]} requests sent")
            if self.daemon.poll() is not None and not self.stop.is_set():
                self.notes.append(f"layoutd died during the load ({describe_exit(self.daemon.returncode)}) at "
                                  f"{now - self.start:.1f} s")
                self.stop.set()
            if now > self.deadline + 2 * READ_TIMEOUT + 30:
                self.notes.append("clients did not finish within two read timeouts after the end; stopped them")
                break
            if not any(c.is_alive() for c in self.clients) and self.results.empty():
                time.sleep(0.5)
                if self.results.empty():
                    break

    def wind_down(self):
        """After Ctrl-C: the clients get a read timeout to close their connections."""
        self.notes.append("interrupted (Ctrl-C) before the end of the run")
        self.stop.set()
        step("interrupted: letting the clients close their connections")
        try:
            until = time.monotonic() + READ_TIMEOUT + 5
            while len(self.collected) < len(self.clients) and time.monotonic() < until:
                if not self.collect() and not any(c.is_alive() for c in self.clients):
                    break
        except KeyboardInterrupt:
            pass

    def end(self):
        self.stop.set()
        for c in self.clients:
            c.join(2)
            if c.is_alive():
                c.terminate()
                c.join(5)
        for i in range(len(self.clients)):
            if i not in self.collected:
                self.notes.append(f"client {i} reported nothing (it died or was stopped)")


def run_load(args, sock, daemon, layouts, docs):
    """Clients for the duration; returns their results, the /proc samples, what went wrong,
    whether it was interrupted, and the load's length in seconds."""
    load = LoadRun(args, sock, daemon, layouts, docs)
    interrupted = False
    try:
        for c in load.clients:
            c.start()
        load.watch()
    except KeyboardInterrupt:
        interrupted = True
        load.wind_down()
    finally:
        load.end()
    load_seconds = time.monotonic() - load.start
    return list(load.collected.values()), load.samples, load.notes, interrupted, load_seconds
