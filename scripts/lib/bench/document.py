"""The document row: a 10 MB document of 10,000 paragraphs (`measure`, layoutd started with the
text and message limits raised to fit it), five times: mean time, and resident memory after
each (bounded: it levels off rather than growing with every request)."""
import time

from .common import call, step

PARAGRAPHS = 10_000
BYTES = 10_000_000
MEASURES = 5


def big_document(corpus):
    """At least PARAGRAPHS paragraphs and BYTES bytes of corpus text: (text, paragraph count)."""
    texts = [p["text"].replace("\n", " ") for p in corpus]
    paragraphs, size = [], 0
    while len(paragraphs) < PARAGRAPHS or size < BYTES:
        t = texts[len(paragraphs) % len(texts)]
        paragraphs.append(t)
        size += len(t.encode()) + 1
    return "\n".join(paragraphs), len(paragraphs)


def document_row(build, run):
    """Beyond the default text limit: a daemon of its own."""
    step("document: 10 MB, 10,000 paragraphs")
    document, count = big_document(run.corpus)
    config = run.write_config("big.json", {"fontConfig": run.fonts,
                                           "limits": {"maxTextLength": 64 << 20, "maxMessageBytes": 256 << 20}})
    with run.start(build, config) as daemon:
        conn = daemon.connect(read_timeout=None)
        seconds, rss = [], []
        for i in range(MEASURES):
            t0 = time.perf_counter()
            lines = call(conn, "measure", {"text": document, "width": 360 + i})["lineCount"]
            seconds.append(time.perf_counter() - t0)
            rss.append(call(conn, "stats", {})["memory"]["residentBytes"])
    return {"bytes": len(document.encode()), "paragraphs": count, "lines": lines,
            "seconds": sum(seconds) / MEASURES, "rss_after_each": rss}
