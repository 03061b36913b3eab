/// UTF-8 validation for the parser: one well-formed sequence, and a whole string.
extension JSONParser {
    /// The scalar of the well-formed UTF-8 sequence at `i` (its lead byte ≥ 0x80) and its
    /// length, or nil when it is not one (Unicode's table 3-7: no overlong forms, no
    /// surrogates, nothing past U+10FFFF, not cut short).
    @inline(__always)
    static func utf8Scalar(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> (UInt32, Int)? {
        let n = bytes.count, c = bytes[i]
        if c < 0xC2 { return nil }
        if c < 0xE0 {
            guard i + 1 < n, bytes[i + 1] & 0xC0 == 0x80 else { return nil }
            return (UInt32(c & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F), 2)
        }
        if c < 0xF0 {
            guard i + 2 < n else { return nil }
            let c1 = bytes[i + 1], c2 = bytes[i + 2]
            let secondOK = c == 0xE0 ? (0xA0...0xBF).contains(c1) : c == 0xED ? (0x80...0x9F).contains(c1) : c1 & 0xC0 == 0x80
            guard secondOK, c2 & 0xC0 == 0x80 else { return nil }
            return (UInt32(c & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F), 3)
        }
        if c < 0xF5 {
            guard i + 3 < n else { return nil }
            let c1 = bytes[i + 1], c2 = bytes[i + 2], c3 = bytes[i + 3]
            let secondOK = c == 0xF0 ? (0x90...0xBF).contains(c1) : c == 0xF4 ? (0x80...0x8F).contains(c1) : c1 & 0xC0 == 0x80
            guard secondOK, c2 & 0xC0 == 0x80, c3 & 0xC0 == 0x80 else { return nil }
            return (UInt32(c & 0x07) << 18 | UInt32(c1 & 0x3F) << 12 | UInt32(c2 & 0x3F) << 6 | UInt32(c3 & 0x3F), 4)
        }
        return nil
    }
}

/// The string of `bytes` when they are well-formed UTF-8 (Unicode's table 3-7: no overlong
/// forms, no surrogates, nothing past U+10FFFF), else nil. The protocol's own words come
/// ready made (`ProtocolWords`); other short strings (keys and names) are checked in one
/// pass here, ASCII first; long ones (texts) by the standard library, whose validation
/// reads many bytes at a time and then copies them unchecked, where this loop and
/// `String(decoding:)` would read them twice.
func validatedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let n = bytes.count
    if n >= 64 { return String(validating: bytes, as: UTF8.self) }
    if n <= 16, let word = ProtocolWords.word(bytes) { return word }
    var i = 0
    while i < n {
        if bytes[i] < 0x80 { i += 1; continue }
        guard let decoded = JSONParser.utf8Scalar(bytes, i) else { return nil }
        i += decoded.1
    }
    return String(decoding: bytes, as: UTF8.self)
}
