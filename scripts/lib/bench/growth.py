"""The growth row: one paragraph of 100 kB and one of 1 MB: the time ratio (linear is 10×), of
the median of rounds of the two next to each other (at least six rounds)."""
from .common import call, round_trips, step

SIZES = (100_000, 1_000_000)
MIN_ROUNDS = 6


def paragraph(words, size):
    """`size` characters of the corpus's English words, one paragraph (no newline)."""
    text = ""
    while len(text) < size:
        text += words + " "
    return text[:size].replace("\n", " ")


def growth_row(conn, run, style=None):
    """Rounds of one 100 kB request then one 1 MB request, next to each other in time: a
    stretch of the machine running slow hits both of a round, or shows as one round's
    outlier, which the median round's ratio leaves out (timing six of one and then six of
    the other apart spreads the ratio over a factor of two between runs). `style`: the
    paragraph style of both (the growth of a wrap style's own)."""
    step("growth: 100 kB and 1 MB paragraphs" + (f", paragraph {style}" if style else ""))
    extra = {"paragraph": style} if style else {}
    words = " ".join(p["text"] for p in run.corpus if p["lang"] == "en")
    texts = {size: paragraph(words, size) for size in SIZES}
    for text in texts.values():
        call(conn, "measure", dict({"text": text, "width": 360}, **extra))
    rounds = []
    for _ in range(max(MIN_ROUNDS, run.passes)):
        small, _ = round_trips(conn, [conn.request("measure", dict({"text": texts[SIZES[0]], "width": 360}, **extra))])
        large, _ = round_trips(conn, [conn.request("measure", dict({"text": texts[SIZES[1]], "width": 360}, **extra))])
        rounds.append((small * 1e6, large * 1e6))
    rounds.sort(key=lambda r: r[1] / r[0])
    small, large = rounds[len(rounds) // 2]
    return {"us_100k": small, "us_1m": large, "ratio": large / small,
            "round_ratios": [r[1] / r[0] for r in rounds]}
