import LayoutProtocol

// The protocol's methods (docs/protocol.md), each with its own types in and out.
extension LayoutClient {
    /// Lays the text out → its lines and regions; with `retain`, a `handle` for the queries.
    /// The handle is the client's: it goes on working after the daemon restarts or evicts
    /// the layout (the client lays it out again from what it remembers, until `release`).
    public func layout(_ params: LayoutParams, retain: Bool = false) async throws(LayoutClientError) -> LayoutResult {
        var params = params
        params.retain = params.retain || retain
        var layout = try await call("layout", params.requestJSON, LayoutResult.init(json:))
        if params.retain, let daemonHandle = layout.handle {
            layout.handle = documents.remember(params, daemonHandle: daemonHandle)
        }
        return layout
    }

    /// Size and line count only: the fast path for "how tall is this at this width".
    public func measure(_ params: LayoutParams) async throws(LayoutClientError) -> MeasureResult {
        try await call("measure", params.requestJSON, MeasureResult.init(answer:))
    }

    /// One measure per width (1 to `MeasureParams.maxWidths`), from one shaping of the text;
    /// `params.width` is not sent.
    public func measure(_ params: LayoutParams, widths: [Double]) async throws(LayoutClientError) -> MeasuresResult {
        var params = params
        params.width = nil
        var members = params.requestJSON.objectMembers ?? []
        members.append(("widths", .array(widths.map { .number($0) })))
        return try await call("measure", .object(members), MeasuresResult.init(answer:))
    }

    public func hitTest(handle: String, x: Double, y: Double) async throws(LayoutClientError) -> HitTestResult {
        try await call("hitTest", handle: handle, [("x", .number(x)), ("y", .number(y))], HitTestResult.init(answer:))
    }

    public func caret(handle: String, index: Int) async throws(LayoutClientError) -> CaretResult {
        try await call("caret", handle: handle, [("index", .number(Double(index)))], CaretResult.init(answer:))
    }

    /// Selection rectangles of `[start, end)`.
    public func rects(handle: String, start: Int, end: Int) async throws(LayoutClientError) -> [RectParams] {
        try await call("rects", handle: handle, [("start", .number(Double(start))), ("end", .number(Double(end)))]) {
            $0["rects"]?.decodedArray(RectParams.init(answer:))
        }
    }

    /// Edits a retained layout's text and, optionally, its params → the new layout and what
    /// changed. `width`: `.some(nil)` for no wrapping; `paragraph`: only the members set are
    /// sent, each replacing the retained one (the rest of the paragraph style stays).
    public func update(handle: String, edits: [Edit] = [], width: Double?? = nil,
                       paragraph: ParagraphParams? = nil) async throws(LayoutClientError) -> UpdateResult {
        var changes: [(String, JSONValue)] = []
        if let width { changes.append(("width", width.map { .number($0) } ?? .null)) }
        if let style = paragraph?.requestJSON { changes.append(("paragraph", style)) }
        var members = changes
        if !edits.isEmpty {
            members.append(("edits", .array(edits.map { e -> JSONValue in
                ["start": .number(Double(e.start)), "end": .number(Double(e.end)), "text": .string(e.text)]
            })))
        }
        var result = try await call("update", handle: handle, members, UpdateResult.init(answer:))
        documents.updated(handle, edits: edits, changes: .object(changes), encoding: offsetEncoding)
        if result.layout.handle != nil { result.layout.handle = handle }
        return result
    }

    /// A picture of a retained layout: `format` "png" (`data` base64) or "svg".
    public func render(handle: String, format: String = "png", scale: Double = 1) async throws(LayoutClientError) -> RenderResult {
        var params = RenderParams(handle: handle, format: format)
        params.scale = scale
        return try await render(params)
    }

    /// A picture with every `render` option: highlights, selection, overlay, margin,
    /// background; of a retained layout (`handle`) or of `layout` laid out for it.
    public func render(_ params: RenderParams) async throws(LayoutClientError) -> RenderResult {
        guard let handle = params.handle else { return try await call("render", params.requestJSON, RenderResult.init(answer:)) }
        let members = (params.requestJSON.objectMembers ?? []).filter { $0.0 != "handle" }
        return try await call("render", handle: handle, members, RenderResult.init(answer:))
    }

    /// Frees a retained layout → whether the daemon still had it.
    @discardableResult
    public func release(handle: String) async throws(LayoutClientError) -> Bool {
        // Not laid out again only to be released: a daemon that is gone, or evicted it,
        // has nothing to release.
        let known = documents.knows(handle)
        let daemonHandle = documents.daemonHandle(for: handle)
        documents.forget(handle)
        guard let daemonHandle else { return false }
        do {
            return try await call("release", ["handle": .string(daemonHandle)]) { $0["released"].map { $0 == true } }
        } catch .server(let code, _, _) where code == LayoutClientError.unknownHandle && known {
            return false
        }
    }

    public func boundaries(text: String, kind: String) async throws(LayoutClientError) -> [Int] {
        try await call("boundaries", ["text": .string(text), "kind": .string(kind)]) {
            $0["offsets"]?.arrayValue?.compactMap { $0.doubleValue.map { Int($0) } }
        }
    }

    public func ping() async throws(LayoutClientError) -> Bool {
        try await call("ping", [:]) { $0["pong"].map { $0 == true } }
    }

    /// The daemon's counters, as it sent them (docs/protocol.md, `stats`).
    public func stats() async throws(LayoutClientError) -> JSONValue {
        try await call("stats", [:]) { $0 }
    }

    /// Re-reads the daemon's configuration and fonts → the new font fingerprint.
    public func reload() async throws(LayoutClientError) -> String {
        try await call("reload", [:]) { $0["fontFingerprint"]?.stringValue }
    }
}
