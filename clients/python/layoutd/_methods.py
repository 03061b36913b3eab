"""The client's methods, written once: each builds a `Request` and hands it to `_run`, which
the synchronous client answers at once, the asyncio client as a coroutine and a pipeline as
a pending answer. Params are the protocol's, by their protocol names (docs/protocol.md):
`client.layout("Hi", 200, font={"size": 14}, paragraph={"maxLines": 2})`."""
from . import types
from ._core import Request, apply_edit, edit_json


def _with_width(params, text, width):
    params = {"text": text, **params}
    if width is not None:
        params["width"] = width
    return params


class Methods:
    """Needs `self._core` and `self._run(request)`."""

    def layout(self, text, width=None, **params):
        """Lays `text` out at `width` points (None: no wrapping) → `Layout`. With
        `retain=True` the layout keeps a handle for the queries below."""
        params = _with_width(params, text, width)
        core = self._core

        def convert(result):
            handle = core.remember(params, result) if params.get("retain") and "handle" in result else None
            return types.Layout.from_json(result, handle)
        return self._run(Request("layout", params, convert=convert))

    def measure(self, text, width=None, **params):
        """Size and line count only → `Measure`; with `widths=[…]`, a list of `Measure`."""
        params = _with_width(params, text, width)

        def convert(result):
            if "measures" in result:
                return [types.Measure.from_json(m, result.get("fontFingerprint")) for m in result["measures"]]
            return types.Measure.from_json(result)
        return self._run(Request("measure", params, convert=convert))

    def hit_test(self, layout, x, y):
        """What is at point (x, y) of a retained layout → `HitTest`."""
        handle = self._core.handle_of(layout)
        return self._run(Request("hitTest", {"x": x, "y": y}, handle, types.HitTest.from_json))

    def caret(self, layout, index, affinity=None):
        """Where the caret at `index` goes → `Caret`."""
        params = {"index": index} if affinity is None else {"index": index, "affinity": affinity}
        return self._run(Request("caret", params, self._core.handle_of(layout), types.Caret.from_json))

    def rects(self, layout, start, end):
        """Selection rectangles of `[start, end)` → a list of `Rect`."""
        return self._run(Request("rects", {"start": start, "end": end}, self._core.handle_of(layout),
                                 lambda r: [types.Rect.from_json(x) for x in r["rects"]]))

    def update(self, layout, edits=(), **params):
        """Edits (`(start, end, text)` tuples or dicts) and new params (`width`, `paragraph`,
        …) applied to a retained layout → `Update` (the new layout and its `diff`)."""
        handle = self._core.handle_of(layout)
        edits = [edit_json(e) for e in edits]
        core = self._core
        sent = dict(params, edits=edits) if edits else dict(params)

        def convert(result):
            doc = core.documents.get(handle)
            if doc is not None:
                for edit in edits:
                    apply_edit(doc.params, edit, core.offset_encoding)
                remember_changes(doc.params, params)
            return types.Update.from_json(result, handle)
        return self._run(Request("update", sent, handle, convert))

    def render(self, layout=None, format="png", **params):
        """A picture of a retained layout (or of `text=…` laid out for it) → `Render`."""
        handle = self._core.handle_of(layout) if layout is not None else None
        return self._run(Request("render", dict(params, format=format), handle, types.Render.from_json))

    def release(self, layout):
        """Frees a retained layout early → whether the daemon still had it."""
        handle = self._core.handle_of(layout)
        core = self._core

        def convert(result):
            core.documents.pop(handle, None)
            return bool(result.get("released"))
        return self._run(Request("release", {}, handle, convert))

    def boundaries(self, text, kind, **params):
        """Grapheme, word, sentence or line boundaries → a list of offsets."""
        return self._run(Request("boundaries", dict(params, text=text, kind=kind), convert=lambda r: r["offsets"]))

    def ping(self):
        return self._run(Request("ping", {}, convert=lambda r: bool(r.get("pong"))))

    def stats(self):
        return self._run(Request("stats", {}))

    def call(self, method, **params):
        """Any other method, its result as the daemon sent it."""
        return self._run(Request(method, params))


def remember_changes(kept, changes):
    """The layout params `kept` after an `update`'s `changes`, as the daemon applies them:
    `paragraph` member by member, the others whole (docs/protocol.md, `update`)."""
    for key, value in changes.items():
        if key == "result":
            continue
        if key == "paragraph" and isinstance(value, dict) and isinstance(kept.get(key), dict):
            kept[key] = dict(kept[key], **value)
        else:
            kept[key] = value
