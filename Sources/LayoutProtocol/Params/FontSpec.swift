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
