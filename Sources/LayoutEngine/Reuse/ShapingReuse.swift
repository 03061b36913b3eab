extension LayoutPass {
    /// Paragraph `index` analysed and shaped: its shaping as this layout kept it already,
    /// else as the previous layout kept it (`previous`: the previous paragraph found for it,
    /// the same text and styles), else shaped here — and kept, when this layout keeps shaping.
    mutating func shapedParagraph(_ index: Int, previous: Int?) throws -> ShapedParagraph {
        let range = paragraphs[index]
        if index < shapings.count, let kept = shapings[index] {
            return try kept.paragraph(at: range, in: text, styleMap: nil, locale: context.locale,
                                      pool: engine.breakIterators)
        }
        if let previous, canTakeShaping(previous), let kept = previousParagraphs[previous].shaping {
            let styleMap = styleNumbers(from: previousParagraphs[previous].styleRuns, to: request.styleRuns(in: range))
            let p = try kept.paragraph(at: range, in: text, styleMap: styleMap, locale: context.locale,
                                       pool: engine.breakIterators)
            if index < shapings.count {
                // Kept again as it was, unless its runs' style numbers changed.
                shapings[index] = styleMap == nil ? kept : KeptShaping(p, hasGlyphs: kept.hasGlyphs)
            }
            return p
        }
        reshapedParagraphs += 1
        let p = try context.shape(text, range)
        if index < shapings.count { shapings[index] = KeptShaping(p, hasGlyphs: context.needsGlyphs) }
        return p
    }

    /// Paragraph `index`, laid out earlier in this layout, analysed and shaped again: as this
    /// layout kept it, else shaped once more.
    mutating func paragraphAgain(_ index: Int) throws -> ShapedParagraph {
        if index < shapings.count, shapings[index] != nil { return try shapedParagraph(index, previous: nil) }
        return try context.shape(text, paragraphs[index])
    }

    /// After a truncation at paragraph `index`, when this layout keeps shaping: the
    /// paragraphs after it, not laid out, are shaped (or their shaping taken over) and kept
    /// all the same, so that a later layout without the line limit need not shape them.
    mutating func keepShapingOfRest(after index: Int, top: Double) throws {
        guard request.keepsShaping else { return }
        for next in (index + 1)..<paragraphs.count {
            if let stop = request.shouldStop?() { throw stop }
            let range = paragraphs[next]
            let previous = reusableParagraph(range, paragraph: next)
            let p = try shapedParagraph(next, previous: previous)
            deferredRelease?.keep(p)
            keepReusable(range, paragraph: next, firstLine: lines.count, top: top, counts: (0, 0))
        }
    }
}
