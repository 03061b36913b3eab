"""The typography rows, over the socket:
  wrap         the whole corpus, each paragraph with its `language`, at widths 200 and 360,
               `wrapStyle` greedy, pretty and optimal, each with `hyphenation` "manual" and
               "auto": raggedness (as below), hyphenated lines, one-word last lines and lines;
               the paragraphs where optimal makes more than one line more than greedy; the
               time of a corpus pass at 360 with optimal against greedy (rounds of both in
               turn); and a picture of one paragraph, greedy beside optimal, for a person to
               look at. Beside it the growth row again with optimal (100 kB and 1 MB).
  hyphenation  the corpus's English, German and French paragraphs, each with its `language`,
               laid out greedy at widths 200 and 360 with `paragraph.hyphenation` "manual" (soft
               hyphens only, the default) and "auto" (the language's dictionary): per language
               and width, the raggedness (the sum over paragraphs of the squared slack,
               width − line width, of every line but the last), the hyphenated lines and the
               paragraphs whose last line holds one word; and the time of a pass over those
               paragraphs at 200 with "auto" against "manual" (rounds of both in turn)."""
import base64

from . import growth, png
from .common import FONT, call, mean, round_trips, step

LANGUAGES = ["en", "de", "fr"]
WIDTHS = [200, 360]
STYLES = ["greedy", "pretty", "optimal"]
# The paragraph the picture shows: an English one of the corpus, at 360.
PICTURE_PARAGRAPH = 3


def quality(results, texts, width):
    """Raggedness, hyphenated lines and one-word last lines of `results` (layouts of `texts`)."""
    ragged, hyphens, one_word = 0.0, 0, 0
    for result, text in zip(results, texts):
        lines = result["lines"]
        units = text.encode("utf-16-le")
        for line in lines[:-1]:
            ragged += max(0.0, width - line["width"]) ** 2
            hyphens += bool(line.get("hyphenated"))
        last = lines[-1]
        words = units[2 * last["start"]:2 * last["end"]].decode("utf-16-le").split()
        one_word += len(lines) > 1 and len(words) == 1
    return {"raggedness": ragged, "hyphenated_lines": hyphens, "one_word_last_lines": one_word}


def layouts(conn, paragraphs, width, hyphenation, style="greedy"):
    """Each paragraph laid out at `width` with `hyphenation` and `style`: (seconds, results)."""
    return round_trips(conn, [conn.request("layout", {"text": p["text"], "width": width, "font": FONT,
                                                      "language": p["lang"],
                                                      "paragraph": {"hyphenation": hyphenation, "wrapStyle": style}})
                              for p in paragraphs])


def wrap_rows(conn, run, picture):
    """The wrap row (quality per width, hyphenation and style; optimal's cost), the picture
    written to `picture`, and the growth row with optimal."""
    step("wrap: the corpus greedy, pretty and optimal, with and without hyphenation")
    texts = [p["text"] for p in run.corpus]
    row = {"quality": {}}
    for width in WIDTHS:
        for hyphenation in ["manual", "auto"]:
            results = {style: layouts(conn, run.corpus, width, hyphenation, style)[1] for style in STYLES}
            entry = {style: dict(quality(results[style], texts, width),
                                 lines=sum(len(r["lines"]) for r in results[style])) for style in STYLES}
            entry["optimal_more_than_greedy_plus_one"] = sum(
                len(o["lines"]) > len(g["lines"]) + 1 for o, g in zip(results["optimal"], results["greedy"]))
            row["quality"][f"{hyphenation}@{width}"] = entry
    greedy_s, optimal_s = [], []
    for k in range(run.passes):
        width = 360 + (k + 1) * 0.01
        greedy_s.append(layouts(conn, run.corpus, width, "manual", "greedy")[0])
        optimal_s.append(layouts(conn, run.corpus, width, "manual", "optimal")[0])
    row["greedy_us"], row["optimal_us"] = mean(greedy_s) * 1e6, mean(optimal_s) * 1e6
    row["cost_ratio"] = row["optimal_us"] / row["greedy_us"]
    row["picture"] = write_picture(conn, run, picture) if "render" in loaded_renderers(conn) else None
    if row["picture"] is None:
        step("wrap: no picture (the render plugin is not built: swift build -c release --product layoutd-plugin-render)")
    return {"wrap": row, "growth_optimal": growth.growth_row(conn, run, {"wrapStyle": "optimal"})}


def loaded_renderers(conn):
    """The line renderers the daemon loaded (`stats`)."""
    plugins = call(conn, "stats", {}).get("plugins", {})
    loaded = plugins.get("loaded", []) if isinstance(plugins, dict) else plugins
    return {p.get("name") for p in loaded if isinstance(p, dict) and p.get("kind") == "lineRenderer"}


def write_picture(conn, run, path):
    """One English corpus paragraph at 360, greedy on the left and optimal on the right, as
    the render plugin draws them (with line boxes), in one PNG at `path`."""
    paragraph = [p for p in run.corpus if p["lang"] == "en"][PICTURE_PARAGRAPH]
    pictures = []
    for style in ["greedy", "optimal"]:
        result = call(conn, "render", {"text": paragraph["text"], "width": 360, "font": FONT, "language": "en",
                                       "paragraph": {"wrapStyle": style}, "format": "png", "overlay": True,
                                       "margin": 8})
        pictures.append(base64.b64decode(result["data"]))
    with open(path, "wb") as f:
        f.write(png.side_by_side(*pictures))
    return path


def hyphenation_row(conn, run):
    """Quality per language and width, manual against auto; and the cost of auto."""
    step("hyphenation: English, German and French paragraphs, manual against auto")
    chosen = [p for p in run.corpus if p["lang"] in LANGUAGES]
    row = {"quality": {}}
    for language in LANGUAGES:
        paragraphs = [p for p in chosen if p["lang"] == language]
        texts = [p["text"] for p in paragraphs]
        for width in WIDTHS:
            manual = quality(layouts(conn, paragraphs, width, "manual")[1], texts, width)
            auto = quality(layouts(conn, paragraphs, width, "auto")[1], texts, width)
            entry = {"manual": manual, "auto": auto,
                     "raggedness_ratio": auto["raggedness"] / manual["raggedness"] if manual["raggedness"] else None}
            row["quality"][f"{language}@{width}"] = entry
    manual_s, auto_s = [], []
    for k in range(run.passes):
        width = 200 + (k + 1) * 0.01   # a new width each pass: no answer is the one before
        manual_s.append(layouts(conn, chosen, width, "manual")[0])
        auto_s.append(layouts(conn, chosen, width, "auto")[0])
    row["manual_us"] = mean(manual_s) * 1e6
    row["auto_us"] = mean(auto_s) * 1e6
    row["cost_ratio"] = row["auto_us"] / row["manual_us"]
    return row


def print_wrap(rows):
    w = rows.get("wrap")
    if not w:
        return
    label = "wrap"
    for key, q in w["quality"].items():
        g = q["greedy"]
        for style in ["pretty", "optimal"]:
            o = q[style]
            ratio = o["raggedness"] / g["raggedness"] if g["raggedness"] else float("nan")
            figure = (f"{style} {key}: raggedness/greedy, lines {o['lines']} vs {g['lines']}, "
                      f"one-word last {o['one_word_last_lines']} vs {g['one_word_last_lines']}")
            target = "≤ 0.50" if (style, key) == ("optimal", "manual@360") else ""
            print(f"{label:10} {figure:60} {ratio:8.2f} {target:>8}")
            label = ""
        print(f"{'':10} {'(optimal: paragraphs with more lines than greedy + 1: %d)' % q['optimal_more_than_greedy_plus_one']:60}")
    cost = "optimal %.0f µs vs greedy %.0f µs per corpus pass at 360" % (w["optimal_us"], w["greedy_us"])
    print(f"{'':10} {cost:60} {w['cost_ratio']:8.2f} {'≤ 3.00':>8}")
    gr = rows.get("growth_optimal")
    if gr:
        print(f"{'':10} {'optimal, 1 MB %.0f µs vs 100 kB %.0f µs (linear: 10)' % (gr['us_1m'], gr['us_100k']):60} {gr['ratio']:8.2f} {'≤ 11.00':>8}")
    if w["picture"]:
        print(f"{'':10} {'greedy beside optimal: ' + w['picture']:60}")


def print_hyphenation(rows):
    h = rows.get("hyphenation")
    if not h:
        return
    label = "hyphen."
    for key, q in h["quality"].items():
        m, a = q["manual"], q["auto"]
        figure = (f"{key}: raggedness auto/manual, {a['hyphenated_lines']} hyphens, "
                  f"one-word last {a['one_word_last_lines']} vs {m['one_word_last_lines']}")
        ratio = q["raggedness_ratio"]
        target = "≤ 0.70" if key.endswith("@200") and key[:2] in ("en", "de") else ""
        print(f"{label:10} {figure:60} {ratio if ratio is not None else float('nan'):8.2f} {target:>8}")
        label = ""
    cost = "auto %.0f µs vs manual %.0f µs per pass (en, de, fr at 200)" % (h["auto_us"], h["manual_us"])
    print(f"{'':10} {cost:60} {h['cost_ratio']:8.2f} {'≤ 1.50':>8}")
