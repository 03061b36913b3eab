extension LayoutPass {
    /// The width of the hyphen a soft hyphen shows, in the style at the paragraph's start.
    mutating func hyphenWidth(_ p: ShapedParagraph) throws -> Double {
        let style = request.styles[context.styleIndex(at: p.range.start)]
        return context.hyphen(in: try context.selector.primaryFace(style.font), size: style.font.size)?.advance ?? 0
    }

    /// The line height the slots of a paragraph's bands are found for: its first style's
    /// natural line height (a taller line is not checked against exclusions again).
    mutating func estimatedLineHeight(_ p: ShapedParagraph) throws -> Double {
        let style = request.styles[context.styleIndex(at: p.range.start)]
        let m = try context.selector.primaryFace(style.font)?.metrics(size: style.font.size) ?? .zero
        var height = (m.ascent + m.descent + m.lineGap) * (request.paragraph.lineHeightMultiple ?? 1)
        if let minimum = request.paragraph.minimumLineHeight { height = max(height, minimum) }
        if let maximum = request.paragraph.maximumLineHeight { height = min(height, maximum) }
        return max(height, 1)
    }

    /// The slots of the band at `y`: the paragraph's space between its indents, less the
    /// exclusions crossing the band, in reading order. Text continues on both sides of an
    /// exclusion; a free interval narrower than one em is skipped. When no interval is left,
    /// `y` moves below the exclusions in the way.
    func slotsForBand(y: inout Double, height: Double, lead: Double, rtl: Bool, em: Double) -> [LineSlot] {
        let left = boxLeft + (rtl ? request.paragraph.tailIndent : lead)
        let right = boxRight.map { $0 - (rtl ? lead : request.paragraph.tailIndent) }
        let exclusions = request.exclusions.filter { $0.width > 0 && $0.height > 0 }
        guard !exclusions.isEmpty else {
            return [LineSlot(x: left, width: right.map { max(0, $0 - left) })]
        }
        for _ in 0...exclusions.count {
            let crossing = exclusions.filter { $0.y < y + height && $0.maxY > y }
            var intervals: [(Double, Double?)] = [(left, right)]
            for ex in crossing {
                intervals = intervals.flatMap { (lo, hi) -> [(Double, Double?)] in
                    if let hi, ex.x >= hi { return [(lo, hi)] }
                    if ex.maxX <= lo { return [(lo, hi)] }
                    var pieces: [(Double, Double?)] = []
                    if ex.x > lo { pieces.append((lo, ex.x)) }
                    if hi.map({ ex.maxX < $0 }) ?? true { pieces.append((ex.maxX, hi)) }
                    return pieces
                }
            }
            let usable = intervals.filter { lo, hi in hi.map { $0 - lo >= em } ?? true }
            if !usable.isEmpty {
                let slots = usable.map { lo, hi in LineSlot(x: lo, width: hi.map { $0 - lo }) }
                return rtl ? slots.reversed() : slots
            }
            // Nothing free: go below the lowest-reaching exclusion in the way.
            y = crossing.map(\.maxY).min() ?? y + height
        }
        return [LineSlot(x: left, width: right.map { max(0, $0 - left) })]
    }
}
