#!/usr/bin/env python3
"""Writes the seed corpora Fuzz/corpus/framing and Fuzz/corpus/service (deterministic; run it
again after changing it: `python3 Fuzz/make-corpus.py`). Files that libFuzzer adds with
`scripts/fuzz --merge` are named by their SHA-1 and are left alone; the seeds written here are
named `seed-*`."""
import hashlib, json, os, random, re

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)


def j(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def req(i, method, params=None):
    r = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        r["params"] = params
    return r


# Texts that steer layout: scripts, bidi, clusters, breaks, controls.
TEXTS = {
    "latin": "Wrap me, please: the quick brown fox jumps over the lazy dog.",
    "hebrew-mixed": "Hi שלום! 123 abc עברית (test) end.",
    "arabic": "مرحبا بالعالم 2024، هذا نص عربي مع أرقام ١٢٣.",
    "bidi-controls": "a\u202eRLO b\u202c c\u2067isolate\u2069 d\u200fe\u200e\u202b\u202a\u202d\u202c\u2066\u2068\u2069",
    "bidi-flood": "\u202b" * 70 + "x" + "\u202c" * 70 + "\u2067" * 130 + "y",
    "combining": "a" + "\u0301" * 40 + " e\u0308\u0323 \u1100\u1161\u11a8 Z\u0351\u0352\u0357\u0358",
    "emoji": "👩\u200d👩\u200d👧\u200d👦 🇯🇵🇺🇳 1\ufe0f\u20e3 👍🏽 ❤\ufe0e ❤\ufe0f 🏳\ufe0f\u200d🌈 🧑🏿\u200d🦱",
    "thai": "สวัสดีครับ ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "khmer-myanmar": "ភាសាខ្មែរ မြန်မာဘာသာ ພາສາລາວ",
    "cjk": "很久以前[smile]，@百度、#话题# 日本語の文章。한국어 텍스트",
    "indic": "नमस्ते दुनिया க்ஷ ষ্ট্র ಕನ್ನಡ",
    "separators": "one\ntwo\r\nthree\rfour\u0085five\u2028six\u2029seven\u000bvt\u000cff\ttab\u00adsoft",
    "controls": "nul\u0000 bell\u0007 esc\u001b del\u007f \ufeff bom \ufffe \uffff \U0010ffff",
    "links": "Ping @alice at https://a.io, mail bob@example.com, call +1 415 555 0100, #tag, ABC-123 [smile]",
    "long-word": "Supercalifragilisticexpialidocious" * 6,
    "spaces": "   leading and trailing   \t\t  ",
    "empty": "",
    "numbers": "1,234.56\t$7.89\t-0.5\t١٢٣٫٤٥",
}


def service_lines():
    lines = []
    # Every request example of docs/protocol.md.
    for line in open(os.path.join(root, "docs", "protocol.md"), encoding="utf-8"):
        if line.startswith("> "):
            lines.append(line[2:].rstrip("\n"))
    n = 100
    for name, text in TEXTS.items():
        n += 1
        lines.append(j(req(n, "layout", {"text": text, "width": 120, "detail": "glyphs"})))
    t = TEXTS["hebrew-mixed"]
    lines += [
        # Queries on layout params instead of a handle.
        j(req(1, "hitTest", {"text": t, "width": 80, "x": 30, "y": 25})),
        j(req(2, "caret", {"text": t, "index": 5, "affinity": "upstream"})),
        j(req(3, "rects", {"text": t, "width": 60, "start": 1, "end": 20})),
        j(req(4, "word", {"text": t, "index": 4})),
        j(req(5, "lineRange", {"text": t, "width": 50, "index": 12})),
        j(req(6, "selectedText", {"layouts": [{"handle": "x.1"}], "start": {"layout": 0, "index": 0}, "end": {"layout": 0, "index": 3}})),
        j(req(7, "boundaries", {"text": TEXTS["emoji"], "kind": "grapheme"})),
        j(req(8, "boundaries", {"text": TEXTS["khmer-myanmar"], "kind": "line", "language": "km"})),
        j(req(9, "boundaries", {"text": "Mr. Smith went. He said “hi!” Then left.", "kind": "sentence"})),
        # Rich paragraphs.
        j(req(10, "layout", {"text": TEXTS["arabic"] + "\n" + TEXTS["latin"], "width": 150, "detail": "runs",
                             "paragraph": {"align": "justify", "direction": "rtl", "lineSpacing": 4, "lineHeight": {"multiple": 1.5, "minimum": 10, "maximum": 40},
                                           "paragraphSpacing": 6, "paragraphSpacingBefore": 3, "headIndent": 10, "firstLineIndent": -8, "tailIndent": 5,
                                           "maxLines": 3, "truncation": {"mode": "middle", "token": "… more", "style": {"color": "#1a73e8"}}}})),
        j(req(11, "layout", {"text": TEXTS["numbers"], "paragraph": {"tabStops": [{"location": 40, "alignment": "decimal"}, {"location": 120, "alignment": "right"}, {"location": 200, "alignment": "center"}], "defaultTabInterval": 0.5}})),
        j(req(12, "layout", {"text": TEXTS["latin"] * 3, "width": 200, "insets": {"top": 5, "left": 10, "bottom": 5, "right": 10},
                             "exclusions": [{"x": 40, "y": 0, "width": 60, "height": 50}, {"x": 0, "y": 30, "width": 300, "height": 5}]})),
        j(req(13, "layout", {"text": TEXTS["latin"], "width": 100, "paragraph": {"maxLines": 1, "truncation": {"mode": "head"}}})),
        j(req(14, "layout", {"text": TEXTS["hebrew-mixed"], "width": 70, "paragraph": {"maxLines": 2, "truncation": {"mode": "clip"}}})),
        j(req(15, "layout", {"text": "Variable Inter", "font": {"family": "Inter", "weight": 650, "variations": {"wght": 300, "slnt": -10}, "features": {"smcp": True, "salt": 2, "liga": False}}})),
        j(req(16, "layout", {"text": "huge", "font": {"size": 10000}, "scale": 100, "width": 1e9})),
        j(req(17, "layout", {"text": "tiny", "font": {"size": 1e-300}, "scale": 0.01, "width": 0})),
        j(req(18, "layout", {"text": TEXTS["links"], "detail": "runs", "spans": [
            {"start": 0, "end": 4, "font": {"family": "serif", "size": 30, "style": "italic", "weight": 900}, "letterSpacing": 3, "baselineOffset": 5},
            {"start": 2, "end": 9, "underline": {"style": "double", "color": "#ff0000"}, "strikethrough": "thick", "background": "#00ff0080"},
            {"start": 5, "end": 11, "attachment": {"width": 20, "ascent": 15, "descent": 4, "value": {"img": 1}}},
            {"start": 11, "end": 11, "link": "https://x", "data": [1, 2, 3]}]})),
        j(req(19, "layout", {"text": TEXTS["links"], "detectors": ["url", "email", "mention", "hashtag", "phone", "ticket", {"kind": "literal", "table": {"[smile]": "s", "@alice": "a"}}],
                             "attachments": ["shortcodes"], "decorations": {"renderer": "render", "pill": ["mention"], "pillColor": "#eeeeee"}})),
        j(req(20, "render", {"text": TEXTS["cjk"], "format": "png", "scale": 2, "overlay": True, "detectors": ["mention", "hashtag"],
                             "highlight": [{"start": 0, "end": 4, "state": "pressed"}, {"start": 5, "end": 9}], "selection": {"start": 2, "end": 7},
                             "background": "#ffffffcc", "options": {"linkColor": "#0000ff", "highlight": {"normal": "#eeeeee"}}})),
        j(req(21, "render", {"text": TEXTS["emoji"], "format": "svg", "scale": 0.1})),
        j(req(22, "measure", {"text": TEXTS["thai"], "width": 40, "language": "th", "paragraph": {"wrap": "char"}})),
        j(req(23, "measure", {"text": TEXTS["long-word"], "width": 3, "paragraph": {"wrap": "none"}})),
        # Protocol edges.
        j(req(30, "initialize", {"offsetEncodings": ["utf-32", "utf-8"], "subscribe": ["fontsChanged"], "client": {"name": "fuzz"}})),
        j(req(31, "initialize", {"offsetEncodings": ["ucs-2"]})),
        j(req(32, "reload")),
        j({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}),
        j({"jsonrpc": "2.0", "method": "$/somethingElse"}),
        j({"jsonrpc": "2.0", "method": "layout", "params": {"text": "a notification"}}),
        j([req(1, "initialize", {"offsetEncodings": ["utf-8"]}), req(2, "layout", {"text": TEXTS["emoji"], "spans": [{"start": 4, "end": 9, "color": "#abc"}]}),
           {"jsonrpc": "2.0", "method": "ping"}, req(3, "word", {"text": "ab cd", "index": 3})]),
        j([req("a", "ping"), 1, "x", {}, [], {"jsonrpc": "2.0"}, req(None, "ping"), {"jsonrpc": "1.0", "id": 2, "method": "ping"}]),
        j([{"jsonrpc": "2.0", "method": "ping"}, {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "x"}}]),
        "[]",
        "",
        "   \t\r",
        '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
        '{"jsonrpc":"2.0","id":1,"method":7}',
        '{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}',
        '{"jsonrpc":"2.0","id":1,"method":"layout","params":[1,2]}',
        '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
        '{"jsonrpc":"2.0","id":-0,"method":"ping","id":9007199254740993}',
        '{"jsonrpc":"2.0","id":1.5e-320,"method":"ping"}',
        '{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"\\ud800 \\udc00 \\ud800\\ud800 \\udbff\\udfff \\ud83d\\ude00x\\u0000","detail":"glyphs"}}',
        '{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"a","width":1e308,"font":{"size":-0}}}',
        '{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"a","spans":[{"start":0,"end":2147483647},{"start":-1,"end":0.5}]}}',
        j(req(40, "layout", {"text": "a" * 4097})),
        "[" * 64 + "]" * 64,
        "[" * 65 + "]" * 65,
        '{"a":' * 40 + "1" + "}" * 40,
        '{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
        '{"jsonrpc":"2.0","id":1,"method":"ping",}',
        "\ufeff" + j(req(1, "ping")),
    ]
    return lines


def service_binary():
    """Inputs for the target's structured mode (first byte < 8): 40 bytes of choices, then text."""
    rnd = random.Random(7)
    seeds = []
    for i, (name, text) in enumerate(TEXTS.items()):
        header = bytes([i % 3]) + bytes(rnd.randrange(256) for _ in range(40))
        seeds.append((f"structured-{name}", header + text.encode("utf-8", "surrogatepass")))
    # Invalid UTF-8 as text (decoded with replacement).
    seeds.append(("structured-invalid-utf8", bytes([1]) + bytes(range(40)) + b"ok \xff\xfe \xc0\x80 \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82 end"))
    seeds.append(("structured-all-zero", bytes(41) + b"abc def"))
    seeds.append(("structured-all-ff", bytes([2]) + b"\xff" * 40 + "שלום abc مرحبا".encode()))
    return seeds


def framing_streams():
    lines = [l.encode("utf-8") for l in service_lines()]
    streams = []
    # The service lines, one stream each with LF, and all of them in a few pipelined streams.
    for i in range(0, len(lines), 12):
        streams.append((f"pipelined-{i // 12}", b"\n".join(lines[i:i + 12]) + b"\n"))
    streams += [
        ("crlf", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"a":[1,2,{"b":null}]}\r\n\r\n'),
        ("blank-lines", b"\n\n\r\n  \n\t\n"),
        ("partial-last", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,'),
        ("lone-cr", b'{"x":1}\r\r\n\r{"y":2}\n'),
        ("long-line", b'{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"' + b"x" * 5000 + b'"}}\n{"ok":true}\n'),
        ("nul-bytes", b'{"a":"b"}\x00\n\x00\x00\n{"c":1}\n'),
        ("invalid-utf8", b'{"s":"\xff\xfe"}\n{"s":"\xc0\x80"}\n{"s":"\xed\xa0\x80"}\n{"s":"\xf4\x90\x80\x80"}\n{"s":"\xe2\x82"}\n'),
        ("escapes", '{"s":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f\\u00e9\\u2028\\ud83d\\ude00\\ud800\\udc00x\\ud800\\u0041"}\n'.encode()),
        ("bad-escapes", b'{"s":"\\x"}\n{"s":"\\u12"}\n{"s":"\\ud800\\u12"}\n{"s":"\\'),
        ("numbers", b"[0,-0,1.5,-1.5e10,1E+2,1e-7,123456789012345678901234567890,1e308,4.9e-324,2.2250738585072014e-308,9007199254740993,0.1,1e-400]\n[1e999]\n[-]\n[01]\n[1.]\n[.5]\n[1e]\n"),
        ("literals", b"true\nfalse\nnull\ntru\nnul\n[true,false,null]\n\"str\"\n"),
        ("nesting", b"[" * 64 + b"]" * 64 + b"\n" + b"[" * 65 + b"]" * 65 + b"\n" + b'{"a":' * 64 + b"0" + b"}" * 64 + b"\n"),
        ("duplicate-keys", b'{"id":1,"id":"x","jsonrpc":"2.0","method":"ping","method":"layout","params":{"text":"a","text":"b"}}\n'),
        ("whitespace", b' \t\r {"a" \t:\r [ 1 , 2 ] } \n'),
        ("control-in-string", b'{"s":"a\tb"}\n{"s":"a\x01b"}\n'),
        ("bidi-text", ('{"jsonrpc":"2.0","id":1,"method":"layout","params":{"text":"' + TEXTS["bidi-controls"] + '"}}\n').encode()),
        ("single-newline", b"\n"),
        ("empty", b""),
    ]
    return streams


def write(folder, items):
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        if f.startswith("seed-"):
            os.remove(os.path.join(folder, f))
    for name, data in items:
        safe = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
        with open(os.path.join(folder, f"seed-{safe}"), "wb") as f:
            f.write(data)


def main():
    lines = service_lines()
    service = []
    for line in lines:
        data = line.encode("utf-8")
        service.append((f"line-{hashlib.sha1(data).hexdigest()[:10]}", data))
    service += service_binary()
    write(os.path.join(here, "corpus", "service"), service)
    write(os.path.join(here, "corpus", "framing"), framing_streams())
    total = sum(os.path.getsize(os.path.join(d, f)) for d in [os.path.join(here, "corpus", "service"), os.path.join(here, "corpus", "framing")] for f in os.listdir(d))
    print(f"{len(service)} service seeds, {len(framing_streams())} framing seeds, {total} bytes in all")


if __name__ == "__main__":
    main()
