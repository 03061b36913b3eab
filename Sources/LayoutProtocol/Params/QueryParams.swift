/// Params of the queries on a layout (`hitTest`, `caret`, `rects`, `selectedText`, `word`,
/// `lineRange`) and of `update` and `release`. Each is read once, from the request's params;
/// what can only be checked against the layout's text (an offset past its end or inside a
/// character) is checked when the layout is known.

/// A text offset as the request gave it (in the connection's offset encoding), and the field
/// it came from, for the message when the text refuses it.
public struct OffsetParam: Sendable, Equatable {
    public var value: Int
    public var field: String

    public init(value: Int, field: String) { self.value = value; self.field = field }

    /// `key` of `reader`: required, an integer from 0.
    init(_ reader: ParamReader, _ key: String) throws(RPCError) {
        guard let value = try reader.integer(key, in: 0...Int(Int32.max)) else {
            throw .invalidParams(field: reader.field(key), "is required (a text offset ≥ 0)")
        }
        self.init(value: value, field: reader.field(key))
    }
}

/// The layout a query is about: a retained layout's `handle`, or layout params (with `text`)
/// in the same object, laid out for this query alone.
public enum LayoutTarget: Sendable {
    case handle(String)
    case text(LayoutParams)

    /// The longest handle accepted (handles the server gives are far shorter).
    public static let maxHandleLength = 256

    init(_ reader: ParamReader) throws(RPCError) {
        if let handle = try reader.string("handle", maxLength: LayoutTarget.maxHandleLength) {
            self = .handle(handle)
            return
        }
        guard reader.member("text") != nil else {
            throw .invalidParams(field: reader.field("handle"), "is required (or the layout params, with `text`)")
        }
        self = .text(try LayoutParams(json: reader.value))
    }
}

/// Where a caret sits at a line boundary: `downstream` (start of the next line) or `upstream`.
public enum AffinityParam {
    public static let choices = ["upstream", "downstream"]

    static func read(_ reader: ParamReader) throws(RPCError) -> String? {
        try reader.choice("affinity", choices)
    }
}

/// `hitTest`: `{handle | layout params, x, y}`.
public struct HitTestParams: Sendable {
    public var target: LayoutTarget
    public var x: Double
    public var y: Double

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        target = try LayoutTarget(reader)
        guard let x = try reader.number("x", in: -1e9...1e9, what: "a number of points") else { throw .invalidParams(field: "x", "is required") }
        guard let y = try reader.number("y", in: -1e9...1e9, what: "a number of points") else { throw .invalidParams(field: "y", "is required") }
        self.x = x
        self.y = y
    }
}

/// `caret` and `lineRange`: `{handle | layout params, index, affinity?}`.
public struct CaretParams: Sendable {
    public var target: LayoutTarget
    public var index: OffsetParam
    /// `downstream` or `upstream`; nil: downstream.
    public var affinity: String?

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        target = try LayoutTarget(reader)
        index = try OffsetParam(reader, "index")
        affinity = try AffinityParam.read(reader)
    }
}

/// `word`: `{handle | layout params, index}`.
public struct WordParams: Sendable {
    public var target: LayoutTarget
    public var index: OffsetParam

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        target = try LayoutTarget(reader)
        index = try OffsetParam(reader, "index")
    }
}

/// A selection running from `start {layout, index}` to `end {layout, index}` through the
/// retained layouts listed in `layouts: [{handle, origin?}]` (the order they are shown in).
public struct SelectionParams: Sendable {
    public struct Layout: Sendable {
        public var handle: String
        public var x: Double
        public var y: Double
    }
    public struct Position: Sendable {
        /// An index into `layouts`.
        public var layout: Int
        public var index: OffsetParam
    }
    public var layouts: [Layout]
    public var start: Position
    public var end: Position

    /// Layouts one selection may list.
    public static let maxLayouts = 10_000

    init(_ reader: ParamReader) throws(RPCError) {
        guard let list = reader.member("layouts")?.arrayValue, !list.isEmpty else {
            throw .invalidParams(field: "layouts", "must be a non-empty array of {handle, origin}")
        }
        guard list.count <= Self.maxLayouts else {
            throw .invalidParams(field: "layouts", "lists \(list.count) layouts; at most \(Self.maxLayouts) are allowed")
        }
        var layouts: [Layout] = []
        layouts.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            let r = try ParamReader(item, path: "layouts[\(i)]")
            guard let handle = try r.string("handle", maxLength: LayoutTarget.maxHandleLength) else {
                throw .invalidParams(field: r.field("handle"), "is required")
            }
            let origin = try r.object("origin")
            layouts.append(Layout(handle: handle, x: try origin?.number("x", in: -1e9...1e9, what: "a number of points") ?? 0,
                                  y: try origin?.number("y", in: -1e9...1e9, what: "a number of points") ?? 0))
        }
        self.layouts = layouts
        start = try Self.position(reader, "start", layoutCount: layouts.count)
        end = try Self.position(reader, "end", layoutCount: layouts.count)
    }

    private static func position(_ reader: ParamReader, _ key: String, layoutCount: Int) throws(RPCError) -> Position {
        guard let p = try reader.object(key) else { throw .invalidParams(field: key, "is required: {layout, index}") }
        guard let layout = try p.integer("layout", in: 0...(layoutCount - 1)) else {
            throw .invalidParams(field: p.field("layout"), "is required: an index into `layouts`")
        }
        return Position(layout: layout, index: try OffsetParam(p, "index"))
    }
}

/// `rects`: `{handle | layout params, start, end}` in one layout, or a selection over several
/// (`{layouts, start: {layout, index}, end: {layout, index}}`).
public enum RectsParams: Sendable {
    case range(target: LayoutTarget, start: OffsetParam, end: OffsetParam)
    case selection(SelectionParams)

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        if reader.member("layouts") != nil {
            self = .selection(try SelectionParams(reader))
            return
        }
        let target = try LayoutTarget(reader)
        self = .range(target: target, start: try OffsetParam(reader, "start"), end: try OffsetParam(reader, "end"))
    }
}

/// `selectedText`: a selection (see `SelectionParams`) and the `separator` put between the
/// layouts' pieces (default a line feed).
public struct SelectedTextParams: Sendable {
    public var selection: SelectionParams
    public var separator: String

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        separator = try reader.string("separator", maxLength: 1024) ?? "\n"
        guard reader.member("layouts") != nil else { throw .invalidParams(field: "layouts", "is required") }
        selection = try SelectionParams(reader)
    }
}

/// `release`: `{handle}`.
public struct ReleaseParams: Sendable {
    public var handle: String

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        guard let handle = try reader.string("handle", maxLength: LayoutTarget.maxHandleLength) else {
            throw .invalidParams(field: "handle", "is required")
        }
        self.handle = handle
    }
}

/// `update`: `{handle, edits: [{start, end, text}], result?: "full" | "changed"}`. Each edit
/// applies to the text as the edits before it left it (as LSP's `didChange`).
public struct UpdateParams: Sendable {
    public struct Edit: Sendable {
        public var start: OffsetParam
        public var end: OffsetParam
        public var text: String
    }
    public var handle: String
    public var edits: [Edit]
    /// Layout params changed with the edits (after them: the edited text is laid out anew).
    public var changes: LayoutChanges
    /// `result: "changed"`: only the lines that changed are sent.
    public var changedOnly: Bool
    /// Only the lines and regions that meet this band are sent (with `changedOnly`, only
    /// the changed lines among them).
    public var viewport: ViewportParams?

    /// Each edit costs a pass over the text: bounded (send several updates for more).
    public static let maxEdits = 1000

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        guard let handle = try reader.string("handle", maxLength: LayoutTarget.maxHandleLength) else {
            throw .invalidParams(field: "handle", "is required")
        }
        changes = try LayoutChanges(reader)
        let given = reader.member("edits")
        if given == nil, changes.isEmpty {
            throw .invalidParams(field: "edits", "is required unless a layout param changes (\(LayoutChanges.members.joined(separator: ", "))): an array of {start, end, text}")
        }
        guard let list = given.map({ $0.arrayValue }) ?? [] else {
            throw .invalidParams(field: "edits", "must be an array of {start, end, text}")
        }
        guard list.count <= Self.maxEdits else { throw .invalidParams(field: "edits", "has more than \(Self.maxEdits) edits") }
        changedOnly = try reader.choice("result", ["full", "changed"]) == "changed"
        viewport = try ViewportParams.read(reader)
        var edits: [Edit] = []
        edits.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            let r = try ParamReader(item, path: "edits[\(i)]")
            edits.append(Edit(start: try OffsetParam(r, "start"), end: try OffsetParam(r, "end"), text: try r.string("text") ?? ""))
        }
        self.handle = handle
        self.edits = edits
    }
}
