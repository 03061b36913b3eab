extension TextLayout {
    /// How many lines the range `start..<end` touches (each gives `rects` one rect or more).
    public func lineCount(_ start: Int, _ end: Int) -> Int {
        guard end > start else { return 0 }
        return lines.partitionPoint { $0.start < end } - lines.partitionPoint { $0.end <= start }
    }

    /// The rectangles covering the text `start..<end` (UTF-16): one per line fragment, and
    /// several on one line where bidi reordering splits the range; each as tall as its line.
    /// Needs runs and positions (a request with `keepsGeometry` or run detail); empty
    /// otherwise. Hidden text (truncation) has no rectangle.
    public func rects(_ start: Int, _ end: Int) -> [Rect] {
        guard end > start, !positions.isEmpty else { return [] }
        var result: [Rect] = []
        let first = lines.partitionPoint { $0.end <= start }
        var l = first
        while l < lines.count, lines[l].start < end {
            let line = lines[l]
            var lineRects: [Rect] = []
            for run in line.runs where !run.isToken && run.start < end && run.end > start {
                let a = max(run.start, start), b = min(run.end, end)
                let width = max(0, positions[b] - positions[a])
                let x = run.isRTL ? run.x + (positions[run.end] - positions[b]) : run.x + (positions[a] - positions[run.start])
                if let last = lineRects.last, abs(last.maxX - x) < 1e-6 {
                    lineRects[lineRects.count - 1].width += width
                } else {
                    lineRects.append(Rect(x: x, y: line.y, width: width, height: line.height))
                }
            }
            result += lineRects
            l += 1
        }
        return result
    }
}

/// Which side of a line break a caret offset belongs to: `upstream`, the end of the line
/// before; `downstream`, the start of the line after (and everywhere else).
public enum CaretAffinity: String, Sendable, CaseIterable {
    case upstream, downstream
}

/// What is under a point: the caret offset nearest it (a grapheme boundary), the grapheme
/// under it (nil beside the text), the line, and the caret's affinity.
public struct HitTestResult: Sendable, Equatable {
    public var index: Int
    public var character: Int?
    public var line: Int
    public var affinity: CaretAffinity
}

/// A caret: where it is drawn, and at a boundary between directions the weak caret's x.
public struct CaretRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var height: Double
    public var weakX: Double?
    public var line: Int
}

extension TextLayout {
    /// Whether geometry queries can be answered (the request kept geometry).
    public var hasGeometry: Bool { !positions.isEmpty }

    public func isGraphemeBoundary(_ offset: Int) -> Bool {
        offset >= 0 && offset < boundaryKinds.count && boundaryKinds[offset] & Self.graphemeBoundary != 0
    }


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

    /// The caret offset nearest the point, the grapheme under it, and its line. Points above
    /// the first line or below the last go to those lines. A point left or right of a line's
    /// text goes to the line's edge on that side — left of a left-to-right line its logical
    /// start, right of it its end, mirrored for a right-to-left line — whatever the direction
    /// of the run at that edge, and has no grapheme under it. A point on a truncation token
    /// goes to the edge of the hidden text on its side of the token (no grapheme either).
    public func hitTest(x: Double, y: Double) -> HitTestResult? {
        guard hasGeometry, !lines.isEmpty else { return nil }
        let best = lineNearest(x: x, y: y)
        let line = lines[best]
        let runs = line.runs.filter { !$0.isToken }
        guard let first = runs.first, let last = runs.last else {
            return HitTestResult(index: line.start, character: nil, line: best, affinity: .downstream)
        }
        let start = runs.map(\.start).min() ?? line.start, end = runs.map(\.end).max() ?? line.end
        let hit: (index: Int, character: Int?)
        if x < first.x {
            hit = (line.isRTL ? end : start, nil)
        } else if x >= last.x + last.width {
            hit = (line.isRTL ? start : end, nil)
        } else if line.runs.contains(where: { $0.isToken && x >= $0.x && x < $0.x + $0.width }) {
            hit = (tokenEdge(line.runs.filter(\.isToken), x: x, runs: runs), nil)
        } else {
            let run = runs.first { x < $0.x + $0.width } ?? last
            let found = hitInRun(run, x) ?? (run.isRTL ? (run.start, run.start) : (run.end, max(run.start, run.end - 1)))
            hit = (found.index, y >= line.y && y < line.y + line.height ? found.character : nil)
        }
        let affinity: CaretAffinity = hit.index == line.end && !line.endsParagraph && best < lines.count - 1 && hit.index > line.start
            ? .upstream : .downstream
        return HitTestResult(index: hit.index, character: hit.character, line: best, affinity: affinity)
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

    /// For a point on a truncation token (its runs: one per font), the edge of the hidden
    /// text next to the visible text on the point's side of the token's middle (the other
    /// side when nothing is there, as at a tail or head token): the visual edge of the
    /// nearest run on that side.
    func tokenEdge(_ token: [LineRun], x: Double, runs: [LineRun]) -> Int {
        let left = token.map(\.x).min() ?? x, right = token.map { $0.x + $0.width }.max() ?? x
        let leftOf = runs.filter { $0.x + $0.width <= left + 1e-9 }.max { $0.x < $1.x }
        let rightOf = runs.filter { $0.x >= right - 1e-9 }.min { $0.x < $1.x }
        let wantsLeft = x < (left + right) / 2
        if let run = wantsLeft ? (leftOf ?? rightOf) : (rightOf ?? leftOf) {
            let facesWithItsLeftEdge = run.x >= right - 1e-9
            return facesWithItsLeftEdge == run.isRTL ? run.end : run.start
        }
        return token.first?.start ?? 0
    }

    /// The caret offset and grapheme under `px` in `run`. As Pango does: the shaping cluster
    /// under the point shares its width evenly among its characters; the character under the
    /// point and the side of it give a position in its grapheme, and the caret goes to the
    /// grapheme's end only past its middle character (`pango_layout_line_x_to_index`).
    func hitInRun(_ run: LineRun, _ px: Double) -> (index: Int, character: Int)? {
        var cs = run.start
        while cs < run.end {
            var ce = cs + 1
            while ce < run.end, boundaryKinds[ce] & Self.clusterBoundary == 0 { ce += 1 }
            let d0 = positions[cs] - positions[run.start], d1 = positions[ce] - positions[run.start]
            let a = run.isRTL ? run.x + run.width - d0 : run.x + d0
            let b = run.isRTL ? run.x + run.width - d1 : run.x + d1
            if abs(b - a) > 1e-12, px >= min(a, b) - 1e-9, px <= max(a, b) + 1e-9 {
                // The characters (code points) of the cluster, and the one under the point.
                var starts: [Int] = []
                for u in cs..<ce where !isLowSurrogateStart(u) { starts.append(u) }
                let fraction = min(max(abs(px - a) / abs(b - a), 0), 1) * Double(starts.count)
                let k = min(Int(fraction), starts.count - 1)
                let charTrailing = fraction - Double(k) >= 0.5
                let unit = starts[k]
                var gs = unit
                while gs > run.start, !isGraphemeBoundary(gs) { gs -= 1 }
                var ge = unit + 1
                while ge < run.end, !isGraphemeBoundary(ge) { ge += 1 }
                var before = 0, total = 0
                for u in gs..<ge where !isLowSurrogateStart(u) {
                    total += 1
                    if u < unit { before += 1 }
                }
                let leading = before + (charTrailing ? 1 : 0) <= total / 2
                return (leading ? gs : ge, gs)
            }
            cs = ce
        }
        return nil
    }

    /// Whether no character starts at UTF-16 offset `u` (the second half of a surrogate pair).
    private func isLowSurrogateStart(_ u: Int) -> Bool { boundaryKinds[u] & Self.characterStart == 0 }

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
