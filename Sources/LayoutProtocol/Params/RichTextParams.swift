/// A line decoration (underline or strikethrough): its style and, optionally, its color.
public struct DecorationSpec: Sendable, Equatable, Hashable {
    public static let styles = ["single", "double", "thick"]
    public var style: String
    public var color: String?

    /// Reads `true`, a style name, or `{style?, color?}`; `false` reads as none.
    static func read(_ value: JSONValue, field: String) throws(RPCError) -> DecorationSpec? {
        switch value {
        case .bool(let on): return on ? DecorationSpec(style: "single") : nil
        case .string(let s):
            guard styles.contains(s) else { throw .invalidParams(field: field, "must be one of \"single\", \"double\", \"thick\", got \"\(s)\"") }
            return DecorationSpec(style: s)
        case .object:
            let reader = try ParamReader(value, path: field)
            let style = try reader.choice("style", styles) ?? "single"
            let color = try reader.member("color").map { (v) throws(RPCError) in try ColorSpec.normalize(v, field: reader.field("color")) }
            return DecorationSpec(style: style, color: color)
        default:
            throw .invalidParams(field: field, "must be true, a style (\"single\", \"double\", \"thick\") or {style, color}, got \(value.typeName)")
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("style", .string(style))]
        if let color { members.append(("color", .string(color))) }
        return .object(members)
    }
}

/// Colors: "#RGB", "#RRGGBB" or "#RRGGBBAA", normalized to lowercase "#rrggbb" or "#rrggbbaa".
public enum ColorSpec {
    static func normalize(_ value: JSONValue, field: String) throws(RPCError) -> String {
        guard let s = value.stringValue else { throw .invalidParams(field: field, "must be a color string such as \"#1a73e8\", got \(value.typeName)") }
        let hex = Array(s.lowercased().utf8.dropFirst())
        let isHex = { (b: UInt8) in (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) }
        guard s.hasPrefix("#"), [3, 6, 8].contains(hex.count), hex.allSatisfy(isHex) else {
            throw .invalidParams(field: field, "must be \"#RGB\", \"#RRGGBB\" or \"#RRGGBBAA\", got \"\(s)\"")
        }
        if hex.count == 3 { return "#" + String(decoding: hex.flatMap { [$0, $0] }, as: UTF8.self) }
        return "#" + String(decoding: hex, as: UTF8.self)
    }
}

/// What a span sets: each member absent leaves the property to the spans before it (or the
/// base style). `font` members override the base font one by one.
public struct SpanAttributes: Sendable, Equatable {
    public var font: FontSpec?
    public var color: String?
    public var background: String?
    public var underline: DecorationSpec??
    public var strikethrough: DecorationSpec??
    public var baselineOffset: Double?
    public var letterSpacing: Double?
    public var link: String?
    /// `false` for a disabled link (shown, not followable): its region says `enabled: false`.
    public var enabled: Bool?
    public var data: JSONValue?
    /// An inline-code span: it comes back as a region of kind `code`.
    public var code: Bool?
    /// An inline object standing for the span's text: `{width, ascent, descent, value?}`.
    public var attachment: AttachmentSpec?
    /// The BCP 47 language of the span's text, for `hyphenation: auto` (the dictionary its
    /// words are hyphenated with, in place of the request's `language`).
    public var language: String?

    public init() {}

    /// The largest baseline offset or letter spacing accepted, in points.
    public static let maxLength = 100_000.0

    public init(_ reader: ParamReader) throws(RPCError) {
        font = try reader.object("font").map { (r) throws(RPCError) in try FontSpec(r) }
        color = try reader.member("color").map { (v) throws(RPCError) in try ColorSpec.normalize(v, field: reader.field("color")) }
        background = try reader.member("background").map { (v) throws(RPCError) in try ColorSpec.normalize(v, field: reader.field("background")) }
        if let v = reader.value["underline"] {
            underline = .some(v.isNull ? nil : try DecorationSpec.read(v, field: reader.field("underline")))
        }
        if let v = reader.value["strikethrough"] {
            strikethrough = .some(v.isNull ? nil : try DecorationSpec.read(v, field: reader.field("strikethrough")))
        }
        let range = -SpanAttributes.maxLength...SpanAttributes.maxLength
        baselineOffset = try reader.number("baselineOffset", in: range, what: "a number of points")
        letterSpacing = try reader.number("letterSpacing", in: range, what: "a number of points")
        link = try reader.string("link", maxLength: 1 << 16)
        enabled = try reader.bool("enabled")
        if enabled != nil, link == nil {
            throw .invalidParams(field: reader.field("enabled"), "applies to a link: give `link` in the same span")
        }
        data = reader.member("data")
        code = try reader.bool("code")
        language = try reader.string("language", maxLength: 64)
        if let language { try LayoutParams.validateLanguage(language, field: reader.field("language")) }
        if let a = try reader.object("attachment") {
            let what = "a number of points from 0 to 100000"
            guard let width = try a.number("width", in: 0...SpanAttributes.maxLength, what: what) else {
                throw .invalidParams(field: a.field("width"), "is required")
            }
            attachment = AttachmentSpec(width: width,
                                        ascent: try a.number("ascent", in: 0...SpanAttributes.maxLength, what: what) ?? 0,
                                        descent: try a.number("descent", in: 0...SpanAttributes.maxLength, what: what) ?? 0,
                                        value: a.member("value"))
        }
    }

    /// These attributes over `base`: every member set here wins.
    public func applied(over base: SpanAttributes) -> SpanAttributes {
        var result = base
        if let font {
            var merged = base.font ?? FontSpec()
            if let v = font.family { merged.family = v }
            if let v = font.size { merged.size = v }
            if let v = font.weight { merged.weight = v }
            if let v = font.style { merged.style = v }
            if !font.features.isEmpty { merged.features = font.features }
            if !font.variations.isEmpty { merged.variations = font.variations }
            result.font = merged
        }
        if let color { result.color = color }
        if let background { result.background = background }
        if let underline { result.underline = underline }
        if let strikethrough { result.strikethrough = strikethrough }
        if let baselineOffset { result.baselineOffset = baselineOffset }
        if let letterSpacing { result.letterSpacing = letterSpacing }
        if let link { result.link = link }
        if let enabled { result.enabled = enabled }
        if let data { result.data = data }
        if let code { result.code = code }
        if let attachment { result.attachment = attachment }
        if let language { result.language = language }
        return result
    }

    /// The attributes as a style object in results.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let font { members.append(("font", font.json)) }
        if let color { members.append(("color", .string(color))) }
        if let background { members.append(("background", .string(background))) }
        if case .some(.some(let u)) = underline { members.append(("underline", u.json)) }
        if case .some(.some(let s)) = strikethrough { members.append(("strikethrough", s.json)) }
        if let baselineOffset { members.append(("baselineOffset", .number(baselineOffset))) }
        if let letterSpacing { members.append(("letterSpacing", .number(letterSpacing))) }
        if let link { members.append(("link", .string(link))) }
        if let enabled { members.append(("enabled", .bool(enabled))) }
        if let data { members.append(("data", data)) }
        if let code { members.append(("code", .bool(code))) }
        if let attachment { members.append(("attachment", attachment.json)) }
        if let language { members.append(("language", .string(language))) }
        return .object(members)
    }
}

/// An inline object's size in points and what it stands for (an image URL, an id).
public struct AttachmentSpec: Sendable, Equatable {
    public var width: Double
    public var ascent: Double
    public var descent: Double
    public var value: JSONValue?

    public init(width: Double, ascent: Double, descent: Double, value: JSONValue? = nil) {
        self.width = width; self.ascent = ascent; self.descent = descent; self.value = value
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("width", .number(width)), ("ascent", .number(ascent)), ("descent", .number(descent))]
        if let value { members.append(("value", value)) }
        return .object(members)
    }
}

/// A span: a range of the text (in the connection's offset encoding) and what it sets.
public struct SpanParams: Sendable {
    public var start: Int
    public var end: Int
    public var attributes: SpanAttributes

    public init(start: Int, end: Int, attributes: SpanAttributes) {
        self.start = start; self.end = end; self.attributes = attributes
    }
}

/// `paragraph.truncation`: the mode and the token, with the token's own style.
public struct TruncationParams: Sendable {
    public static let modes = ["tail", "head", "middle", "clip"]
    public var mode: String = "tail"
    public var token: String = "…"
    public var style: SpanAttributes?

    public init() {}
}

/// `paragraph`: the paragraph style, line limit and truncation.
public struct ParagraphParams: Sendable {
    public static let aligns = ["start", "end", "left", "right", "center", "justify"]
    public static let tabAlignments = ["left", "right", "center", "decimal"]
    public static let wrapStyles = ["greedy", "balance", "optimal", "pretty"]
    public static let hyphenations = ["none", "manual", "auto"]

    public var align: String?
    public var direction: String?
    public var wrap: String?
    /// `greedy` (nil), `balance`, `optimal` or `pretty`.
    public var wrapStyle: String?
    /// `none`, `manual` (nil) or `auto` (CSS `hyphens`).
    public var hyphenation: String?
    /// `hyphenationMinimum`: characters before and after a break, and in a word (CSS
    /// `hyphenate-limit-chars`); nil members take CSS's defaults, 2, 2 and 5.
    public var hyphenationMinimum: (before: Int?, after: Int?, word: Int?) = (nil, nil, nil)
    public var lineSpacing: Double?
    public var lineHeightMultiple: Double?
    public var minimumLineHeight: Double?
    public var maximumLineHeight: Double?
    public var paragraphSpacing: Double?
    public var paragraphSpacingBefore: Double?
    public var firstLineIndent: Double?
    public var headIndent: Double?
    public var tailIndent: Double?
    public var tabStops: [(location: Double, alignment: String)] = []
    /// Tab stops one paragraph style may list (a ruler's worth: word processors offer a few
    /// dozen); tabs past the last one advance by `defaultTabInterval`.
    public static let maxTabStops = 1000
    public var defaultTabInterval: Double?
    public var maxLines: Int?
    public var truncation = TruncationParams()

    public init() {}

    static let lengthRange = -1e6...1e6
    static let positiveRange = 0.0...1e6

    /// `base`: the style the members given change (an `update`), else the defaults.
    public init(_ r: ParamReader, over base: ParagraphParams = ParagraphParams()) throws(RPCError) {
        self = base
        align = try r.choice("align", ParagraphParams.aligns) ?? base.align
        direction = try r.choice("direction", LayoutParams.directions) ?? base.direction
        wrap = try r.choice("wrap", LayoutParams.wraps) ?? base.wrap
        wrapStyle = try r.choice("wrapStyle", ParagraphParams.wrapStyles) ?? base.wrapStyle
        hyphenation = try r.choice("hyphenation", ParagraphParams.hyphenations) ?? base.hyphenation
        if let m = try r.object("hyphenationMinimum") {
            // Given, `hyphenationMinimum` replaces the whole of it (in an update too).
            hyphenationMinimum = (try m.integer("before", in: 1...64), try m.integer("after", in: 1...64),
                                  try m.integer("word", in: 1...128))
        }
        lineSpacing = try r.number("lineSpacing", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") ?? base.lineSpacing
        if let v = r.member("lineHeight") {
            // Given, `lineHeight` replaces all three (in an update too).
            minimumLineHeight = nil
            maximumLineHeight = nil
            if v.doubleValue != nil {
                lineHeightMultiple = try r.number("lineHeight", in: 0.01...100, what: "a multiple from 0.01 to 100, or {multiple, minimum, maximum}")
            } else {
                guard let lh = try r.object("lineHeight") else { throw .invalidParams(field: "paragraph.lineHeight", "must be a number or an object") }
                lineHeightMultiple = try lh.number("multiple", in: 0.01...100, what: "a multiple from 0.01 to 100")
                minimumLineHeight = try lh.number("minimum", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0")
                maximumLineHeight = try lh.number("maximum", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0")
                if let lo = minimumLineHeight, let hi = maximumLineHeight, lo > hi {
                    throw .invalidParams(field: lh.field("maximum"), "must not be less than `minimum`")
                }
            }
        }
        paragraphSpacing = try r.number("paragraphSpacing", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") ?? base.paragraphSpacing
        paragraphSpacingBefore = try r.number("paragraphSpacingBefore", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") ?? base.paragraphSpacingBefore
        firstLineIndent = try r.number("firstLineIndent", in: ParagraphParams.lengthRange, what: "a number of points") ?? base.firstLineIndent
        headIndent = try r.number("headIndent", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") ?? base.headIndent
        tailIndent = try r.number("tailIndent", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") ?? base.tailIndent
        defaultTabInterval = try r.number("defaultTabInterval", in: 0.01...1e6, what: "a number of points > 0") ?? base.defaultTabInterval
        if let v = r.member("tabStops") {
            guard let list = v.arrayValue else { throw .invalidParams(field: r.field("tabStops"), "must be an array of {location, alignment}") }
            guard list.count <= ParagraphParams.maxTabStops else {
                throw .invalidParams(field: r.field("tabStops"), "holds \(list.count) stops; at most \(ParagraphParams.maxTabStops) are allowed")
            }
            tabStops = []
            for (i, item) in list.enumerated() {
                let stop = try ParamReader(item, path: r.field("tabStops[\(i)]"))
                guard let location = try stop.number("location", in: ParagraphParams.positiveRange, what: "a number of points ≥ 0") else {
                    throw .invalidParams(field: stop.field("location"), "is required")
                }
                tabStops.append((location, try stop.choice("alignment", ParagraphParams.tabAlignments) ?? "left"))
            }
            tabStops.sort { $0.location < $1.location }
        }
        if let v = r.member("maxLines"), let d = v.doubleValue, d < 0 {
            throw .invalidParams(field: r.field("maxLines"), "must not be negative, got \(JSONWriter.string(v))")
        }
        maxLines = try r.integer("maxLines", in: 0...1_000_000_000) ?? base.maxLines
        if let t = try r.object("truncation") {
            // Given, `truncation` replaces the whole of it (in an update too).
            truncation = TruncationParams()
            truncation.mode = try t.choice("mode", TruncationParams.modes) ?? "tail"
            truncation.token = try t.string("token", maxLength: 4096) ?? "…"
            truncation.style = try t.object("style").map { (s) throws(RPCError) in try SpanAttributes(s) }
        }
    }
}

/// `insets`: `{top, left, bottom, right}`, each ≥ 0.
public struct InsetsParams: Sendable, Equatable {
    public var top = 0.0, left = 0.0, bottom = 0.0, right = 0.0

    public init() {}

    public init(_ r: ParamReader) throws(RPCError) {
        let what = "a number of points ≥ 0"
        top = try r.number("top", in: ParagraphParams.positiveRange, what: what) ?? 0
        left = try r.number("left", in: ParagraphParams.positiveRange, what: what) ?? 0
        bottom = try r.number("bottom", in: ParagraphParams.positiveRange, what: what) ?? 0
        right = try r.number("right", in: ParagraphParams.positiveRange, what: what) ?? 0
    }
}

/// A rectangle param: `{x, y, width, height}`, width and height ≥ 0.
public struct RectParams: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public init(_ r: ParamReader) throws(RPCError) {
        func required(_ key: String, _ range: ClosedRange<Double>, _ what: String) throws(RPCError) -> Double {
            guard let v = try r.number(key, in: range, what: what) else { throw .invalidParams(field: r.field(key), "is required") }
            return v
        }
        x = try required("x", -1e9...1e9, "a number of points")
        y = try required("y", -1e9...1e9, "a number of points")
        width = try required("width", 0...1e9, "a number of points ≥ 0")
        height = try required("height", 0...1e9, "a number of points ≥ 0")
    }

    public var json: JSONValue { ["x": .number(x), "y": .number(y), "width": .number(width), "height": .number(height)] }
}
