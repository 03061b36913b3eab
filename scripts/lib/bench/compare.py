"""`scripts/bench --compare OTHER_ROOT`: this checkout's build ("after") against another
checkout's release build ("before") on the corpus, parallel, streaming and chat rows, side by
side (`--only short`: the chat rows alone; `--only keystroke`: the editor rows alone, each
round on daemons of their own started with the editor rows' raised limits).

Each build runs its own daemon, started with the same configuration and pinned fonts (this
checkout's) and warmed with the corpus. Every row is measured in rounds, and the rounds
take the two in turn, the order swapped every round (A B, B A, A B, …), so that both are timed
over the same stretches of the run and neither always goes first (warming the cores, or finding
them warm): this machine's speed drifts for seconds at a time, and a ratio of two figures taken
next to each other carries where the figures themselves do not. Each build's figure is the mean
of its rounds; the ratio is after/before per round, reported as the median of the rounds'
ratios with their spread (min–max). The Pango reference is not run."""
import statistics

from . import corpus, keystroke, parallel, short, streaming
from .common import mean, step

# row -> (figure key, what it is); µs are times (below 1 is faster), the rest rates.
FIGURES = {
    "corpus": [("layoutd_us", "layout, every paragraph (µs per pass)"),
               ("ping_round_trips_us", "as many ping round trips (µs)"),
               ("engine_us", "engine alone, in process (µs per pass)"),
               ("engine_new_words_us", "engine, every word new (µs per pass)"),
               ("engine_two_threads_ratio", "engine, 2 threads against 1 (×)")],
    "parallel": [("one_client_rps", "1 client (req/s)"),
                 ("four_clients_rps", "4 clients at once (req/s)"),
                 ("ratio", "4 clients against 1 (×)")],
    "streaming": [("fresh_us", "fresh layout of the document (µs)"),
                  ("append_changed_us", "append 20 chars, changed (µs)"),
                  ("append_full_us", "append 20 chars, full result (µs)")],
    "short": [("batched_first_us", "short, batched, first time (µs/msg)"),
              ("batched_again_us", "short, batched, again (µs/msg)"),
              ("single_us", "short, one at a time (µs/msg)"),
              ("measure_a_us", "measure \"a\", batched (µs/msg)"),
              ("measure_a_kept_us", "measure \"a\" again, kept (µs/msg)"),
              ("ping_us", "ping, batched (µs/msg)")],
    "chat_parallel": [("one_client_msgs_per_s", "1 client (msgs/s)"),
                      ("four_clients_msgs_per_s", "4 clients at once (msgs/s)"),
                      ("ratio", "4 clients against 1 (×)")],
    "keystroke": [("keystroke_100_us", "keystroke, 100 paragraphs (µs)"),
                  ("keystroke_1000_us", "keystroke, 1,000 paragraphs (µs)"),
                  ("keystroke_10000_us", "keystroke, 10,000 paragraphs (µs)"),
                  ("open_retain_us", "open: retain 10,000 paragraphs (µs)"),
                  ("open_layout_us", "open: plain layout of them (µs)"),
                  ("open_ratio", "open: retain / layout (µs per µs)")],
}


class Side:
    """One build under comparison: its daemon and a connection to it (none when each round
    starts its own), and its figures per round."""

    def __init__(self, name, build, run, starts_daemon=True):
        self.name, self.build = name, build
        self.daemon = run.start(build) if starts_daemon else None
        self.conn = self.daemon.connect(read_timeout=None) if self.daemon else None
        self.document = None
        self.rounds = {row: {key: [] for key, _ in figures} for row, figures in FIGURES.items()}

    def record(self, row, figures):
        for key, value in figures.items():
            self.rounds[row][key].append(value)


def corpus_round(side, run, k):
    """One timed corpus pass at this round's width, the socket's floor, and engine-bench."""
    seconds = corpus.corpus_pass(side.conn, run.corpus, 360 + (k + 1) * 0.01)
    floor = corpus.ping_pass(side.conn, len(run.corpus))
    engine = corpus.engine_bench(side.build, run, run.passes)
    return {"layoutd_us": seconds * 1e6, "ping_round_trips_us": floor * 1e6, "engine_us": engine["engine_us"],
            "engine_new_words_us": engine["new_words_us"], "engine_two_threads_ratio": engine["two_threads_ratio"]}


def parallel_round(side, run, k):
    ratio, one, four = parallel.parallel_round(side.daemon.sock, run)
    return {"one_client_rps": one, "four_clients_rps": four, "ratio": ratio}


def streaming_round(side, run, k):
    if side.document is None:
        side.document = streaming.StreamedDocument(side.conn, run.corpus)
    fresh, _, changed, full = side.document.round()
    return {"fresh_us": fresh * 1e6, "append_changed_us": changed * 1e6, "append_full_us": full * 1e6}


def short_round(side, run, k):
    f = short.short_round(side.conn, side.daemon.process.pid, run, k)
    return {"batched_first_us": f["first"], "batched_again_us": f["again"], "single_us": f["single"],
            "measure_a_us": f["tiny"], "measure_a_kept_us": f["kept"], "ping_us": f["ping"]}


def chat_parallel_round(side, run, k):
    one = short.short_clients(side.daemon.sock, run, 1)
    four = short.short_clients(side.daemon.sock, run, 4)
    return {"one_client_msgs_per_s": one, "four_clients_msgs_per_s": four, "ratio": four / one}


def keystroke_round(side, run, k):
    """The editor rows on a daemon of this build started for them (their documents pass the
    default limits)."""
    with run.start(side.build, keystroke.editor_config(run)) as daemon:
        rows = keystroke.measure_keystrokes(daemon.connect(read_timeout=None), run)
    keys, o = rows["keystroke"], rows["open"]
    return {"keystroke_100_us": keys["keystroke_100_us"], "keystroke_1000_us": keys["keystroke_1000_us"],
            "keystroke_10000_us": keys["keystroke_10000_us"], "open_retain_us": o["retain_ms"] * 1e3,
            "open_layout_us": o["layout_ms"] * 1e3, "open_ratio": o["ratio"]}


ROWS = (("corpus", corpus_round), ("parallel", parallel_round), ("streaming", streaming_round),
        ("short", short_round), ("chat_parallel", chat_parallel_round))
CHAT_ROWS = ("short", "chat_parallel")
EDITOR_ROWS = (("keystroke", keystroke_round),)


def compare(run, after, before, only=None):
    """The compared rows of `after` (a Build) against `before`, as the JSON's dict; with
    `only="short"`, the chat rows alone; with `only="keystroke"`, the editor rows alone."""
    editor = only == "keystroke"
    rows_measured = EDITOR_ROWS if editor else [r for r in ROWS if only != "short" or r[0] in CHAT_ROWS]
    sides = []
    try:
        # (The editor rows start daemons of their own each round: none idles beside them.)
        for name, build in (("after", after), ("before", before)):
            sides.append(Side(name, build, run, starts_daemon=not editor))
        if not editor:
            step("compare: warming both daemons with the corpus")
            for side in sides:
                corpus.warm(side.conn, run.corpus)
        for row, measure in rows_measured:
            step(f"compare: {row}, {run.passes} rounds of the two, the order swapped each round")
            for k in range(run.passes):
                for side in (sides if k % 2 == 0 else sides[::-1]):
                    side.record(row, measure(side, run, k))
    finally:
        for side in sides:
            if side.daemon:
                side.daemon.stop()
    rows = {"compare": {"after": after.root, "before": before.root, "rounds": run.passes,
                        "after_plugins": after.plugins(), "before_plugins": before.plugins()}}
    for row, _ in rows_measured:
        figures = FIGURES[row]
        rows[row] = {key: compared(sides[0].rounds[row][key], sides[1].rounds[row][key]) for key, _ in figures}
    return rows


def compared(after, before):
    """One figure of both builds: their means, and after/before per round with its median."""
    ratios = [a / b for a, b in zip(after, before)]
    return {"after": mean(after), "before": mean(before), "ratio": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "round_ratios": ratios,
            "after_rounds": after, "before_rounds": before}


def print_comparison(rows):
    c = rows["compare"]
    print(f"after: {c['after']}   before: {c['before']}   {c['rounds']} rounds, alternating")
    print(f"{'row':10} {'figure':40} {'after':>11} {'before':>11} {'after/before':>12} {'spread':>12}")
    for row, figures in FIGURES.items():
        if row not in rows:
            continue
        for i, (key, label) in enumerate(figures):
            f = rows[row][key]
            digits = 0 if f["before"] >= 100 else 2
            print(f"{row if i == 0 else '':10} {label:40} {f['after']:11.{digits}f} {f['before']:11.{digits}f} "
                  f"{f['ratio']:12.3f} {'%.3f–%.3f' % (f['ratio_min'], f['ratio_max']):>12}")
    print("after/before: the median of the rounds' ratios; for times (µs) below 1 is faster, "
          "for rates (req/s, ×) above 1 is.")
