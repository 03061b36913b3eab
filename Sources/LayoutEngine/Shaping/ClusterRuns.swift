/// The run being gathered while a paragraph's clusters are walked (`shapeClusters`): where it
/// starts and what keeps it together, and for the fast path its style (-1: none, no fast
/// path), script and level, and the code units known to take its face as one-unit clusters
/// continuing it — the primary face's coverage bits (read only, below U+231A), or the bits
/// this request has learnt for a fallback face (`FaceBits`), held here while the run lasts
/// and handed back when it ends.
struct RunInProgress {
    var start = 0
    var key: RunKey?
    var style = -1
    var script: Int32 = 0
    var level: UInt8 = 0
    var isPrimary = false
    var bits: [UInt64] = []
    var bitsSlot = -1

    /// Whether a one-unit cluster of `unit`, continuing the run (same style, script and
    /// level), is known to take the run's face — what `FontSelector.face` would pick (see
    /// `FontSelector.primaryCoverage(of:family:)` and `FaceBits`), without asking it.
    @inline(__always)
    func takesItsFace(_ unit: UInt16, style: Int, script: Int32, level: UInt8) -> Bool {
        guard self.style == style, self.script == script, self.level == level else { return false }
        let u = Int(unit)
        return (!isPrimary || u < 0x231A) && u >> 6 < bits.count && bits[u >> 6] & (1 << UInt64(u & 63)) != 0
    }
}

/// The style of a paragraph's clusters as they are walked in order: the style run holding the
/// current cluster, looked at again only where the next style run starts.
struct StyleCursor {
    let styleRuns: [StyleRun]
    let lastStyle: Int
    let paragraphStart: Int
    var run: Int
    var style = 0
    /// Where (relative to the paragraph) the next style run starts.
    var nextStart = 0

    /// (Given the request's runs and style count, not the request: a mutating caller would
    /// pass a copy of the whole request.)
    init(styleRuns: [StyleRun], styleCount: Int, paragraphStart: Int) {
        self.styleRuns = styleRuns
        lastStyle = styleCount - 1
        self.paragraphStart = paragraphStart
        run = styleRuns.partitionPoint { $0.start <= paragraphStart } - 1
        settle()
    }

    /// The style index of the cluster starting at `start` (clusters asked in order).
    @inline(__always)
    mutating func style(at start: Int) -> Int {
        if start >= nextStart {
            while run + 1 < styleRuns.count, styleRuns[run + 1].start <= paragraphStart + start { run += 1 }
            settle()
        }
        return style
    }

    private mutating func settle() {
        style = run >= 0 ? min(max(styleRuns[run].style, 0), lastStyle) : 0
        nextStart = run + 1 < styleRuns.count ? styleRuns[run + 1].start - paragraphStart : .max
    }
}

extension RequestContext {
    /// Walks the paragraph's clusters, choosing each one's face, and shapes each run of equal
    /// (face, script, level, shaping style) as it ends; an inline object and an overlong
    /// cluster end the run before them and are placed on their own.
    mutating func shapeClusters(_ text: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange, graphemes: [Int32],
                                scripts: [Script], levels: [UInt8], runs: inout [ShapedRun],
                                advances: inout [Double]) throws {
        var run = RunInProgress()
        var styles = StyleCursor(styleRuns: request.styleRuns, styleCount: request.styles.count, paragraphStart: range.start)
        // Captured by the font autoclosure below instead of `self`: capturing `self` would
        // copy the selector and make every font lookup copy its tables.
        let fonts = request.styles
        try graphemes.withUnsafeBufferPointer { g in
        try scripts.withUnsafeBufferPointer { sc in
        try levels.withUnsafeBufferPointer { lv in
        for c in 0..<(g.count - 1) {
            let start = Int(g[c]), end = Int(g[c + 1])
            let styleIndex = styles.style(at: start)
            if end == start + 1, run.takesItsFace(text[start], style: styleIndex, script: sc[c].code, level: lv[start]) {
                continue
            }
            let family = try familyNumber(ofStyle: styleIndex)
            let face = try selector.face(text, start, end, script: sc[c], family: family, font: fonts[styleIndex].font)
            let key = RunKey(face: face, script: sc[c], level: lv[start], shaping: shapingID[styleIndex],
                             styleIndex: styleIndex)
            if isAttachmentStyle[styleIndex] {
                try placeObject(text, start, end, key, run: &run, runs: &runs, advances: &advances)
            } else if end - start > maxShapedClusterLength {
                try shapeLongCluster(text, start, end, key, run: &run, runs: &runs, advances: &advances)
            } else {
                try extend(&run, text, start, end, key, family: family, runs: &runs, advances: &advances)
            }
        }
        }
        }
        }
        faceBits.handBack(&run.bits, slot: &run.bitsSlot)
        if let current = run.key { try shapeRun(text, run.start, text.count, current, &runs, &advances) }
    }

    /// The family number of a style's font in the selector, looked up on first use.
    @inline(__always)
    mutating func familyNumber(ofStyle styleIndex: Int) throws -> Int {
        if let known = styleFamily[styleIndex] { return known }
        let family = try selector.familyNumber(request.styles[styleIndex].font)
        styleFamily[styleIndex] = family
        return family
    }

    /// Adds the cluster `start..<end` to the run, or shapes the run and starts a new one
    /// when the cluster's key differs.
    @inline(__always)
    private mutating func extend(_ run: inout RunInProgress, _ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int,
                                 _ key: RunKey, family: Int, runs: inout [ShapedRun], advances: inout [Double]) throws {
        if let current = run.key, current != key {
            try shapeRun(text, run.start, start, current, &runs, &advances)
            run.start = start
        }
        if run.key != key {
            faceBits.handBack(&run.bits, slot: &run.bitsSlot)
            run.style = key.styleIndex
            run.script = key.script.code
            run.level = key.level
            if let coverage = selector.primaryCoverage(of: key.face, family: family) {
                run.isPrimary = true
                run.bits = coverage
            } else {
                run.isPrimary = false
                run.bitsSlot = faceBits.take(family: family, script: key.script.code, face: key.face.takeUnretainedValue(),
                                             into: &run.bits)
            }
            run.key = key
        }
        // A one-unit cluster in a fallback face's run: its face is now known for the
        // request (the run's face, as the cluster before it was in it).
        if !run.isPrimary, run.bitsSlot >= 0, end == start + 1 { FaceBits.learn(Int(text[start]), in: &run.bits) }
    }

    /// An inline object: no glyphs, its width as its one cluster's advance; it ends the run
    /// before it.
    private mutating func placeObject(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                                      run: inout RunInProgress, runs: inout [ShapedRun], advances: inout [Double]) throws {
        if let current = run.key { try shapeRun(text, run.start, start, current, &runs, &advances) }
        advances[start] = request.styles[key.styleIndex].attachment?.width ?? 0
        runs.append(ShapedRun(start: start, end: end, face: key.face.takeUnretainedValue(), script: key.script,
                              level: key.level, styleIndex: key.styleIndex, glyphs: []))
        endRun(&run, at: end)
    }

    /// A pathological cluster (a base with thousands of marks): shaping it whole costs the
    /// shaper quadratic time finding each mark's base, so it is shaped in pieces, still with
    /// one font; it ends the run before it.
    private mutating func shapeLongCluster(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int, _ key: RunKey,
                                           run: inout RunInProgress, runs: inout [ShapedRun],
                                           advances: inout [Double]) throws {
        if let current = run.key { try shapeRun(text, run.start, start, current, &runs, &advances) }
        var piece = start
        while piece < end {
            var pieceEnd = min(end, piece + maxShapedClusterLength)
            if pieceEnd < end, text[pieceEnd] & 0xFC00 == 0xDC00 { pieceEnd -= 1 }
            try shapeRun(text, piece, pieceEnd, key, &runs, &advances)
            piece = pieceEnd
        }
        endRun(&run, at: end)
    }

    /// No run is being gathered: the next starts at `end`, with no fast path until it does.
    private mutating func endRun(_ run: inout RunInProgress, at end: Int) {
        run.key = nil
        faceBits.handBack(&run.bits, slot: &run.bitsSlot)
        run.style = -1
        run.start = end
    }
}
