/// A caret: where it is drawn, and at a boundary between directions the weak caret's x.
public struct CaretRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var height: Double
    public var weakX: Double?
    public var line: Int
}

extension TextLayout {
    /// The x of grapheme boundary `offset` within `run` (run.start ≤ offset ≤ run.end). Inside
    /// a shaping cluster (a ligature), carets are spread evenly across its graphemes.
    func x(of offset: Int, in run: LineRun) -> Double {
        var start = offset, end = offset
        while start > run.start, boundaryKinds[start] & Self.clusterBoundary == 0 { start -= 1 }
        while end < run.end, boundaryKinds[end] & Self.clusterBoundary == 0 { end += 1 }
        var distance = positions[start] - positions[run.start]
        if start < offset {
            var before = 0, total = 0
            for i in start..<end where boundaryKinds[i] & Self.graphemeBoundary != 0 {
                total += 1
                if i < offset { before += 1 }
            }
            distance += (positions[end] - positions[start]) * Double(before) / Double(max(total, 1))
        }
        return run.isRTL ? run.x + run.width - distance : run.x + distance
    }

    /// The caret at offset `index` (a grapheme boundary): its x, the line's y and height; at
    /// a boundary between runs of different directions, the strong caret (the run in the
    /// paragraph's direction) and the weak one's x.
    public func caret(at index: Int, affinity: CaretAffinity = .downstream) -> CaretRect? {
        guard hasGeometry, let l = lineIndex(of: index, affinity: affinity) else { return nil }
        let line = lines[l]
        let runs = line.runs.filter { !$0.isToken }
        let after = runs.first { $0.start <= index && index < $0.end }
        let before = runs.first { $0.start < index && index <= $0.end }
        let paragraphLevel: UInt8 = line.isRTL ? 1 : 0
        switch (before, after) {
        case (nil, nil):
            let x = runs.isEmpty ? (line.isRTL ? line.x + line.width : line.x)
                : (index <= (runs.map(\.start).min() ?? 0) ? (line.isRTL ? line.x + line.width : line.x)
                   : (line.isRTL ? line.x : line.x + line.width))
            return CaretRect(x: x, y: line.y, height: line.height, weakX: nil, line: l)
        case (let run?, nil), (nil, let run?):
            // At a line's logical start or end the missing neighbour is the paragraph itself:
            // text in its direction would go at the line's edge, so when the run runs the
            // other way the strong caret is at that edge and the run's own is the weak one.
            let xr = x(of: index, in: run)
            guard (run.level & 1) != paragraphLevel else {
                return CaretRect(x: xr, y: line.y, height: line.height, weakX: nil, line: l)
            }
            let atStart = after != nil
            let edge = (atStart != line.isRTL) ? (runs.map(\.x).min() ?? line.x) : (runs.map { $0.x + $0.width }.max() ?? line.x)
            if abs(edge - xr) < 1e-9 { return CaretRect(x: xr, y: line.y, height: line.height, weakX: nil, line: l) }
            return CaretRect(x: edge, y: line.y, height: line.height, weakX: xr, line: l)
        case (let b?, let a?):
            let xb = x(of: index, in: b), xa = x(of: index, in: a)
            if abs(xa - xb) < 1e-9 { return CaretRect(x: xa, y: line.y, height: line.height, weakX: nil, line: l) }
            let strongIsAfter = (a.level & 1) == paragraphLevel || (b.level & 1) != paragraphLevel
            return CaretRect(x: strongIsAfter ? xa : xb, y: line.y, height: line.height,
                             weakX: strongIsAfter ? xb : xa, line: l)
        }
    }
}
