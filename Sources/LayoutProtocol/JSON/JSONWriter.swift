/// Writes JSON values compactly, on one line (no raw newline can appear: strings escape
/// control characters), as UTF-8 bytes.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The JSON text of `value`.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        if case .serialized(let text) = value { return text }
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    /// The JSON text of `value` as a string.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: serialize(value), as: UTF8.self)
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .number(let d): writeNumber(d)
        case .string(let s): writeString(s)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for i in elements.indices {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(elements[i])
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for i in members.indices {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(members[i].0)
                bytes.append(UInt8(ascii: ":"))
                write(members[i].1)
            }
            bytes.append(UInt8(ascii: "}"))
        case .serialized(let text):
            bytes.append(contentsOf: text)
        case .utf16(let units):
            writeString(String(decoding: units, as: UTF16.self))
        }
    }

    /// Appends `prefix` as it is (JSON text up to an array: `,"runs":`, or nothing), then
    /// `items` as a JSON array, each written by `element`.
    public mutating func writeArray<Items: RandomAccessCollection>(_ prefix: StaticString, _ items: Items,
                                                                   _ element: (inout JSONWriter, Items.Element) -> Void) {
        writeRaw(prefix)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element(&self, item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `prefix` as it is (JSON text up to a member's value: `,"x":`), then `value`.
    public mutating func writeMember(_ prefix: StaticString, _ value: Double) {
        // Name and number formatted together on the stack and appended at once.
        let count = prefix.utf8CodeUnitCount
        guard count <= 40 else {
            writeRaw(prefix)
            append(value.isFinite ? value.description : "null")
            return
        }
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)  // 64 bytes
        withUnsafeMutableBytes(of: &buffer) { raw in
            let text = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: Self.member(prefix, value, at: text)))
        }
    }

    /// Room a `member` write needs past its prefix: the longest number (a `Double`'s
    /// description, as "-1.7976931348623157e+308").
    public static let memberNumberRoom = 24

    /// Writes `prefix` and then `value` at `text` (as `writeMember` appends them; room for
    /// the prefix and `memberNumberRoom` bytes needed); returns the bytes written.
    public static func member(_ prefix: StaticString, _ value: Double, at text: UnsafeMutablePointer<UInt8>) -> Int {
        let count = prefix.utf8CodeUnitCount
        text.update(from: prefix.utf8Start, count: count)
        if value.isFinite, let n = format(value, into: text + count) { return count + n }
        var n = count
        for b in (value.isFinite ? value.description : "null").utf8 {
            text[n] = b
            n += 1
        }
        return n
    }

    /// Appends what `write` writes at a pointer with room for `capacity` bytes; `write`
    /// returns how many it wrote. (Many members formatted at once cost one append.)
    public mutating func append(upTo capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: capacity))
        let written = bytes.withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
        bytes.removeLast(capacity - min(written, capacity))
    }

    /// Appends `text` as it is: JSON punctuation and member names the caller knows are valid.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Integers within ±2^53 without a fraction; other finite numbers in the shortest form
    /// that reads back exactly; non-finite numbers (never produced) as null.
    public mutating func writeNumber(_ d: Double) { writeMember("", d) }

    /// "00" to "99", for writing two digits at once.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes finite `d` at `text` when it is an integer within ±2^53 or reads back from at
    /// most three decimals below 10^12 in magnitude (coordinates are rounded to 1/1000 point:
    /// `d` is the double nearest some n/1000, which "n/1000" in decimals reads back as, even
    /// where `d * 1000` is not exactly n): sign, integer part, then point and fraction without
    /// trailing zeros. Returns the byte count (at most 20), or nil for other numbers (written
    /// in their shortest exact form instead). (Conversions by truncation, one instruction
    /// each, where `rounded()` would call the C library.)
    @inline(__always)
    static func format(_ d: Double, into text: UnsafeMutablePointer<UInt8>) -> Int? {
        var magnitude: UInt64, fraction: UInt64 = 0, decimals = 0
        let size = abs(d)
        guard size < 9.007199254740992e15 else { return nil }   // (and not NaN)
        let whole = UInt64(size)
        if Double(whole) == size {
            magnitude = whole
        } else if size < 1e12, case let n = UInt64(size * 1000 + 0.5), Double(n) / 1000 == size {
            // (Not an integer, so the fraction is not 0.)
            magnitude = n / 1000
            fraction = n % 1000
            decimals = 3
            while fraction % 10 == 0 { fraction /= 10; decimals -= 1 }
        } else {
            return nil
        }
        // The digits' count, then the digits written in place from the right, two at a time
        // from a table of pairs.
        var digits = 1
        var bound: UInt64 = 10
        while digits < 20, magnitude >= bound {
            digits += 1
            bound = bound &* 10
        }
        let sign = d < 0 ? 1 : 0
        if sign == 1 { text[0] = UInt8(ascii: "-") }
        let length = sign + digits + (decimals > 0 ? decimals + 1 : 0)
        var at = length
        if decimals > 0 {
            for _ in 0..<decimals {
                at -= 1
                text[at] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            at -= 1
            text[at] = UInt8(ascii: ".")
        }
        let pairs = Self.digitPairs.utf8Start
        var v = magnitude
        while v >= 100 {
            let pair = Int(v % 100) * 2
            v /= 100
            at -= 2
            text[at] = pairs[pair]
            text[at + 1] = pairs[pair + 1]
        }
        if v >= 10 {
            text[at - 2] = pairs[Int(v) * 2]
            text[at - 1] = pairs[Int(v) * 2 + 1]
        } else {
            text[at - 1] = UInt8(ascii: "0") + UInt8(v)
        }
        return length
    }

    public mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Contiguous UTF-8 (native strings): scanned and copied as a buffer.
        let done: Bool? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            for b in utf8 where b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F { return false }
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if done == true { return }
        var plain = done == nil
        if plain {
            for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F { plain = false; break }
        }
        if plain {
            bytes.append(contentsOf: s.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                append("\\u00")
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
}
