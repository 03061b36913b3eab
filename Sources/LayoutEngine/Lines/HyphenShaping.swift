extension RequestContext {
    /// With glyph detail, the hyphen that ends a hyphenated line shaped together with the
    /// text cluster before it, as HarfBuzz shapes "…x‐": kerning between the two, and any
    /// form the font gives a letter before a hyphen, instead of the hyphen's own glyph set
    /// after the letter as the letter was shaped before the next one (now on the next line).
    /// The pair keeps the width layout gave it (the hyphen's advance takes the difference),
    /// so the line's width and its text's caret positions do not move. `le`: the line's end
    /// in the paragraph; `soft`: whether the hyphen shows a soft hyphen there (its glyph is
    /// the soft hyphen's) rather than follows the text. Left as it was when the text before
    /// the hyphen is not a cluster of one left-to-right run.
    func shapeHyphenWithLastCluster(_ runs: inout [LineRun], _ p: ShapedParagraph, _ le: Int, soft: Bool) {
        let base = p.range.start
        let h = p.runs.partitionPoint { $0.end < le }   // (the run whose face drew the hyphen)
        guard request.detail == .glyphs, h < p.runs.count,
              let r = runs.lastIndex(where: { $0.end == base + le && !$0.isRTL && !$0.isToken }),
              runs[r].glyphs.count >= 2,
              let drawn = hyphen(in: p.runs[h].face, size: request.styles[p.runs[h].styleIndex].font.size),
              runs[r].glyphs.last?.id == drawn.glyph else { return }
        let hyphenIndex = runs[r].glyphs.count - 1
        let letterCluster = runs[r].glyphs[hyphenIndex - 1].cluster
        var letterStart = hyphenIndex - 1
        while letterStart > 0, runs[r].glyphs[letterStart - 1].cluster == letterCluster { letterStart -= 1 }
        let c = letterCluster - base, textEnd = soft ? le - 1 : le
        let s = p.runs.partitionPoint { $0.end <= c }
        guard c >= 0, c < textEnd, textEnd - c <= maxShapedClusterLength, s < p.runs.count, p.runs[s].end >= textEnd,
              let joined = shapedWithHyphen(p, s, c, textEnd) else { return }
        let old = runs[r].glyphs[letterStart...hyphenIndex]
        let oldTotal = old.reduce(0.0) { $0 + $1.advance }
        // What layout added to the cluster (letter spacing, justification) stays on its first glyph.
        let shapedAlone = p.runs[s].glyphs[p.runs[s].glyphRange(c, textEnd)].reduce(0.0) { $0 + Double($1.advance) }
        let added = old.dropLast().reduce(0.0) { $0 + $1.advance } - shapedAlone
        var glyphs: [PositionedGlyph] = []
        for (k, g) in joined.letter.enumerated() {
            glyphs.append(PositionedGlyph(id: g.id, cluster: base + Int(g.cluster), advance: Double(g.advance) + (k == 0 ? added : 0),
                                          xOffset: Double(g.xOffset), yOffset: Double(g.yOffset)))
        }
        let letterWidth = glyphs.reduce(0.0) { $0 + $1.advance }
        glyphs.append(PositionedGlyph(id: joined.hyphen.id, cluster: runs[r].glyphs[hyphenIndex].cluster,
                                      advance: oldTotal - letterWidth, xOffset: Double(joined.hyphen.xOffset),
                                      yOffset: Double(joined.hyphen.yOffset)))
        runs[r].glyphs.replaceSubrange(letterStart...hyphenIndex, with: glyphs)
    }

    /// The cluster `c..<end` of shaped run `s` shaped with the hyphen after it, in the run's
    /// face, style, script and level, with the few units before it as context: its glyphs
    /// (clusters relative to the paragraph) and the hyphen's; nil unless HarfBuzz gives the
    /// hyphen one glyph of its own after them.
    private func shapedWithHyphen(_ p: ShapedParagraph, _ s: Int, _ c: Int, _ end: Int)
        -> (letter: [ShapedGlyph], hyphen: ShapedGlyph)? {
        let run = p.runs[s], face = run.face
        let size = request.styles[run.styleIndex].font.size
        guard let hyphen = hyphenScalar(in: face, size: size) else { return nil }
        // (HarfBuzz reads at most a few characters of context either side of what it shapes.)
        let from = max(run.start, c - 8)
        var units = Array(p.text[from..<end])
        units.append(hyphen)
        let glyphs = units.withUnsafeBufferPointer { text in
            shape(text, c - from, text.count, as: run, bot: c == 0, eot: false)
        }
        let hyphenCluster = Int32(units.count - 1)
        guard let last = glyphs.last, last.cluster == hyphenCluster,
              glyphs.dropLast().allSatisfy({ $0.cluster < hyphenCluster }) else { return nil }
        let letter = glyphs.dropLast().map { g in
            var g = g
            g.cluster += Int32(from)
            return g
        }
        return (letter, last)
    }
}
