"""Typed results. Offsets are Python string indices (the client asks for UTF-32 offsets);
lengths are points, y down from the layout box's top-left corner. Every result keeps the
daemon's answer as it came in `raw`, for members not mapped here."""
import base64
from dataclasses import dataclass, field
from typing import Any, List, Optional


@dataclass(frozen=True)
class Size:
    width: float
    height: float

    @classmethod
    def from_json(cls, j):
        return cls(j["width"], j["height"])


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @classmethod
    def from_json(cls, j):
        return cls(j["x"], j["y"], j["width"], j["height"])


@dataclass(frozen=True)
class Range:
    start: int
    end: int

    @classmethod
    def from_json(cls, j):
        return cls(j["start"], j["end"])


@dataclass(frozen=True)
class Line:
    """One line box: its text is `text[start:end]`; `baseline` is the absolute y."""
    start: int
    end: int
    x: float
    y: float
    width: float
    height: float
    baseline: float
    ascent: float
    descent: float
    hyphenated: bool = False
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, j):
        return cls(j["start"], j["end"], j["x"], j["y"], j["width"], j["height"], j["baseline"],
                   j.get("ascent", 0.0), j.get("descent", 0.0), bool(j.get("hyphenated", False)), j)


@dataclass(frozen=True)
class Region:
    """A hit region (a link, a detected mention, an attachment, the truncation token, …):
    `rects` has one rect per line fragment."""
    kind: str
    start: int
    end: int
    value: Any = None
    enabled: bool = True
    rects: List[Rect] = field(default_factory=list)

    @classmethod
    def from_json(cls, j):
        return cls(j["kind"], j["start"], j["end"], j.get("value"), j.get("enabled", True),
                   [Rect.from_json(r) for r in j.get("rects", [])])


@dataclass(frozen=True)
class Layout:
    """A `layout` result. `handle` is set when it was retained (`retain=True`): pass the
    layout itself, or its handle, to `hit_test`, `caret`, `rects`, `update`, `render`."""
    size: Size
    truncated: bool
    lines: List[Line]
    regions: List[Region]
    handle: Optional[str] = None
    font_fingerprint: Optional[str] = None
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_json(cls, j, handle=None):
        return cls(Size.from_json(j["size"]), bool(j.get("truncated", False)),
                   [Line.from_json(l) for l in j.get("lines", [])], [Region.from_json(r) for r in j.get("regions", [])],
                   handle, j.get("fontFingerprint"), j)

    @property
    def line_count(self):
        return self.raw.get("lineCount", len(self.lines)) if isinstance(self.raw, dict) else len(self.lines)


@dataclass(frozen=True)
class Diff:
    """What an `update` changed: old lines `removed` from `first_line` on, `added` new ones in
    their place; `inserted` the text ranges put in."""
    first_line: int
    removed: int
    added: int
    inserted: List[Range]
    reused_paragraphs: int
    raw: Any = field(default=None, repr=False, compare=False)
    #: Paragraphs shaped again (0 when only line params such as the width changed).
    reshaped_paragraphs: int = 0

    @classmethod
    def from_json(cls, j):
        return cls(j.get("firstLine", 0), j.get("removed", 0), j.get("added", 0),
                   [Range.from_json(r) for r in j.get("inserted", [])], j.get("reusedParagraphs", 0), j,
                   j.get("reshapedParagraphs", 0))


@dataclass(frozen=True)
class Update(Layout):
    """An `update` result: the new layout (same handle) and its `diff`."""
    diff: Optional[Diff] = None

    @classmethod
    def from_json(cls, j, handle=None):
        layout = Layout.from_json(j, handle)
        return cls(layout.size, layout.truncated, layout.lines, layout.regions, handle, layout.font_fingerprint, j,
                   Diff.from_json(j["diff"]) if "diff" in j else None)


@dataclass(frozen=True)
class Measure:
    size: Size
    line_count: int
    truncated: bool
    font_fingerprint: Optional[str] = None

    @classmethod
    def from_json(cls, j, fingerprint=None):
        return cls(Size.from_json(j["size"]), j["lineCount"], bool(j.get("truncated", False)),
                   j.get("fontFingerprint", fingerprint))


@dataclass(frozen=True)
class HitTest:
    """`index`: the caret offset nearest the point; `character`: the offset of the
    character under it (None beside the text); `region`: the region under it, if any (its
    `rects` left empty)."""
    index: int
    character: Optional[int]
    line: int
    affinity: str = "downstream"
    region: Optional[Region] = None

    @classmethod
    def from_json(cls, j):
        return cls(j["index"], j.get("character"), j["line"], j.get("affinity", "downstream"),
                   Region.from_json(j["region"]) if j.get("region") else None)


@dataclass(frozen=True)
class Caret:
    """Where to draw the caret; `weak_x` the second caret at a direction boundary."""
    x: float
    y: float
    height: float
    line: int
    weak_x: Optional[float] = None

    @classmethod
    def from_json(cls, j):
        return cls(j["x"], j["y"], j["height"], j.get("line", 0), (j.get("weak") or {}).get("x"))


@dataclass(frozen=True)
class Render:
    """A picture: `data` is the PNG's bytes, or the SVG document as a string."""
    format: str
    width: float
    height: float
    scale: float
    data: Any = field(repr=False)

    @classmethod
    def from_json(cls, j):
        data = base64.b64decode(j["data"]) if j["format"] == "png" else j["data"]
        return cls(j["format"], j["width"], j["height"], j.get("scale", 1), data)
