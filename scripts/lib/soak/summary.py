"""The soak's verdict: the clients' counts added up, every reason to FAIL, the figures (as
--json writes them) and the printed summary table."""
import os

from layoutd_client import describe_exit, log_tail

from .common import READ_TIMEOUT, SAMPLE_SECONDS, WARMUP_SECONDS
from .exchange import new_tally


class Outcome:
    """Everything a run gathered, for the summary: the arguments, the clients' results, the
    /proc samples, notes and reference-pass problems, fds and RSS (MB) at the marks, the
    daemon, the uptime it should have at the end if it never restarted, its stats after the
    load, and its log."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def judge_memory(samples, load_seconds):
    """Middle- and last-third RSS maxima (samples after warm-up only) and whether they are flat."""
    third = load_seconds / 3.0
    middle = [rss for t, rss, _, _ in samples if rss is not None and t >= WARMUP_SECONDS and third <= t < 2 * third]
    last = [rss for t, rss, _, _ in samples if rss is not None and t >= WARMUP_SECONDS and t >= 2 * third]
    if not middle or not last:
        return None, None, None
    m, l = max(middle), max(last)
    return m, l, l <= m * 1.10 + 5.0


def rates_by_third(samples, load_seconds):
    """Requests per second in each third of the load, from the samples' running counts."""
    rates = []
    for k in range(3):
        a, b = k * load_seconds / 3, (k + 1) * load_seconds / 3
        inside = [(t, n) for t, _, _, n in samples if a - SAMPLE_SECONDS / 2 <= t <= b + SAMPLE_SECONDS / 2]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            rates.append(None)
        else:
            rates.append(round((inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]), 1))
    return rates


def aggregate(results):
    """Every client's tally added up, their latencies pooled, their failures in client order."""
    tally, latency, failures = new_tally(), {}, []
    for r in sorted(results, key=lambda r: r["index"]):
        for k, v in r["tally"].items():
            tally[k] = tally.get(k, 0) + v
        for m, values in r["latency"].items():
            latency.setdefault(m, []).extend(values)
        failures.extend(r["failures"])
    return tally, latency, failures


class Verdict:
    """What the summary judges of an outcome."""

    def __init__(self, o):
        self.tally, self.latency, self.failures = aggregate(o.results)
        self.crashed = o.daemon.poll() is not None
        stats = o.stats_after
        self.restarts = 1 if stats is not None and stats["server"]["uptimeSeconds"] + 5 < o.expected_uptime else 0
        self.middle_max, self.last_max, self.flat = judge_memory(o.samples, o.load_seconds)
        self.retained_left = stats["caches"]["retainedLayouts"]["count"] if stats else None
        self.evicted = stats["caches"]["retainedLayouts"]["evicted"] if stats else None
        self.after_warmup = next((rss for t, rss, _, _ in o.samples if t >= WARMUP_SECONDS and rss is not None), None)
        self.thirds = rates_by_third(o.samples, o.load_seconds)
        self.methods = sorted(self.latency, key=lambda m: (-len(self.latency[m]), m))
        self.reasons = fail_reasons(o, self)
        self.passed = not self.reasons and not o.interrupted


def fail_reasons(o, v):
    tally = v.tally
    reasons = list(o.notes) + list(o.reference_problems)
    for name, label in [("mismatched", "results differ from the quiet daemon's"), ("missing", "requests never answered"),
                        ("duplicated", "duplicate answers"), ("foreign", "answers to ids never sent"),
                        ("unexpected_errors", "unexpected errors"), ("client_errors", "client crashes (soak bug)")]:
        if tally[name]:
            reasons.append(f"{tally[name]} {label}")
    if tally["timeouts"]:
        reasons.append(f"layoutd hung: {tally['timeouts']} client(s) got no answer for {READ_TIMEOUT:.0f} s")
    if v.crashed:
        reasons.append(f"layoutd is not running at the end ({describe_exit(o.daemon.returncode)})")
    if v.restarts:
        reasons.append("layoutd restarted (its uptime went back)")
    if o.end_fds != o.idle_fds and not v.crashed:
        reasons.append(f"open fds {o.end_fds} after every client closed, {o.idle_fds} when idle at the start")
    if v.flat is False:
        reasons.append(f"RSS grew: last-third max {v.last_max:.1f} MB > middle-third max {v.middle_max:.1f} MB + 10 % + 5 MB")
    if v.retained_left:
        reasons.append(f"{v.retained_left} retained layouts left after every client released its handles")
    if tally["sent"] == 0:
        reasons.append("no request was sent")
    return reasons


def make_figures(o, v):
    """The figures as --json writes them."""
    t, stats, rss = v.tally, o.stats_after, o.rss
    return {
        "result": "PASS" if v.passed else "FAIL",
        "reasons": v.reasons,
        "seconds": round(o.load_seconds, 1), "clients": o.args.clients, "seed": o.args.seed,
        "requests": {"sent": t["sent"], "answered": t["answered"], "cancelRequestsSent": t["cancel_sent"],
                     "cancelled": t["cancelled"], "cancelTooLate": t["cancel_late"],
                     "abandonedByClient": t["abandoned"], "mismatched": t["mismatched"],
                     "missing": t["missing"], "duplicated": t["duplicated"], "foreignIds": t["foreign"],
                     "unexpectedErrors": t["unexpected_errors"]},
        "requestsPerSecond": round(t["sent"] / o.load_seconds, 1) if o.load_seconds > 0 else None,
        "requestsPerSecondByThird": v.thirds,
        "connections": t["connections"], "clientDisconnects": t["disconnects"],
        "droppedByDaemon": t["dropped_by_daemon"], "timeouts": t["timeouts"],
        "bursts": t["bursts"], "batches": t["batches"], "updatesChecked": t["updates_checked"],
        "releases": t["releases"],
        "latencyMs": {m: {"count": len(v.latency[m]), "p50": round(percentile(v.latency[m], 0.5), 3),
                          "p99": round(percentile(v.latency[m], 0.99), 3), "max": round(max(v.latency[m]), 3)}
                      for m in v.methods},
        "rssMB": {"atStart": rss["ready"], "start": rss["idle"], "afterWarmup": v.after_warmup, "end": rss["end"],
                  "middleThirdMax": v.middle_max, "lastThirdMax": v.last_max, "flat": v.flat},
        "fds": {"idleStart": o.idle_fds, "end": o.end_fds},
        "daemonCPUSeconds": rss.get("cpu"), "cores": os.cpu_count(),
        "samples": [{"t": round(ts, 1), "rssMB": r, "fds": f, "sent": n} for ts, r, f, n in o.samples],
        "daemon": {"crashes": int(v.crashed), "restarts": v.restarts, "retainedLeft": v.retained_left,
                   "evicted": v.evicted, "pid": o.daemon.pid,
                   "requests": stats["requests"] if stats else None,
                   "connections": stats["connections"] if stats else None,
                   "caches": stats["caches"] if stats else None},
        "failures": v.failures[:200],
    }


def mb(value):
    return "n/a" if value is None else f"{value:.1f}"


def request_lines(o, v, figures):
    """The table's first part: duration, clients, and what became of the requests."""
    t, args = v.tally, o.args
    limit = ', at most %d requests' % args.requests_max if args.requests_max else ''
    return [
        "",
        f"layoutd soak — {'PASS' if v.passed else 'FAIL'}",
        f"  {'duration':34} {o.load_seconds / 60:.2f} min ({o.load_seconds:.0f} s of load)",
        f"  {'clients':34} {args.clients} (seed {args.seed}{limit})",
        f"  {'requests sent':34} {t['sent']}",
        f"  {'  answered':34} {t['answered']}",
        f"  {'  cancelled (-32800)':34} {t['cancelled']}  (of {t['cancel_sent']} $/cancelRequest; "
        f"{t['cancel_late']} finished first)",
        f"  {'  abandoned by the client':34} {t['abandoned']}  ({t['disconnects']} disconnects mid-burst)",
        f"  {'  mismatched':34} {t['mismatched']}",
        f"  {'  missing':34} {t['missing']}",
        f"  {'  duplicated':34} {t['duplicated']}  (+{t['foreign']} answers to ids never sent)",
        f"  {'  unexpected errors':34} {t['unexpected_errors']}",
        f"  {'requests per second':34} {figures['requestsPerSecond']}  (by third: "
        + " / ".join("n/a" if r is None else f"{r:.0f}" for r in v.thirds) + ")",
    ]


def latency_lines(o, v, figures):
    """CPU, connections, and latency per method (and layoutd's own)."""
    out, cpu = [], o.rss.get("cpu")
    if cpu is not None:
        out.append(f"  {'layoutd CPU during the load':34} {cpu:.0f} s ({cpu / o.load_seconds:.2f} of {os.cpu_count()} cores)")
    out.append(f"  {'connections / bursts / batches':34} {v.tally['connections']} / {v.tally['bursts']} / {v.tally['batches']}")
    out.append(f"  {'latency ms':34} {'p50':>9} {'p99':>9} {'max':>9} {'count':>9}")
    for m in v.methods:
        lm = figures["latencyMs"][m]
        out.append(f"  {'  ' + m:34} {lm['p50']:9.2f} {lm['p99']:9.2f} {lm['max']:9.2f} {lm['count']:9}")
    if o.stats_after:
        own = o.stats_after["requests"]["latencyMs"]
        label = f"  (layoutd's own, last {own['window']})"
        out.append(f"  {label:34} {own['p50']:9.2f} {own['p99']:9.2f} {own['max']:9.2f}")
    return out


def daemon_lines(o, v):
    """Memory, fds, crashes and the retained store at the end."""
    rss, flat = o.rss, v.flat
    out = [f"  {'RSS MB start / after warm-up / end':34} {mb(rss['idle'])} / {mb(v.after_warmup)} / {mb(rss['end'])}",
           f"  {'RSS MB max middle / last third':34} {mb(v.middle_max)} / {mb(v.last_max)}  "
           f"({'flat' if flat else 'GROWING' if flat is False else 'not judged: run shorter than warm-up + thirds'})",
           f"  {'fds idle start / end':34} {o.idle_fds} / {o.end_fds}",
           f"  {'daemon crashes / restarts':34} {int(v.crashed)} / {v.restarts}",
           f"  {'retained layouts left / evicted':34} {v.retained_left} / {v.evicted}"]
    if o.stats_after and "moved" in o.stats_after.get("connections", {}):
        out.append(f"  {'connections moved between loops':34} {o.stats_after['connections']['moved']}")
    out.append(f"  {'result':34} {'PASS' if v.passed else 'FAIL'}")
    return out


def failure_lines(o, v):
    """Why it failed, the first failures described, and the daemon's log when it failed."""
    out = []
    if v.reasons or o.interrupted:
        out += ["", "FAIL because:"] + [f"  - {r}" for r in v.reasons]
    if v.failures:
        out += ["", f"first failures ({min(len(v.failures), 20)} of {len(v.failures)} described):"]
        out += [f"  {f}" for f in v.failures[:20]]
    if not v.passed:
        tail = log_tail(o.log_path)
        if tail:
            out += ["", "layoutd log (last lines):"] + [f"  {line}" for line in tail]
    return out


def summarize(o):
    """Prints the summary table; returns the figures and whether the run passed."""
    v = Verdict(o)
    figures = make_figures(o, v)
    out = request_lines(o, v, figures) + latency_lines(o, v, figures) + daemon_lines(o, v) + failure_lines(o, v)
    print("\n".join(out), flush=True)
    return figures, v.passed
