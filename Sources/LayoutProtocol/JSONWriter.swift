/// Writes JSON values compactly, on one line (no raw newline can appear: strings escape
/// control characters), as UTF-8 bytes.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The JSON text of `value`.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
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
        writeRaw(prefix)
        writeNumber(value)
    }

    /// Appends `text` as it is: JSON punctuation and member names the caller knows are valid.
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Integers within ±2^53 without a fraction; other finite numbers in the shortest form
    /// that reads back exactly; non-finite numbers (never produced) as null.
    public mutating func writeNumber(_ d: Double) {
        guard d.isFinite else { append("null"); return }
        if abs(d) < 9.007199254740992e15, let integer = Int64(exactly: d) {
            writeInteger(integer)
            return
        }
        // Fast path for values with at most three decimals (coordinates are rounded to 1/1000
        // point): integer part, point, fraction without trailing zeros, formatted on the stack
        // and appended at once.
        if abs(d) < 1e12, let thousandths = Int64(exactly: d * 1000) {
            var fraction = Int(thousandths.magnitude % 1000)
            var digits = 3
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            withDigits(thousandths.magnitude / 1000, negative: thousandths < 0) { text, n in
                text[n] = UInt8(ascii: ".")
                for k in stride(from: digits, through: 1, by: -1) {
                    text[n + k] = UInt8(ascii: "0") + UInt8(fraction % 10)
                    fraction /= 10
                }
                return n + 1 + digits
            }
            return
        }
        append(d.description)
    }

    private mutating func writeInteger(_ value: Int64) {
        if value == Int64.min { append("-9223372036854775808"); return }
        withDigits(value.magnitude, negative: value < 0) { _, n in n }
    }

    /// Formats `magnitude` (with a minus sign when `negative`) into a buffer on the stack,
    /// lets `more` write after it (given the length so far, returning the new length; at
    /// most 8 bytes more), and appends the buffer to `bytes` at once.
    @inline(__always)
    private mutating func withDigits(_ magnitude: UInt64, negative: Bool,
                                     _ more: (UnsafeMutablePointer<UInt8>, Int) -> Int) {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)   // 32 bytes
        withUnsafeMutableBytes(of: &buffer) { raw in
            let text = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var n = 0
            if negative { text[0] = UInt8(ascii: "-"); n = 1 }
            var count = 1, v = magnitude
            while v >= 10 { v /= 10; count += 1 }
            v = magnitude
            for k in stride(from: n + count - 1, through: n, by: -1) {
                text[k] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            n = more(text, n + count)
            bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: n))
        }
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
