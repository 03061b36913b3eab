import LayoutProtocol

/// `stats` as a person reads it: one topic per line, sizes in KiB/MiB, latencies in ms,
/// requests and errors per method. Members a server leaves out are shown as "?".
func formatStats(_ s: JSONValue) -> String {
    func n(_ v: JSONValue?) -> String {
        guard let d = v?.doubleValue else { return "?" }
        return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String((d * 100).rounded() / 100)
    }
    func bytes(_ v: JSONValue?) -> String {
        guard let d = v?.doubleValue else { return "?" }
        if d >= 1_048_576 { return "\((d / 1048576 * 10).rounded() / 10) MiB" }
        if d >= 1024 { return "\((d / 1024 * 10).rounded() / 10) KiB" }
        return "\(Int(d)) B"
    }
    func label(_ text: String) -> String { text + String(repeating: " ", count: max(1, 13 - text.count)) }

    var out: [String] = []
    let server = s["server"]
    out.append("\(server?["name"]?.stringValue ?? "layoutd") \(server?["version"]?.stringValue ?? "?"), up \(n(server?["uptimeSeconds"])) s")
    let perLoop = (s["connections"]?["perLoop"]?.arrayValue ?? []).map { n($0) }
    out.append(label("connections") + "\(n(s["connections"]?["open"])) open (limit \(n(s["connections"]?["limit"])))"
               + (perLoop.isEmpty ? "" : "; per event loop \(perLoop.joined(separator: ", "))")
               + (s["connections"]?["moved"] == nil ? "" : "; \(n(s["connections"]?["moved"])) moved between loops"))
    let r = s["requests"]
    let latency = r?["latencyMs"]
    out.append(label("requests") + "\(n(r?["total"])) total, \(n(r?["errors"])) errors; latency ms p50 \(n(latency?["p50"])), "
               + "p90 \(n(latency?["p90"])), p99 \(n(latency?["p99"])), max \(n(latency?["max"])) (last \(n(latency?["window"])))")
    if case .object(let methods)? = r?["byMethod"] {
        for (method, count) in methods {
            let errors = r?["errorsByMethod"]?[method]
            out.append("  " + label(method) + n(count) + (errors.map { " (\(n($0)) errors)" } ?? ""))
        }
    }
    let c = s["caches"], retained = c?["retainedLayouts"]
    /// "12 (hit rate 98.5%)".
    func cache(_ v: JSONValue?) -> String {
        let rate = v?["hitRate"]?.doubleValue.map { " (hit rate \(format($0 * 100))%)" } ?? ""
        return n(v?["count"]) + rate
    }
    out.append(label("caches") + "fallback lists \(cache(c?["fallbackLists"])), font faces \(cache(c?["fontFaces"]))")
    let shaped = c?["shapedWords"]
    out.append(label("") + "shaped words \(cache(shaped)), \(n(shaped?["shapedTogether"])) shaped together, \(n(shaped?["restored"])) read back (at start, or carried over by a reload); limit \(n(shaped?["maxCount"]))")
    let measured = c?["measuredParagraphs"]
    out.append(label("") + "measured messages \(cache(measured)); limit \(n(measured?["maxCount"]))")
    out.append(label("") + "retained layouts \(cache(retained)), \(bytes(retained?["bytes"])), \(n(retained?["evicted"])) evicted; "
               + "limit \(n(retained?["maxCount"])) / \(bytes(retained?["maxBytes"]))")
    out.append(label("fonts") + "\(n(s["fonts"]?["faces"])) faces from \(s["fonts"]?["configuration"]?.stringValue ?? "the system's fontconfig")")
    let plugins = s["plugins"]?["loaded"]?.arrayValue ?? []
    let failed = s["plugins"]?["failed"]?.arrayValue ?? []
    out.append(label("plugins") + (plugins.isEmpty ? "none" : plugins.map { p in
        "\(p["name"]?.stringValue ?? "?") \(p["version"]?.stringValue ?? "") (\(n(p["calls"])) calls)"
    }.joined(separator: ", ")))
    for f in failed {
        out.append(label("") + "refused \(f["path"]?.stringValue ?? "?"): \(f["reason"]?.stringValue ?? "")")
    }
    out.append(label("memory") + "\(bytes(s["memory"]?["residentBytes"])) resident")
    return out.joined(separator: "\n")
}
