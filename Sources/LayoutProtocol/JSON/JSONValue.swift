/// A JSON value as parsed from, or written to, the wire.
///
/// Objects keep their members in order (`[(key, value)]`), so results are written in a
/// stable, readable order; a duplicated key on input keeps the last value on lookup.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// JSON text already written (UTF-8, one value): how the server puts a large array it
    /// wrote straight to bytes into a response (see `LayoutResult.wireJSON`). The parser
    /// produces it only for an integer literal of 2^53 or more in magnitude, which a Double
    /// would change (`exactIntegerLimit`); it reads as a number (`doubleValue`, `typeName`).
    /// `JSONWriter` copies it as it is.
    case serialized([UInt8])
    /// A string kept as its UTF-16 code units (well formed: surrogates paired): how the
    /// parser gives a request's `params.text` when asked to (`JSONParser.parse(_:utf16Text:)`),
    /// as the engine reads text in UTF-16 and converting through a `String` would cost a
    /// request two more passes over it. The same string as `.string` of those characters for
    /// `stringValue`, `==`, `typeName` and writing.
    case utf16([UInt16])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.serialized(x), .serialized(y)): return x == y
        case let (.utf16(x), .utf16(y)): return x == y
        case let (.utf16(x), .string(y)), let (.string(y), .utf16(x)): return x.elementsEqual(y.utf16)
        default: return false
        }
    }

    /// The member `key` of an object (the last one when repeated); nil otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// The string of a `.string` or `.utf16` value (the latter converted); nil otherwise.
    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .utf16(let units): String(decoding: units, as: UTF16.self)
        default: nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .number(let d): d
        case .serialized(let text) where Self.isNumberText(text): Double(String(decoding: text, as: UTF8.self))
        default: nil
        }
    }

    /// Integers from here on (in magnitude) are not all exact as a Double.
    public static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// Whether written JSON text is a number (as the parser keeps large integers).
    static func isNumberText(_ text: [UInt8]) -> Bool {
        guard let first = text.first else { return false }
        return first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }
    public var isObject: Bool { if case .object = self { true } else { false } }

    /// The value as an exact integer, or nil when it is not a number with no fraction that
    /// fits in `Int`.
    public var intValue: Int? {
        guard case .number(let d) = self, d.rounded() == d, abs(d) < 9.007199254740992e15 else { return nil }
        return Int(d)
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string, .utf16: "string"
        case .array: "array"
        case .object: "object"
        case .serialized(let text): Self.isNumberText(text) ? "number" : "JSON text"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
