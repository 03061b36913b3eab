import LayoutEngine
import LayoutProtocol

/// What a `viewport` keeps of a document's result: the lines that meet the band, found in
/// the pieces holding its top and its bottom (lines are stacked top to bottom, so both their
/// tops and their bottoms only grow), and the regions with a rectangle that meets it.
struct ViewportSelection {
    let viewport: ViewportParams
    /// The document line indices of the lines that meet the viewport.
    let lines: Range<Int>

    init(_ viewport: ViewportParams, in doc: RetainedDocument) {
        self.viewport = viewport
        let bottom = viewport.y + viewport.height
        let top = doc.piece(atY: viewport.y)
        let first = top.line(top.piece.layout.lines.partitionPoint { $0.y + top.top + $0.height <= viewport.y })
        let last = doc.piece(atY: bottom)
        let end = last.line(last.piece.layout.lines.partitionPoint { $0.y + last.top < bottom })
        self.lines = first..<max(first, end)
    }

    /// The lines of `chosen` (a range of line indices) that lie in the viewport.
    func clamped(_ chosen: Range<Int>) -> Range<Int> { chosen.clamped(to: lines) }
}
