/// Which side of a line break a caret offset belongs to: `upstream`, the end of the line
/// before; `downstream`, the start of the line after (and everywhere else).
public enum CaretAffinity: String, Sendable, CaseIterable {
    case upstream, downstream
}

extension TextLayout {
    /// Whether geometry queries can be answered (the request kept geometry).
    public var hasGeometry: Bool { !positions.isEmpty }

    public func isGraphemeBoundary(_ offset: Int) -> Bool {
        offset >= 0 && offset < boundaryKinds.count && boundaryKinds[offset] & Self.graphemeBoundary != 0
    }

    /// The line holding caret offset `index`: at a line break, the line before with
    /// `upstream`, the line after with `downstream`. Nil without lines.
    public func lineIndex(of index: Int, affinity: CaretAffinity = .downstream) -> Int? {
        guard !lines.isEmpty else { return nil }
        var l = max(0, lines.partitionPoint { $0.start <= index } - 1)
        // Upstream belongs to the line before only across a wrap, never past a paragraph's end.
        if affinity == .upstream, l > 0, lines[l].start == index, lines[l - 1].end == index, !lines[l - 1].endsParagraph {
            l -= 1
        }
        return l
    }

    /// The line at y (of a band holding several lines beside exclusions, the nearest in x);
    /// above the first line the first, below the last the last.
    func lineNearest(x: Double, y: Double) -> Int {
        let l = min(lines.partitionPoint { $0.y + $0.height <= y }, lines.count - 1)
        let bandY = lines[l].y
        var best = l
        var bestDistance = Double.infinity
        var i = l
        while i < lines.count, lines[i].y == bandY {
            let line = lines[i]
            let distance = x < line.x ? line.x - x : (x > line.x + line.width ? x - line.x - line.width : 0)
            if distance < bestDistance { best = i; bestDistance = distance }
            i += 1
        }
        return best
    }
}
