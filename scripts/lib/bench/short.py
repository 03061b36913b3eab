"""The chat rows: what a chat backend asks, many short messages each measured for a bubble.
  short        2,000 messages of 10–80 characters cut at seeded random places from the corpus,
               `measure` at width 280 in FONT, over the socket: in JSON-RPC batches of 100
               (messages the daemon has not seen, then the same messages again) and one
               request at a time (at a width the batches did not use: no kept size answers
               it, its words are shaped already); beside them the reference tool's pango_us
               for the same messages, in the same run. Each pass cuts its own messages (its
               own seed), so every pass's first time is a first time. "Again" is answered from
               the sizes the daemon keeps (`limits.measureCacheEntries`).
  fixed cost   batched `measure` of the text "a", each at a width never asked before (laid
               out every time), against batched `ping`, per message: what a request costs
               that has nothing to do with its text; beside it the same "a" again and again,
               answered from the kept sizes.
  chat parallel
               4 client processes at once, each its own connection sending batched short
               messages, against 1 client alone: messages per second; the median of three
               rounds of the two.
The short and fixed-cost rows run with the daemon, the client and the reference tool on one
core (as a chat backend on a loaded machine runs), so that no figure depends on how much of
the second core the run gets; the parallel row uses both.
"""
import json
import multiprocessing
import os
import random
import subprocess
import time
from contextlib import contextmanager

from layoutd.wire import Connection

from .common import FONT, mean, middle, round_trips, step

MESSAGES = 2000
BATCH = 100
SHORTEST, LONGEST = 10, 80
CHAT_WIDTH = 280
FIXED_COST_BATCHES = 20
PARALLEL_ROUNDS = 3
PARALLEL_START_DELAY = 1.5   # seconds for every client to connect and encode before the clock starts


def cut_messages(corpus, seed, count=MESSAGES):
    """`count` messages of SHORTEST–LONGEST characters (code points), each cut at a random
    place of a random corpus paragraph (mid-word as often as not): (lang, text) pairs. Tabs and
    line ends become spaces (one message is one line of the reference tool's input)."""
    rng = random.Random(seed)
    messages = []
    while len(messages) < count:
        p = corpus[rng.randrange(len(corpus))]
        text = p["text"]
        length = rng.randint(SHORTEST, LONGEST)
        if len(text) < length:
            continue
        start = rng.randrange(len(text) - length + 1)
        piece = text[start:start + length].replace("\t", " ").replace("\n", " ").replace("\r", " ")
        if piece.strip():
            messages.append((p["lang"], piece))
    return messages


@contextmanager
def one_core(daemon_pid):
    """This process and every thread of the daemon `daemon_pid` on the first core this process
    may use, for the block; then every thread of both back on the cores this process had
    (threads the daemon started meanwhile inherited the one core)."""
    cores = os.sched_getaffinity(0)
    core = {min(cores)}
    try:
        for tid in [0] + daemon_threads(daemon_pid):
            set_affinity(tid, core)
        yield core
    finally:
        for tid in [0] + daemon_threads(daemon_pid):
            set_affinity(tid, cores)


def set_affinity(tid, cores):
    try:
        os.sched_setaffinity(tid, cores)
    except OSError:
        pass   # a thread that ended meanwhile


def daemon_threads(pid):
    """Every thread of process `pid` (affinity is per thread)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [pid]


def reference_short(reference, run, messages, cores):
    """The reference tool over `messages` at CHAT_WIDTH (each `passes` times, warm), on
    `cores`: the sum of pango_us over the messages."""
    env = dict(os.environ, FONTCONFIG_FILE=run.fonts)
    tsv = "".join(f"{lang}\t{text}\n" for lang, text in messages)
    out = subprocess.run([reference, str(CHAT_WIDTH), "16", "Noto Sans", str(run.passes)], input=tsv.encode(),
                         capture_output=True, env=env, check=True, preexec_fn=lambda: os.sched_setaffinity(0, cores)
                         ).stdout.decode()
    records = [json.loads(line) for line in out.splitlines()]
    if len(records) != len(messages):
        raise SystemExit(f"bench: the reference tool answered {len(records)} of {len(messages)} messages")
    return sum(r["pango_us"] for r in records)


def measure_params(text, width=CHAT_WIDTH):
    return {"text": text, "width": width, "font": FONT}


def batches(conn, texts):
    """The `measure` of each text, in encoded batches of BATCH."""
    return [conn.batch([("measure", measure_params(t)) for t in texts[i:i + BATCH]])
            for i in range(0, len(texts), BATCH)]


def checked_batches(conn, lines):
    """The round trips of batch lines; seconds. Raises on an error answer."""
    seconds = 0.0
    for line in lines:
        t0 = time.perf_counter()
        reply = conn.round_trip(line)
        seconds += time.perf_counter() - t0
        if b'"error"' in reply and any("error" in r for r in json.loads(reply)):
            raise SystemExit(f"layoutd: an error answer to a batch: {reply[:200]!r}")
    return seconds


def short_pass(conn, texts):
    """One pass of the row over `texts` (never sent before): batched first, batched again,
    one at a time; seconds of each. One at a time asks at a width a hair wider than the
    batches', so that no size the daemon kept answers it (`measureCacheEntries`): its words
    are shaped already, its lines are laid out again, as before sizes were kept."""
    first = checked_batches(conn, batches(conn, texts))
    again = checked_batches(conn, batches(conn, texts))
    single, _ = round_trips(conn, [conn.request("measure", measure_params(t, CHAT_WIDTH + 0.001)) for t in texts])
    return first, again, single


def fixed_cost_pass(conn, k):
    """Batched `measure` of "a", each at a width of its own (pass `k`'s: never asked before,
    so the letter is laid out every time), the same "a" again and again (its size kept), and
    batched `ping`, FIXED_COST_BATCHES batches of BATCH each: seconds per message of each."""
    count = FIXED_COST_BATCHES * BATCH
    widths = [CHAT_WIDTH + 10 * (k + 1) + 0.001 * i for i in range(count)]
    tiny = [conn.batch([("measure", measure_params("a", w)) for w in widths[i:i + BATCH]]) for i in range(0, count, BATCH)]
    kept = [conn.batch([("measure", measure_params("a"))] * BATCH) for _ in range(FIXED_COST_BATCHES)]
    pings = [conn.batch([("ping", {})] * BATCH) for _ in range(FIXED_COST_BATCHES)]
    checked_batches(conn, kept[:2])   # warm after whatever had the core
    return (checked_batches(conn, tiny) / count, checked_batches(conn, kept) / count,
            checked_batches(conn, pings) / count)


def short_round(conn, daemon_pid, run, k):
    """Pass `k` of the short and fixed-cost rows on one core, with pass k's own messages
    (the same for every build measured): µs per message of each figure."""
    texts = [text for _, text in cut_messages(run.corpus, seed=k + 1)]
    with one_core(daemon_pid):
        first, again, single = short_pass(conn, texts)
        tiny, kept, ping = fixed_cost_pass(conn, k)
    n = len(texts)
    return {"first": first / n * 1e6, "again": again / n * 1e6, "single": single / n * 1e6,
            "tiny": tiny * 1e6, "kept": kept * 1e6, "ping": ping * 1e6}


def short_rows(conn, daemon, run, reference):
    """The short and fixed-cost rows (see the module's doc), each pass its own messages, the
    reference tool's run on them (on the same core) just before layoutd's pass."""
    step(f"short: {MESSAGES} short messages, batched and one at a time, against Pango ({run.passes} rounds, one core)")
    us = {"first": [], "again": [], "single": [], "pango": [], "tiny": [], "kept": [], "ping": []}
    core = {min(os.sched_getaffinity(0))}
    for k in range(run.passes):
        messages = cut_messages(run.corpus, seed=k + 1)
        us["pango"].append(reference_short(reference, run, messages, core) / len(messages))
        for key, value in short_round(conn, daemon.process.pid, run, k).items():
            us[key].append(value)
    return short_figures(us)


def short_figures(us):
    """The rows' JSON from the per-pass figures: means, and per pass ratios' medians."""
    def ratios(a, b):
        return [x / y for x, y in zip(us[a], us[b])]
    short = {"messages": MESSAGES, "batch": BATCH, "width": CHAT_WIDTH,
             "batched_first_us": mean(us["first"]), "batched_again_us": mean(us["again"]),
             "single_us": mean(us["single"]), "pango_us": mean(us["pango"]),
             "batched_first_msgs_per_s": 1e6 / mean(us["first"])}
    for key, name in (("first", "batched_first"), ("again", "batched_again"), ("single", "single")):
        short[f"{name}_vs_pango"] = short[f"{name}_us"] / short["pango_us"]
        short[f"{name}_vs_pango_passes"] = ratios(key, "pango")
    fixed = {"measure_a_us": mean(us["tiny"]), "measure_a_kept_us": mean(us["kept"]), "ping_us": mean(us["ping"]),
             "ratio": middle(ratios("tiny", "ping")), "pass_ratios": ratios("tiny", "ping"),
             "kept_ratio": middle(ratios("kept", "ping"))}
    return {"short": short, "fixed_cost": fixed}


def short_client(job):
    """One client process: its own connection, its messages in batches of BATCH, `rounds`
    times over (a little wider each round). The batches are encoded first; the round trips
    start at the wall-clock time `start` (shared by all clients). Returns when it finished."""
    sock, texts, width, start, rounds = job
    conn = Connection(sock, read_timeout=None)
    lines = [conn.batch([("measure", {"text": t, "width": width + r * 0.001, "font": FONT}) for t in texts[i:i + BATCH]])
             for r in range(rounds) for i in range(0, len(texts), BATCH)]
    time.sleep(max(0.0, start - time.time()))
    replies = [conn.round_trip(line) for line in lines]
    finished = time.time()
    conn.close()
    if any(b'"error"' in r for r in replies):
        raise SystemExit("layoutd answered an error")
    return finished


def short_clients(sock, run, n):
    """Messages per second of `n` client processes at once, each its own messages."""
    jobs = []
    start = time.time() + PARALLEL_START_DELAY
    for i in range(n):
        texts = [text for _, text in cut_messages(run.corpus, seed=100 + i)]
        jobs.append((sock, texts, CHAT_WIDTH + 0.25 * i, start, run.passes))
    with multiprocessing.get_context("fork").Pool(n) as pool:
        finished = pool.map(short_client, jobs)
    return n * MESSAGES * run.passes / (max(finished) - start)


def chat_parallel_row(sock, run):
    step(f"chat parallel: 1 client, then 4 at once, batched short messages ({PARALLEL_ROUNDS} rounds)")
    rounds = []
    for _ in range(PARALLEL_ROUNDS):
        one = short_clients(sock, run, 1)
        four = short_clients(sock, run, 4)
        rounds.append((four / one, one, four))
    ratio, one, four = sorted(rounds)[len(rounds) // 2]
    return {"one_client_msgs_per_s": one, "four_clients_msgs_per_s": four, "ratio": ratio,
            "round_ratios": [r[0] for r in rounds]}
