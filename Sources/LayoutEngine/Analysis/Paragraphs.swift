import Glibc

/// A paragraph: `start..<contentEnd` is its text, `contentEnd..<end` its separator (empty
/// for the last paragraph when the text does not end with one).
struct ParagraphRange: Equatable {
    var start: Int
    var contentEnd: Int
    var end: Int
}

/// Splits text into paragraphs at LF, CR, CR LF, NEL (U+0085) and U+2029. Text ending with a
/// separator has a last, empty paragraph after it.
func paragraphRanges(_ text: UnsafeBufferPointer<UInt16>) -> [ParagraphRange] {
    var result: [ParagraphRange] = []
    var start = 0
    var i = 0
    let n = text.count
    guard let base = text.baseAddress else { return [ParagraphRange(start: 0, contentEnd: 0, end: 0)] }
    let raw = UnsafeRawPointer(base)
    let ones: UInt64 = 0x0001_0001_0001_0001, highs: UInt64 = 0x8000_8000_8000_8000
    /// Whether none of the four UTF-16 units in `x` can end a paragraph: no lane below 0x0E,
    /// none equal to 0x85 or 0x2029 ("some 16-bit lane is below k" is
    /// (x - k·ones) & ~x & highs ≠ 0; equal to v: below 1 after x ^ v·ones).
    @inline(__always) func plain(_ x: UInt64) -> Bool {
        let nel = x ^ (ones &* 0x85), ps = x ^ (ones &* 0x2029)
        return ((x &- ones &* 0x0E) & ~x | (nel &- ones) & ~nel | (ps &- ones) & ~ps) & highs == 0
    }
    while i < n {
        // Eight units at a time, then four, while none of them can end a paragraph.
        while i + 8 <= n, plain(raw.loadUnaligned(fromByteOffset: i * 2, as: UInt64.self)),
              plain(raw.loadUnaligned(fromByteOffset: i * 2 + 8, as: UInt64.self)) {
            i += 8
        }
        if i + 4 <= n, plain(raw.loadUnaligned(fromByteOffset: i * 2, as: UInt64.self)) { i += 4; continue }
        guard i < n else { break }
        let u = base[i]
        // The common case first: not a separator.
        if u > 0x0D, u != 0x85, u != 0x2029 { i += 1; continue }
        if isParagraphSeparator(u) {
            var end = i + 1
            if u == 0x0D, end < n, base[end] == 0x0A { end += 1 }
            result.append(ParagraphRange(start: start, contentEnd: i, end: end))
            start = end
            i = end
        } else {
            i += 1
        }
    }
    result.append(ParagraphRange(start: start, contentEnd: n, end: n))
    return result
}

/// Where each paragraph of `text` ends, its separator included (the last: the text's end;
/// text ending with a separator has an empty last paragraph after it).
public func paragraphEnds(of text: [UInt16]) -> [Int] {
    text.withUnsafeBufferPointer { paragraphRanges($0).map(\.end) }
}

/// The first paragraph end (an offset just after a separator; CR LF is one) at or after
/// `offset` and before the text's end; nil when there is none. Reads only the units from
/// `offset` to that end.
public func nextParagraphEnd(in text: [UInt16], atOrAfter offset: Int) -> Int? {
    let n = text.count
    var i = max(1, offset)
    while i < n {
        let u = text[i - 1]
        if isParagraphSeparator(u), !(u == 0x0D && text[i] == 0x0A) { return i }
        i += 1
    }
    return nil
}

/// Whether `u` ends a paragraph (LF, CR, NEL, U+2029; CR LF is one separator).
public func endsParagraph(_ u: UInt16) -> Bool { isParagraphSeparator(u) }

/// `paragraphRanges(text)` for text that is an edit of a text whose paragraphs (separators
/// included) were `previous`: the previous paragraphs found unchanged at the start of the
/// text and at its end are compared (memcmp), not scanned again; only the text between them
/// is. Also returns, per paragraph, the index of the previous paragraph it is found as
/// (-1: none), so reuse need not look it up.
func paragraphRanges<Previous: RandomAccessCollection<[UInt16]>>(
    _ text: UnsafeBufferPointer<UInt16>, previous: Previous
) -> (ranges: [ParagraphRange], matches: [Int]) where Previous.Index == Int {
    let n = text.count
    guard let base = text.baseAddress, !previous.isEmpty else { return (paragraphRanges(text), []) }
    /// Whether `units` are the text's from `start` on.
    func same(_ units: [UInt16], at start: Int) -> Bool {
        guard start >= 0, start + units.count <= n else { return false }
        return units.withUnsafeBufferPointer { u in
            u.isEmpty || memcmp(u.baseAddress!, base + start, u.count * 2) == 0
        }
    }
    /// The length of the separator ending a paragraph's units (0: none, the text's last).
    func separatorLength(_ units: [UInt16]) -> Int {
        guard let last = units.last, isParagraphSeparator(last) else { return 0 }
        return last == 0x0A && units.count >= 2 && units[units.count - 2] == 0x0D ? 2 : 1
    }
    var ranges: [ParagraphRange] = [], matches: [Int] = []
    ranges.reserveCapacity(previous.count + 4)
    matches.reserveCapacity(previous.count + 4)
    // From the start: each previous paragraph (ending in a separator) where the last ended.
    var cursor = 0, i = previous.startIndex
    while i < previous.endIndex {
        let units = previous[i]
        let separator = separatorLength(units)
        guard separator > 0, same(units, at: cursor) else { break }
        let end = cursor + units.count
        if units[units.count - 1] == 0x0D, end < n, base[end] == 0x0A { break }   // CR now followed by LF
        ranges.append(ParagraphRange(start: cursor, contentEnd: end - separator, end: end))
        matches.append(i)
        cursor = end
        i += 1
    }
    // From the end: each previous paragraph (not taken above) ending where the next begins,
    // with a separator before it (or the paragraphs taken from the start).
    var tail: [(start: Int, index: Int)] = []
    var limit = n
    var j = previous.endIndex - 1
    while j >= i {
        let units = previous[j]
        let start = limit - units.count
        guard start >= cursor, same(units, at: start) else { break }
        if start > cursor {
            let before = base[start - 1]
            guard isParagraphSeparator(before), !(before == 0x0D && start < n && base[start] == 0x0A) else { break }
        }
        tail.append((start, j))
        limit = start
        j -= 1
    }
    // Between them: scanned. Before a paragraph found at the end the text ends in a
    // separator, so the scan's last, empty paragraph is not one.
    if cursor < limit || tail.isEmpty {
        var middle = paragraphRanges(UnsafeBufferPointer(rebasing: text[cursor..<limit]))
        if !tail.isEmpty { middle.removeLast() }
        for r in middle {
            ranges.append(ParagraphRange(start: r.start + cursor, contentEnd: r.contentEnd + cursor, end: r.end + cursor))
            matches.append(-1)
        }
    }
    for (start, index) in tail.reversed() {
        let units = previous[index]
        let end = start + units.count
        ranges.append(ParagraphRange(start: start, contentEnd: end - separatorLength(units), end: end))
        matches.append(index)
    }
    return (ranges, matches)
}

/// Whether `u` ends a paragraph: LF, CR, NEL or U+2029 PARAGRAPH SEPARATOR (UAX #9's
/// paragraph separators, bidi class B, as the paragraphs here are split).
@inline(__always)
func isParagraphSeparator(_ u: UInt16) -> Bool { u == 0x0A || u == 0x0D || u == 0x85 || u == 0x2029 }
