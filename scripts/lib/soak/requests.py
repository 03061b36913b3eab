"""The requests a load client makes of its templates, and the retained documents it holds."""


class HeldDocument:
    """A retained document this client holds: its handle and which state it is in (dirty:
    its state is unknown, after an update abandoned, failed or mismatched: release it)."""

    def __init__(self, doc, handle):
        self.doc, self.handle, self.state, self.dirty = doc, handle, 0, False


class RequestMaker:
    """Requests (line and Pending, registered, not sent) drawn with the client's `rng` from
    the templates, on documents from `held` (which `release` and `open_document` change)."""

    def __init__(self, exchange, rng, layouts, docs):
        self.ex, self.rng, self.layouts, self.docs = exchange, rng, layouts, docs
        self.held = []

    def layout(self):
        t = self.rng.choice(self.layouts)
        return self.ex.request("layout", t["params"], "layout", t["expect"], t["key"])

    def open_document(self):
        """A document's first state with `retain`; held once its handle comes back."""
        doc = self.rng.choice(self.docs)

        def on_result(result, ok):
            if isinstance(result, dict) and isinstance(result.get("handle"), str):
                held = HeldDocument(doc, result["handle"])
                held.dirty = not ok
                self.held.append(held)
        return self.ex.request("layout", dict(doc["params"], retain=True), "layout",
                               doc["states"][0]["layout"], doc["key"] + "@0", on_result)

    def probe(self, held):
        m, params, want = self.rng.choice(held.doc["states"][held.state]["probes"])
        return self.ex.request(m, dict(params, handle=held.handle), "exact", want, f"{held.doc['key']}@{held.state}")

    def update(self, held):
        """The next step of the document's chain; the state moves on when it is sent."""
        doc, s = held.doc, held.state + 1
        changed = self.rng.random() < 0.3
        params = {"handle": held.handle, "edits": doc["steps"][s - 1]}
        if changed:
            params["result"] = "changed"
        held.state = s

        def on_result(result, ok):
            if ok:
                self.ex.tally["updates_checked"] += 1
            else:
                held.dirty = True
        return self.ex.request("update", params, "update", (doc["states"][s]["layout"], doc["diffs"][s], changed),
                               f"{doc['key']}@{s}", on_result)

    def release(self, held):
        self.held.remove(held)
        self.ex.tally["releases"] += 1
        return self.ex.request("release", {"handle": held.handle}, "exact", {"released": True}, held.doc["key"])
