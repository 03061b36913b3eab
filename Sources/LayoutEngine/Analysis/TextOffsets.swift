/// Encodings offsets can be counted in. The engine works in UTF-16 throughout; results are
/// converted once, at the edge, in linear time.
public enum TextEncoding: Sendable {
    case utf8, utf16, utf32
}

/// The UTF-16 code units of `s`, transcoded in one pass over its UTF-8 (a native string is
/// stored as valid UTF-8), with a fast path for ASCII; other strings go through `utf16`.
public func utf16Units(of s: String) -> [UInt16] {
    let converted = s.utf8.withContiguousStorageIfAvailable { utf8 -> [UInt16] in
        // Never more UTF-16 units than UTF-8 bytes.
        [UInt16](capacity: utf8.count, blank: 0) { out, count in
            var i = 0, o = 0
            let n = utf8.count
            while i < n {
                let b = utf8[i]
                if b < 0x80 {
                    out[o] = UInt16(b)
                    o += 1
                    i += 1
                } else if b < 0xE0 {
                    out[o] = UInt16(b & 0x1F) << 6 | UInt16(utf8[i + 1] & 0x3F)
                    o += 1
                    i += 2
                } else if b < 0xF0 {
                    out[o] = UInt16(b & 0x0F) << 12 | UInt16(utf8[i + 1] & 0x3F) << 6 | UInt16(utf8[i + 2] & 0x3F)
                    o += 1
                    i += 3
                } else {
                    let scalar = UInt32(b & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12
                        | UInt32(utf8[i + 2] & 0x3F) << 6 | UInt32(utf8[i + 3] & 0x3F)
                    let v = scalar - 0x10000
                    out[o] = UInt16(0xD800 + (v >> 10))
                    out[o + 1] = UInt16(0xDC00 + (v & 0x3FF))
                    o += 2
                    i += 4
                }
            }
            count = o
        }
    }
    return converted ?? Array(s.utf16)
}

/// Converts UTF-16 offsets of one text to another encoding. Built in one pass over the text;
/// each conversion is then O(1). For UTF-16 it holds no table at all.
public struct OffsetMapping: Sendable {
    public let encoding: TextEncoding
    /// `table[i]`: the offset, in `encoding`, of UTF-16 offset `i` (count + 1 entries).
    /// An offset inside a surrogate pair maps to the pair's start.
    private let table: [Int32]

    public init(text: [UInt16], encoding: TextEncoding) {
        self.encoding = encoding
        self.text = encoding == .utf16 ? text : []
        guard encoding != .utf16 else { table = []; length = text.count; return }
        var table = [Int32](filledWith: 0, count: text.count + 1)
        var position: Int32 = 0
        var i = 0
        let n = text.count
        while i < n {
            table[i] = position
            let u = text[i]
            if u & 0xFC00 == 0xD800, i + 1 < n, text[i + 1] & 0xFC00 == 0xDC00 {
                table[i + 1] = position
                position += encoding == .utf8 ? 4 : 1
                i += 2
                continue
            }
            switch encoding {
            case .utf8: position += u < 0x80 ? 1 : (u < 0x800 ? 2 : 3)
            default: position += 1
            }
            i += 1
        }
        table[n] = position
        self.table = table
        self.length = Int(position)
    }

    /// Length of the text in `encoding`.
    public let length: Int
    private let text: [UInt16]

    /// The offset in `encoding` of UTF-16 offset `utf16` (which must be within the text).
    @inline(__always)
    public func convert(_ utf16: Int) -> Int { encoding == .utf16 ? utf16 : Int(table[utf16]) }

    /// The UTF-16 offset of `offset` in `encoding` (0...length). An offset inside a
    /// character (a surrogate pair, a UTF-8 sequence) moves to the character's start, or
    /// with `roundingUp` to its end. O(log n).
    public func utf16Offset(_ offset: Int, roundingUp: Bool = false) -> Int {
        let clamped = min(max(offset, 0), length)
        if encoding == .utf16 {
            if clamped > 0, clamped < text.count, text[clamped] & 0xFC00 == 0xDC00, text[clamped - 1] & 0xFC00 == 0xD800 {
                return roundingUp ? clamped + 1 : clamped - 1
            }
            return clamped
        }
        // First UTF-16 offset whose converted offset is ≥ clamped.
        var lo = 0, hi = table.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(table[mid]) < clamped { lo = mid + 1 } else { hi = mid }
        }
        // Skip to a character start (the low half of a pair shares its high half's offset).
        var result = lo
        if Int(table[result]) != clamped {
            // Inside a character: `result` is the next character's start.
            if !roundingUp { result = lo - 1; while result > 0, Int(table[result - 1]) == Int(table[result]) { result -= 1 } }
        }
        return result
    }
}
