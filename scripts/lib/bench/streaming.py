"""The streaming row: a retained 200-paragraph document, appending 20 characters with `update`
(result: changed) against laying the whole document out afresh (judged against a plain
`layout`; also shown against a fresh `layout` with `retain`, as the document is); rounds of
each in turn."""
from .common import FONT, call, round_trips, step

PARAGRAPHS = 200
CHUNK = "streamed text chunk "   # 20 characters
APPENDS_PER_ROUND = 10


class StreamedDocument:
    """The retained document on one daemon, and where its text ends (UTF-16 code units)."""

    def __init__(self, conn, corpus):
        self.conn = conn
        document = "\n".join(p["text"] for p in corpus[:PARAGRAPHS])
        self.params = {"text": document, "width": 360, "font": FONT}
        call(conn, "layout", self.params)
        self.handle = call(conn, "layout", dict(self.params, retain=True))["handle"]
        self.length = len(document.encode("utf-16-le")) // 2

    def append(self, result=None):
        """An `update` request appending CHUNK, encoded; the end moves on."""
        edits = [{"start": self.length, "end": self.length, "text": CHUNK}]
        params = {"handle": self.handle, "result": result, "edits": edits} if result else \
            {"handle": self.handle, "edits": edits}
        self.length += len(CHUNK)
        return self.conn.request("update", params)

    def round(self):
        """A fresh layout, the same kept for queries (its handle released), ten appends answered
        with what changed, one with the full result, so that all four are timed over the same
        stretches of the run. Seconds of each: (fresh, fresh retained, one changed append,
        one full append)."""
        fresh, _ = round_trips(self.conn, [self.conn.request("layout", self.params)])
        fresh_retained, kept = round_trips(self.conn, [self.conn.request("layout", dict(self.params, retain=True))])
        call(self.conn, "release", {"handle": kept[0]["handle"]})
        changed, _ = round_trips(self.conn, [self.append("changed") for _ in range(APPENDS_PER_ROUND)])
        full, _ = round_trips(self.conn, [self.append()])
        return fresh, fresh_retained, changed / APPENDS_PER_ROUND, full


def streaming_row(conn, run):
    step(f"streaming: {PARAGRAPHS}-paragraph document, appending {len(CHUNK)} characters")
    document = StreamedDocument(conn, run.corpus)
    totals = [0.0, 0.0, 0.0, 0.0]
    for _ in range(run.passes):
        totals = [t + s for t, s in zip(totals, document.round())]
    fresh, fresh_retained, update, update_full = (t / run.passes * 1e6 for t in totals)
    return {"fresh_us": fresh, "fresh_retained_us": fresh_retained, "append_changed_us": update,
            "append_full_us": update_full, "ratio_changed": update / fresh,
            "ratio_changed_vs_retained": update / fresh_retained, "ratio_full": update_full / fresh}
