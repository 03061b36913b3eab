/// A paragraph's analysis and shaping kept past the layout that made it, so that a later
/// layout of the same paragraph — at another width, line limit, alignment, spacing, indents,
/// insets or exclusions — fills its lines again without analysing or shaping it again.
///
/// It points into no text: its bidi resolution holds its own copy of the paragraph (ICU keeps
/// a pointer to the text it resolved), and its line-break opportunities are either all found
/// already or found again on demand by a new finder over the text of the layout that takes
/// it (`paragraph(at:in:…)`), whose paragraph has the same units. The advances' running sum
/// is not kept but summed again when it is taken (the same additions in the same order:
/// the same sums), eight bytes a unit for one pass. Immutable; read by one
/// layout at a time (a retained layout's updates run under its handle's lock, a multi-width
/// measure on one thread), hence unchecked `Sendable`: the bidi object is not thread-safe.
final class KeptShaping: @unchecked Sendable {
    private let shaped: ShapedParagraph
    /// Every opportunity, when found ahead of time (or by a finder that needed them all);
    /// else the mandatory breaks, for opportunities found on demand.
    private let allBreaks: Boundaries?
    private let hardBreaks: [Int32]
    /// Whether its runs hold glyphs (see `RequestContext.needsGlyphs`).
    let hasGlyphs: Bool
    /// Estimated memory held, for a retained layout's byte bound.
    let bytes: Int

    /// Keeps `p`, whose bidi resolution must own its text (`BidiParagraph(ownsText:)`) when
    /// it is to outlive the layout's text.
    init(_ p: ShapedParagraph, hasGlyphs: Bool) {
        switch p.breaks {
        case .all(let all):
            allBreaks = all
            hardBreaks = []
        case .onDemand(let finder, let hard):
            allBreaks = finder.all
            hardBreaks = hard
        }
        shaped = ShapedParagraph(range: p.range, text: UnsafeBufferPointer(start: nil, count: 0), bidi: p.bidi,
                                 graphemes: p.graphemes, runs: p.runs, advances: p.advances, prefix: [],
                                 breaks: .all(Boundaries(offsets: [], mandatory: [])), hangStart: p.hangStart, tabs: p.tabs,
                                 softHyphenEnds: p.softHyphenEnds, endsWithHardBreak: p.endsWithHardBreak)
        self.hasGlyphs = hasGlyphs
        var glyphs = 0
        for run in p.runs { glyphs += run.glyphs.count }
        // Per unit: advance (8), grapheme and hang starts (4 + 4), the bidi level and text
        // copy (1 + 2); per run and glyph their stored size; per break 5.
        let breakCount = allBreaks?.offsets.count ?? hardBreaks.count
        bytes = 128 + p.count * 19 + p.runs.count * 64 + glyphs * MemoryLayout<ShapedGlyph>.stride
            + breakCount * 5 + p.tabs.count * 8 + p.softHyphenEnds.count * 16
    }

    /// The kept paragraph as a paragraph of another layout: at `range` of `text` (the same
    /// units), its runs' style numbers mapped through `styleMap` (nil: the same), with a new
    /// finder for opportunities found on demand.
    func paragraph(at range: ParagraphRange, in text: UnsafeBufferPointer<UInt16>, styleMap: [Int: Int]?,
                   locale: String, pool: BreakIteratorPool) throws -> ShapedParagraph {
        let content = UnsafeBufferPointer(rebasing: text[range.start..<range.contentEnd])
        let breaks: LineBreaks
        if let allBreaks {
            breaks = .all(allBreaks)
        } else {
            breaks = .onDemand(LineBreakFinder(content, locale: locale, pool: pool), hard: hardBreaks)
        }
        var runs = shaped.runs
        if let styleMap {
            for r in runs.indices { runs[r].styleIndex = styleMap[runs[r].styleIndex] ?? runs[r].styleIndex }
        }
        return ShapedParagraph(range: range, text: content, bidi: shaped.bidi, graphemes: shaped.graphemes, runs: runs,
                               advances: shaped.advances, prefix: Self.runningSum(shaped.advances), breaks: breaks,
                               hangStart: shaped.hangStart,
                               tabs: shaped.tabs, softHyphenEnds: shaped.softHyphenEnds,
                               endsWithHardBreak: shaped.endsWithHardBreak)
    }
}

extension KeptShaping {
    /// 0 and the sums of `advances` from the first, as `UnitScan` adds them.
    static func runningSum(_ advances: [Double]) -> [Double] {
        advances.withUnsafeBufferPointer { a in
            [Double](capacity: a.count + 1, blank: 0) { sums, count in
                var sum = 0.0
                sums[0] = 0
                for i in 0..<a.count {
                    sum += a[i]
                    sums[i + 1] = sum
                }
                count = a.count + 1
            }
        }
    }
}

/// What shaping depends on beyond a paragraph's units and styles: a paragraph shaped under
/// one key serves a layout under the same key, whatever its width, line limit or other
/// line parameters.
struct ShapingKey: Equatable, Sendable {
    var language: String
    var direction: ParagraphDirection
    var wrap: WrapMode
}

extension LayoutRequest {
    var shapingKey: ShapingKey {
        ShapingKey(language: language, direction: paragraph.direction, wrap: paragraph.wrap)
    }
}

extension ShapedParagraph {
    /// `p`'s analysis and shaping at `range` of another text with the same units.
    init(kept p: ShapedParagraph, text: UnsafeBufferPointer<UInt16>, range: ParagraphRange, breaks: LineBreaks,
         runs: [ShapedRun]) {
        self.init(range: range, text: text, bidi: p.bidi, graphemes: p.graphemes, runs: runs, advances: p.advances,
                  prefix: p.prefix, breaks: breaks, hangStart: p.hangStart, tabs: p.tabs,
                  softHyphenEnds: p.softHyphenEnds, endsWithHardBreak: p.endsWithHardBreak)
    }
}
