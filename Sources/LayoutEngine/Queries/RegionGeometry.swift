extension LayoutRequest {
    /// The style of the text at UTF-16 offset `offset` (the style run holding it).
    public func style(at offset: Int) -> SpanStyle { styles[styleIndex(at: offset)] }

    /// The index in `styles` of the style run holding UTF-16 offset `offset` (runs are
    /// sorted by start; an index out of range reads as the nearest style).
    func styleIndex(at offset: Int) -> Int {
        let i = styleRuns.partitionPoint { $0.start <= offset }
        return i == 0 ? 0 : min(max(styleRuns[i - 1].style, 0), styles.count - 1)
    }
}

extension TextLayout {
    /// The rectangles of a region over `start..<end`: one per line fragment, as `rects`; for
    /// the region of an inline object (`objectStyle`: its style, with an attachment), the
    /// object's own box on each: its width, from its ascent above its baseline (the line's,
    /// shifted by the style's baseline offset) to its descent below. Empty without geometry.
    public func regionRects(_ start: Int, _ end: Int, objectStyle style: SpanStyle? = nil) -> [Rect] {
        let rects = rects(start, end)
        guard let style, let object = style.attachment else { return rects }
        return rects.map { rect in
            let i = lines.partitionPoint { $0.y + 1e-9 < rect.y }
            let line = i < lines.count ? lines[i] : nil
            let baseline = (line?.baseline ?? rect.maxY) - style.baselineOffset
            return Rect(x: rect.x, y: baseline - object.ascent, width: rect.width, height: object.ascent + object.descent)
        }
    }
}
