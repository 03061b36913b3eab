/// Greedy line filling over shaped advances (one paragraph, UTF-16 offsets relative to it).
///
/// Lines end at ICU's break opportunities: each line takes as many as fit in `maxWidth`;
/// white space at a line's end hangs past the width (it is not measured); a mandatory break
/// (U+2028, VT, FF) ends a line; a segment wider than the width on its own is broken between
/// grapheme clusters, keeping at least one cluster per line. Linear in the text length.
struct LineBreaker {
    /// `prefix[i]` is the advance of units `0..<i`; count + 1 entries.
    var prefix: [Double]
    /// `hangStart[i]`: where the run of hanging white space that ends at `i` starts
    /// (`i` itself when unit `i - 1` is not hanging white space).
    var hangStart: [Int32]
    var breaks: Boundaries
    var graphemes: [Int32]
    /// Offsets right after a soft hyphen (U+00AD): a line ending there shows a hyphen of
    /// `hyphenWidth`.
    var softHyphenEnds: Set<Int> = []
    var hyphenWidth: Double = 0

    var count: Int { prefix.count - 1 }

    /// Whether a line ending at `end` ends at a soft hyphen and shows a hyphen.
    func showsHyphen(_ end: Int) -> Bool { end < count && softHyphenEnds.contains(end) }

    /// Width of `start..<end` as a line: without its hanging white space, with the hyphen a
    /// soft hyphen at its end shows.
    func visibleWidth(_ start: Int, _ end: Int) -> Double {
        prefix[max(start, Int(hangStart[end]))] - prefix[start] + (showsHyphen(end) ? hyphenWidth : 0)
    }

    /// Line ranges covering `0..<count`, in order.
    func lines(maxWidth: Double?) -> [Range<Int>] {
        let n = count
        var lines: [Range<Int>] = []
        var lineStart = 0
        let offsets = breaks.offsets
        guard let maxWidth else {
            for k in 1..<offsets.count where breaks.mandatory[k] && Int(offsets[k]) < n {
                lines.append(lineStart..<Int(offsets[k]))
                lineStart = Int(offsets[k])
            }
            return finish(lines, lineStart)
        }
        let limit = maxWidth + max(1e-6, maxWidth * 1e-9)
        var lastFit = -1
        var g = 0
        var k = 1
        while k < offsets.count {
            let b = Int(offsets[k])
            if b <= lineStart { k += 1; continue }
            if visibleWidth(lineStart, b) <= limit {
                lastFit = b
                if breaks.mandatory[k] && b < n {
                    lines.append(lineStart..<b)
                    lineStart = b
                    lastFit = -1
                }
                k += 1
            } else if lastFit > lineStart {
                lines.append(lineStart..<lastFit)
                lineStart = lastFit
                lastFit = -1
            } else {
                // Emergency: lineStart..<b alone is too wide. Fill it cluster by cluster.
                let visibleEnd = max(lineStart, Int(hangStart[b]))
                while g < graphemes.count && Int(graphemes[g]) <= lineStart { g += 1 }
                var cut = lineStart
                while g < graphemes.count, Int(graphemes[g]) <= visibleEnd {
                    let candidate = Int(graphemes[g])
                    if cut == lineStart || prefix[candidate] - prefix[lineStart] <= limit {
                        cut = candidate
                        g += 1
                    } else {
                        break
                    }
                }
                if cut >= visibleEnd {
                    // One cluster wider than the line: it stands alone, with its hanging space.
                    lines.append(lineStart..<b)
                    lineStart = b
                    k += 1
                } else {
                    lines.append(lineStart..<cut)
                    lineStart = cut
                }
                lastFit = -1
            }
        }
        return finish(lines, lineStart)
    }

    private func finish(_ lines: [Range<Int>], _ lineStart: Int) -> [Range<Int>] {
        var lines = lines
        let n = count
        if lineStart < n || lines.isEmpty { lines.append(lineStart..<n) }
        // A mandatory break as the paragraph's last character opens one more, empty line.
        if n > 0, breaks.mandatory.last == true { lines.append(n..<n) }
        return lines
    }
}

/// Whether a UTF-16 unit is white space that hangs at a line's end rather than being measured.
@inline(__always)
func isHangingSpace(_ u: UInt16) -> Bool {
    switch u {
    case 0x20, 0x09, 0x0B, 0x0C, 0x1680, 0x2000...0x2006, 0x2008...0x200B, 0x2028, 0x205F, 0x3000:
        return true
    default:
        return false
    }
}

/// `hangStart` for `LineBreaker`.
func hangingSpaceStarts(_ text: UnsafeBufferPointer<UInt16>) -> [Int32] {
    var starts = [Int32](repeating: 0, count: text.count + 1)
    for i in 0..<text.count {
        starts[i + 1] = isHangingSpace(text[i]) ? starts[i] : Int32(i + 1)
    }
    return starts
}
