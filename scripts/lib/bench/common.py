"""What every row of the bench shares: the build it measures, the run's settings and inputs, and
the timing and statistics helpers.

A timed request is a socket round trip: the request is encoded before the clock starts and the
reply parsed (and checked for an error) after it stops, so the client's own JSON work is not
counted as layoutd's. Every connection blocks on its reads (no timeout): a poll before each
read would be the client's cost inside the timed round trip.
"""
import json
import os
import shutil
import sys
import tempfile
import time

from layoutd_client import Daemon  # first: it puts the package layoutd on sys.path
from layoutd import LayoutdError  # noqa: E402

# The font of every timed corpus request (the reference tool lays out with the same).
FONT = {"family": "Noto Sans", "size": 16}


def step(message):
    print(f"… {message}", file=sys.stderr, flush=True)


class Build:
    """One checkout's release binaries: layoutd and engine-bench."""

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.folder = os.path.join(self.root, ".build", "release")
        self.layoutd = os.path.join(self.folder, "layoutd")
        self.engine_bench = os.path.join(self.folder, "engine-bench")

    def missing(self):
        """The binaries that are not there (or not executable)."""
        return [p for p in (self.layoutd, self.engine_bench) if not os.access(p, os.X_OK)]

    def plugins(self):
        """The plugin shared objects beside layoutd, which it loads by default."""
        try:
            return sorted(f for f in os.listdir(self.folder) if f.startswith("liblayoutd-plugin-") and f.endswith(".so"))
        except OSError:
            return []


class Run:
    """The settings and inputs of one bench run, the same for every build it measures: the
    passes, the corpus, this checkout's configuration and pinned fonts, a scratch folder."""

    def __init__(self, root, shared, passes):
        self.root, self.shared, self.passes = root, shared, passes
        self.corpus_path = os.path.join(shared, "corpus", "paragraphs.jsonl")
        if not os.path.isfile(self.corpus_path):
            raise SystemExit(f"bench: the corpus {self.corpus_path} is missing (set LAYOUTD_SHARED to the shared folder)")
        with open(self.corpus_path, encoding="utf-8") as f:
            self.corpus = [json.loads(line) for line in f]
        self.config = os.path.join(root, "config", "layoutd.json")
        self.fonts = os.path.join(root, "config", "fonts.conf")
        self.folder = tempfile.mkdtemp(prefix="layoutd-bench-")

    def start(self, build, config=None, notify=False, env=None):
        """`build`'s layoutd on a socket of its own with `config` (the repository's by default)."""
        return Daemon(build.layoutd, config or self.config, notify=notify, env=env).start()

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def write_config(self, name, config):
        """A configuration file in the scratch folder; its path."""
        path = os.path.join(self.folder, name)
        with open(path, "w") as f:
            json.dump(config, f)
        return path


def checked(line):
    """The result of one reply line; an error answer ends the bench."""
    reply = json.loads(line)
    if "error" in reply:
        raise SystemExit(f"layoutd: {reply['error']}")
    return reply["result"]


def call(conn, method, params):
    """One untimed request's result; an error answer ends the bench."""
    try:
        return conn.call(method, params)
    except LayoutdError as e:
        raise SystemExit(str(e))


def round_trips(conn, requests):
    """Sends each encoded request and reads its reply, one after the other; only that is
    timed. Every reply is then parsed and checked. Returns (seconds, results)."""
    replies = []
    t0 = time.perf_counter()
    for request in requests:
        replies.append(conn.round_trip(request))
    seconds = time.perf_counter() - t0
    return seconds, [checked(line) for line in replies]


def timed_round_trip(conn, request):
    """One encoded request's round trip, unchecked, in microseconds."""
    t0 = time.perf_counter()
    conn.round_trip(request)
    return (time.perf_counter() - t0) * 1e6


def corpus_requests(conn, corpus, width):
    """A `layout` request of every paragraph at `width` in FONT, encoded."""
    return [conn.request("layout", {"text": p["text"], "width": width, "font": FONT}) for p in corpus]


def middle(values):
    """The middle value (the upper of the two middle ones of an even count)."""
    return sorted(values)[len(values) // 2]


def mean(values):
    return sum(values) / len(values)
