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
        guard encoding != .utf16 else { table = []; return }
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
    }

    /// The offset in `encoding` of UTF-16 offset `utf16` (which must be within the text).
    @inline(__always)
    public func convert(_ utf16: Int) -> Int { encoding == .utf16 ? utf16 : Int(table[utf16]) }
}
