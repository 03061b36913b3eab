/// What is under a point: the caret offset nearest it (a grapheme boundary), the grapheme
/// under it (nil beside the text), the line, and the caret's affinity.
public struct HitTestResult: Sendable, Equatable {
    public var index: Int
    public var character: Int?
    public var line: Int
    public var affinity: CaretAffinity
}

extension TextLayout {
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
    func isLowSurrogateStart(_ u: Int) -> Bool { boundaryKinds[u] & Self.characterStart == 0 }
}
