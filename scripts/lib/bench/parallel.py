"""The parallel row: 4 clients at once, each laying out the corpus, against 1 client alone:
throughput ratio (requests per second); three rounds of the two, the median round's. Beside
it, engine-bench's two threads against one, in process."""
import json
import multiprocessing
import time

from layoutd.wire import Connection

from .common import FONT, step

ROUNDS = 3
START_DELAY = 1.5   # seconds for every client to connect and encode before the clock starts


def corpus_client(job):
    """One client process: its own connection, every paragraph `rounds` times (at a width of
    its own, a little wider each round). The requests are encoded first; the round trips start
    at the wall-clock time `start` (shared by all clients) and the replies are parsed after the
    last. Returns when it finished."""
    sock, texts, width, start, rounds = job
    conn = Connection(sock, read_timeout=None)
    requests = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "layout",
                            "params": {"text": text, "width": width + r * 0.001, "font": FONT}}).encode() + b"\n"
                for r in range(rounds) for i, text in enumerate(texts)]
    time.sleep(max(0.0, start - time.time()))
    replies = [conn.round_trip(request) for request in requests]
    finished = time.time()
    conn.close()
    if any("error" in json.loads(r) for r in replies):
        raise SystemExit("layoutd answered an error")
    return finished


def clients(sock, run, n):
    """Requests per second of `n` client processes at once, each its own connection, each
    the whole corpus `passes` times (one pass of one client is too short to time)."""
    texts = [p["text"] for p in run.corpus]
    with multiprocessing.get_context("fork").Pool(n) as pool:
        start = time.time() + START_DELAY
        finished = pool.map(corpus_client, [(sock, texts, 360.5 + i, start, run.passes) for i in range(n)])
        return n * len(texts) * run.passes / (max(finished) - start)


def parallel_round(sock, run):
    """1 client, then 4: (4's throughput / 1's, 1's, 4's), from two runs next to each other
    in time (the machine's speed drifts for seconds at a time)."""
    one = clients(sock, run, 1)
    four = clients(sock, run, 4)
    return four / one, one, four


def parallel_row(sock, run, engine):
    step(f"parallel: 1 client, then 4 clients at once ({ROUNDS} rounds)")
    rounds = sorted(parallel_round(sock, run) for _ in range(ROUNDS))
    ratio, one, four = rounds[len(rounds) // 2]
    return {"one_client_rps": one, "four_clients_rps": four, "ratio": ratio,
            "round_ratios": [r[0] for r in rounds],
            "engine_two_threads_ratio": engine["two_threads_ratio"]}
