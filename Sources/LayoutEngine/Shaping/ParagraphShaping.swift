extension RequestContext {
    /// Analyses and shapes one paragraph of `whole`, in the order each step needs the one
    /// before: bidi levels (UAX #9), grapheme clusters (UAX #29) with inline objects kept
    /// whole, each cluster's script (UAX #24), a face per cluster and runs shaped with
    /// HarfBuzz, letter spacing, one scan of every unit, then where lines may break (UAX #14).
    mutating func shape(_ whole: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange) throws -> ShapedParagraph {
        selector.previousFace = nil
        let text = UnsafeBufferPointer(rebasing: whole[range.start..<range.contentEnd])
        let n = text.count
        let bidi = try BidiParagraph(text: text, direction: request.paragraph.direction,
                                     plainFastPath: engine.resolvesOneLevelTextWithoutICU, ownsText: request.keepsShaping)
        guard n > 0 else {
            return ShapedParagraph(range: range, text: text, bidi: bidi, graphemes: [0], runs: [], advances: [], prefix: [0],
                                   breaks: .all(Boundaries(offsets: [0], mandatory: [false])), hangStart: [0], tabs: [],
                                   softHyphenEnds: [], endsWithHardBreak: false)
        }
        // Inline objects (attachment styles): each style run of one is a single cluster.
        let objects = attachmentRanges(range)
        var graphemes = paragraphGraphemes(text, range)
        if !objects.isEmpty { graphemes = removingInside(objects, graphemes) }
        let scripts = resolveClusterScripts(text: text, clusterStarts: graphemes)
        currentGraphemes = graphemes
        var runs: [ShapedRun] = []
        var advances = [Double](filledWith: 0, count: n)
        try shapeClusters(text, range, graphemes: graphemes, scripts: scripts, levels: bidi.levels,
                          runs: &runs, advances: &advances)
        addLetterSpacing(runs, graphemes: graphemes, to: &advances)
        let scan = UnitScan(text, advances: advances)
        let breaks = try lineBreaks(text, graphemes: graphemes, objects: objects, scan: scan)
        return ShapedParagraph(range: range, text: text, bidi: bidi, graphemes: graphemes, runs: runs, advances: advances,
                               prefix: scan.prefix, breaks: breaks, hangStart: scan.hangStart, tabs: scan.tabs,
                               softHyphenEnds: scan.softHyphens, endsWithHardBreak: isHardBreak(text[n - 1]))
    }

    /// The paragraph's grapheme cluster boundaries (UAX #29), relative to its start: taken
    /// from the request's text-wide boundaries when it has them (a paragraph separator is
    /// always a boundary and no rule looks across it, so they are the paragraph's own),
    /// else found here.
    func paragraphGraphemes(_ text: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange) -> [Int32] {
        guard let all = request.graphemes, all.last.map({ Int($0) }) == request.text.count else {
            return GraphemeBreaks.boundaries(text)
        }
        let first = all.partitionPoint { Int($0) < range.start }
        let last = all.partitionPoint { Int($0) <= range.contentEnd }
        let base = Int32(range.start)
        return [Int32](capacity: last - first, blank: 0) { out, count in
            for i in first..<last { out[i - first] = all[i] - base }
            count = last - first
        }
    }

    /// Letter spacing: after each cluster of a spaced style (not of an inline object).
    func addLetterSpacing(_ runs: [ShapedRun], graphemes: [Int32], to advances: inout [Double]) {
        for run in runs {
            let spacing = request.styles[run.styleIndex].letterSpacing
            guard spacing != 0, request.styles[run.styleIndex].attachment == nil else { continue }
            var c = graphemes.partitionPoint { Int($0) < run.start }
            while c < graphemes.count - 1, Int(graphemes[c]) < run.end {
                advances[Int(graphemes[c])] += spacing
                c += 1
            }
        }
    }
}

/// One pass over a paragraph's units: tabs, soft hyphens, mandatory breaks (after U+000B,
/// U+000C and U+2028; UAX #14 BK), whether an advance is negative, the advances' running sum,
/// and where the hanging spaces before each offset start (`LineFiller`'s `hangStart`), both
/// written in place.
struct UnitScan {
    var tabs: [Int] = []
    var softHyphens: Set<Int> = []
    var hardBreaks: [Int32] = []
    var negativeAdvance = false
    var prefix: [Double] = []
    var hangStart: [Int32] = []

    init(_ text: UnsafeBufferPointer<UInt16>, advances: [Double]) {
        let n = text.count
        var tabs: [Int] = [], softHyphens: Set<Int> = [], hardBreaks: [Int32] = []
        var negativeAdvance = false
        var hangStart: [Int32] = []
        prefix = advances.withUnsafeBufferPointer { a in
            [Double](capacity: n + 1, blank: 0) { sums, count in
                hangStart = [Int32](capacity: n + 1, blank: 0) { hang, hangCount in
                    var sum = 0.0
                    var spacesStart: Int32 = 0
                    sums[0] = 0
                    hang[0] = 0
                    for i in 0..<n {
                        let u = text[i]
                        if u <= 0xAD {
                            if u == 0x09 {
                                tabs.append(i)
                            } else if u == 0xAD {
                                softHyphens.insert(i + 1)
                            } else if u == 0x0B || u == 0x0C, i + 1 < n {
                                hardBreaks.append(Int32(i + 1))
                            }
                        } else if u == 0x2028, i + 1 < n {
                            hardBreaks.append(Int32(i + 1))
                        }
                        // Most units lie between the ASCII space and U+1680, where no space hangs.
                        if u > 0x20 && u < 0x1680 || !isHangingSpace(u) { spacesStart = Int32(i + 1) }
                        hang[i + 1] = spacesStart
                        if a[i] < 0 { negativeAdvance = true }
                        sum += a[i]
                        sums[i + 1] = sum
                    }
                    hangCount = n + 1
                }
                count = n + 1
            }
        }
        self.tabs = tabs
        self.softHyphens = softHyphens
        self.hardBreaks = hardBreaks
        self.negativeAdvance = negativeAdvance
        self.hangStart = hangStart
    }
}
