extension RequestContext {
    /// With glyph detail, the word a line starts or ends inside of shaped again on its own
    /// side of the cut, as HarfBuzz shapes the line's text: a letter's form can depend on its
    /// neighbours (Arabic and Syriac joining, Indic conjuncts, contextual alternates), and a
    /// neighbour on the other line no longer joins it. HarfBuzz marks such a place unsafe to
    /// break (`HB_GLYPH_FLAG_UNSAFE_TO_BREAK`): the pieces must be shaped again, not cut. The
    /// piece runs from the cut to the word's other end (white space, where words are always
    /// shaped apart), the line's other end or the run's, so nothing across it changes. It keeps
    /// the width layout gave it (its last glyph takes the difference), so the line's width and
    /// its text's caret positions do not move. `ls..<le`: the line in the paragraph;
    /// `endsHyphenated`: its end is shaped with its hyphen (`shapeHyphenWithLastCluster`).
    func shapeCutEdges(_ runs: inout [LineRun], _ p: ShapedParagraph, _ ls: Int, _ le: Int, endsHyphenated: Bool) {
        guard request.detail == .glyphs, le > ls else { return }
        let visibleEnd = max(ls, Int(p.hangStart[le]))
        var startPieceEnd = ls
        if ls > 0, !isHangingSpace(p.text[ls - 1]), !isHardBreak(p.text[ls - 1]) {
            // (Runs are shaped apart too: the piece ends at its run's end.)
            let i = p.runs.partitionPoint { $0.end <= ls }
            let runEnd = i < p.runs.count ? p.runs[i].end : ls
            var end = ls
            while end < min(visibleEnd, runEnd), !isHangingSpace(p.text[end]) { end += 1 }
            if endsHyphenated, end == le { end = ls }   // (the hyphen's shaping keeps the last cluster)
            if end > ls, shapeAgain(&runs, p, ls, end) { startPieceEnd = end }
        }
        guard !endsHyphenated, le < p.count, visibleEnd == le, startPieceEnd < le else { return }
        let j = p.runs.partitionPoint { $0.end < le }
        let runStart = j < p.runs.count ? p.runs[j].start : le
        var start = le
        while start > max(ls, startPieceEnd, runStart), !isHangingSpace(p.text[start - 1]) { start -= 1 }
        if start < le { _ = shapeAgain(&runs, p, start, le) }
    }

    /// Shapes `a..<b` of the paragraph again on its own, in the face, style, script and level
    /// it was shaped with, and puts its glyphs in place of the old ones, keeping their total
    /// advance. False (and left as it was) unless one shaped run and one line run hold it all,
    /// within the length a cluster may be shaped at.
    private func shapeAgain(_ runs: inout [LineRun], _ p: ShapedParagraph, _ a: Int, _ b: Int) -> Bool {
        let base = p.range.start
        let s = p.runs.partitionPoint { $0.end <= a }
        guard b - a <= maxShapedClusterLength, s < p.runs.count, p.runs[s].start <= a, p.runs[s].end >= b,
              let r = runs.firstIndex(where: { !$0.isToken && $0.start <= base + a && $0.end >= base + b }),
              let first = runs[r].glyphs.firstIndex(where: { $0.cluster >= base + a && $0.cluster < base + b }),
              let last = runs[r].glyphs.lastIndex(where: { $0.cluster >= base + a && $0.cluster < base + b }),
              runs[r].glyphs[first...last].allSatisfy({ $0.cluster >= base + a && $0.cluster < base + b }) else { return false }
        let shaped = shapedAlone(p, p.runs[s], a, b)
        guard !shaped.isEmpty else { return false }
        let oldTotal = runs[r].glyphs[first...last].reduce(0.0) { $0 + $1.advance }
        var glyphs = shaped.map { g in
            PositionedGlyph(id: g.id, cluster: base + a + Int(g.cluster), advance: Double(g.advance),
                            xOffset: Double(g.xOffset), yOffset: Double(g.yOffset))
        }
        glyphs[glyphs.count - 1].advance += oldTotal - glyphs.reduce(0.0) { $0 + $1.advance }
        runs[r].glyphs.replaceSubrange(first...last, with: glyphs)
        return true
    }

    /// `a..<b` of shaped run `run` shaped with no text around it (clusters from `a`).
    private func shapedAlone(_ p: ShapedParagraph, _ run: ShapedRun, _ a: Int, _ b: Int) -> [ShapedGlyph] {
        let face = run.face, size = request.styles[run.styleIndex].font.size
        let variations = face.effectiveVariations(request.styles[run.styleIndex].font)
        let instance = face.instance(variations: variations)
        var scratch = [Double](filledWith: 0, count: b - a)
        return withExtendedLifetime(instance) {
            shaping.shape(paragraph: UnsafeBufferPointer(rebasing: p.text[a..<b]), start: 0, end: b - a, face: face,
                          font: instance?.font ?? face.font, features: features[run.styleIndex], script: run.script,
                          level: run.level, language: language, size: size, bot: a == 0, eot: b == p.count,
                          advances: &scratch)
        }
    }
}
