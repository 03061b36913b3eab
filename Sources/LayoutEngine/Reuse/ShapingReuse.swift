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
        if let previous, let kept = previousParagraphs[previous].shaping {
            let styleMap = styleNumbers(from: previousParagraphs[previous].styleRuns, to: request.styleRuns(in: range))
            var p = try kept.paragraph(at: range, in: text, styleMap: styleMap, locale: context.locale,
                                       pool: engine.breakIterators)
            let addsGlyphs = context.needsGlyphs && !kept.hasGlyphs
            if addsGlyphs { p = try context.addingGlyphs(to: p) }
            if index < shapings.count {
                // Kept again as it was, unless its runs' style numbers or glyphs changed.
                shapings[index] = styleMap == nil && !addsGlyphs ? kept : KeptShaping(p, hasGlyphs: kept.hasGlyphs || addsGlyphs)
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

extension RequestContext {
    /// `p`, kept without glyphs by a layout that read none, with its runs' glyphs fetched
    /// again: each run shaped as it was (its face, script, level and style), which finds
    /// its words in the shape cache. Its analysis, advances and breaks are `p`'s own; the
    /// advances shaping finds again are the same and are dropped.
    mutating func addingGlyphs(to p: ShapedParagraph) throws -> ShapedParagraph {
        currentGraphemes = p.graphemes
        var runs: [ShapedRun] = []
        runs.reserveCapacity(p.runs.count)
        var scratch = [Double](repeating: 0, count: p.count)
        for run in p.runs {
            guard run.glyphs.isEmpty, run.end > run.start, !isAttachmentStyle[run.styleIndex] else {
                runs.append(run)
                continue
            }
            let key = RunKey(face: Unmanaged.passUnretained(run.face), script: run.script, level: run.level,
                             shaping: shapingID[run.styleIndex], styleIndex: run.styleIndex)
            try withExtendedLifetime(run.face) { try shapeRun(p.text, run.start, run.end, key, &runs, &scratch) }
        }
        return ShapedParagraph(kept: p, text: p.text, range: p.range, breaks: p.breaks, runs: runs)
    }
}
