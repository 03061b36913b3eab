extension RequestContext {
    /// With glyph detail, the word a line starts or ends inside of shaped again on its own
    /// side of the cut, as HarfBuzz shapes the line's text: a letter's form can depend on its
    /// neighbours (Arabic and Syriac joining, Indic conjuncts, contextual alternates), and a
    /// neighbour on the other line no longer joins it. HarfBuzz marks such a place unsafe to
    /// break (`HB_GLYPH_FLAG_UNSAFE_TO_BREAK`): the pieces must be shaped again, not cut. The
    /// piece runs from the cut to the word's other end (white space, where words are always
    /// shaped apart), the line's other end or the run's, so nothing across it changes; only its
    /// part next to the cut is replaced where that can be cut safely (`shapeAgain`). It keeps
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
            let runEnd = i < p.runs.count && p.runs[i].script.formsDependOnNeighbours ? p.runs[i].end : ls
            var end = ls
            while end < min(visibleEnd, runEnd), !isHangingSpace(p.text[end]) { end += 1 }
            if endsHyphenated, end == le { end = ls }   // (the hyphen's shaping keeps the last cluster)
            if end > ls, let replaced = shapeAgain(&runs, p, ls, end, cutAtStart: true) { startPieceEnd = replaced.upperBound }
        }
        guard !endsHyphenated, le < p.count, visibleEnd == le, startPieceEnd < le else { return }
        let j = p.runs.partitionPoint { $0.end < le }
        let runStart = j < p.runs.count && p.runs[j].script.formsDependOnNeighbours ? p.runs[j].start : le
        var start = le
        while start > max(ls, startPieceEnd, runStart), !isHangingSpace(p.text[start - 1]) { start -= 1 }
        if start < le { _ = shapeAgain(&runs, p, start, le, cutAtStart: false) }
    }

    /// Units shaped first at a cut: most pieces can be cut again where HarfBuzz says it is
    /// safe within them, so that only the few clusters the cut changes are shaped again.
    private static let cutWindow = 16

    /// Shapes the piece `a..<b` of the paragraph again on its own (the cut at `a` when
    /// `cutAtStart`, else at `b`), in the face, style, script and level it was shaped with, and
    /// puts its glyphs in place of the old ones, keeping their total advance. Only the part up
    /// to the first place past the cut where the new shaping is safe to break is replaced
    /// (beyond it the old glyphs are the same); a piece with no such place is shaped whole, up
    /// to the length a cluster may be shaped at. The part replaced, or nil (left as it was)
    /// unless one shaped run and one line run hold the piece.
    private func shapeAgain(_ runs: inout [LineRun], _ p: ShapedParagraph, _ a: Int, _ b: Int, cutAtStart: Bool) -> Range<Int>? {
        let s = p.runs.partitionPoint { $0.end <= a }
        guard s < p.runs.count, p.runs[s].start <= a, p.runs[s].end >= b else { return nil }
        let run = p.runs[s]
        // The window next to the cut; `from` is where its clusters count from.
        let (from, to) = cutAtStart ? (a, min(b, a + Self.cutWindow)) : (max(a, b - Self.cutWindow), b)
        var glyphs = shapedAlone(p, run, from, to, markingSafeBreaks: true)
        var piece = from..<to
        if from > a || to < b {
            let safe = shaping.safeToBreak
            let inner = cutAtStart ? (1..<(to - from)).first { safe[$0] } : (1..<(to - from)).last { safe[$0] }
            if let k = inner {
                piece = cutAtStart ? from..<(from + k) : (from + k)..<to
                glyphs = glyphs.filter { piece.contains(from + Int($0.cluster)) }
            } else {
                guard b - a <= maxShapedClusterLength else { return nil }
                glyphs = shapedAlone(p, run, a, b, markingSafeBreaks: false)
                piece = a..<b
            }
        }
        let clusterBase = piece == a..<b ? a : from
        return replace(&runs, p, piece, with: glyphs, clustersFrom: clusterBase) ? piece : nil
    }

    /// Puts `glyphs` (clusters counted from `origin` in the paragraph) in place of the glyphs
    /// of the line run that draws `piece`, keeping their total advance. False unless one line
    /// run draws all of the piece's glyphs in one stretch.
    private func replace(_ runs: inout [LineRun], _ p: ShapedParagraph, _ piece: Range<Int>, with glyphs: [ShapedGlyph],
                         clustersFrom origin: Int) -> Bool {
        let base = p.range.start
        let inPiece = { (g: PositionedGlyph) in g.cluster >= base + piece.lowerBound && g.cluster < base + piece.upperBound }
        guard !glyphs.isEmpty,
              let r = runs.firstIndex(where: { !$0.isToken && $0.start <= base + piece.lowerBound && $0.end >= base + piece.upperBound }),
              let first = runs[r].glyphs.firstIndex(where: inPiece), let last = runs[r].glyphs.lastIndex(where: inPiece),
              runs[r].glyphs[first...last].allSatisfy(inPiece) else { return false }
        let oldTotal = runs[r].glyphs[first...last].reduce(0.0) { $0 + $1.advance }
        var placed = glyphs.map { g in
            PositionedGlyph(id: g.id, cluster: base + origin + Int(g.cluster), advance: Double(g.advance),
                            xOffset: Double(g.xOffset), yOffset: Double(g.yOffset))
        }
        placed[placed.count - 1].advance += oldTotal - placed.reduce(0.0) { $0 + $1.advance }
        runs[r].glyphs.replaceSubrange(first...last, with: placed)
        return true
    }

    /// `a..<b` of shaped run `run` shaped with no text around it (clusters from `a`); with
    /// `markingSafeBreaks`, the shaping buffer's `safeToBreak` says where it may be cut.
    private func shapedAlone(_ p: ShapedParagraph, _ run: ShapedRun, _ a: Int, _ b: Int, markingSafeBreaks: Bool) -> [ShapedGlyph] {
        shape(UnsafeBufferPointer(rebasing: p.text[a..<b]), 0, b - a, as: run, bot: a == 0, eot: b == p.count,
                   markingSafeBreaks: markingSafeBreaks)
    }

    /// `start..<end` of `text` (the rest of it context) shaped as shaped run `run` was: its
    /// face with the style's axes, the style's features, the run's script and level. For a
    /// line's edges, which shape a few units again apart from their paragraph.
    func shape(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, as run: ShapedRun, bot: Bool, eot: Bool,
                    markingSafeBreaks: Bool = false) -> [ShapedGlyph] {
        let face = run.face, font = request.styles[run.styleIndex].font
        let instance = face.instance(variations: face.effectiveVariations(font))
        var scratch = [Double](filledWith: 0, count: text.count)
        return withExtendedLifetime(instance) {
            shaping.shape(paragraph: text, start: start, end: end, face: face, font: instance?.font ?? face.font,
                          features: features[run.styleIndex], script: run.script, level: run.level, language: language,
                          size: font.size, bot: bot, eot: eot, markingSafeBreaks: markingSafeBreaks, advances: &scratch)
        }
    }
}

extension Script {
    /// Whether default shaping can give a cluster another glyph for the clusters next to it
    /// (cursive joining, conjuncts and other contextual forms: Arabic, Syriac, Mongolian, the
    /// Indic and Southeast Asian scripts…). Not for Latin, Greek, Cyrillic, Armenian, Georgian,
    /// Hebrew, Thai, Lao, Han, kana and Hangul, whose cuts between clusters change at most a
    /// kerned advance, which a cut piece keeps anyway; nor for common and inherited text.
    var formsDependOnNeighbours: Bool {
        switch code {
        // ICU's USCRIPT_COMMON, _INHERITED, _ARMENIAN, _CYRILLIC, _GEORGIAN, _GREEK, _HAN,
        // _HANGUL, _HEBREW, _HIRAGANA, _KATAKANA, _LAO, _LATIN, _THAI
        case 0, 1, 3, 8, 12, 14, 17, 18, 19, 20, 22, 24, 25, 38: false
        default: true
        }
    }
}
