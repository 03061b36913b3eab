/// Greedy line filling over shaped advances, one line at a time (one paragraph, UTF-16
/// offsets relative to it), so each line can have its own width (indents, exclusions).
///
/// Lines end at the break opportunities: each line takes as many as fit; white space at a
/// line's end hangs past the width (it is not measured); a mandatory break (U+2028, VT, FF)
/// ends a line; a segment wider than the width on its own is broken between grapheme
/// clusters, keeping at least one cluster per line. Over a paragraph, linear in its length
/// (plus the tabs on each line); with opportunities found on demand, a binary search and a
/// look around one place per line.
struct LineFiller {
    /// `prefix[i]` is the advance of units `0..<i`; count + 1 entries.
    let prefix: [Double]
    /// `hangStart[i]`: where the run of hanging white space that ends at `i` starts
    /// (`i` itself when unit `i - 1` is not hanging white space).
    let hangStart: [Int32]
    let breaks: LineBreaks
    let graphemes: [Int32]
    /// Offsets right after a soft hyphen (U+00AD): a line ending there shows a hyphen of
    /// `hyphenWidth`.
    var softHyphenEnds: Set<Int> = []
    var hyphenWidth: Double = 0
    /// `hyphenation: none`: a soft hyphen is no break opportunity.
    var ignoresSoftHyphens = false
    /// With `hyphenation: auto`, the break points of the word at or around a line's end
    /// (line start, end; see `WordHyphenation.points`).
    var hyphenationPoints: ((Int, Int) -> [Int])?
    /// Whether the line `nextLine` returned last ends inside a word at one of
    /// `hyphenationPoints`, and shows a hyphen of `hyphenWidth` after its text.
    private(set) var endsHyphenated = false
    /// With `wrapStyle: optimal` or `pretty`, the paragraph's lines planned ahead: taken in
    /// order while lines start where the plan has them, greedy from where one does not.
    var plan: [PlannedEnd]?
    private var planIndex = 0
    private var planStart = 0
    /// Where the breaker is: the next break opportunity and grapheme boundary to look at.
    private var k = 1
    private var g = 0
    /// The next mandatory break to look at, with opportunities found on demand.
    private var h = 0

    init(prefix: [Double], hangStart: [Int32], breaks: LineBreaks, graphemes: [Int32]) {
        self.prefix = prefix
        self.hangStart = hangStart
        self.breaks = breaks
        self.graphemes = graphemes
    }

    var count: Int { prefix.count - 1 }

    /// Whether a line ending at `end` ends at a soft hyphen and shows a hyphen.
    func showsHyphen(_ end: Int) -> Bool { end < count && softHyphenEnds.contains(end) }

    /// Whether a line may end at `offset` as the text was shaped: not inside a cluster the
    /// shaper made of several units (a ligature such as "ffl", whose one glyph carries the
    /// advance of all and whose later units advance nothing), which a break would cut in two
    /// — the glyph drawn on one line, its text on both. HarfBuzz marks such a place unsafe to
    /// break; a break there would need both sides shaped again, which layout does not do, so
    /// lines end only between clusters. The paragraph's ends always qualify.
    @inline(__always)
    func startsShapedCluster(_ offset: Int) -> Bool {
        offset <= 0 || offset >= count || prefix[offset + 1] != prefix[offset]
    }

    /// Where the visible part of a line `start..<end` ends (before its hanging white space).
    func visibleEnd(_ start: Int, _ end: Int) -> Int { max(start, Int(hangStart[end])) }

    /// Width of `start..<end` as a line, without tabs: without its hanging white space,
    /// with the hyphen a soft hyphen at its end shows.
    func plainWidth(_ start: Int, _ end: Int) -> Double {
        prefix[visibleEnd(start, end)] - prefix[start] + (showsHyphen(end) ? hyphenWidth : 0)
    }

    /// The end of the line that starts at `start` (< count), at most `maxWidth` wide as
    /// `measure` measures it (nil: only mandatory breaks end it). Lines must be asked for in
    /// order. Fails only when ICU cannot take the text (opportunities found on demand).
    mutating func nextLine(from start: Int, maxWidth: Double?, measure: (Int, Int) -> Double) throws -> Int {
        endsHyphenated = false
        if let plan, planIndex < plan.count, start == planStart {
            let next = plan[planIndex]
            planIndex += 1
            planStart = next.end
            endsHyphenated = next.addsHyphen
            return next.end
        }
        plan = nil
        let end: Int
        switch breaks {
        case .all(let breaks): end = nextLine(from: start, maxWidth: maxWidth, breaks: breaks, measure: measure)
        case .onDemand(let finder, let hard): end = try nextLine(from: start, maxWidth: maxWidth, finder: finder, hard: hard, measure: measure)
        }
        guard let maxWidth, let hyphenationPoints, end > start, end < count else { return end }
        return hyphenated(from: start, end: end, points: hyphenationPoints(start, end), maxWidth: maxWidth, measure: measure)
    }

    /// The line from `start` ended at the furthest of `points` (in the word after `end`, or
    /// the one `end` cuts) that fits with its hyphen; else at `end`. Filling the line with
    /// part of the next word before breaking a word wider than the line between clusters
    /// (CSS Text 3 §5.2: hyphenation comes before an emergency break).
    private mutating func hyphenated(from start: Int, end: Int, points: [Int], maxWidth: Double,
                                     measure: (Int, Int) -> Double) -> Int {
        let limit = maxWidth + max(1e-6, maxWidth * 1e-9)
        var best: Int?
        for point in points where point > start {
            guard measure(start, point) + hyphenWidth <= limit else { break }
            if startsShapedCluster(point) { best = point }
        }
        guard let best, best != end else { return end }
        endsHyphenated = true
        // The cluster walk of an emergency break may have passed the point: look again from it.
        if best < end { g = graphemes.partitionPoint { Int($0) <= best } }
        return best
    }

    /// `nextLine` over opportunities found on demand: the furthest end that fits found by
    /// galloping and bisection (`measure` never shrinks as the end moves on), then the last
    /// opportunity up to it — the line the walk over every opportunity ends at, without the
    /// walk. Where the finder knows no opportunity without finding them all (and from then
    /// on in the paragraph), the walk — which also breaks a word wider than the line.
    private mutating func nextLine(from start: Int, maxWidth: Double?, finder: LineBreakFinder, hard: [Int32],
                                   measure: (Int, Int) -> Double) throws -> Int {
        if let all = finder.all { return nextLine(from: start, maxWidth: maxWidth, breaks: all, measure: measure) }
        let n = count
        while h < hard.count, Int(hard[h]) <= start { h += 1 }
        let nextHard = h < hard.count ? Int(hard[h]) : n
        guard let maxWidth else { return nextHard }
        let limit = maxWidth + max(1e-6, maxWidth * 1e-9)
        // `fit`: the furthest end whose line fits (`start` when not even one unit does).
        var fit = start
        var tooWide = n + 1
        var step = 64
        while fit < n {
            let probe = min(n, fit + step)
            if measure(start, probe) <= limit {
                fit = probe
                step *= 2
            } else {
                tooWide = probe
                break
            }
        }
        while tooWide - fit > 1 {
            let mid = fit + (tooWide - fit) / 2
            if measure(start, mid) <= limit { fit = mid } else { tooWide = mid }
        }
        if nextHard <= fit { return nextHard }
        if fit > start, let last = try finder.last(after: start, atOrBefore: fit), startsShapedCluster(last) { return last }
        return nextLine(from: start, maxWidth: maxWidth, breaks: try finder.allOpportunities(), measure: measure)
    }

    /// `nextLine` walking every opportunity found ahead of time.
    private mutating func nextLine(from start: Int, maxWidth: Double?, breaks: Boundaries, measure: (Int, Int) -> Double) -> Int {
        let n = count
        let offsets = breaks.offsets
        while k < offsets.count, Int(offsets[k]) <= start { k += 1 }
        guard let maxWidth else {
            while k < offsets.count {
                let b = Int(offsets[k])
                k += 1
                if breaks.mandatory[k - 1] && b < n { return b }
            }
            return n
        }
        let limit = maxWidth + max(1e-6, maxWidth * 1e-9)
        var lastFit = -1
        while k < offsets.count {
            let b = Int(offsets[k])
            if !breaks.mandatory[k], ignoresSoftHyphens && b < n && softHyphenEnds.contains(b) || !startsShapedCluster(b) {
                k += 1
                continue
            }
            if measure(start, b) <= limit {
                lastFit = b
                k += 1
                if breaks.mandatory[k - 1] && b < n { return b }
                continue
            }
            if lastFit > start { return lastFit }
            // Emergency: start..<b alone is too wide. Fill it cluster by cluster.
            let end = visibleEnd(start, b)
            while g < graphemes.count && Int(graphemes[g]) <= start { g += 1 }
            var cut = start
            while g < graphemes.count, Int(graphemes[g]) <= end {
                let candidate = Int(graphemes[g])
                if !startsShapedCluster(candidate) {
                    g += 1   // (inside a ligature: the cluster goes on)
                } else if cut == start || measure(start, candidate) <= limit {
                    cut = candidate
                    g += 1
                } else {
                    break
                }
            }
            if cut >= end || cut <= start {
                // One cluster wider than the line: it stands alone, with its hanging space.
                // (Also when no cluster boundary lies before the break: never stand still.)
                k += 1
                return b
            }
            return cut
        }
        return lastFit > start ? lastFit : n
    }
}

/// Where a paragraph's lines may break, as `LineFiller` reads them.
enum LineBreaks {
    /// Every opportunity, found ahead of time, with which of them are mandatory.
    case all(Boundaries)
    /// ICU's opportunities found near each line's end, and the mandatory breaks (after each
    /// U+000B, U+000C and U+2028, as ICU has them; ascending, before the text's end). Only
    /// for paragraphs whose line width never shrinks as a line's end moves on (no tabs, soft
    /// hyphens or negative advances), which the bisection in `nextLine` needs.
    case onDemand(LineBreakFinder, hard: [Int32])
}

/// Whether a UTF-16 unit is white space that hangs at a line's end rather than being measured.
@inline(__always)
func isHangingSpace(_ u: UInt16) -> Bool {
    switch u {
    case 0x20, 0x09, 0x0B, 0x0C, 0x1680, 0x2000...0x2006, 0x2008...0x200B, 0x2028, 0x205F, 0x3000:
        return true
    default:
        return false
    }
}

/// Whether a UTF-16 unit is a space justification may stretch.
@inline(__always)
func isStretchableSpace(_ u: UInt16) -> Bool {
    switch u {
    case 0x20, 0xA0, 0x1680, 0x2000...0x2006, 0x2008...0x200A, 0x205F, 0x3000: return true
    default: return false
    }
}

/// Whether a UTF-16 unit forces a line break within a paragraph.
@inline(__always)
func isHardBreak(_ u: UInt16) -> Bool { u == 0x0B || u == 0x0C || u == 0x2028 }

