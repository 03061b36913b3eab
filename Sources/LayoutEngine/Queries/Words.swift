extension TextLayoutEngine {
    /// The word segment holding the character at UTF-16 offset `index` of `text` (ICU's word
    /// boundaries, UAX #29), the one before it at the very end of the text; `(0, 0)` for
    /// empty text.
    public func wordRange(at index: Int, of text: [UInt16], language: String = "") throws -> (start: Int, end: Int) {
        let boundaries = try boundaries(.word, of: text, language: language)
        let k = max(0, min(boundaries.partitionPoint { $0 <= index } - 1, boundaries.count - 2))
        return (boundaries[k], boundaries.count > 1 ? boundaries[k + 1] : 0)
    }
}

/// The paragraph around the text `start..<end` (a line's range) of `text`: from after the
/// separator before it to past the one ending it (CR LF as one), the separators being LF,
/// CR, NEL and U+2029 as `paragraphRanges` splits at them.
public func paragraphBounds(around start: Int, _ end: Int, in text: [UInt16]) -> (start: Int, end: Int) {
    var ps = start
    while ps > 0, !isParagraphSeparator(text[ps - 1]) { ps -= 1 }
    var pe = end
    while pe < text.count, pe > 0, !isParagraphSeparator(text[pe - 1]) { pe += 1 }
    if pe < text.count, pe > 0, text[pe - 1] == 0x0D, text[pe] == 0x0A { pe += 1 }
    return (ps, pe)
}
