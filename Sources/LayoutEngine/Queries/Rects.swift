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
