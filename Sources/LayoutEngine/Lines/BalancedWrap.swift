extension LayoutPass {
    /// Closest the bisection in `balanceReduction` brings the reduction, in points.
    static let balancePrecision = 0.125

    /// For `wrapStyle: balance` (CSS Text 4 `text-wrap: balance`): how much narrower than
    /// its slot each line of `p` is filled, so that the paragraph takes as many lines as
    /// greedy filling at the full width and its widest line is as narrow as that allows.
    /// Greedy filling makes no more lines at a greater width, so the reduction is found by
    /// bisection over trial fills, each linear in the paragraph's lines. The trial fills use
    /// each line's width between the indents; exclusions are not looked at (each line's slot
    /// gives up the same amount). 0 without a width, or for a paragraph of one line.
    mutating func balanceReduction(_ p: ShapedParagraph, filler: LineFiller, hyphenWidth: Double) throws -> Double {
        guard request.paragraph.wrapStyle == .balance, request.paragraph.wrap != .none, let boxRight,
              p.count > 0 else { return 0 }
        let inner = boxRight - boxLeft - request.paragraph.headIndent - request.paragraph.tailIndent
        let greedy = try trialFill(p, filler: filler, hyphenWidth: hyphenWidth, inner: inner, reduction: 0, limit: .max)
        guard greedy.lines > 1 else { return 0 }
        // Every greedy line still fits when each gives up its own slack (`lo`); no line can be
        // narrower than the paragraph's width shared evenly among the lines (`hi`).
        var lo = greedy.leastSlack
        var hi = max(lo, inner - p.prefix[p.count] / Double(greedy.lines))
        while hi - lo > Self.balancePrecision {
            if let stop = request.shouldStop?() { throw stop }
            let mid = (lo + hi) / 2
            let trial = try trialFill(p, filler: filler, hyphenWidth: hyphenWidth, inner: inner, reduction: mid,
                                      limit: greedy.lines)
            if trial.lines <= greedy.lines { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// Greedy lines of `p` at each line's width between the indents (`inner`, less the first
    /// line's indent) less `reduction`: how many (stopping once past `limit`), and the least
    /// room any of them leaves.
    private mutating func trialFill(_ p: ShapedParagraph, filler: LineFiller, hyphenWidth: Double, inner: Double,
                                    reduction: Double, limit: Int) throws -> (lines: Int, leastSlack: Double) {
        var filler = filler
        let walk = p.tabs.isEmpty ? nil : TabWalk()
        var start = 0, count = 0
        var leastSlack = Double.infinity
        while start < p.count, count <= limit {
            let lead = request.paragraph.headIndent + (count == 0 ? request.paragraph.firstLineIndent : 0)
            let width = max(0, inner - (count == 0 ? request.paragraph.firstLineIndent : 0) - reduction)
            let end = try filler.nextLine(from: start, maxWidth: width) { s, e in
                context.lineWidth(p, prefix: p.prefix, s, e, tabOrigin: lead, hyphenWidth: hyphenWidth, walk: walk)
            }
            let used = context.lineWidth(p, prefix: p.prefix, start, max(end, start), tabOrigin: lead,
                                         hyphenWidth: hyphenWidth)
            leastSlack = min(leastSlack, width - used)
            start = end > start ? end : p.count
            count += 1
        }
        return (count, max(0, leastSlack.isFinite ? leastSlack : 0))
    }
}
