"""The seeded request templates: `layout`s of corpus paragraphs at several widths and fonts (some
with spans, detectors and decorations, attachments, run or glyph detail, truncation, paragraph
style), and retained documents with a chain of `update` edits and `hitTest`, `caret` and
`rects` probes on each state. Their expected answers come from the reference pass."""
import random

FONTS = [None, {"family": "Noto Sans", "size": 16}, {"family": "serif", "size": 14},
         {"size": 20}, {"family": "sans-serif", "size": 13, "weight": 700}]
WIDTHS = [120, 200, 360, 480, 720]
VARIANTS = ["plain", "plain", "spans", "links", "runs", "glyphs", "attachments", "truncated", "paragraph"]
LINK_SUFFIX = " — see https://example.com/soak?id=7 or www.layoutd.org, write to soak@example.com, ping @soak_bot #layoutd +1 415 555 0100"


def utf16_offsets(text):
    """UTF-16 offset of every code point boundary: offsets[i] is where code point i starts."""
    out, n = [0], 0
    for ch in text:
        n += 2 if ord(ch) > 0xFFFF else 1
        out.append(n)
    return out


def make_layout_params(text, width, font, variant, rng):
    """The `layout` params of one template and the code point index before which spans lie."""
    params = {"text": text}
    span_end = 0
    if width is not None:
        params["width"] = width
    if font is not None:
        params["font"] = dict(font)
    n = len(text)
    if variant == "spans" and n >= 20:
        o = utf16_offsets(text)
        a = rng.randrange(0, n // 6)
        b = rng.randrange(a + 1, n // 3)
        c = rng.randrange(0, n // 4)
        d = rng.randrange(c + 1, n // 3 + 1)
        params["spans"] = [{"start": o[a], "end": o[b], "link": "https://example.com/span", "underline": True},
                           {"start": o[c], "end": o[d], "color": "#1a73e8", "font": {"weight": 700, "size": 18}},
                           {"start": o[min(a, c)], "end": o[max(b, d)], "data": {"userId": a}, "letterSpacing": 0.5}]
        span_end = max(b, d)
    elif variant == "links":
        params["text"] = text = text + LINK_SUFFIX
        params["detectors"] = ["url", "email", "mention", "hashtag", "phone"]
        params["decorations"] = True
    elif variant == "runs":
        params["detail"] = "runs"
    elif variant == "glyphs":
        params["detail"] = "glyphs" if n < 500 else "runs"
    elif variant == "attachments":
        cut = text.find(" ", n // 5)
        cut = cut if cut >= 0 else n // 5
        params["text"] = text = text[:cut] + " [smile] " + text[cut:] + " [heart]"
        params["attachments"] = True
        span_end = cut + 9
    elif variant == "truncated":
        params["paragraph"] = {"maxLines": rng.choice([1, 2, 3]),
                               "truncation": {"mode": rng.choice(["tail", "head", "middle", "clip"]),
                                              "token": rng.choice(["…", "… more"])}}
    elif variant == "paragraph":
        params["paragraph"] = {"align": rng.choice(["center", "justify", "end"]), "lineSpacing": 2,
                               "firstLineIndent": 12, "paragraphSpacing": 6}
        params["insets"] = {"top": 4, "left": 8, "bottom": 4, "right": 8}
    return params, span_end


def make_edit_chain(text, span_end, other_text, rng):
    """3–4 update steps (each 1–2 edits) after the spans, and the text after each step."""
    texts, steps = [text], []
    kinds = ["append", "replace", "delete", "paragraph", "insert"]
    for _ in range(rng.choice([3, 4])):
        edits = []
        for _ in range(rng.choice([1, 1, 2])):
            n = len(text)
            low = max(span_end + 2, int(n * 0.6))
            kind = rng.choice(kinds)
            if low >= n - 2 and kind in ("replace", "delete", "insert"):
                kind = "append"
            if kind == "append":
                a = b = n
                new = rng.choice([" and a streamed tail", " 流式文本", " مع نص إضافي", " — more text, 12.5 pt", "!"])
            elif kind == "paragraph":
                a = b = n
                new = "\n" + other_text[:rng.randrange(20, 160)]
            else:
                a = rng.randrange(low, n - 1)
                b = a if kind == "insert" else min(n, a + rng.randrange(1, 24))
                new = "" if kind == "delete" else rng.choice(["REPLACED", "new words ", "ß", "נוסף "])
            o = utf16_offsets(text)
            edits.append({"start": o[a], "end": o[b], "text": new})
            text = text[:a] + new + text[b:]
        steps.append(edits)
        texts.append(text)
    return steps, texts


def make_probe_specs(text, rng):
    """Seeded choices for the probes of one document state; coordinates come from its lines."""
    return {"hit": [(rng.random(), rng.random(), rng.random()) for _ in range(3)],
            "caret": [(rng.random(), rng.choice([None, "upstream", "downstream"])) for _ in range(2)],
            "rects": sorted((rng.random(), rng.random()))}


def make_probes(text, layout, spec):
    """hitTest, caret and rects params (without handle) for one state of a document."""
    o = utf16_offsets(text)
    lines = layout["lines"]
    probes = []
    for pick, fx, fy in spec["hit"]:
        line = lines[int(pick * len(lines)) % len(lines)]
        x = round(line["x"] - 10 + fx * (line["width"] + 20), 3)
        y = round(line["y"] + (0.1 + 0.8 * fy) * line["height"], 3)
        probes.append(("hitTest", {"x": x, "y": y}))
    probes.append(("hitTest", {"x": round(spec["hit"][0][1] * layout["size"]["width"], 3),
                               "y": round(layout["size"]["height"] + 30, 3)}))
    for f, affinity in spec["caret"]:
        params = {"index": o[int(f * len(text))]}
        if affinity:
            params["affinity"] = affinity
        probes.append(("caret", params))
    a, b = spec["rects"]
    probes.append(("rects", {"start": o[int(a * len(text))], "end": o[int(b * len(text))]}))
    probes.append(("caret", {"index": o[-1]}))
    return probes


def build_templates(corpus, seed):
    """Single-layout templates and document templates (their expectations come later)."""
    rng = random.Random(seed)
    layouts = []
    for i, p in enumerate(corpus):
        for k in range(2):
            width = rng.choice(WIDTHS + [None]) if k else rng.choice(WIDTHS)
            params, _ = make_layout_params(p["text"], width, rng.choice(FONTS), rng.choice(VARIANTS), rng)
            layouts.append({"key": f"layout:{p['id']}:{k}", "params": params})
    docs = []
    picks = rng.sample(range(len(corpus)), min(32, len(corpus)))
    for d, i in enumerate(picks):
        count = rng.choice([1, 1, 2, 3])
        text = "\n".join(corpus[(i + j * 17) % len(corpus)]["text"] for j in range(count))
        variant = rng.choice(["plain", "spans", "links", "runs", "attachments", "truncated", "paragraph"])
        params, span_end = make_layout_params(text, rng.choice(WIDTHS), rng.choice(FONTS), variant, rng)
        steps, texts = make_edit_chain(params["text"], span_end, corpus[(i + 5) % len(corpus)]["text"], rng)
        docs.append({"key": f"doc:{d}:{corpus[i]['id']}:{variant}", "params": params, "steps": steps,
                     "texts": texts, "probe_specs": [make_probe_specs(t, rng) for t in texts]})
    return layouts, docs
