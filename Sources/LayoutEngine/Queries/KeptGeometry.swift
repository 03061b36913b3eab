/// One paragraph's share of the geometry queries read, relative to its start: `positions[k]`,
/// the sum of the final advances of its units `0..<k` (length + 1 values), and each unit's
/// boundary bits (`TextLayout.graphemeBoundary` and the others). Shared, not copied, when a
/// later layout takes the paragraph over.
struct ParagraphGeometry: Sendable {
    var positions: [Double]
    var kinds: [UInt8]
}

/// The per-unit geometry of a layout, kept as its paragraphs' own tables (`ParagraphGeometry`,
/// shared with the layout that took them over) and each paragraph's sum of advances before
/// it: an update writes nothing per unit of the text. Empty without geometry.
struct TextGeometry: Sendable {
    /// The text's length in UTF-16 units.
    var length = 0
    /// Each paragraph's first offset, ascending.
    var starts: [Int] = []
    /// The sum of the advances of the paragraphs before each (a paragraph not laid out,
    /// after a truncation, adds nothing).
    var bases: [Double] = []
    var parts: [ParagraphGeometry?] = []

    var isEmpty: Bool { parts.isEmpty }

    /// The paragraph holding offset `i` (at a paragraph's end, the next one).
    @inline(__always)
    func paragraph(_ i: Int) -> Int { max(starts.partitionPoint { $0 <= i } - 1, 0) }
}

/// `positions[i]` of a `TextLayout`, read from its paragraphs: each paragraph's value is its
/// sum before it plus its own (the same addition a text-wide table was built with).
struct PositionTable: Sendable, Equatable {
    var geometry: TextGeometry
    var isEmpty: Bool { geometry.isEmpty }
    var count: Int { isEmpty ? 0 : geometry.length + 1 }

    subscript(i: Int) -> Double {
        let p = geometry.paragraph(i)
        guard let part = geometry.parts[p], !part.positions.isEmpty else { return geometry.bases[p] }
        return geometry.bases[p] + part.positions[min(i - geometry.starts[p], part.positions.count - 1)]
    }

    /// Every value compared (for tests).
    static func == (a: PositionTable, b: PositionTable) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }
}

/// `boundaryKinds[i]` of a `TextLayout`, read from its paragraphs: a paragraph's own bits,
/// and both boundary bits at the text's start and end and where a laid-out paragraph ends.
struct BoundaryTable: Sendable, Equatable {
    var geometry: TextGeometry
    var isEmpty: Bool { geometry.isEmpty }
    var count: Int { isEmpty ? 0 : geometry.length + 1 }

    subscript(i: Int) -> UInt8 {
        let both = TextLayout.graphemeBoundary | TextLayout.clusterBoundary
        if i == geometry.length { return both }
        let p = geometry.paragraph(i)
        let k = i - geometry.starts[p]
        var bits: UInt8 = 0
        if let part = geometry.parts[p], k < part.kinds.count { bits = part.kinds[k] }
        if k == 0, p == 0 || geometry.parts[p - 1] != nil { bits |= both }
        return bits
    }

    /// Every value compared (for tests).
    static func == (a: BoundaryTable, b: BoundaryTable) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }
}

extension LayoutPass {
    /// Keeps a paragraph's geometry as laid out: the running sum of its final advances and
    /// its grapheme, shaping-cluster and character-start bits (replacing what an earlier
    /// call for the same paragraph kept).
    mutating func record(_ p: ShapedParagraph, _ final: [Double]) {
        guard keepsGeometry else { return }
        let index = paragraphs.partitionPoint { $0.start < p.range.start }
        guard index < paragraphs.count, paragraphs[index] == p.range else { return }
        let length = p.range.end - p.range.start
        let content = min(final.count, length)
        let positions = [Double](capacity: length + 1, blank: 0) { out, count in
            var sum = 0.0
            out[0] = 0
            for i in 0..<content {
                sum += final[i]
                out[i + 1] = sum
            }
            // The separator has no advance.
            for i in content..<length { out[i + 1] = sum }
            count = length + 1
        }
        var kinds = [UInt8](repeating: TextLayout.characterStart, count: length)
        kinds.withUnsafeMutableBufferPointer { kinds in
            // Second halves of surrogate pairs start no character.
            for i in 1..<max(p.count, 1) where p.text[i] & 0xFC00 == 0xDC00 && p.text[i - 1] & 0xFC00 == 0xD800 {
                kinds[i] = 0
            }
            for g in p.graphemes where Int(g) < length { kinds[Int(g)] |= TextLayout.graphemeBoundary }
            for run in p.runs {
                if run.start < length { kinds[run.start] |= TextLayout.clusterBoundary }
                for glyph in run.glyphs where Int(glyph.cluster) < length {
                    kinds[Int(glyph.cluster)] |= TextLayout.clusterBoundary
                }
            }
            let contentEnd = p.range.contentEnd - p.range.start
            if contentEnd < length { kinds[contentEnd] |= TextLayout.graphemeBoundary | TextLayout.clusterBoundary }
        }
        geometry[index] = ParagraphGeometry(positions: positions, kinds: kinds)
    }
}
