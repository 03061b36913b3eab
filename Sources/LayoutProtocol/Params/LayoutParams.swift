/// `layout` (and `measure`) params. Only `text` is required; members this version does not
/// know are ignored.
public struct LayoutParams: Sendable {
    /// The text to lay out (read from `textStorage`: converted when it came in UTF-16).
    public var text: String {
        get { textStorage.string }
        set { textStorage = .string(newValue) }
    }
    /// The text's UTF-16 code units when they came so from the wire (`JSONValue.utf16`, as
    /// the server parses requests), else nil: read `text` and convert it.
    public var textUnits: [UInt16]? { textStorage.units }
    var textStorage: TextStorage
    /// nil: no wrapping.
    public var width: Double?
    public var font: FontSpec
    /// BCP 47 language of the text, for line breaking, font choice and shaping.
    public var language: String?
    /// `detail`: `lines` (default), `runs` or `glyphs`.
    public var detail: String?
    public var spans: [SpanParams] = []
    public var paragraph = ParagraphParams()
    public var insets = InsetsParams()
    public var exclusions: [RectParams] = []
    /// One factor for every size in the request (fonts, spacing, indents, tab stops).
    public var scale: Double = 1
    /// Link kinds to detect with the link-detector plugins (each hit becomes a region).
    public var detectors: [DetectorRequest] = []
    /// Attachment providers to run (each match lays out as an inline object); nil: none.
    public var attachments: AttachmentProvidersRequest?
    /// A line renderer asked for per-line `decorations`; nil: none.
    public var decorations: DecorationsRequest?
    /// `layout` only: keep the layout for follow-up queries and answer its handle.
    public var retain = false
    /// `layout` only: list only the lines and regions that meet this band.
    public var viewport: ViewportParams?

    public static let directions = ["auto", "ltr", "rtl"]
    public static let details = ["lines", "runs", "glyphs"]
    public static let wraps = ["word", "char", "none"]
    /// Largest width accepted, in points.
    public static let maxWidth = 1e9
    /// Most spans and exclusions accepted, and most spans over any one place of the text.
    public static let maxSpans = 1_000_000
    public static let maxOverlappingSpans = 256
    public static let maxExclusions = 10_000

    public init(text: String, width: Double? = nil, font: FontSpec = FontSpec(), language: String? = nil,
                direction: String? = nil, detail: String? = nil, wrap: String? = nil) {
        self.textStorage = .string(text)
        self.width = width
        self.font = font
        self.language = language
        self.detail = detail
        self.paragraph.direction = direction
        self.paragraph.wrap = wrap
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        textStorage = try reader.requiredText("text")
        width = try LayoutParams.width(reader)
        font = try reader.object("font").map { (r) throws(RPCError) in try FontSpec(r) } ?? FontSpec()
        language = try reader.string("language", maxLength: 64)
        if let language { try LayoutParams.validateLanguage(language) }
        detail = try reader.choice("detail", LayoutParams.details)
        if let p = try reader.object("paragraph") { paragraph = try ParagraphParams(p) }
        // `direction` beside `paragraph` is an older spelling of `paragraph.direction`.
        if paragraph.direction == nil { paragraph.direction = try reader.choice("direction", LayoutParams.directions) }
        if let v = reader.member("spans") {
            guard let list = v.arrayValue else { throw .invalidParams(field: "spans", "must be an array of {start, end, …}, got \(v.typeName)") }
            guard list.count <= LayoutParams.maxSpans else { throw .invalidParams(field: "spans", "has more than \(LayoutParams.maxSpans) spans") }
            spans.reserveCapacity(list.count)
            for (i, item) in list.enumerated() {
                let r = try ParamReader(item, path: "spans[\(i)]")
                guard let start = try r.integer("start", in: 0...Int(Int32.max)) else { throw .invalidParams(field: r.field("start"), "is required (an offset ≥ 0)") }
                guard let end = try r.integer("end", in: 0...Int(Int32.max)) else { throw .invalidParams(field: r.field("end"), "is required (an offset ≥ 0)") }
                guard end >= start else { throw .invalidParams(field: r.field("end"), "must not be less than `start` (\(start)), got \(end)") }
                spans.append(SpanParams(start: start, end: end, attributes: try SpanAttributes(r)))
            }
        }
        if let i = try reader.object("insets") { insets = try InsetsParams(i) }
        exclusions = try LayoutParams.exclusions(reader) ?? []
        scale = try reader.number("scale", in: 0.01...100, what: "a factor from 0.01 to 100") ?? 1
        if let v = reader.member("detectors") { detectors = try DetectorRequest.list(v) }
        if let v = reader.member("attachments") { attachments = try AttachmentProvidersRequest.read(v) }
        if let v = reader.member("decorations") { decorations = try DecorationsRequest.read(v) }
        retain = try reader.bool("retain") ?? false
        viewport = try ViewportParams.read(reader)
    }

    /// `width`: points from 0 to `maxWidth`, or nil (absent or null) for no wrapping.
    public static func width(_ reader: ParamReader) throws(RPCError) -> Double? {
        if let v = reader.member("width"), let d = v.doubleValue, d < 0 {
            throw .invalidParams(field: reader.field("width"), "must not be negative, got \(JSONWriter.string(v))")
        }
        return try reader.number("width", in: 0...LayoutParams.maxWidth,
                                 what: "a number of points from 0 to 1e9, or null for no wrapping")
    }

    /// `exclusions`: at most `maxExclusions` rectangles; nil when absent.
    static func exclusions(_ reader: ParamReader) throws(RPCError) -> [RectParams]? {
        guard let v = reader.member("exclusions") else { return nil }
        guard let list = v.arrayValue else { throw .invalidParams(field: reader.field("exclusions"), "must be an array of {x, y, width, height}, got \(v.typeName)") }
        guard list.count <= LayoutParams.maxExclusions else { throw .invalidParams(field: reader.field("exclusions"), "has more than \(LayoutParams.maxExclusions) rectangles") }
        var rects: [RectParams] = []
        rects.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            rects.append(try RectParams(ParamReader(item, path: reader.field("exclusions[\(i)]"))))
        }
        return rects
    }

    /// A BCP 47 tag: ASCII letters, digits, `-` and `_`; else -32602 naming `field`.
    static func validateLanguage(_ language: String, field: String = "language") throws(RPCError) {
        guard !language.isEmpty, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .invalidParams(field: field, "must be a BCP 47 language tag such as \"en\" or \"zh-Hans\", got \"\(language)\"")
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("text", .string(text))]
        if let width { members.append(("width", .number(width))) }
        if font != FontSpec() { members.append(("font", font.json)) }
        if let language { members.append(("language", .string(language))) }
        if let detail { members.append(("detail", .string(detail))) }
        var paragraphMembers: [(String, JSONValue)] = []
        if let direction = paragraph.direction { paragraphMembers.append(("direction", .string(direction))) }
        if let wrap = paragraph.wrap { paragraphMembers.append(("wrap", .string(wrap))) }
        if !paragraphMembers.isEmpty { members.append(("paragraph", .object(paragraphMembers))) }
        return .object(members)
    }
}

/// A request's text as it came: a `String`, or UTF-16 code units decoded straight from the
/// wire (`JSONValue.utf16`); each read the other way when asked.
enum TextStorage: Sendable {
    case string(String)
    case utf16([UInt16])

    var string: String {
        switch self {
        case .string(let s): s
        case .utf16(let units): String(decoding: units, as: UTF16.self)
        }
    }

    var units: [UInt16]? {
        if case .utf16(let units) = self { units } else { nil }
    }
}
