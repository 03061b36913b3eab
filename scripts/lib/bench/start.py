"""The start row: exec to READY=1 (a NOTIFY_SOCKET datagram socket, as systemd gives), and the
first request after ready against the same request warm. To tell start-up costs from new
words: a paragraph as long that the warm daemon has not seen; the first paragraph itself first
sent to a daemon warm from the rest of the corpus (its words that other paragraphs share found
shaped, as on a daemon that has been serving: what is left is start-up's own cost and the
paragraph's own words); and one raw hb_shape of the first paragraph (the reference tool's,
from the corpus row) against the warm request: the least that shaping its words afresh costs.
Then the first against the warm request again on a second fresh daemon with every request
(the first too) sent after a 200 ms pause, so that both pay what waking an idle daemon costs
(a request after such a pause takes longer than one sent back to back, even a `ping`) and
differ only in what is warm. Then the same back to back on a restarted daemon whose shape
cache is kept across restarts (`shapeCacheFile`, as under systemd), started after a daemon
that laid out the corpus once and stopped; and its exec to READY=1."""
import os
import time

from layoutd.wire import Connection, encode, request_message

from .common import middle, step, timed_round_trip

REQUESTS = 6        # the first, then five warm
PAUSE = 0.2         # seconds idle before each request of the paused daemon


def lay_out_each(conn, paragraphs):
    """Each paragraph (default font, width 360), one request after the other, untimed."""
    for p in paragraphs:
        conn.round_trip(encode(request_message(1, "layout", {"text": p["text"], "width": 360})))


def prime_kept_cache(build, run):
    """A configuration keeping the shape cache across restarts, and a daemon that lays out the
    corpus with it once and stops (writing the file the restarted daemons read back)."""
    config = run.write_config("kept.json", {"fontConfig": run.fonts,
                                            "shapeCacheFile": os.path.join(run.folder, "shaped-words")})
    with run.start(build, config) as primer:
        conn = primer.connect(read_timeout=None)
        lay_out_each(conn, run.corpus)
        conn.close()
    return config


def time_fresh_daemon(build, run, config, first, paused, unseen=None):
    """A fresh daemon: its exec to READY=1 in ms, the times in µs of REQUESTS of `first` (each
    after PAUSE when `paused`: every one then pays what waking an idle daemon and machine
    costs, as keystrokes a fifth of a second apart do), and with `unseen` the time of that
    request after them (what new words cost once the daemon is warm)."""
    with run.start(build, config, notify=True) as daemon:
        ready_ms = daemon.wait_until_ready(30) * 1e3
        conn = Connection(daemon.sock, read_timeout=None)
        times = []
        for _ in range(REQUESTS):
            if paused:
                time.sleep(PAUSE)
            times.append(timed_round_trip(conn, first))
        unseen_us = timed_round_trip(conn, unseen) if unseen else None
        conn.close()
    return ready_ms, times, unseen_us


def time_first_seen_warm(build, run, first):
    """The first paragraph first sent to a daemon warm from every other paragraph: µs."""
    with run.start(build) as daemon:
        conn = daemon.connect(read_timeout=None)
        lay_out_each(conn, run.corpus[1:])
        us = timed_round_trip(conn, first)
        conn.close()
    return us


def unseen_paragraph(corpus):
    """The paragraph of the first's language, not the first, closest to it in length."""
    first = corpus[0]
    return min((p for p in corpus if p["lang"] == first["lang"] and p["text"] != first["text"]),
               key=lambda p: abs(len(p["text"]) - len(first["text"])))


def start_row(build, run, first_hb):
    step("start: exec to READY=1, first request after ready")
    kept_config = prime_kept_cache(build, run)
    first = encode(request_message(1, "layout", {"text": run.corpus[0]["text"], "width": 360}))
    unseen = encode(request_message(2, "layout", {"text": unseen_paragraph(run.corpus)["text"], "width": 360}))
    plain, paused, kept, news, seen = [], [], [], [], []
    for _ in range(run.passes):
        ready_ms, times, unseen_us = time_fresh_daemon(build, run, run.config, first, False, unseen)
        plain.append((ready_ms, times))
        news.append(unseen_us)
        paused.append(time_fresh_daemon(build, run, run.config, first, True)[:2])
        kept.append(time_fresh_daemon(build, run, kept_config, first, False)[:2])
        seen.append(time_first_seen_warm(build, run, first))
    return summarize_start(plain, paused, kept, news, seen, first_hb)


def first_and_warm(daemons):
    """The middle exec-to-ready, first request and warm request (mean of the rest) of runs."""
    return (middle([ready for ready, _ in daemons]), middle([times[0] for _, times in daemons]),
            middle([sum(times[1:]) / (REQUESTS - 1) for _, times in daemons]))


def summarize_start(plain, paused, kept, news, seen, first_hb):
    ready, first, warm = first_and_warm(plain)
    _, paused_first, paused_warm = first_and_warm(paused)
    kept_ready, kept_first, kept_warm = first_and_warm(kept)
    unseen, first_seen = middle(news), middle(seen)
    # raw_hb_shape: one raw hb_shape of the whole first paragraph from the reference tool's
    # corpus run (same text; the default font, sans-serif 16, is Noto Sans 16 with the pinned
    # fonts, as the reference's). A request naming a family the daemon has not sorted
    # fallbacks for yet pays fontconfig's sort on top.
    return {"ready_ms": ready, "first_request_us": first, "warm_request_us": warm,
            "first_vs_warm": first / warm,
            "unseen_paragraph_us": unseen, "first_vs_unseen": first / unseen,
            "first_seen_warm_us": first_seen, "first_vs_first_seen_warm": first / first_seen,
            "raw_hb_shape_us": first_hb, "raw_hb_shape_vs_warm": first_hb / warm,
            "paused_first_request_us": paused_first, "paused_warm_request_us": paused_warm,
            "paused_first_vs_warm": paused_first / paused_warm,
            "kept_ready_ms": kept_ready, "kept_first_request_us": kept_first, "kept_warm_request_us": kept_warm,
            "kept_first_vs_warm": kept_first / kept_warm}
