/// Where a line goes before alignment: the left edge of the space it may use and that
/// space's width (nil: unbounded, as without a layout width).
struct LineSlot: Equatable {
    var x: Double
    var width: Double?
}

/// A line put together, waiting for its final x: the slot it sits in and how it aligns there.
struct AssembledLine {
    enum Placement { case left, right, center }
    var box: LineBox
    var slot: LineSlot
    var placement: Placement
    /// The line's distance from its paragraph's leading edge (where tab stops count from).
    var tabOrigin: Double
    /// The x the runs' positions already include (0 until `alignLines` places the line).
    var placedX: Double = 0
}

extension RequestContext {
    /// The width of line `s..<e` of `p` as laid out with `advances`: hanging white space left
    /// out, the hyphen a soft hyphen at its end shows, and each tab advancing to its stop.
    /// `tabOrigin` is the line's distance from the paragraph's leading edge (tab stops count
    /// from there). With `tabs`, each tab's advance is appended to it. With `walk`, the tabs
    /// placed by an earlier call for the same line start are taken over: a line filler asking
    /// for ends further and further on costs the line's tabs once, not once per end.
    func lineWidth(_ p: ShapedParagraph, prefix: [Double], _ s: Int, _ e: Int,
                   tabOrigin: Double, hyphenWidth: Double, tabs: UnsafeMutablePointer<[(Int, Double)]>? = nil,
                   walk: TabWalk? = nil) -> Double {
        let visibleEnd = max(s, Int(p.hangStart[e]))
        let hyphen = e < p.count && p.softHyphenEnds.contains(e) ? hyphenWidth : 0
        var ti = p.tabs.partitionPoint { $0 < s }
        guard ti < p.tabs.count, p.tabs[ti] < visibleEnd else { return prefix[visibleEnd] - prefix[s] + hyphen }
        var x = 0.0
        var pos = s
        if let walk, tabs == nil, let resumed = walk.resume(start: s, origin: tabOrigin, tabs: p.tabs, before: visibleEnd) {
            (ti, x, pos) = resumed
        }
        while ti < p.tabs.count, p.tabs[ti] < visibleEnd {
            let t = p.tabs[ti]
            x += prefix[t] - prefix[pos]
            let nextIsTab = ti + 1 < p.tabs.count && p.tabs[ti + 1] < visibleEnd
            let segmentEnd = nextIsTab ? Int(p.tabs[ti + 1]) : visibleEnd
            let advance = tabAdvance(p, prefix: prefix, tab: Int(t), segmentEnd: segmentEnd, at: tabOrigin + x)
            tabs?.pointee.append((Int(t), advance))
            x += advance
            pos = Int(t) + 1
            ti += 1
            // The segment after this tab ends at the next tab whatever the line's end: the
            // walk so far holds for any later end.
            if nextIsTab { walk?.record(start: s, origin: tabOrigin, tab: ti, x: x, position: pos) }
        }
        return x + prefix[visibleEnd] - prefix[pos] + hyphen
    }

    /// How far the tab at `tab`, reached at `here` from the paragraph's leading edge, advances
    /// to its stop: the first given stop past `here` (found by bisection: the stops are sorted),
    /// else the next multiple of the default interval; aligned as the stop says on the text
    /// up to `segmentEnd` (the next tab or the line's visible end).
    func tabAdvance(_ p: ShapedParagraph, prefix: [Double], tab t: Int, segmentEnd: Int, at here: Double) -> Double {
        let style = request.paragraph
        let segment = prefix[segmentEnd] - prefix[t + 1]
        let k = style.tabStops.partitionPoint { $0.location <= here + 1e-6 }
        let stop = k < style.tabStops.count ? style.tabStops[k]
            : TabStop(location: ((here / style.defaultTabInterval + 1e-9).rounded(.down) + 1) * style.defaultTabInterval)
        let advance: Double
        switch stop.alignment {
        case .left: advance = stop.location - here
        case .right: advance = stop.location - here - segment
        case .center: advance = stop.location - here - segment / 2
        case .decimal:
            var point = segmentEnd
            for i in (t + 1)..<segmentEnd where p.text[i] == 0x2E || p.text[i] == 0x2C { point = i; break }
            advance = stop.location - here - (prefix[point] - prefix[t + 1])
        }
        return max(0, advance)
    }

    /// The metrics of line `ls..<le` of `p` — from the runs it touches, raised or lowered by
    /// their baseline offsets (an empty line: its style's primary face) — and its height: the
    /// natural height times the paragraph's multiple, clamped to its minimum and maximum.
    mutating func lineHeight(_ p: ShapedParagraph, _ ls: Int, _ le: Int) throws -> (metrics: LineMetrics, height: Double) {
        let style = request.paragraph
        var metrics = LineMetrics.zero
        var touched = false
        for run in p.runs(overlapping: ls, le) {
            metrics.formUnion(run.metrics(request.styles[run.styleIndex]))
            touched = true
        }
        if !touched {
            let base = request.styles[styleIndex(at: p.range.start + ls)]
            metrics = try selector.primaryFace(base.font)?.metrics(size: base.font.size) ?? .zero
        }
        let natural = metrics.ascent + metrics.descent + metrics.lineGap
        var height = natural * (style.lineHeightMultiple ?? 1)
        if let minimum = style.minimumLineHeight { height = max(height, minimum) }
        if let maximum = style.maximumLineHeight { height = min(height, maximum) }
        return (metrics, height)
    }

    /// Puts line `ls..<le` of paragraph `p` together: tab advances, the soft hyphen, justified
    /// spaces (written into `final`, the paragraph's advances as laid out), metrics from the
    /// faces on the line, line height and baseline, and its runs in visual order.
    mutating func assembleLine(_ p: ShapedParagraph, _ ls: Int, _ le: Int,
                               slot: LineSlot, tabOrigin: Double, isLastOfParagraph: Bool, y: Double,
                               final: inout [Double], hyphenWidth: Double, addsHyphen: Bool = false,
                               wantsRuns: Bool) throws -> AssembledLine {
        let style = request.paragraph
        let visibleEnd = max(ls, Int(p.hangStart[le]))
        // Tabs, then the hyphen, then justification.
        if !p.tabs.isEmpty {
            var tabs: [(Int, Double)] = []
            _ = lineWidth(p, prefix: p.prefix, ls, le, tabOrigin: tabOrigin, hyphenWidth: hyphenWidth, tabs: &tabs)
            for (t, advance) in tabs { final[t] = advance }
        }
        // A soft hyphen shows as the hyphen (its own advance); a hyphen `auto` adds follows
        // the line's text, which keeps its advances: the hyphen is the line's, not the text's.
        let softHyphen = !addsHyphen && request.paragraph.hyphenation != .none && le < p.count && p.softHyphenEnds.contains(le)
        let hyphenated = softHyphen || addsHyphen
        if softHyphen { final[le - 1] = hyphenWidth }
        var width = 0.0
        for i in ls..<visibleEnd { width += final[i] }
        if softHyphen, le - 1 >= visibleEnd { width += hyphenWidth }
        if addsHyphen { width += hyphenWidth }
        let endsAtHardBreak = le > ls && isHardBreak(p.text[le - 1])
        if style.align == .justify, let available = slot.width, !isLastOfParagraph, !endsAtHardBreak, width < available {
            let spaces = (ls..<visibleEnd).filter { isStretchableSpace(p.text[$0]) }
            if !spaces.isEmpty {
                let extra = (available - width) / Double(spaces.count)
                for s in spaces { final[s] += extra }
                width = available
            }
        }

        let (metrics, height) = try lineHeight(p, ls, le)
        // Extra (or missing) height splits evenly above and below; a line squeezed below its
        // glyphs' height keeps its baseline inside the box (the glyphs overflow it).
        let baseline = min(y + height, y + (height - metrics.ascent - metrics.descent) / 2 + metrics.ascent)

        let rtl = p.isRTL
        let placement: AssembledLine.Placement
        switch style.align {
        case .left: placement = .left
        case .right: placement = .right
        case .center: placement = .center
        case .start, .justify: placement = rtl ? .right : .left
        case .end: placement = rtl ? .left : .right
        }
        var box = LineBox(start: p.range.start + ls, end: p.range.start + le, x: 0, y: y, width: width, height: height,
                          baseline: baseline, ascent: metrics.ascent, descent: metrics.descent, isRTL: rtl,
                          hyphenated: hyphenated, showsToken: false, runs: [])
        if wantsRuns {
            box.runs = try visualRuns(p, ls, le, final: final, hyphenated: softHyphen)
            if addsHyphen { appendHyphen(hyphenWidth, to: &box.runs, p, le) }
            if hyphenated { shapeHyphenWithLastCluster(&box.runs, p, le, soft: softHyphen) }
            shapeCutEdges(&box.runs, p, ls, le, endsHyphenated: hyphenated)
        }
        return AssembledLine(box: box, slot: slot, placement: placement, tabOrigin: tabOrigin)
    }

    /// Adds the hyphen `auto` hyphenation shows to the run that ends the line's text at `le`
    /// (the line's last, in a left-to-right paragraph): its width and, with glyph detail, the
    /// hyphen glyph of the font the last cluster was shaped with.
    func appendHyphen(_ width: Double, to runs: inout [LineRun], _ p: ShapedParagraph, _ le: Int) {
        let end = p.range.start + le
        guard let r = runs.lastIndex(where: { $0.end == end && !$0.isRTL }) else { return }
        runs[r].width += width
        for k in (r + 1)..<runs.count { runs[k].x += width }
        let s = p.runs.partitionPoint { $0.end < le }
        guard request.detail == .glyphs, s < p.runs.count,
              let hyphen = hyphen(in: p.runs[s].face, size: request.styles[p.runs[s].styleIndex].font.size) else { return }
        runs[r].glyphs.append(PositionedGlyph(id: hyphen.glyph, cluster: end - 1, advance: width, xOffset: 0, yOffset: 0))
    }

    /// The runs of line `ls..<le`, left to right: each bidi visual run cut where shaped runs
    /// (fonts) and styles change, with x from the line's left edge (trailing white space of a
    /// right-to-left line sits left of it) and, with glyph detail, the glyphs.
    mutating func visualRuns(_ p: ShapedParagraph, _ ls: Int, _ le: Int, final: [Double], hyphenated: Bool) throws -> [LineRun] {
        guard le > ls else { return [] }
        var local = [Double](repeating: 0, count: le - ls + 1)
        for i in ls..<le { local[i - ls + 1] = local[i - ls] + final[i] }
        let position = { (o: Int) in local[o - ls] }
        let visibleEnd = max(ls, Int(p.hangStart[le]))
        let hanging = position(le) - position(visibleEnd)
        var x = p.isRTL ? -hanging : 0
        var result: [LineRun] = []
        result.reserveCapacity(4)
        let base = p.range.start
        var pieces: [(run: Int, start: Int, end: Int)] = []
        for visual in try p.bidi.visualRuns(ls, le) {
            pieces.removeAll(keepingCapacity: true)
            var r = p.runs.partitionPoint { $0.end <= visual.start }
            while r < p.runs.count, p.runs[r].start < visual.end {
                // Cut further where the style changes.
                var a = max(visual.start, p.runs[r].start)
                let b = min(visual.end, p.runs[r].end)
                var s = request.styleRuns.partitionPoint { $0.start <= base + a }
                while s < request.styleRuns.count, request.styleRuns[s].start < base + b {
                    let cut = request.styleRuns[s].start - base
                    if cut > a { pieces.append((r, a, cut)); a = cut }
                    s += 1
                }
                pieces.append((r, a, b))
                r += 1
            }
            if visual.isRTL { pieces.reverse() }
            for piece in pieces {
                let width = position(piece.end) - position(piece.start)
                let styleIndex = styleIndex(at: base + piece.start)
                let shapedStyle = p.runs[piece.run].styleIndex, face = p.runs[piece.run].face
                let glyphs = request.detail == .glyphs
                    ? positionedGlyphs(p.runs[piece.run], piece.start, piece.end, base: base, final: final,
                                       hyphenAt: hyphenated ? le - 1 : nil)
                    : []
                let font = fontNumber(face, styleIndex: shapedStyle)
                let start = base + piece.start, end = base + piece.end
                let n = result.count - 1
                if n >= 0, result[n].font == font, result[n].level == visual.level, result[n].style == styleIndex,
                   !result[n].isToken, request.styles[shapedStyle].attachment == nil,
                   visual.isRTL ? result[n].start == end : result[n].end == start {
                    // Same font, style and direction as the run before (only the script
                    // changed): one run for the client. (In place: a copy would share, and
                    // so copy, its glyphs.)
                    result[n].start = min(result[n].start, start)
                    result[n].end = max(result[n].end, end)
                    result[n].width += width
                    result[n].glyphs += glyphs
                } else {
                    result.append(LineRun(start: start, end: end, font: font, style: styleIndex, level: visual.level,
                                          x: x, width: width, baselineOffset: request.styles[shapedStyle].baselineOffset,
                                          isToken: false, glyphs: glyphs))
                }
                x += width
            }
        }
        return result
    }

    /// The glyphs of `shaped` for `start..<end` as a result lists them: each cluster's first
    /// glyph carries what layout added to the cluster (letter spacing, a tab's advance,
    /// justification), and the cluster at `hyphenAt` shows the font's hyphen.
    private func positionedGlyphs(_ shaped: ShapedRun, _ start: Int, _ end: Int, base: Int, final: [Double],
                                  hyphenAt: Int?) -> [PositionedGlyph] {
        var glyphs: [PositionedGlyph] = []
        var lastCluster = -1
        for g in shaped.glyphs[shaped.glyphRange(start, end)] {
            let cluster = Int(g.cluster)
            var glyph = PositionedGlyph(id: g.id, cluster: base + cluster, advance: Double(g.advance),
                                        xOffset: Double(g.xOffset), yOffset: Double(g.yOffset))
            if cluster != lastCluster {
                let shapedAdvance = shaped.glyphs[shaped.glyphRange(cluster, cluster + 1)].reduce(0.0) { $0 + Double($1.advance) }
                glyph.advance += final[cluster] - shapedAdvance
                if cluster == hyphenAt, let hyphen = hyphen(in: shaped.face, size: request.styles[shaped.styleIndex].font.size) {
                    glyph.id = hyphen.glyph
                }
                lastCluster = cluster
            }
            glyphs.append(glyph)
        }
        return glyphs
    }
}

