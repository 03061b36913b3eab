"""layoutd: a client for the layoutd text layout daemon.

    import layoutd
    with layoutd.Client() as client:
        layout = client.layout("Hello, world", width=80)
        print([(line.start, line.end) for line in layout.lines])

`Client` is synchronous, `AsyncClient` the same for asyncio. Both find the daemon by the
documented search order, count offsets in Python string indices, return typed results
(`layoutd.types`) and raise `LayoutdError` for error answers. See docs/python.md.
"""
from ._core import VERSION as __version__
from ._errors import Cancelled, ConnectionLost, LayoutdError, NoDaemon
from ._socket import candidates as socket_candidates
from .aio import AsyncClient
from .client import Client, Pending
from .types import Caret, Diff, HitTest, Layout, Line, Measure, Range, Rect, Region, Render, Size, Update

__all__ = ["Client", "AsyncClient", "Pending", "LayoutdError", "Cancelled", "ConnectionLost", "NoDaemon",
           "socket_candidates", "Caret", "Diff", "HitTest", "Layout", "Line", "Measure", "Range", "Rect", "Region",
           "Render", "Size", "Update"]
