"""The editor rows (issue 35): *keystroke* — one-character insertions at seeded random places
of retained documents of 100, 1,000 and 10,000 corpus paragraphs, each `update` (asking
for a `viewport` of 50 lines) followed by a `caret` at the insertion, as an editor sends
them; and *open* — retaining the 10,000-paragraph document against laying it out once
without `retain`. Median round trips; the keystroke figures are the update and its caret
together."""
import random

from .common import FONT, call, middle, round_trips, step

SIZES = (100, 1000, 10_000)
KEYSTROKES = 15
# The viewport an editor shows: 50 lines of the font below (Noto Sans 16 lines are 21.792
# points), kept around the last caret as the editor scrolls to it.
VIEWPORT_LINES = 50
LINE_HEIGHT = 21.792
SEED = 35


class EditedDocument:
    """A retained document of `count` corpus paragraphs, and its paragraphs' UTF-16 starts."""

    def __init__(self, conn, corpus, count):
        self.conn = conn
        paragraphs = [corpus[i % len(corpus)]["text"] for i in range(count)]
        self.params = {"text": "\n".join(paragraphs), "width": 360, "font": FONT}
        self.handle = call(conn, "layout", dict(self.params, retain=True))["handle"]
        self.lengths = [len(p.encode("utf-16-le")) // 2 for p in paragraphs]
        self.random = random.Random(SEED + count)
        self.caret_y = 0.0

    def keystroke(self):
        """Seconds of one insertion of "x" inside a random paragraph, and of the caret after it."""
        i = self.random.randrange(len(self.lengths))
        at = sum(self.lengths[:i]) + i + self.random.randrange(self.lengths[i] + 1)
        self.lengths[i] += 1
        height = VIEWPORT_LINES * LINE_HEIGHT
        viewport = {"y": max(0.0, self.caret_y - height / 2), "height": height}
        update = self.conn.request("update", {"handle": self.handle, "viewport": viewport,
                                              "edits": [{"start": at, "end": at, "text": "x"}]})
        caret = self.conn.request("caret", {"handle": self.handle, "index": at + 1})
        seconds, results = round_trips(self.conn, [update, caret])
        self.caret_y = results[1]["y"]
        return seconds

    def release(self):
        call(self.conn, "release", {"handle": self.handle})


def keystroke_rows(build, run):
    """{"keystroke": {paragraphs: µs, …, ratio}, "open": {...}}; beyond the default text
    limit, on a daemon of its own."""
    with run.start(build, editor_config(run)) as daemon:
        return measure_keystrokes(daemon.connect(read_timeout=None), run)


def editor_config(run):
    """The path of a configuration with text and message limits raised to fit the documents."""
    return run.write_config("editor.json", {"fontConfig": run.fonts,
                                            "limits": {"maxTextLength": 64 << 20, "maxMessageBytes": 256 << 20}})


def measure_keystrokes(conn, run):
    rows = {}
    for count in SIZES:
        step(f"keystroke: {count}-paragraph retained document, {KEYSTROKES} one-character edits with a caret each")
        document = EditedDocument(conn, run.corpus, count)
        times = [document.keystroke() for _ in range(KEYSTROKES * run.passes)]
        rows[f"keystroke_{count}_us"] = middle(times) * 1e6
        if count == SIZES[-1]:
            rows["open"] = open_row(conn, document)
        document.release()
    rows["keystroke_ratio"] = rows[f"keystroke_{SIZES[-1]}_us"] / rows[f"keystroke_{SIZES[0]}_us"]
    return {"keystroke": {k: v for k, v in rows.items() if k != "open"}, "open": rows["open"]}


def open_row(conn, document):
    """Retaining the document against a plain layout of it, each twice, the faster kept."""
    plain = min(round_trips(conn, [conn.request("layout", document.params)])[0] for _ in range(2))
    retained = []
    for _ in range(2):
        seconds, results = round_trips(conn, [conn.request("layout", dict(document.params, retain=True))])
        call(conn, "release", {"handle": results[0]["handle"]})
        retained.append(seconds)
    return {"layout_ms": plain * 1e3, "retain_ms": min(retained) * 1e3, "ratio": min(retained) / plain}


def print_keystroke(rows):
    k, o = rows["keystroke"], rows["open"]
    sizes = ", ".join(f"{n}: {k[f'keystroke_{n}_us'] / 1e3:.2f} ms" for n in SIZES)
    print(f"{'keystroke':10} {'update + caret by paragraphs ' + sizes:60} {k['keystroke_ratio']:8.2f} {'≤ 1.5':>8}")
    print(f"{'open':10} {'retain %.0f ms vs layout %.0f ms' % (o['retain_ms'], o['layout_ms']):60} {o['ratio']:8.2f} {'≤ 1.1':>8}")
