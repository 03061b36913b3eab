"""The reference pass: on the quiet daemon, one client computes every template's expected
answer, and checks on the way that `update` reaches the same states as a fresh `layout` of
the edited text with `retain`."""
import layoutd

from .checks import first_difference, without
from .common import READ_TIMEOUT, short
from .templates import make_probes


class ReferenceClient:
    """One connection, one request at a time, on the quiet daemon (the package's client, in
    the load's UTF-16 offsets, never reconnecting behind the soak's back)."""

    def __init__(self, path, timeout=READ_TIMEOUT):
        self.client = layoutd.Client(path, timeout=timeout, offset_encoding="utf-16", reconnect=False)

    def call(self, method, params):
        try:
            return self.client.call(method, **params)
        except layoutd.LayoutdError as error:
            raise SystemExit(f"soak: reference pass: {method} {short(params)} failed: "
                             f"{short({'code': error.code, 'message': error.message, 'data': error.data})}")

    def close(self):
        self.client.close()


def fresh_states(ref, doc, problems):
    """Each state of the document laid out afresh with `retain`: its layout and its probes'
    answers (the handle released after)."""
    states = []
    for s, text in enumerate(doc["texts"]):
        fresh = ref.call("layout", dict(doc["params"], text=text, retain=True))
        probes = make_probes(text, fresh, doc["probe_specs"][s])
        answers = [ref.call(m, dict(p, handle=fresh["handle"])) for m, p in probes]
        if ref.call("release", {"handle": fresh["handle"]}) != {"released": True}:
            problems.append(f"{doc['key']}: release of a fresh handle did not answer released: true")
        states.append({"layout": without(fresh, "handle"),
                       "probes": [(m, p, a) for (m, p), a in zip(probes, answers)]})
    return states


def updated_diffs(ref, doc, states, problems):
    """The same states reached by update on one handle must be the fresh layouts (and answer
    the probes alike); returns each step's diff (without reusedParagraphs)."""
    handle = ref.call("layout", dict(doc["params"], retain=True))["handle"]
    diffs = [None]
    for s, edits in enumerate(doc["steps"], 1):
        result = ref.call("update", {"handle": handle, "edits": edits})
        diffs.append(without(result.get("diff", {}), "reusedParagraphs"))
        where = first_difference(without(result, "handle", "diff"), states[s]["layout"])
        if where:
            problems.append(f"quiet daemon: update of {doc['key']} step {s} differs from a fresh layout of "
                            f"the edited text: {where}")
        for m, p, want in states[s]["probes"]:
            got = ref.call(m, dict(p, handle=handle))
            where = first_difference(got, want)
            if where:
                problems.append(f"quiet daemon: {m} {short(p)} on updated {doc['key']} step {s} differs from "
                                f"the fresh layout's: {where}")
    ref.call("release", {"handle": handle})
    return diffs


def run_reference_pass(path, layouts, docs):
    """Fills in every template's expectation; returns the daemon bugs it found on the way
    and the quiet daemon's stats."""
    ref = ReferenceClient(path)
    problems = []
    try:
        for t in layouts:
            t["expect"] = without(ref.call("layout", t["params"]), "handle")
        for doc in docs:
            doc["states"] = fresh_states(ref, doc, problems)
            doc["diffs"] = updated_diffs(ref, doc, doc["states"], problems)
        stats = ref.call("stats", {})
    finally:
        ref.close()
    return problems, stats


def final_stats(sock):
    """stats from a new connection after the load, or None when it cannot be had."""
    ref = ReferenceClient(sock, timeout=15.0)
    try:
        return ref.call("stats", {})
    except (TimeoutError, ConnectionError, SystemExit):
        return None
    finally:
        ref.close()
