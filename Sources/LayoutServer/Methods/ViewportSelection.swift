import LayoutEngine
import LayoutProtocol

/// What a `viewport` keeps of a layout's result: the lines that meet the band, found by
/// binary search over the lines (they are stacked top to bottom, so both their tops and
/// their bottoms only grow), and the regions with a rectangle that meets it.
struct ViewportSelection {
    let viewport: ViewportParams
    /// The document line indices of the lines that meet the viewport.
    let lines: Range<Int>

    init(_ viewport: ViewportParams, lines all: [LineBox]) {
        self.viewport = viewport
        let bottom = viewport.y + viewport.height
        let first = all.partitionPoint { $0.y + $0.height <= viewport.y }
        let end = max(first, all.partitionPoint { $0.y < bottom })
        self.lines = first..<end
    }

    /// The lines of `chosen` (a range of line indices) that lie in the viewport.
    func clamped(_ chosen: Range<Int>) -> Range<Int> { chosen.clamped(to: lines) }

    /// `result` with only the regions that have a rectangle meeting the viewport, and the
    /// whole layout's line count beside the lines listed.
    func applied(to result: LayoutResult, lineCount: Int) -> LayoutResult {
        var result = result
        result.regions = result.regions.filter { region in
            region.rects.contains { viewport.meets(top: $0.y, extent: $0.height) }
        }
        result.lineCount = lineCount
        return result
    }
}
