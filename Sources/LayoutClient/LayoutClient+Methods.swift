import LayoutProtocol

// The protocol's methods (docs/protocol.md), each with its own types in and out.
extension LayoutClient {
    /// Lays the text out → its lines and regions; with `retain`, a `handle` for the queries.
    public func layout(_ params: LayoutParams, retain: Bool = false) async throws(LayoutClientError) -> LayoutResult {
        var params = params
        params.retain = params.retain || retain
        return try await call("layout", params.requestJSON, LayoutResult.init(json:))
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
        try await call("hitTest", ["handle": .string(handle), "x": .number(x), "y": .number(y)], HitTestResult.init(answer:))
    }

    public func caret(handle: String, index: Int) async throws(LayoutClientError) -> CaretResult {
        try await call("caret", ["handle": .string(handle), "index": .number(Double(index))], CaretResult.init(answer:))
    }

    /// Selection rectangles of `[start, end)`.
    public func rects(handle: String, start: Int, end: Int) async throws(LayoutClientError) -> [RectParams] {
        try await call("rects", ["handle": .string(handle), "start": .number(Double(start)), "end": .number(Double(end))]) {
            $0["rects"]?.decodedArray(RectParams.init(answer:))
        }
    }

    /// Edits a retained layout's text and, optionally, its params → the new layout and what
    /// changed. `width`: `.some(nil)` for no wrapping; `paragraph`: only the members set are
    /// sent, each replacing the retained one (the rest of the paragraph style stays).
    public func update(handle: String, edits: [Edit] = [], width: Double?? = nil,
                       paragraph: ParagraphParams? = nil) async throws(LayoutClientError) -> UpdateResult {
        var members: [(String, JSONValue)] = [("handle", .string(handle))]
        if !edits.isEmpty {
            members.append(("edits", .array(edits.map { e -> JSONValue in
                ["start": .number(Double(e.start)), "end": .number(Double(e.end)), "text": .string(e.text)]
            })))
        }
        if let width { members.append(("width", width.map { .number($0) } ?? .null)) }
        if let style = paragraph?.requestJSON { members.append(("paragraph", style)) }
        return try await call("update", .object(members), UpdateResult.init(answer:))
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
        try await call("render", params.requestJSON, RenderResult.init(answer:))
    }

    /// Frees a retained layout → whether the daemon still had it.
    @discardableResult
    public func release(handle: String) async throws(LayoutClientError) -> Bool {
        try await call("release", ["handle": .string(handle)]) { $0["released"].map { $0 == true } }
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
