/// Reads and validates the members of a params object, producing `RPCError.invalidParams`
/// that names the field (as a dotted path) on anything wrong.
public struct ParamReader {
    public let value: JSONValue
    public let path: String

    /// `params` must be an object (or absent, read as `{}`).
    public init(_ params: JSONValue?, path: String = "") throws(RPCError) {
        let params = params ?? .object([])
        guard params.isObject else {
            if path.isEmpty { throw RPCError(.invalidParams, "invalid params: expected an object, got \(params.typeName)") }
            throw .invalidParams(field: path, "must be an object, got \(params.typeName)")
        }
        self.value = params
        self.path = path
    }

    public func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member, treating an explicit null as absent.
    public func member(_ key: String) -> JSONValue? {
        guard let v = value[key], !v.isNull else { return nil }
        return v
    }

    public func string(_ key: String, maxLength: Int = .max) throws(RPCError) -> String? {
        guard let v = member(key) else { return nil }
        guard let s = v.stringValue else { throw .invalidParams(field: field(key), "must be a string, got \(v.typeName)") }
        guard s.utf8.count <= maxLength else { throw .invalidParams(field: field(key), "is longer than \(maxLength) bytes") }
        return s
    }

    public func requiredString(_ key: String) throws(RPCError) -> String {
        guard let s = try string(key) else { throw .invalidParams(field: field(key), "is required (a string)") }
        return s
    }

    /// A required string kept as it came: UTF-16 code units for a `.utf16` value (a
    /// request's text as the server parses it), else the `String`.
    func requiredText(_ key: String) throws(RPCError) -> TextStorage {
        if case .utf16(let units)? = member(key) { return .utf16(units) }
        return .string(try requiredString(key))
    }

    /// A finite number in `range`.
    public func number(_ key: String, in range: ClosedRange<Double>, what: String) throws(RPCError) -> Double? {
        guard let v = member(key) else { return nil }
        guard let d = v.doubleValue, d.isFinite, range.contains(d) else {
            throw .invalidParams(field: field(key), "must be \(what), got \(describe(v))")
        }
        return d
    }

    /// An integer in `range`.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int? {
        guard let v = member(key) else { return nil }
        guard let i = v.intValue, range.contains(i) else {
            throw .invalidParams(field: field(key), "must be an integer from \(range.lowerBound) to \(range.upperBound), got \(describe(v))")
        }
        return i
    }

    public func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let v = member(key) else { return nil }
        guard let b = v.boolValue else { throw .invalidParams(field: field(key), "must be true or false, got \(v.typeName)") }
        return b
    }

    /// One of `choices`.
    public func choice(_ key: String, _ choices: [String]) throws(RPCError) -> String? {
        guard let s = try string(key) else { return nil }
        guard choices.contains(s) else {
            throw .invalidParams(field: field(key), "must be one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), got \"\(s)\"")
        }
        return s
    }

    /// A nested object's reader.
    public func object(_ key: String) throws(RPCError) -> ParamReader? {
        guard let v = member(key) else { return nil }
        guard v.isObject else { throw .invalidParams(field: field(key), "must be an object, got \(v.typeName)") }
        return try ParamReader(v, path: field(key))
    }

    /// Fails, naming the first member whose key is not in `known` (for configuration files,
    /// where a misspelt option must not be silently ignored).
    public func rejectUnknownKeys(_ known: [String]) throws(RPCError) {
        guard case .object(let members) = value else { return }
        if let (key, _) = members.first(where: { !known.contains($0.0) }) {
            throw .invalidParams(field: field(key), "is not a known option (known here: \(known.joined(separator: ", ")))")
        }
    }

    private func describe(_ v: JSONValue) -> String {
        if case .number(let d) = v { return JSONWriter.string(.number(d)) }
        return v.typeName
    }
}

/// Offset encodings a connection can choose with `initialize`.
public enum OffsetEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"
}

/// `initialize` params: `{offsetEncodings?: [..], client?: {..}}`.
public struct InitializeParams: Sendable {
    /// The client's preferred encodings, best first; the server takes the first it knows.
    public var offsetEncodings: [String]
    public var client: JSONValue?
    /// Notifications the client wants: `fontsChanged`.
    public var subscribe: [String] = []

    public init(offsetEncodings: [String] = [], client: JSONValue? = nil) {
        self.offsetEncodings = offsetEncodings
        self.client = client
    }

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        var encodings: [String] = []
        if let v = reader.member("offsetEncodings") {
            guard let list = v.arrayValue else {
                throw .invalidParams(field: "offsetEncodings", "must be an array of strings, got \(v.typeName)")
            }
            for (i, e) in list.enumerated() {
                guard let s = e.stringValue else {
                    throw .invalidParams(field: "offsetEncodings[\(i)]", "must be a string, got \(e.typeName)")
                }
                encodings.append(s)
            }
        }
        if let client = reader.member("client"), !client.isObject {
            throw .invalidParams(field: "client", "must be an object, got \(client.typeName)")
        }
        self.offsetEncodings = encodings
        self.client = reader.member("client")
        if let v = reader.member("subscribe") {
            guard let list = v.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalidParams(field: "subscribe", "must be an array of notification names (\"fontsChanged\")")
            }
            subscribe = list.compactMap(\.stringValue)
            if let unknown = subscribe.first(where: { $0 != "fontsChanged" }) {
                throw .invalidParams(field: "subscribe", "names an unknown notification \"\(unknown)\"; known: \"fontsChanged\"")
            }
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if !offsetEncodings.isEmpty { members.append(("offsetEncodings", .array(offsetEncodings.map { .string($0) }))) }
        if let client { members.append(("client", client)) }
        return .object(members)
    }
}

/// A font request: `{family?, size?, weight?, style?}`; absent members take the defaults.
public struct FontSpec: Sendable, Equatable {
    public var family: String?
    public var size: Double?
    public var weight: Int?
    public var style: String?
    /// OpenType features by tag: `{"kern": false, "smcp": true, "salt": 2}`.
    public var features: [(tag: String, value: Int)]
    /// Variable-font axis values by tag: `{"wght": 650, "wdth": 80}`.
    public var variations: [(tag: String, value: Double)]

    public static func == (a: FontSpec, b: FontSpec) -> Bool {
        a.family == b.family && a.size == b.size && a.weight == b.weight && a.style == b.style
            && a.features.elementsEqual(b.features, by: { $0 == $1 })
            && a.variations.elementsEqual(b.variations, by: { $0 == $1 })
    }

    public static let styles = ["normal", "italic", "oblique"]
    /// Largest font size accepted, in points.
    public static let maxSize = 10_000.0

    public init(family: String? = nil, size: Double? = nil, weight: Int? = nil, style: String? = nil,
                features: [(tag: String, value: Int)] = [], variations: [(tag: String, value: Double)] = []) {
        self.family = family
        self.size = size
        self.weight = weight
        self.style = style
        self.features = features
        self.variations = variations
    }

    /// An OpenType tag: one to four printable ASCII characters.
    static func isTag(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 4 && s.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    public init(_ reader: ParamReader) throws(RPCError) {
        family = try reader.string("family", maxLength: 1024)
        if let family, family.utf8.allSatisfy({ $0 == 0x20 }) {
            throw .invalidParams(field: reader.field("family"), "must not be empty")
        }
        if let v = reader.member("size"), let d = v.doubleValue, d.isFinite, d <= 0 {
            throw .invalidParams(field: reader.field("size"), "must be greater than 0, got \(JSONWriter.string(v))")
        }
        size = try reader.number("size", in: Double.leastNonzeroMagnitude...FontSpec.maxSize,
                                 what: "a number of points greater than 0 and at most \(Int(FontSpec.maxSize))")
        weight = try reader.integer("weight", in: 1...1000)
        style = try reader.choice("style", FontSpec.styles)
        features = []
        variations = []
        if let object = try reader.object("features"), case .object(let members) = object.value {
            for (tag, value) in members {
                let field = object.field(tag)
                guard FontSpec.isTag(tag) else { throw .invalidParams(field: field, "is not an OpenType feature tag (1–4 ASCII characters)") }
                switch value {
                case .bool(let on): features.append((tag, on ? 1 : 0))
                case .number: 
                    guard let n = value.intValue, (0...65535).contains(n) else {
                        throw .invalidParams(field: field, "must be true, false or an integer from 0 to 65535")
                    }
                    features.append((tag, n))
                default: throw .invalidParams(field: field, "must be true, false or an integer from 0 to 65535, got \(value.typeName)")
                }
            }
        }
        if let object = try reader.object("variations"), case .object(let members) = object.value {
            for (tag, value) in members {
                let field = object.field(tag)
                guard FontSpec.isTag(tag) else { throw .invalidParams(field: field, "is not a variation axis tag (1–4 ASCII characters)") }
                guard let v = value.doubleValue, v.isFinite, abs(v) <= 100_000 else {
                    throw .invalidParams(field: field, "must be a finite number, got \(value.typeName)")
                }
                variations.append((tag, v))
            }
        }
    }

    /// Parses "Noto Sans Bold Italic 16" (family words, then optional style words and a size).
    public init(parsing text: String) {
        self.init()
        var words = text.split(separator: " ").map(String.init)
        if let last = words.last, let size = Double(last), size > 0 { self.size = size; words.removeLast() }
        while let last = words.last?.lowercased() {
            if last == "bold" { weight = 700 } else if last == "light" { weight = 300 }
            else if last == "italic" || last == "oblique" { style = last } else { break }
            words.removeLast()
        }
        if !words.isEmpty { family = words.joined(separator: " ") }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let family { members.append(("family", .string(family))) }
        if let size { members.append(("size", .number(size))) }
        if let weight { members.append(("weight", .number(Double(weight)))) }
        if let style { members.append(("style", .string(style))) }
        if !features.isEmpty { members.append(("features", .object(features.map { ($0.tag, .number(Double($0.value))) }))) }
        if !variations.isEmpty { members.append(("variations", .object(variations.map { ($0.tag, .number($0.value)) }))) }
        return .object(members)
    }
}

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
        if let v = reader.member("width"), let d = v.doubleValue, d < 0 {
            throw .invalidParams(field: "width", "must not be negative, got \(JSONWriter.string(v))")
        }
        width = try reader.number("width", in: 0...LayoutParams.maxWidth,
                                  what: "a number of points from 0 to 1e9, or null for no wrapping")
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
        if let v = reader.member("exclusions") {
            guard let list = v.arrayValue else { throw .invalidParams(field: "exclusions", "must be an array of {x, y, width, height}, got \(v.typeName)") }
            guard list.count <= LayoutParams.maxExclusions else { throw .invalidParams(field: "exclusions", "has more than \(LayoutParams.maxExclusions) rectangles") }
            for (i, item) in list.enumerated() {
                exclusions.append(try RectParams(ParamReader(item, path: "exclusions[\(i)]")))
            }
        }
        scale = try reader.number("scale", in: 0.01...100, what: "a factor from 0.01 to 100") ?? 1
        if let v = reader.member("detectors") { detectors = try DetectorRequest.list(v) }
        if let v = reader.member("attachments") { attachments = try AttachmentProvidersRequest.read(v) }
        if let v = reader.member("decorations") { decorations = try DecorationsRequest.read(v) }
        retain = try reader.bool("retain") ?? false
    }

    /// A BCP 47 tag: ASCII letters, digits, `-` and `_`.
    static func validateLanguage(_ language: String) throws(RPCError) {
        guard !language.isEmpty, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .invalidParams(field: "language", "must be a BCP 47 language tag such as \"en\" or \"zh-Hans\", got \"\(language)\"")
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

/// `boundaries` params: `{text, kind, language?}`.
public struct BoundariesParams: Sendable {
    /// The text (read from `textStorage`: converted when it came in UTF-16).
    public var text: String {
        get { textStorage.string }
        set { textStorage = .string(newValue) }
    }
    /// The text's UTF-16 code units when they came so from the wire, else nil (read `text`).
    public var textUnits: [UInt16]? { textStorage.units }
    var textStorage: TextStorage
    public var kind: String
    public var language: String?

    public static let kinds = ["grapheme", "word", "sentence", "line"]

    public init(json params: JSONValue?) throws(RPCError) {
        let reader = try ParamReader(params)
        textStorage = try reader.requiredText("text")
        guard let kind = try reader.choice("kind", BoundariesParams.kinds) else {
            throw .invalidParams(field: "kind", "is required: one of \(BoundariesParams.kinds.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        self.kind = kind
        language = try reader.string("language", maxLength: 64)
        if let language { try LayoutParams.validateLanguage(language) }
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
