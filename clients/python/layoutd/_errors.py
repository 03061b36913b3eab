"""The errors the client raises."""


class LayoutdError(Exception):
    """A JSON-RPC error answer: `code` (-32602 invalid params, -32001 unknown handle, …, see
    docs/protocol.md), `message` in words, `field` the offending parameter's path (for
    -32602) or None, `data` the error's whole `data` member."""

    def __init__(self, code, message, data=None, method=None):
        super().__init__(f"{method}: {message} ({code})" if method else f"{message} ({code})")
        self.code, self.message, self.data, self.method = code, message, data, method
        self.field = data.get("field") if isinstance(data, dict) else None

    @classmethod
    def from_json(cls, error, method=None):
        if not isinstance(error, dict):
            return cls(-32603, f"malformed error answer: {error!r}", None, method)
        return cls(error.get("code"), error.get("message", ""), error.get("data"), method)


class Cancelled(LayoutdError):
    """The request was cancelled (-32800)."""


class NoDaemon(ConnectionError):
    """No socket of the search order accepted a connection; `tried` lists them."""

    def __init__(self, tried):
        super().__init__("no layoutd answers at " + ", ".join(tried) if tried else "no socket to try")
        self.tried = tried


class ConnectionLost(ConnectionError):
    """The daemon closed the connection (or it broke) and could not be reached again."""
