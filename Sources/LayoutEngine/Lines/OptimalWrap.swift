/// A line's end in a plan of a paragraph's lines: where, and whether it shows a hyphen that
/// automatic hyphenation adds.
struct PlannedEnd: Equatable {
    var end: Int
    var addsHyphen: Bool
}

/// Where a paragraph's lines may end, for total-fit breaking: each break opportunity (ICU's,
/// soft hyphens unless `hyphenation: none`) and each automatic hyphenation point, ascending.
struct BreakCandidate {
    var offset: Int
    /// A hyphen shows when a line ends here: at a soft hyphen, or at a dictionary's point.
    var showsHyphen: Bool
    var addsHyphen: Bool
    var mandatory: Bool
}

/// Total-fit line breaking (Knuth and Plass, "Breaking Paragraphs into Lines", 1981; as
/// Android's Minikin `OptimalLineBreaker` and CSS Text 4 `text-wrap: pretty` use it): of all
/// ways to break the paragraph at its candidates, the one with the least sum of squared
/// slack, plus a penalty per line, per hyphen and more for two hyphens in a row, and for a
/// last line shorter than a third of the width (its slack is otherwise free). Lines that
/// would not fit are never considered: the candidates a line may start at form a window that
/// moves forward with its end, so the work is the candidates times the candidates on a line.
struct TotalFit {
    /// The width of a paragraph's first line and of the others.
    let firstWidth: Double
    let otherWidth: Double
    let hyphenWidth: Double
    /// The width of the line from `start` to `end` (the first line's when `start` is the
    /// plan's start and it begins the paragraph): hanging white space left out, a soft
    /// hyphen's hyphen in, an added hyphen out.
    let measure: (_ start: Int, _ end: Int, _ first: Bool) -> Double

    var linePenalty: Double { square(0.05 * otherWidth) }
    var hyphenPenalty: Double { square(0.12 * otherWidth) }

    /// The line ends of the best breaking of `candidates` (the first is the plan's start,
    /// `startsParagraph` when it is the paragraph's; the last its end), or nil when a
    /// stretch between two candidates is wider than the line on its own (no breaking fits).
    func ends(_ candidates: [BreakCandidate], startsParagraph: Bool,
              shouldStop: (@Sendable () -> EngineError?)?) throws -> [PlannedEnd]? {
        guard candidates.count >= 2 else { return nil }
        var cost = [Double](repeating: .infinity, count: candidates.count)
        var from = [Int](repeating: -1, count: candidates.count)
        cost[0] = 0
        var window = 0   // candidates[window...j-1] may start the line that ends at j
        for j in 1..<candidates.count {
            if j & 255 == 0, let stop = shouldStop?() { throw stop }
            let isLast = j == candidates.count - 1
            while window < j - 1, lineWidth(candidates, window, j, startsParagraph).plain > width(window, startsParagraph) {
                window += 1
            }
            for i in window..<j where cost[i].isFinite {
                let w = lineWidth(candidates, i, j, startsParagraph)
                let room = width(i, startsParagraph)
                guard w.shown <= room + 1e-6 else { continue }
                let total = cost[i] + demerits(candidates, i, j, slack: room - w.shown, room: room, isLast: isLast)
                if total < cost[j] { cost[j] = total; from[j] = i }
            }
            if cost[j].isInfinite, j == window + 1, lineWidth(candidates, window, j, startsParagraph).plain > width(window, startsParagraph) {
                return nil   // one stretch wider than the line: breaking between clusters is greedy's
            }
            if candidates[j].mandatory, !isLast { window = j }
        }
        guard cost[candidates.count - 1].isFinite else { return nil }
        var ends: [PlannedEnd] = []
        var j = candidates.count - 1
        while j > 0 {
            ends.append(PlannedEnd(end: candidates[j].offset, addsHyphen: candidates[j].addsHyphen))
            j = from[j]
        }
        return ends.reversed()
    }

    func width(_ start: Int, _ startsParagraph: Bool) -> Double {
        start == 0 && startsParagraph ? firstWidth : otherWidth
    }

    /// The line from candidate `i` to `j`: as measured (`plain`, without an added hyphen,
    /// which only grows with `j`) and as shown.
    func lineWidth(_ c: [BreakCandidate], _ i: Int, _ j: Int, _ startsParagraph: Bool) -> (plain: Double, shown: Double) {
        let plain = measure(c[i].offset, c[j].offset, i == 0 && startsParagraph)
        return (plain, plain + (c[j].addsHyphen ? hyphenWidth : 0))
    }

    /// What a line from `i` to `j` with `slack` left of `room` adds to a breaking's cost.
    func demerits(_ c: [BreakCandidate], _ i: Int, _ j: Int, slack: Double, room: Double, isLast: Bool) -> Double {
        var d = linePenalty
        if isLast {
            let short = room / 3 - (room - slack)
            if short > 0 { d += square(short) }
        } else {
            d += square(slack)
        }
        if c[j].showsHyphen, !isLast {
            d += hyphenPenalty
            if c[i].showsHyphen { d += 2 * hyphenPenalty }
        }
        return d
    }
}

@inline(__always)
private func square(_ x: Double) -> Double { x * x }
