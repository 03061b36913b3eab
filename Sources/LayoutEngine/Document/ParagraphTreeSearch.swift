/// Finding paragraphs in a `ParagraphTree` by what its summaries add up: an offset in an
/// encoding, or a y. Each walks one path from the root.
extension ParagraphTree {
    /// The paragraph holding `offset` (in `encoding`) and its start: a paragraph holds the
    /// offsets from its start up to, not including, its end; the document's end belongs to
    /// the last paragraph. Nil for an empty tree.
    public func paragraph(at offset: Int, in encoding: TextEncoding) -> (index: Int, start: TextSummary)? {
        TreapNode.locate(root) { base, stretch in offset < base.length(encoding) + stretch.length(encoding) }
    }

    /// The paragraph whose band `[top, top + height)` holds `y`: above the first, the first;
    /// below the last, the last. Nil for an empty tree.
    public func paragraph(atY y: Double) -> (index: Int, start: TextSummary)? {
        TreapNode.locate(root) { base, stretch in y < base.height + stretch.height }
    }

    /// The paragraph holding line `line` (counted from the document's first); past the
    /// last line, the last paragraph. Nil for an empty tree.
    public func paragraph(atLine line: Int) -> (index: Int, start: TextSummary)? {
        TreapNode.locate(root) { base, stretch in line < base.lines + stretch.lines }
    }
}

extension TreapNode {
    /// Walks down from the root to the first paragraph whose end lies past the target
    /// (`endsPast(start, summary)`: the stretch of `summary` starting at `start` ends after
    /// it); when none does, the last paragraph.
    static func locate(_ root: TreapNode?, _ endsPast: (TextSummary, TextSummary) -> Bool) -> (index: Int, start: TextSummary)? {
        guard let root else { return nil }
        var t: TreapNode? = root, base = TextSummary.zero, index = 0
        while let node = t {
            let leftTotal = node.left?.total ?? .zero
            if node.left != nil, endsPast(base, leftTotal) {
                t = node.left
                continue
            }
            let start = base + leftTotal
            if endsPast(start, node.own) { return (index + size(node.left), start) }
            base = start + node.own
            index += size(node.left) + 1
            t = node.right
        }
        let last = root.size - 1
        return (last, root.start(of: last))
    }
}
