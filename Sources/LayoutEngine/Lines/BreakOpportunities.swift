extension RequestContext {
    /// Where the paragraph's lines may break. Word wrapping without anything that can make a
    /// line narrower as its end moves on (inline objects, tabs, soft hyphens, a negative
    /// advance) finds ICU's UAX #14 opportunities on demand near each line's end; otherwise
    /// all are found ahead of time, without those inside inline objects.
    func lineBreaks(_ text: UnsafeBufferPointer<UInt16>, graphemes: [Int32], objects: [Range<Int>],
                    scan: UnitScan) throws -> LineBreaks {
        if request.paragraph.wrap == .word, engine.findsBreaksOnDemand, objects.isEmpty, scan.tabs.isEmpty,
           scan.softHyphens.isEmpty, !scan.negativeAdvance {
            // A line's width here never shrinks as its end moves on (see `LineBreaks`).
            return .onDemand(LineBreakFinder(text, locale: locale, pool: engine.breakIterators), hard: scan.hardBreaks)
        }
        var all = try breakOpportunities(text, graphemes: graphemes)
        if !objects.isEmpty {
            let kept = all.offsets.indices.filter { i in
                !objects.contains { $0.lowerBound < Int(all.offsets[i]) && Int(all.offsets[i]) < $0.upperBound }
            }
            all = Boundaries(offsets: kept.map { all.offsets[$0] }, mandatory: kept.map { all.mandatory[$0] })
        }
        return .all(all)
    }

    /// The inline objects of a paragraph: each style run with an attachment style, relative.
    func attachmentRanges(_ range: ParagraphRange) -> [Range<Int>] {
        guard request.styles.contains(where: { $0.attachment != nil }) else { return [] }
        var result: [Range<Int>] = []
        let runs = request.styleRuns
        var i = max(0, runs.partitionPoint { $0.start <= range.start } - 1)
        while i < runs.count, runs[i].start < range.contentEnd {
            let style = min(max(runs[i].style, 0), request.styles.count - 1)
            let end = i + 1 < runs.count ? runs[i + 1].start : range.contentEnd
            if request.styles[style].attachment != nil {
                let a = max(runs[i].start, range.start) - range.start, b = min(end, range.contentEnd) - range.start
                if b > a { result.append(a..<b) }
            }
            i += 1
        }
        return result
    }

    /// `boundaries` without those strictly inside `objects`.
    func removingInside(_ objects: [Range<Int>], _ boundaries: [Int32]) -> [Int32] {
        boundaries.filter { b in !objects.contains { $0.lowerBound < Int(b) && Int(b) < $0.upperBound } }
    }

    /// Where lines may break, by the wrap mode: ICU's opportunities (`word`), every grapheme
    /// boundary (`char`), or only mandatory breaks (`none`).
    func breakOpportunities(_ text: UnsafeBufferPointer<UInt16>, graphemes: [Int32]) throws -> Boundaries {
        switch request.paragraph.wrap {
        case .word:
            return try engine.breakIterators.boundaries(.line, of: text, locale: locale)
        case .char, .none:
            let isHard = { (b: Int32) in b > 0 && isHardBreak(text[Int(b) - 1]) }
            let offsets = request.paragraph.wrap == .char
                ? graphemes
                : [0] + (1..<text.count).map(Int32.init).filter(isHard) + [Int32(text.count)]
            return Boundaries(offsets: offsets, mandatory: offsets.map(isHard))
        }
    }
}
