"""The rows of laying kept shaping out again, over the socket, beside the reference figures of
the same run:
  resize   the corpus retained — as one document, and as one layout per paragraph — laid
           out again at 10 new widths with `update {width}`: per pass over the corpus,
           against SkParagraph's in-process re-wrap of the same paragraphs (sk_relayout_us,
           shared/bench/skparagraph.py) and Pango's (pango_relayout_us, the reference tool);
           beside it the engine's own re-wrap in process (engine-bench's relayout_us).
  toggle   a retained 3-paragraph chat message, `update {paragraph: {maxLines}}` 3 ↔ 0,
           against a fresh `layout` of it in the same state.
  widths   `measure` of each corpus paragraph at 8 widths in one request, against one
           `measure` at one width, and against 8 single measures.
  balance  the corpus laid out with `paragraph.wrapStyle: "balance"` against greedy, and how
           many paragraphs break into a different number of lines (the target is none)."""
import json
import os
import subprocess

from .common import FONT, call, mean, round_trips, step

RESIZE_WIDTHS = [300 + 13.7 * i for i in range(10)]
MEASURE_WIDTHS = [120, 160, 200, 240, 280, 320, 360, 400]
CHAT_WIDTH = 280


def skparagraph_run(run):
    """SkParagraph's run over the corpus (shared/bench/skparagraph.py, skia-python): a record
    per paragraph with sk_build_us and sk_relayout_us; None when skia-python is missing."""
    script = os.path.join(run.shared, "bench", "skparagraph.py")
    env = dict(os.environ, FONTCONFIG_FILE=run.fonts)
    tsv = "".join(f"{p['lang']}\t{p['text']}\n" for p in run.corpus)
    done = subprocess.run(["python3", script, "360", "16", "Noto Sans", str(max(run.passes, 3))], input=tsv.encode(),
                          capture_output=True, env=env)
    if done.returncode != 0:
        step("resize: SkParagraph not measured (python3 -m pip install skia-python==144.1): "
             + done.stderr.decode(errors="replace").strip().splitlines()[-1])
        return None
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def resize_pass(conn, handles, width):
    """Every handle laid out again at `width` (one update each): seconds."""
    seconds, _ = round_trips(conn, [conn.request("update", {"handle": h, "width": width}) for h in handles])
    return seconds


def resize_row(conn, run, pango_relayout_us):
    """The corpus retained as one document and as one layout per paragraph, each laid out at
    RESIZE_WIDTHS in turn; per pass over the corpus (a mean over the widths), in µs."""
    step(f"resize: the corpus retained, laid out again at {len(RESIZE_WIDTHS)} widths ({run.passes} rounds)")
    document = {"text": "\n".join(p["text"] for p in run.corpus), "width": 360, "font": FONT, "retain": True}
    doc = call(conn, "layout", document)["handle"]
    each = [call(conn, "layout", {"text": p["text"], "width": 360, "font": FONT, "retain": True})["handle"]
            for p in run.corpus]
    doc_s, each_s, reshaped = [], [], 0
    for _ in range(run.passes):
        for width in RESIZE_WIDTHS:
            doc_s.append(resize_pass(conn, [doc], width))
            each_s.append(resize_pass(conn, each, width + 0.5))
        reshaped += call(conn, "update", {"handle": doc, "width": 359})["diff"]["reshapedParagraphs"]
    for h in [doc] + each:
        call(conn, "release", {"handle": h})
    sk = skparagraph_run(run)
    row = {"document_us": mean(doc_s) * 1e6, "each_us": mean(each_s) * 1e6, "pango_relayout_us": pango_relayout_us,
           "reshaped_paragraphs": reshaped}
    row["document_vs_pango_relayout"] = row["document_us"] / row["pango_relayout_us"]
    row["each_vs_pango_relayout"] = row["each_us"] / row["pango_relayout_us"]
    if sk:
        row["sk_relayout_us"] = sum(r["sk_relayout_us"] for r in sk)
        row["sk_build_us"] = sum(r["sk_build_us"] for r in sk)
        row["document_vs_sk_relayout"] = row["document_us"] / row["sk_relayout_us"]
        row["each_vs_sk_relayout"] = row["each_us"] / row["sk_relayout_us"]
    return row


def chat_message(corpus):
    """Three short paragraphs, as a chat message is: the start of three corpus paragraphs."""
    return "\n".join(p["text"][:90] for p in corpus[:3])


def toggle_row(conn, run):
    """A retained chat message's maxLines toggled 3 ↔ 0, against a fresh layout in each state;
    rounds of both in turn, 20 toggles a round. µs per request."""
    step("toggle: a retained chat message, maxLines 3 ↔ 0")
    params = {"text": chat_message(run.corpus), "width": CHAT_WIDTH, "font": FONT, "paragraph": {"maxLines": 3}}
    handle = call(conn, "layout", dict(params, retain=True))["handle"]
    toggles, fresh, reshaped = [], [], 0
    states = [0, 3] * 10
    for _ in range(run.passes):
        fresh_requests = [conn.request("layout", dict(params, paragraph={"maxLines": n})) for n in states]
        fresh.append(round_trips(conn, fresh_requests)[0] / len(states))
        seconds, results = round_trips(conn, [conn.request("update", {"handle": handle, "paragraph": {"maxLines": n}})
                                              for n in states])
        toggles.append(seconds / len(states))
        reshaped += sum(r["diff"]["reshapedParagraphs"] for r in results)
    call(conn, "release", {"handle": handle})
    row = {"toggle_us": mean(toggles) * 1e6, "fresh_us": mean(fresh) * 1e6, "reshaped_paragraphs": reshaped}
    row["ratio"] = row["toggle_us"] / row["fresh_us"]
    return row


def widths_row(conn, run):
    """Each corpus paragraph measured at MEASURE_WIDTHS in one request, at one width, and at each
    width alone; per pass over the corpus, in µs."""
    step(f"widths: measure at {len(MEASURE_WIDTHS)} widths in one request")
    many, one, singles = [], [], []
    for k in range(run.passes):
        shift = (k + 1) * 0.01   # new widths each pass: no whole-result cache can answer
        widths = [w + shift for w in MEASURE_WIDTHS]
        texts = [p["text"] for p in run.corpus]
        many.append(round_trips(conn, [conn.request("measure", {"text": t, "widths": widths, "font": FONT})
                                       for t in texts])[0])
        one.append(round_trips(conn, [conn.request("measure", {"text": t, "width": widths[3], "font": FONT})
                                      for t in texts])[0])
        singles.append(round_trips(conn, [conn.request("measure", {"text": t, "width": w, "font": FONT})
                                          for t in texts for w in widths])[0])
    row = {"widths_us": mean(many) * 1e6, "one_us": mean(one) * 1e6, "singles_us": mean(singles) * 1e6}
    row["ratio"] = row["widths_us"] / row["one_us"]
    row["vs_singles"] = row["widths_us"] / row["singles_us"]
    return row


def balance_row(conn, run):
    """The corpus laid out balanced and greedy, rounds of both in turn at a new width each; per
    pass in µs, and the paragraphs whose line counts differ (over every pass)."""
    step("balance: the corpus with wrapStyle balance against greedy")
    balanced, greedy, differ = [], [], 0
    for k in range(run.passes):
        width = 360 + (k + 1) * 0.01
        plain = {"width": width, "font": FONT}
        g_s, g = round_trips(conn, [conn.request("layout", dict(plain, text=p["text"])) for p in run.corpus])
        b_s, b = round_trips(conn, [conn.request("layout", dict(plain, text=p["text"], paragraph={"wrapStyle": "balance"}))
                                    for p in run.corpus])
        greedy.append(g_s)
        balanced.append(b_s)
        differ += sum(len(x["lines"]) != len(y["lines"]) for x, y in zip(g, b))
    row = {"balance_us": mean(balanced) * 1e6, "greedy_us": mean(greedy) * 1e6, "line_count_differs": differ}
    row["ratio"] = row["balance_us"] / row["greedy_us"]
    return row


def add_engine_relayout(row, build, run):
    """The resize row's engine part: engine-bench laying each paragraph out again at new widths
    from its kept shaping, in process (as SkParagraph's figure is), per pass."""
    out = subprocess.run([build.engine_bench, run.fonts, run.corpus_path, str(run.passes)],
                         capture_output=True, check=True).stdout
    row["engine_relayout_us"] = json.loads(out)["relayout_us"]
    if "sk_relayout_us" in row:
        row["engine_vs_sk_relayout"] = row["engine_relayout_us"] / row["sk_relayout_us"]


def relayout_rows(conn, run, pango_relayout_us, build):
    """Every row of this module; `pango_relayout_us`: the reference tool's Pango re-wrap of the
    corpus in this run, per pass."""
    resize = resize_row(conn, run, pango_relayout_us)
    add_engine_relayout(resize, build, run)
    return {"resize": resize, "toggle": toggle_row(conn, run),
            "widths": widths_row(conn, run), "balance": balance_row(conn, run)}
