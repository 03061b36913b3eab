/// Parameters that reach plugins: `detectors`, `attachments` and `decorations` of `layout`
/// (and `measure`, `update`), and the `render` method's own.

/// One requested link kind: `"url"`, or `{kind: "literal", table: {...}}` whose other
/// members are the detector's options for this request.
public struct DetectorRequest: Sendable, Equatable {
    public var kind: String
    /// The object given (without `kind`), or `{}` for a plain kind.
    public var options: JSONValue

    public static let maxCount = 64

    /// `options`: the detector's options for this request (an object), or `{}`.
    public init(kind: String, options: JSONValue = [:]) {
        self.kind = kind
        self.options = options
    }

    /// Reads `detectors`: an array of kinds or `{kind, …options}` objects.
    static func list(_ value: JSONValue) throws(RPCError) -> [DetectorRequest] {
        guard let items = value.arrayValue else {
            throw .invalidParams(field: "detectors", "must be an array of kinds (\"url\", \"mention\", …) or {kind, …options}, got \(value.typeName)")
        }
        guard items.count <= maxCount else { throw .invalidParams(field: "detectors", "has more than \(maxCount) entries") }
        var result: [DetectorRequest] = []
        for (i, item) in items.enumerated() {
            switch item {
            case .string(let kind):
                guard !kind.isEmpty, kind.utf8.count <= 64 else { throw .invalidParams(field: "detectors[\(i)]", "must be a kind of 1–64 characters") }
                result.append(DetectorRequest(kind: kind, options: [:]))
            case .object(let members):
                guard let kind = item["kind"]?.stringValue, !kind.isEmpty, kind.utf8.count <= 64 else {
                    throw .invalidParams(field: "detectors[\(i)].kind", "is required: the kind to detect (\"url\", \"literal\", …)")
                }
                result.append(DetectorRequest(kind: kind, options: .object(members.filter { $0.0 != "kind" })))
            default:
                throw .invalidParams(field: "detectors[\(i)]", "must be a kind or {kind, …options}, got \(item.typeName)")
            }
        }
        return result
    }

    /// As the protocol spells it: the kind alone, or `{kind, …options}`.
    public var json: JSONValue {
        guard case .object(let members) = options, !members.isEmpty else { return .string(kind) }
        return .object([("kind", .string(kind))] + members)
    }
}

/// `attachments`: `true` (every attachment provider), or a list of provider names or
/// `{provider, …options}` objects.
public struct AttachmentProvidersRequest: Sendable, Equatable {
    /// nil: every provider loaded, with no options.
    public var providers: [(name: String, options: JSONValue)]?

    /// `providers` nil: every provider loaded, with no options.
    public init(providers: [(name: String, options: JSONValue)]? = nil) { self.providers = providers }

    public static func == (a: Self, b: Self) -> Bool {
        switch (a.providers, b.providers) {
        case (nil, nil): return true
        case let (x?, y?): return x.count == y.count && zip(x, y).allSatisfy { $0.name == $1.name && $0.options == $1.options }
        default: return false
        }
    }

    static func read(_ value: JSONValue) throws(RPCError) -> AttachmentProvidersRequest? {
        switch value {
        case .bool(let on): return on ? AttachmentProvidersRequest(providers: nil) : nil
        case .null: return nil
        case .array(let items):
            guard items.count <= 64 else { throw .invalidParams(field: "attachments", "has more than 64 providers") }
            var providers: [(String, JSONValue)] = []
            for (i, item) in items.enumerated() {
                switch item {
                case .string(let name): providers.append((name, [:]))
                case .object(let members):
                    guard let name = item["provider"]?.stringValue else {
                        throw .invalidParams(field: "attachments[\(i)].provider", "is required: the provider's name (\"shortcodes\", …)")
                    }
                    providers.append((name, .object(members.filter { $0.0 != "provider" })))
                default:
                    throw .invalidParams(field: "attachments[\(i)]", "must be a provider name or {provider, …options}, got \(item.typeName)")
                }
            }
            return AttachmentProvidersRequest(providers: providers)
        default:
            throw .invalidParams(field: "attachments", "must be true or a list of provider names, got \(value.typeName)")
        }
    }

    /// As the protocol spells it: `true`, or the list of names and `{provider, …options}`.
    public var json: JSONValue {
        guard let providers else { return true }
        return .array(providers.map { p in
            guard case .object(let members) = p.options, !members.isEmpty else { return .string(p.name) }
            return .object([("provider", .string(p.name))] + members)
        })
    }
}

/// `decorations`: `true` (the default renderer, "render"), a renderer name, or
/// `{renderer?, …options}`.
public struct DecorationsRequest: Sendable, Equatable {
    public var renderer: String
    public var options: JSONValue

    public init(renderer: String = "render", options: JSONValue = [:]) {
        self.renderer = renderer
        self.options = options
    }

    static func read(_ value: JSONValue) throws(RPCError) -> DecorationsRequest? {
        switch value {
        case .bool(let on): return on ? DecorationsRequest(renderer: "render", options: [:]) : nil
        case .null: return nil
        case .string(let name): return DecorationsRequest(renderer: name, options: [:])
        case .object(let members):
            let name = value["renderer"]?.stringValue ?? "render"
            return DecorationsRequest(renderer: name, options: .object(members.filter { $0.0 != "renderer" }))
        default:
            throw .invalidParams(field: "decorations", "must be true, a renderer name or {renderer?, …options}, got \(value.typeName)")
        }
    }

    /// As the protocol spells it: `{renderer, …options}`.
    public var json: JSONValue { .object([("renderer", .string(renderer))] + (options.objectMembers ?? [])) }
}

/// A highlighted range for `render`: `{start, end, state?: "normal"|"pressed"|"disabled"}`.
public struct HighlightParams: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var state: Int

    public static let states = ["normal", "pressed", "disabled"]

    /// `state`: an index of `states`.
    public init(start: Int, end: Int, state: Int = 0) {
        self.start = start; self.end = end; self.state = state
    }
}

/// `render` params beyond the layout: `{handle | layout params, format, scale?, overlay?,
/// highlight?, selection?, background?, renderer?, options?}`.
public struct RenderParams: Sendable {
    public var handle: String?
    public var format: String
    public var scale: Double
    public var overlay: Bool
    public var highlights: [HighlightParams]
    public var selection: (start: Int, end: Int)?
    /// "#rrggbb[aa]", or nil for transparent.
    public var background: String?
    public var renderer: String
    public var options: JSONValue
    /// Room around the text on every side, in points (the picture grows by twice it).
    public var margin: Double
    /// Without `handle`: the layout params beside the picture's (laid out at scale 1: `scale`
    /// is the picture's).
    public var layout: LayoutParams?

    public static let formats = ["png", "svg"]
    public static let margins = 0.0...1000
    /// Keys `render` adds to the layout params.
    public static let keys = ["handle", "format", "scale", "overlay", "highlight", "selection", "background", "renderer", "options", "margin"]

    /// A picture of the retained layout `handle`, or (handle nil) of `layout` laid out for it;
    /// the other members as the protocol's defaults.
    public init(handle: String? = nil, layout: LayoutParams? = nil, format: String = "png") {
        self.handle = handle
        self.layout = layout
        self.format = format
        scale = 1
        overlay = false
        highlights = []
        background = "#ffffff"
        renderer = "render"
        options = [:]
        margin = 0
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        handle = try reader.string("handle", maxLength: 128)
        guard let format = try reader.choice("format", RenderParams.formats) else {
            throw .invalidParams(field: "format", "is required: \"png\" or \"svg\"")
        }
        self.format = format
        // `scale` is the picture's pixels per point (with layout params too: there the text
        // is laid out at scale 1).
        scale = try reader.number("scale", in: 0.1...8, what: "a factor from 0.1 to 8 (pixels per point)") ?? 1
        overlay = try reader.bool("overlay") ?? false
        margin = try reader.number("margin", in: RenderParams.margins, what: "a number of points from 0 to 1000") ?? 0
        highlights = []
        if let v = reader.member("highlight") {
            let items: [JSONValue] = v.arrayValue ?? [v]
            guard items.count <= 1000 else { throw .invalidParams(field: "highlight", "has more than 1000 ranges") }
            for (i, item) in items.enumerated() {
                let field = v.arrayValue == nil ? "highlight" : "highlight[\(i)]"
                let r = try ParamReader(item, path: field)
                guard let start = try r.integer("start", in: 0...Int(Int32.max)),
                      let end = try r.integer("end", in: 0...Int(Int32.max)), end >= start else {
                    throw .invalidParams(field: field, "must be {start, end, state?} with 0 ≤ start ≤ end")
                }
                let state = try r.choice("state", HighlightParams.states) ?? "normal"
                highlights.append(HighlightParams(start: start, end: end, state: HighlightParams.states.firstIndex(of: state)!))
            }
        }
        if let v = reader.member("selection") {
            let r = try ParamReader(v, path: "selection")
            guard let start = try r.integer("start", in: 0...Int(Int32.max)),
                  let end = try r.integer("end", in: 0...Int(Int32.max)), end >= start else {
                throw .invalidParams(field: "selection", "must be {start, end} with 0 ≤ start ≤ end")
            }
            selection = (start, end)
        }
        if let v = reader.member("background") {
            if v.stringValue == "transparent" || v.isNull { background = nil } else {
                background = try ColorSpec.normalize(v, field: "background")
            }
        } else {
            background = "#ffffff"
        }
        renderer = try reader.string("renderer", maxLength: 64) ?? "render"
        if let v = reader.member("options") {
            guard v.isObject else { throw .invalidParams(field: "options", "must be an object (the renderer's options), got \(v.typeName)") }
            options = v
        } else {
            options = [:]
        }
        if handle == nil {
            guard case .object(let members) = reader.value, reader.value["text"] != nil else {
                throw .invalidParams(field: "handle", "is required (or the layout params, with `text`)")
            }
            layout = try LayoutParams(json: .object(members.filter { $0.0 != "scale" }))
        }
    }
}

extension JSONValue {
    /// The members of an object; nil otherwise.
    public var objectMembers: [(String, JSONValue)]? { if case .object(let m) = self { m } else { nil } }
}
