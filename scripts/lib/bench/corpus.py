"""The corpus row: every paragraph of the corpus, one `layout` request each over the socket,
"Noto Sans" 16 px, a new width each pass (no whole-result cache can answer), against Pango in
process and one raw hb_shape per paragraph (the reference tool in shared/bench). Told apart:
the engine's work alone in process (engine-bench) and the socket's floor (as many `ping`
round trips); and the memory row, layoutd's resident memory after it."""
import json
import os
import subprocess
import tempfile

from .common import FONT, call, corpus_requests, round_trips, step


def build_reference_tool(run):
    """The reference tool (Pango, HarfBuzz, ICU) built from shared/bench; its path."""
    reference = os.path.join(tempfile.gettempdir(), "layout-reference")
    subprocess.run([os.path.join(run.shared, "bench", "build.sh"), reference], check=True, stdout=subprocess.DEVNULL)
    return reference


def warm(conn, corpus):
    """Every paragraph once, untimed: fonts and fallbacks, as a running daemon has them."""
    for p in corpus:
        call(conn, "layout", {"text": p["text"], "width": 360, "font": FONT})


def corpus_pass(conn, corpus, width):
    """One timed pass of the corpus at `width`, in seconds. A pass at another width comes
    first, untimed, to warm the daemon again after whatever else had the cores and caches."""
    round_trips(conn, corpus_requests(conn, corpus, 359))
    seconds, _ = round_trips(conn, corpus_requests(conn, corpus, width))
    return seconds


def reference_run(reference, run):
    """One run of the reference tool over the corpus (each paragraph `passes` times over, its
    own way of repeating): a record per paragraph with pango_us and hb_us."""
    env = dict(os.environ, FONTCONFIG_FILE=run.fonts)
    tsv = "".join(f"{p['lang']}\t{p['text']}\n" for p in run.corpus)
    out = subprocess.run([reference, "360", "16", "Noto Sans", str(run.passes)], input=tsv.encode(),
                         capture_output=True, env=env, check=True).stdout.decode()
    return [json.loads(line) for line in out.splitlines()]


def corpus_row(conn, run, reference):
    """The reference tool's run and a pass of layoutd in turn, so that both are timed over the
    same stretches of the run (this machine's speed drifts by a third for seconds at a time,
    the reference tool's and layoutd's alike); each is timed warm. Returns the row and the
    reference's raw hb_shape time of the first paragraph (for the start row)."""
    step(f"corpus: Pango, HarfBuzz, ICU and layoutd in turn ({len(run.corpus)} paragraphs, {run.passes} rounds)")
    warm(conn, run.corpus)
    total, pango, hb, first_hb, relayout = 0.0, 0.0, 0.0, 0.0, 0.0
    pairs = []   # each pass: (layoutd's pass, the reference's Pango pass, its raw hb pass) in µs
    for k in range(run.passes):
        ref = reference_run(reference, run)
        pango += sum(r["pango_us"] for r in ref) / run.passes
        hb += sum(r["hb_us"] for r in ref) / run.passes
        relayout += sum(r["pango_relayout_us"] for r in ref) / run.passes
        first_hb += ref[0]["hb_us"] / run.passes
        seconds = corpus_pass(conn, run.corpus, 360 + (k + 1) * 0.01)
        total += seconds
        pairs.append((seconds * 1e6, sum(r["pango_us"] for r in ref), sum(r["hb_us"] for r in ref)))
    ours = total / run.passes * 1e6
    row = {"layoutd_us": ours, "pango_us": pango, "hb_shape_us": hb, "pango_relayout_us": relayout,
           "vs_pango": ours / pango, "vs_hb_shape": ours / hb,
           "pass_vs_pango": [p[0] / p[1] for p in pairs], "pass_vs_hb_shape": [p[0] / p[2] for p in pairs]}
    return row, first_hb


def engine_bench(build, run, passes):
    """engine-bench's figures: the same paragraphs, font and widths laid out in process (no
    JSON or socket), every word new, and two threads against one."""
    out = subprocess.run([build.engine_bench, run.fonts, run.corpus_path, str(passes)],
                         capture_output=True, check=True).stdout
    return json.loads(out)


def ping_pass(conn, count):
    """`count` ping round trips (which do no work), by the same client: seconds."""
    return round_trips(conn, [conn.request("ping", {}) for _ in range(count)])[0]


def add_engine_and_floor(row, conn, run, build):
    """The row's time told apart: the engine alone and the socket's floor. Returns
    engine-bench's figures (the parallel row shows its two-thread ratio)."""
    step("corpus: the engine alone, in process; the socket's round trip")
    engine = engine_bench(build, run, run.passes)
    floor = sum(ping_pass(conn, len(run.corpus)) for _ in range(run.passes)) / run.passes * 1e6
    hb = row["hb_shape_us"]
    row.update({"engine_us": engine["engine_us"], "engine_vs_hb_shape": engine["engine_us"] / hb,
                "engine_new_words_us": engine["new_words_us"], "engine_new_words_vs_hb_shape": engine["new_words_us"] / hb,
                "ping_round_trips_us": floor})
    return engine


def memory_row(conn):
    return {"rss_bytes": call(conn, "stats", {})["memory"]["residentBytes"]}
