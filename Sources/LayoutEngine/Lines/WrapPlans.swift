extension LayoutPass {
    /// The widths `optimal` and `pretty` plan a paragraph's lines at: the box less the
    /// indents, the first line less its own. Nil where lines do not have a width known ahead
    /// (no width, no wrapping or between clusters, exclusions, whose slots follow each line's
    /// height): those paragraphs break greedily.
    private func planWidths() -> (first: Double, other: Double)? {
        let style = request.paragraph
        guard style.wrapStyle == .optimal || style.wrapStyle == .pretty, style.wrap == .word, let boxRight,
              request.exclusions.allSatisfy({ $0.width <= 0 || $0.height <= 0 }) else { return nil }
        let inner = boxRight - boxLeft - style.headIndent - style.tailIndent
        return (max(0, inner - style.firstLineIndent), max(0, inner))
    }

    /// With `wrapStyle: optimal`, the line ends of the paragraph's best breaking (`TotalFit`);
    /// with `pretty`, greedy's, its last four lines broken again that way when the last line
    /// is shorter than a third of the width (Chromium's `text-wrap: pretty`). Nil to break
    /// greedily: another style, or no breaking fits (a word wider than the line).
    ///
    /// `lineBudget`: the lines left before `maxLines` (tail, middle or clip truncation), nil
    /// for no limit; `isLastParagraph`: no paragraph follows. A paragraph the budget cuts shows
    /// lines broken for what it shows (`limitedEnds`); with `pretty`, greedy's, as pretty
    /// breaks again only the last lines, which truncation hides.
    func plannedEnds(_ p: ShapedParagraph, filler: LineFiller, lineBudget: Int?, isLastParagraph: Bool) throws -> [PlannedEnd]? {
        guard let widths = planWidths(), p.count > 0 else { return nil }
        let style = request.paragraph
        let walk = p.tabs.isEmpty ? nil : TabWalk()
        let context = self.context, hyphenWidth = filler.hyphenWidth
        let firstLead = style.headIndent + style.firstLineIndent, otherLead = style.headIndent
        let fit = TotalFit(firstWidth: widths.first, otherWidth: widths.other, hyphenWidth: hyphenWidth) { s, e, first in
            context.lineWidth(p, prefix: p.prefix, s, e, tabOrigin: first ? firstLead : otherLead, hyphenWidth: hyphenWidth,
                              walk: walk)
        }
        // Whether `count` lines of this paragraph reach or pass the limit with text left after.
        func cut(_ count: Int) -> Bool {
            guard let lineBudget else { return false }
            return count > lineBudget || count == lineBudget && !isLastParagraph
        }
        let candidates = try breakCandidates(p, filler: filler)
        guard style.wrapStyle == .optimal else {
            guard let ends = try prettyEnds(p, filler: filler, candidates: candidates, fit: fit, widths: widths) else { return nil }
            return cut(ends.count) ? nil : ends
        }
        guard let whole = try fit.ends(candidates, startsParagraph: true, shouldStop: request.shouldStop) else { return nil }
        guard let lineBudget, cut(whole.count) else { return whole }
        return try limitedEnds(p, filler: filler, candidates: candidates, fit: fit, widths: widths, limit: lineBudget,
                               mayShowWhole: isLastParagraph) ?? whole
    }

    /// Greedy's lines, then its last four again by `fit` when the last is short.
    private func prettyEnds(_ p: ShapedParagraph, filler: LineFiller, candidates: [BreakCandidate],
                                     fit: TotalFit, widths: (first: Double, other: Double)) throws -> [PlannedEnd]? {
        guard let ends = try greedyEnds(p, filler: filler, fit: fit, widths: widths, limit: nil) else { return nil }
        guard ends.count >= 2 else { return ends }
        let lastStart = ends[ends.count - 2].end
        guard fit.measure(lastStart, p.count, false) < widths.other / 3 else { return ends }
        let kept = max(0, ends.count - 4)
        let tailStart = kept == 0 ? 0 : ends[kept - 1].end
        let tail = candidates.filter { $0.offset >= tailStart }
        guard tail.first?.offset == tailStart,
              let rebroken = try fit.ends(tail, startsParagraph: tailStart == 0, shouldStop: request.shouldStop)
        else { return ends }
        return Array(ends.prefix(kept)) + rebroken
    }

    /// Greedy's line ends from the paragraph's start, `limit` lines at most (nil: all). Nil
    /// when a line cannot move on.
    private func greedyEnds(_ p: ShapedParagraph, filler: LineFiller, fit: TotalFit,
                            widths: (first: Double, other: Double), limit: Int?) throws -> [PlannedEnd]? {
        var greedy = filler
        greedy.plan = nil
        var ends: [PlannedEnd] = []
        var start = 0
        while start < p.count, ends.count < limit ?? .max {
            if let stop = request.shouldStop?() { throw stop }
            let end = try greedy.nextLine(from: start, maxWidth: ends.isEmpty ? widths.first : widths.other) { s, e in
                fit.measure(s, e, s == 0)
            }
            guard end > start else { return nil }
            ends.append(PlannedEnd(end: end, addsHyphen: greedy.endsHyphenated))
            start = end
        }
        return ends
    }

    /// The lines of a paragraph that `limit` lines cut. When greedy's lines show it whole
    /// without reaching the limit with text after (`mayShowWhole`: no paragraph follows, so it
    /// may take all `limit`), the best breaking into at most that many lines, so that it is not
    /// cut; else the best `limit - 1` lines before the truncated one, broken for themselves:
    /// hidden text shapes none of them. Nil above `TotalFit.maxPlannedLimit` lines.
    private func limitedEnds(_ p: ShapedParagraph, filler: LineFiller, candidates: [BreakCandidate], fit: TotalFit,
                             widths: (first: Double, other: Double), limit: Int, mayShowWhole: Bool) throws -> [PlannedEnd]? {
        guard limit <= TotalFit.maxPlannedLimit,
              let reach = try greedyEnds(p, filler: filler, fit: fit, widths: widths, limit: limit) else { return nil }
        let showable = mayShowWhole ? limit : limit - 1
        if reach.count <= showable, reach.last?.end == p.count {
            return try fit.limitedEnds(candidates, lines: showable, reachesEnd: true, startsParagraph: true,
                                       shouldStop: request.shouldStop)
        }
        guard limit >= 2, reach.count >= limit - 1 else { return [] }   // (the first line is the truncated one)
        // No breaking of n lines reaches past greedy's n-th line end.
        let bound = reach[limit - 2].end
        let reachable = Array(candidates.prefix { $0.offset <= bound })
        return try fit.limitedEnds(reachable, lines: limit - 1, reachesEnd: false, startsParagraph: true,
                                   shouldStop: request.shouldStop)
    }

    /// Where the paragraph's lines may end: its start, its break opportunities (a soft
    /// hyphen's only when soft hyphens break) and, with `hyphenation: auto`, the points of
    /// each word after one, ascending, the paragraph's end last.
    private func breakCandidates(_ p: ShapedParagraph, filler: LineFiller) throws -> [BreakCandidate] {
        let opportunities: Boundaries
        switch p.breaks {
        case .all(let all): opportunities = all
        case .onDemand(let finder, _): opportunities = try finder.allOpportunities()
        }
        var candidates = [BreakCandidate(offset: 0, showsHyphen: false, addsHyphen: false, mandatory: false)]
        candidates.reserveCapacity(opportunities.offsets.count + 1)
        // Only where a word starts: an opportunity inside a stretch between spaces (after a
        // `/` or `-`, or between ideographs) is in no word of letters, and looking around it
        // for one would read the stretch again at every such opportunity.
        func addPoints(after offset: Int) {
            guard offset == 0 || isHangingSpace(p.text[offset - 1]),
                  let points = filler.hyphenationPoints?(offset, offset) else { return }
            for point in points where point > offset && point < p.count && filler.startsShapedCluster(point) {
                candidates.append(BreakCandidate(offset: point, showsHyphen: true, addsHyphen: true, mandatory: false))
            }
        }
        addPoints(after: 0)
        for (k, raw) in opportunities.offsets.enumerated() {
            let offset = Int(raw)
            guard offset > 0, offset <= p.count else { continue }
            if k & 1023 == 0, let stop = request.shouldStop?() { throw stop }
            let soft = offset < p.count && p.softHyphenEnds.contains(offset)
            if !opportunities.mandatory[k], soft && filler.ignoresSoftHyphens || !filler.startsShapedCluster(offset) { continue }
            candidates.append(BreakCandidate(offset: offset, showsHyphen: soft, addsHyphen: false,
                                             mandatory: opportunities.mandatory[k] && offset < p.count))
            if offset < p.count { addPoints(after: offset) }
        }
        if candidates.last?.offset != p.count {
            candidates.append(BreakCandidate(offset: p.count, showsHyphen: false, addsHyphen: false, mandatory: false))
        }
        // A word's points lie between the opportunities around it; kept in order should ICU
        // ever find one inside a word of letters.
        if zip(candidates, candidates.dropFirst()).contains(where: { $0.offset >= $1.offset }) {
            candidates.sort { $0.offset < $1.offset }
            var seen = -1
            candidates.removeAll { c in defer { seen = c.offset }; return c.offset == seen }
        }
        return candidates
    }
}
