"""What the synchronous and the asyncio client share: the requests each method makes, the
conversion of answers to typed results, and the retained documents the client keeps so it
can lay them out again on a new daemon (their handles stay the caller's)."""
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import types
from ._errors import LayoutdError

VERSION = "0.1.0"
UNKNOWN_HANDLE = -32001


@dataclass
class Request:
    """One call: `handle` is the caller's handle the params refer to (translated to the
    daemon's at send time), `convert` makes the typed result from the answer."""
    method: str
    params: dict
    handle: Optional[str] = None
    convert: Callable[[Any], Any] = lambda result: result


@dataclass
class Document:
    """A retained layout as the client remembers it: the params that make it (the text and
    spans as edits left them), and the daemon's handle for it on the current connection."""
    params: dict
    daemon_handle: Optional[str]
    generation: int


def moved(offset, start, end, inserted, is_end):
    """Where an offset goes when `[start, end)` is replaced by `inserted` characters: as the
    daemon moves spans in `update` (docs/protocol.md, `update`)."""
    if offset < start or (offset == start and not is_end):
        return offset
    if offset >= end:
        return offset + inserted - (end - start)
    return start + inserted if is_end else start


# Each offset encoding as a Python codec and the bytes of its code unit.
CODECS = {"utf-32": ("utf-32-le", 4), "utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1)}


def apply_edit(params, edit, encoding="utf-32"):
    """`params` (layout params: text, spans) after one edit, as the daemon applies it;
    offsets count in `encoding`'s code units (UTF-32: Python string indices)."""
    start, end, text = (edit["start"], edit["end"], edit["text"]) if isinstance(edit, dict) else edit
    codec, unit = CODECS[encoding]
    old = params["text"].encode(codec, "surrogatepass")
    inserted = text.encode(codec, "surrogatepass")
    params["text"] = (old[:start * unit] + inserted + old[end * unit:]).decode(codec, "surrogatepass")
    length = len(inserted) // unit
    spans = []
    for span in params.get("spans") or []:
        span = dict(span)
        span_end = span["end"]
        span["start"] = moved(span["start"], start, end, length, False)
        span["end"] = moved(span_end, start, end, length, span_end > start)
        spans.append(span)
    if "spans" in params:
        params["spans"] = spans


def edit_json(edit):
    if isinstance(edit, dict):
        return edit
    start, end, text = edit
    return {"start": start, "end": end, "text": text}


class Core:
    """The client's state that outlives a connection."""

    def __init__(self, offset_encoding="utf-32", token=None):
        self.token = token
        if offset_encoding not in CODECS:
            raise ValueError(f"offset_encoding must be one of {', '.join(CODECS)}, got {offset_encoding!r}")
        self.offset_encoding = offset_encoding
        self.documents = {}
        self.generation = 0
        self.font_fingerprint = None
        self.font_listeners = []
        self._ids = itertools.count(1)
        self._handles = itertools.count(1)

    def next_id(self):
        return next(self._ids)

    def initialize_params(self):
        params = {"offsetEncodings": [self.offset_encoding], "client": {"name": "layoutd-python", "version": VERSION}}
        if self.font_listeners:
            params["subscribe"] = ["fontsChanged"]
        if self.token is not None:
            params["auth"] = {"token": self.token}
        return params

    def connected(self, initialized):
        """A new connection answered `initialize`: handles of the old one are stale. Returns
        the listeners to tell when the fonts differ from those of the last connection."""
        if initialized.get("offsetEncoding") != self.offset_encoding:
            raise LayoutdError(-32603, f"the daemon chose {initialized.get('offsetEncoding')!r} offsets, "
                                       f"not {self.offset_encoding}")
        self.generation += 1
        old, self.font_fingerprint = self.font_fingerprint, initialized.get("fontFingerprint")
        return list(self.font_listeners) if old is not None and old != self.font_fingerprint else []

    def fonts_changed(self, params):
        self.font_fingerprint = (params or {}).get("fontFingerprint", self.font_fingerprint)
        return list(self.font_listeners)

    def notified(self, method, params):
        """A notification from the daemon: `fontsChanged` goes to every font listener."""
        if method == "fontsChanged":
            for listener in self.fonts_changed(params):
                listener(self.font_fingerprint)

    # -- handles

    def handle_of(self, target):
        """The caller's handle a layout or a handle string names."""
        handle = target.handle if isinstance(target, types.Layout) else target
        if not isinstance(handle, str):
            raise TypeError(f"expected a retained Layout or its handle, got {target!r}")
        return handle

    def stale(self, handle):
        """The params to lay a remembered document out again with, when its daemon handle is
        not one of the current connection; else None."""
        doc = self.documents.get(handle)
        if doc is None or (doc.daemon_handle is not None and doc.generation == self.generation):
            return None
        return dict(doc.params)

    def relaid(self, handle, result):
        doc = self.documents[handle]
        doc.daemon_handle, doc.generation = result["handle"], self.generation

    def forget_daemon_handle(self, handle):
        if handle in self.documents:
            self.documents[handle].daemon_handle = None

    def daemon_handle(self, handle):
        doc = self.documents.get(handle)
        return doc.daemon_handle if doc else handle

    def remember(self, params, result):
        """A new retained layout: the caller gets a handle of the client's own."""
        handle = f"py{next(self._handles)}"
        self.documents[handle] = Document(dict(params), result["handle"], self.generation)
        return handle
