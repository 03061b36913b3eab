import CHarfBuzz

/// Longest grapheme cluster, in UTF-16 units, shaped in one piece (Unicode's stream-safe
/// format allows 30 combining marks in a row; real text stays far below this).
let maxShapedClusterLength = 64

/// One paragraph analysed and shaped: bidi levels, grapheme clusters, shaped runs, the
/// advance of each UTF-16 unit (at its cluster's first unit, letter spacing included),
/// break opportunities, tabs and soft hyphens. Offsets are relative to the paragraph.
struct ShapedParagraph {
    let range: ParagraphRange
    /// The paragraph's content (borrowed from the request's text, valid during the layout).
    let text: UnsafeBufferPointer<UInt16>
    let bidi: BidiParagraph
    let graphemes: [Int32]
    let runs: [ShapedRun]
    /// Shaped advances per unit, letter spacing included, and their prefix sums.
    let advances: [Double]
    let prefix: [Double]
    let breaks: LineBreaks
    let hangStart: [Int32]
    /// Offsets of the tab characters.
    let tabs: [Int]
    let softHyphenEnds: Set<Int>
    /// Whether the content ends with a line separator (which opens one more, empty line).
    let endsWithHardBreak: Bool

    var count: Int { advances.count }
    var isRTL: Bool { bidi.isRTL }

    /// The shaped runs overlapping `start..<end`, in logical order.
    func runs(overlapping start: Int, _ end: Int) -> ArraySlice<ShapedRun> {
        let first = runs.partitionPoint { $0.end <= start }
        var last = first
        while last < runs.count, runs[last].start < max(end, start + 1) { last += 1 }
        return runs[first..<last]
    }
}

extension ShapedRun {
    /// The glyphs drawing `start..<end` (paragraph offsets at cluster boundaries): a
    /// contiguous slice, since clusters rise left to right in a left-to-right run and fall in
    /// a right-to-left one. Found by binary search.
    func glyphRange(_ start: Int, _ end: Int) -> Range<Int> {
        if level & 1 == 0 {
            let lo = glyphs.partitionPoint { Int($0.cluster) < start }
            let hi = glyphs.partitionPoint { Int($0.cluster) < end }
            return lo..<max(lo, hi)
        } else {
            let lo = glyphs.partitionPoint { Int($0.cluster) >= end }
            let hi = glyphs.partitionPoint { Int($0.cluster) >= start }
            return lo..<max(lo, hi)
        }
    }
}
