"""The typography rows, over the socket:
  hyphenation  the corpus's English, German and French paragraphs, each with its `language`,
               laid out greedy at widths 200 and 360 with `paragraph.hyphenation` "manual" (soft
               hyphens only, the default) and "auto" (the language's dictionary): per language
               and width, the raggedness (the sum over paragraphs of the squared slack,
               width − line width, of every line but the last), the hyphenated lines and the
               paragraphs whose last line holds one word; and the time of a pass over those
               paragraphs at 200 with "auto" against "manual" (rounds of both in turn)."""
from .common import FONT, mean, round_trips, step

LANGUAGES = ["en", "de", "fr"]
WIDTHS = [200, 360]


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


def layouts(conn, paragraphs, width, hyphenation):
    """Each paragraph laid out at `width` with `hyphenation`: (seconds, results)."""
    return round_trips(conn, [conn.request("layout", {"text": p["text"], "width": width, "font": FONT,
                                                      "language": p["lang"],
                                                      "paragraph": {"hyphenation": hyphenation}})
                              for p in paragraphs])


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
