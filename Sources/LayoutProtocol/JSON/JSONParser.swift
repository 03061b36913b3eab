#if canImport(Glibc)
import Glibc
#endif

/// Why a JSON text could not be parsed, with the byte offset where it went wrong.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes: rejects invalid UTF-8, lone surrogate escapes,
/// control characters in strings, trailing garbage, non-finite numbers and nesting deeper
/// than `maxDepth`. Linear in the input; never recursive beyond `maxDepth`.
public struct JSONParser {
    public static let defaultMaxDepth = 64

    /// Parses one JSON text that makes up all of `bytes` (surrounding white space allowed).
    /// Read where they lie when they are contiguous (an array, a slice), else copied once.
    /// `utf16Text`: the string member `text` of any object that is the value of a member
    /// `params` (a JSON-RPC request's text) comes as `.utf16`, decoded straight from the
    /// wire to UTF-16 (the engine's encoding); every other string as `.string`.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth,
                             utf16Text: Bool = false) throws(JSONParseError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer: buffer, maxDepth: maxDepth, utf16Text: utf16Text) }
        }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            try parse(buffer: buffer, maxDepth: maxDepth, utf16Text: utf16Text)
        }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, utf16Text: Bool) throws(JSONParseError) -> JSONValue {
        var parser = Cursor(bytes: buffer, maxDepth: maxDepth, utf16Text: utf16Text)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == buffer.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// Parses a JSON text given as a string.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        /// `params.text` as `.utf16` (see `parse(_:maxDepth:utf16Text:)`).
        let utf16Text: Bool
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, utf16Text: Bool) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            self.utf16Text = utf16Text
        }

        func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: at) }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        /// `isParams`: the value of a member `params` (whose `text`, with `utf16Text`, is
        /// read as `.utf16`).
        mutating func value(depth: Int, isParams: Bool = false) throws(JSONParseError) -> JSONValue {
            guard at < bytes.count else { throw error("unexpected end of input") }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1, isParams: isParams)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try numberValue()
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONParseError) {
            let n = word.utf8CodeUnitCount
            guard at + n <= bytes.count else { throw error("invalid literal") }
            let w = word.utf8Start
            for i in 0..<n where bytes[at + i] != w[i] { throw error("invalid literal") }
            at += n
        }

        mutating func object(depth: Int, isParams: Bool = false) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            at += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
            // Room for a request's members (jsonrpc, id, method, params) or a font's, grown once.
            members.reserveCapacity(4)
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
                at += 1
                skipSpace()
                if utf16Text {
                    if isParams, key == "text", at < bytes.count, bytes[at] == UInt8(ascii: "\"") {
                        members.append((key, .utf16(try stringUTF16())))
                    } else {
                        members.append((key, try value(depth: depth, isParams: key == "params")))
                    }
                } else {
                    members.append((key, try value(depth: depth)))
                }
                skipSpace()
                guard at < bytes.count else { throw error("unexpected end of input in an object") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            at += 1
            var elements: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard at < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(elements) }
                throw error("expected ',' or ']'")
            }
        }

        /// A number; an integer literal a Double cannot hold exactly (2^53 or more in
        /// magnitude) is kept as its text, so that it is echoed as sent (JSON-RPC 2.0 §4:
        /// the response's id is the request's; RFC 8259 §6 leaves such integers to the
        /// implementation).
        mutating func numberValue() throws(JSONParseError) -> JSONValue {
            let start = at
            let value = try number()
            let integral = !bytes[start..<at].contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            if integral, abs(value) >= JSONValue.exactIntegerLimit { return .serialized(Array(bytes[start..<at])) }
            return .number(value)
        }

        mutating func number() throws(JSONParseError) -> Double {
            let start = at
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard at < bytes.count, isDigit(bytes[at]) else { throw error("invalid number") }
            if bytes[at] == UInt8(ascii: "0") {
                at += 1
                if at < bytes.count, isDigit(bytes[at]) { throw error("leading zero in a number") }
            } else {
                while at < bytes.count, isDigit(bytes[at]) { at += 1 }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard at < bytes.count, isDigit(bytes[at]) else { throw error("invalid number") }
                while at < bytes.count, isDigit(bytes[at]) { at += 1 }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard at < bytes.count, isDigit(bytes[at]) else { throw error("invalid number") }
                while at < bytes.count, isDigit(bytes[at]) { at += 1 }
            }
            if let short = Self.shortDecimal(bytes, start, at) { return short }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                at = start
                throw error("number out of range")
            }
            return value
        }

        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

        /// The value of the well-formed number `bytes[start..<end]` when it has no exponent and
        /// at most 15 digits, at most 15 of them after the point (widths such as 280.5 and
        /// ids); nil otherwise. Its digits as an integer and the power of ten it is divided by
        /// are both exact in a Double, and IEEE 754 division rounds correctly, so the quotient
        /// is what `Double(text)` rounds to (Clinger's fast path; `-0` stays negative zero),
        /// with no trip through a string and `strtod`.
        @inline(__always)
        static func shortDecimal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
            let negative = bytes[start] == UInt8(ascii: "-")
            let first = negative ? start + 1 : start
            guard end - first <= 16 else { return nil }
            var magnitude: Int64 = 0, digits = 0, point: Int?
            for i in first..<end {
                let d = bytes[i] &- UInt8(ascii: "0")
                if d < 10 {
                    magnitude = magnitude &* 10 &+ Int64(d)
                    digits += 1
                } else if bytes[i] == UInt8(ascii: "."), point == nil {
                    point = digits
                } else {
                    return nil
                }
            }
            guard digits <= 15 else { return nil }
            let value = Double(magnitude) / exactPowersOfTen[digits - (point ?? digits)]
            return negative ? -value : value
        }

        /// 10^0 … 10^15, each exact in a Double.
        static let exactPowersOfTen: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { p, _ in p * 10 } }

        mutating func string() throws(JSONParseError) -> String {
            at += 1  // opening quote
            let start = at
            // Fast path: no escapes.
            while at < bytes.count {
                let b = bytes[at]
                if b == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<at])
                    guard let s = validatedString(slice) else {
                        at = start
                        throw error("invalid UTF-8 in a string")
                    }
                    at += 1
                    return s
                }
                if b == UInt8(ascii: "\\") { break }
                if b < 0x20 { throw error("unescaped control character in a string") }
                at += 1
            }
            // With escapes: find the closing quote (a backslash's next byte never closes), then
            // decode into a buffer that long — escapes only shrink text — writing in place.
            // Escapes are encoded here, always well formed, so only text that came in raw and
            // not ASCII is validated again.
            let end = Self.closingQuote(bytes, from: at)
            let capacity = end - start + 4
            var i = start
            var failure: String?
            var closed = false
            var rawNonASCII = false
            let hex = Self.hexDigits
            let decoded = [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
                var o = 0
                decoding: while i < bytes.count {
                    let b = bytes[i]
                    if b == UInt8(ascii: "\"") { i += 1; closed = true; break }
                    if b < 0x20 { failure = "unescaped control character in a string"; break }
                    if b != UInt8(ascii: "\\") {
                        if b >= 0x80 { rawNonASCII = true }
                        out[o] = b; o += 1; i += 1
                        continue
                    }
                    i += 1
                    guard i < bytes.count else { break }
                    let e = bytes[i]
                    i += 1
                    if let byte = Self.shortEscape(e) {
                        out[o] = byte
                        o += 1
                        continue
                    }
                    guard e == UInt8(ascii: "u") else { failure = "invalid escape"; break }
                    let (scalar, next) = Self.unicodeEscape(bytes, i, table: hex)
                    i = next
                    guard scalar != Self.badEscape else { failure = "invalid \\u escape"; break }
                    o += Self.encodeUTF8(scalar, into: out, at: o)
                }
                count = o
            }
            at = i
            if let failure { throw error(failure) }
            guard closed else { throw error("unterminated string") }
            if !rawNonASCII { return String(decoding: decoded, as: UTF8.self) }
            guard let s = decoded.withUnsafeBufferPointer(validatedString) else {
                throw error("invalid UTF-8 in a string")
            }
            return s
        }

        /// A string's UTF-16 code units, decoded from the wire in one pass: raw UTF-8 validated
        /// (Unicode's table 3-7) and transcoded, escapes decoded (a `\u` escape is a UTF-16
        /// unit already; a lone surrogate escape becomes U+FFFD, as in `string()`). Fails where
        /// `string()` fails, with its messages (invalid UTF-8 reported at the string's start).
        mutating func stringUTF16() throws(JSONParseError) -> [UInt16] {
            at += 1  // opening quote
            let start = at
            // Never more units than bytes up to the closing quote.
            let capacity = Self.closingQuote(bytes, from: start) - start + 2
            var i = start
            var failure: (String, Int)?
            var closed = false
            let n = bytes.count
            let hex = Self.hexDigits
            let units = [UInt16](unsafeUninitializedCapacity: capacity) { out, count in
                var o = 0
                decoding: while i < n {
                    let b = bytes[i]
                    if b >= 0x20 && b < 0x80 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                        out[o] = UInt16(b); o += 1; i += 1
                        continue
                    }
                    // A `\u` escape of a unit that is no surrogate (clients that write
                    // ASCII-only JSON send most text so): its unit as it is.
                    if b == UInt8(ascii: "\\"), i + 6 <= n, bytes[i + 1] == UInt8(ascii: "u"),
                       let unit = Self.hex4(bytes, i + 2, table: hex), unit & 0xF800 != 0xD800 {
                        out[o] = UInt16(truncatingIfNeeded: unit); o += 1; i += 6
                        continue
                    }
                    if b == UInt8(ascii: "\"") { i += 1; closed = true; break }
                    if b < 0x20 { failure = ("unescaped control character in a string", i); break }
                    if b >= 0x80 {
                        // One well-formed UTF-8 sequence, else the string is refused where
                        // it starts (as `string()` refuses it).
                        guard let decoded = JSONParser.utf8Scalar(bytes, i) else {
                            failure = ("invalid UTF-8 in a string", start)
                            break decoding
                        }
                        o += Self.encodeUTF16(decoded.0, into: out, at: o)
                        i += decoded.1
                        continue
                    }
                    // A backslash.
                    i += 1
                    guard i < n else { break }
                    let e = bytes[i]
                    i += 1
                    if let byte = Self.shortEscape(e) {
                        out[o] = UInt16(byte)
                        o += 1
                        continue
                    }
                    guard e == UInt8(ascii: "u") else { failure = ("invalid escape", i); break }
                    let (scalar, next) = Self.unicodeEscape(bytes, i, table: hex)
                    guard scalar != Self.badEscape else { failure = ("invalid \\u escape", next); break }
                    i = next
                    o += Self.encodeUTF16(scalar, into: out, at: o)
                }
                count = o
            }
            if let failure {
                at = failure.1
                throw error(failure.0)
            }
            at = i
            guard closed else { throw error("unterminated string") }
            return units
        }

        /// The offset of the first quote from `i` on that no backslash escapes (an odd run of
        /// backslashes before it), or the end of `bytes`. Quotes are found with memchr.
        static func closingQuote(_ bytes: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
            guard let base = bytes.baseAddress else { return bytes.count }
            var from = i
            while from < bytes.count, let found = memchr(base + from, 0x22, bytes.count - from) {
                let quote = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                var backslashes = 0
                while quote - backslashes - 1 >= i, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                if backslashes % 2 == 0 { return quote }
                from = quote + 1
            }
            return bytes.count
        }

        /// The byte a short escape (`\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`) stands for,
        /// given the character after the backslash; nil for any other.
        @inline(__always)
        static func shortEscape(_ e: UInt8) -> UInt8? {
            switch e {
            case UInt8(ascii: "\""): 0x22
            case UInt8(ascii: "\\"): 0x5C
            case UInt8(ascii: "/"): 0x2F
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        }

        /// What `unicodeEscape` gives for digits that are not four hex digits.
        static let badEscape = UInt32.max

        /// The code point of the `\\u` escape whose four digits are at `i`, a high surrogate
        /// joined with a low one escaped right after it (a lone surrogate: U+FFFD), and the
        /// offset past what it read; or `badEscape` and the offset of the digits that are not
        /// four hex digits.
        @inline(__always)
        static func unicodeEscape(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, table: UnsafePointer<UInt8>) -> (UInt32, Int) {
            guard let unit = hex4(bytes, i, table: table) else { return (badEscape, i) }
            if unit >= 0xDC00 && unit < 0xE000 { return (0xFFFD, i + 4) }
            guard unit >= 0xD800 && unit < 0xDC00 else { return (unit, i + 4) }
            // A high surrogate pairs with a following low one, else stands alone.
            guard i + 9 < bytes.count, bytes[i + 4] == UInt8(ascii: "\\"), bytes[i + 5] == UInt8(ascii: "u") else {
                return (0xFFFD, i + 4)
            }
            guard let low = hex4(bytes, i + 6, table: table) else { return (badEscape, i + 6) }
            guard low >= 0xDC00 && low < 0xE000 else { return (0xFFFD, i + 4) }
            return (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), i + 10)
        }

        /// Each byte's value as a hex digit, or 0xFF: 256 bytes, made once, never freed.
        // Written once, before anything reads it (a lazy static), and never again.
        nonisolated(unsafe) static let hexDigits: UnsafePointer<UInt8> = {
            let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
            for b in 0..<256 {
                let c = UInt8(b)
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): table[b] = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): table[b] = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): table[b] = c - UInt8(ascii: "A") + 10
                default: table[b] = 0xFF
                }
            }
            return UnsafePointer(table)
        }()

        /// `hex4` by table (`hexDigits`): the four digits looked up at once, checked together.
        @inline(__always)
        static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, table: UnsafePointer<UInt8>) -> UInt32? {
            guard i + 4 <= bytes.count else { return nil }
            let a = table[Int(bytes[i])], b = table[Int(bytes[i + 1])]
            let c = table[Int(bytes[i + 2])], d = table[Int(bytes[i + 3])]
            guard (a | b | c | d) & 0xF0 == 0 else { return nil }
            return UInt32(a) << 12 | UInt32(b) << 8 | UInt32(c) << 4 | UInt32(d)
        }

        /// Writes `s` (a scalar, not a surrogate) as UTF-16 at `o`; returns the units written.
        @inline(__always)
        static func encodeUTF16(_ s: UInt32, into out: UnsafeMutableBufferPointer<UInt16>, at o: Int) -> Int {
            if s < 0x10000 {
                out[o] = UInt16(s)
                return 1
            }
            out[o] = UInt16(0xD800 + ((s - 0x10000) >> 10))
            out[o + 1] = UInt16(0xDC00 + ((s - 0x10000) & 0x3FF))
            return 2
        }

        /// Writes `s` (a scalar, not a surrogate) as UTF-8 at `o`; returns the bytes written.
        @inline(__always)
        static func encodeUTF8(_ s: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at o: Int) -> Int {
            switch s {
            case 0..<0x80:
                out[o] = UInt8(s)
                return 1
            case 0x80..<0x800:
                out[o] = UInt8(0xC0 | (s >> 6)); out[o + 1] = UInt8(0x80 | (s & 0x3F))
                return 2
            case 0x800..<0x10000:
                out[o] = UInt8(0xE0 | (s >> 12)); out[o + 1] = UInt8(0x80 | ((s >> 6) & 0x3F))
                out[o + 2] = UInt8(0x80 | (s & 0x3F))
                return 3
            default:
                out[o] = UInt8(0xF0 | (s >> 18)); out[o + 1] = UInt8(0x80 | ((s >> 12) & 0x3F))
                out[o + 2] = UInt8(0x80 | ((s >> 6) & 0x3F)); out[o + 3] = UInt8(0x80 | (s & 0x3F))
                return 4
            }
        }
    }
}
