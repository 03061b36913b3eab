/// Encodings offsets can be counted in. The engine works in UTF-16 throughout; results are
/// converted once, at the edge, in linear time.
public enum TextEncoding: Sendable {
    case utf8, utf16, utf32
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
        var table = [Int32](repeating: 0, count: text.count + 1)
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
