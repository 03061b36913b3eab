/// Total fit under a line limit (`maxLines`, with the tail, middle or clip truncation): the
/// lines a limited paragraph shows are broken as a whole of their own, not as the first
/// lines of the paragraph's breaking, which hidden lines would shape.
extension TotalFit {
    /// The largest line limit planned so: the search goes line by line, so its work is the
    /// limit times the candidates the limited lines reach times the candidates on a line
    /// (above it, a limited paragraph shows the first lines of its whole breaking).
    static let maxPlannedLimit = 64

    /// With `reachesEnd`, the best breaking of all of `candidates` into at most `lines` lines
    /// (its last line judged as a last line); without, the best `lines` lines from the first
    /// candidate, ending at any (the line after them is the one truncated: every line judged
    /// as one that is not the last). Nil when no such breaking fits.
    func limitedEnds(_ candidates: [BreakCandidate], lines layers: Int, reachesEnd: Bool, startsParagraph: Bool,
                     shouldStop: (@Sendable () -> EngineError?)?) throws -> [PlannedEnd]? {
        guard layers >= 1 else { return [] }
        guard candidates.count >= 2 else { return nil }
        let nextMandatory = Self.nextMandatory(candidates)
        var cost = [Double](filledWith: .infinity, count: candidates.count)
        cost[0] = 0
        var from: [[Int32]] = []
        var best: (cost: Double, layer: Int, end: Int)?
        for layer in 1...layers {
            if let stop = shouldStop?() { throw stop }
            var next = [Double](filledWith: .infinity, count: candidates.count)
            var back = [Int32](filledWith: -1, count: candidates.count)
            relax(candidates, cost, into: &next, back: &back, nextMandatory: nextMandatory,
                  lastAt: reachesEnd ? candidates.count - 1 : nil, startsParagraph: startsParagraph)
            from.append(back)
            if reachesEnd {
                let end = candidates.count - 1
                if next[end] < (best?.cost ?? .infinity) { best = (next[end], layer, end) }
            } else if layer == layers {
                for j in 1..<candidates.count where next[j] < (best?.cost ?? .infinity) { best = (next[j], layer, j) }
            }
            cost = next
        }
        guard let best else { return nil }
        var ends: [PlannedEnd] = []
        var j = best.end
        for layer in stride(from: best.layer, through: 1, by: -1) {
            ends.append(PlannedEnd(end: candidates[j].offset, addsHyphen: candidates[j].addsHyphen))
            j = Int(from[layer - 1][j])
        }
        return ends.reversed()
    }

    /// One more line after the breakings costed `cost`: for each candidate, the least cost
    /// of a breaking whose last line ends there (`next`), and where that line starts
    /// (`back`). A line never passes a mandatory break; `lastAt`: the candidate whose line is
    /// the paragraph's last.
    private func relax(_ candidates: [BreakCandidate], _ cost: [Double], into next: inout [Double], back: inout [Int32],
                       nextMandatory: [Int], lastAt: Int?, startsParagraph: Bool) {
        guard let first = cost.firstIndex(where: { $0.isFinite }) else { return }
        // (A first line wider than the others is tried even where a later start was too wide.)
        let firstIsWider = startsParagraph && firstWidth > otherWidth
        for j in (first + 1)..<candidates.count {
            var i = j - 1
            while i >= first, nextMandatory[i] >= j {
                guard consider(i, j) else { break }   // (earlier starts only make it wider)
                i -= 1
            }
            if firstIsWider, first == 0, i > 0, nextMandatory[0] >= j { _ = consider(0, j) }
        }

        /// Costs the line from `i` to `j` into `next[j]`; false when it is too wide (measured
        /// first, so that the walk back stops within a line's candidates however many before
        /// it no breaking reaches).
        func consider(_ i: Int, _ j: Int) -> Bool {
            let w = lineWidth(candidates, i, j, startsParagraph)
            let room = width(i, startsParagraph)
            guard w.plain <= room + 1e-6 else { return false }
            guard cost[i].isFinite, w.shown <= room + 1e-6 else { return true }
            let total = cost[i] + demerits(candidates, i, j, slack: room - w.shown, room: room, isLast: j == lastAt)
            if total < next[j] {
                next[j] = total
                back[j] = Int32(i)
            }
            return true
        }
    }

    /// For each candidate, the index of the first mandatory break after it (the count when
    /// none): a line from it may end there but not past it.
    private static func nextMandatory(_ candidates: [BreakCandidate]) -> [Int] {
        var next = [Int](filledWith: candidates.count, count: candidates.count)
        var seen = candidates.count
        for i in stride(from: candidates.count - 1, through: 0, by: -1) {
            next[i] = seen
            if candidates[i].mandatory { seen = i }
        }
        return next
    }
}
