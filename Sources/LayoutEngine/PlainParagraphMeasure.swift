/// The size of a layout that is one plain paragraph (what a chat bubble measures), found
/// without the bookkeeping of a full layout: no line boxes, runs, geometry, alignment or
/// kept shaping, just each line's end, width and height. The paragraph is shaped and its
/// lines are filled and measured by the same code as `LayoutPass`, so the size is the one a
/// full layout gives.
public struct MeasuredSize: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var lineCount: Int
}

/// What `measurePlainParagraph` found: the size, or that the request is not one plain
/// paragraph (handed back, for `layout` to measure).
public enum PlainMeasure {
    case measured(MeasuredSize)
    case notPlain(LayoutRequest)

    public var size: MeasuredSize? { if case .measured(let size) = self { size } else { nil } }
}

extension TextLayoutEngine {
    /// The size of `request` laid out, when it is one plain paragraph (see `measuresPlainly`);
    /// any other request is handed back, for `layout`. A size measured lately is taken from
    /// `measuredParagraphs`. Fails as `layout` does. (The request is taken, not copied: the
    /// layout context holds it, and a request is a large value to copy for a short text.)
    /// `settings`: `MeasuredParagraphs.settingsDigest(request)`, when the caller has it.
    public func measurePlainParagraph(_ request: consuming LayoutRequest, settings: Int? = nil,
                                      deferredRelease: DeferredRelease? = nil) throws -> PlainMeasure {
        guard request.text.count <= maxTextLength, Self.measuresPlainly(request) else { return .notPlain(request) }
        let print = measuredParagraphs.fingerprint(request, settings: settings)
        if let print, let known = measuredParagraphs.size(print) { return .measured(known) }
        let text = request.text
        let leaving = deferredRelease?.hold(text) == true ? deferredRelease : nil
        let maxWidth = request.paragraph.wrap == .none ? nil : request.width.map { max(0, $0) }
        var context = RequestContext(engine: self, request: request)
        let size = try text.withUnsafeBufferPointer { text in
            defer { leaving?.keep(context, textLength: text.count) }
            // (Declared after, so run before: the context deferred keeps no carried tables.)
            defer { context.request.fontCarry?.keep(from: &context) }
            return try context.measureParagraph(text, maxWidth: maxWidth, leaving: leaving)
        }
        if let print { measuredParagraphs.keep(size, for: print) }
        return .measured(size)
    }

    /// Whether `request` is one plain paragraph whose size needs nothing but its lines' ends,
    /// widths and heights: text without paragraph separators, tabs, soft hyphens or
    /// mandatory breaks, in one style that is no inline object; greedy lines without indents,
    /// insets, exclusions, line spacing, justification, automatic hyphenation or a line
    /// limit; nothing kept and nothing taken over. (Each of those is a `LayoutPass` step.)
    static func measuresPlainly(_ request: LayoutRequest) -> Bool {
        let style = request.paragraph
        guard !request.text.isEmpty, request.styles.count == 1, request.styles[0].attachment == nil,
              request.exclusions.isEmpty, request.maxLines == nil, request.insets == EdgeInsets(),
              request.previous == nil, !request.keepsShaping, !request.keepsGeometry, request.detail == .lines,
              style.wrapStyle == .greedy, style.hyphenation != .auto, style.align != .justify, style.lineSpacing == 0,
              style.headIndent == 0, style.firstLineIndent == 0, style.tailIndent == 0 else { return false }
        return !request.text.contains(where: Self.endsOrTurnsALine)
    }

    /// A unit that separates paragraphs, breaks a line (UAX #14 BK), moves to a tab stop or
    /// may show a hyphen (U+00AD).
    @inline(__always)
    private static func endsOrTurnsALine(_ u: UInt16) -> Bool {
        u == 0x09 || u == 0xAD || isParagraphSeparator(u) || isHardBreak(u)
    }
}

extension RequestContext {
    /// The whole text as one paragraph, shaped, its lines filled greedily to `maxWidth` (nil:
    /// unbounded) and measured as `LayoutPass` lays them out: the widest line's width (its
    /// hanging white space left out) and the lines' heights summed top to bottom.
    mutating func measureParagraph(_ text: UnsafeBufferPointer<UInt16>, maxWidth: Double?,
                                   leaving: DeferredRelease?) throws -> MeasuredSize {
        let p = try shape(text, ParagraphRange(start: 0, contentEnd: text.count, end: text.count))
        defer { leaving?.keep(p) }
        var filler = LineFiller(prefix: p.prefix, hangStart: p.hangStart, breaks: p.breaks, graphemes: p.graphemes)
        filler.ignoresSoftHyphens = request.paragraph.hyphenation == .none
        var size = MeasuredSize(width: 0, height: 0, lineCount: 0)
        // A plain paragraph has no tabs and no soft hyphens, so a line's width is its visible
        // units' advances, as `lineWidth` sums them. (Read from the arrays: a closure calling
        // `lineWidth` would copy the whole paragraph for every line it measures.)
        let prefix = p.prefix, hangStart = p.hangStart
        var start = 0
        while start < p.count {
            if let stop = request.shouldStop?() { throw stop }
            var end = try filler.nextLine(from: start, maxWidth: maxWidth) { s, e in
                prefix[max(s, Int(hangStart[e]))] - prefix[s]
            }
            if end <= start { end = p.count }   // (as `LayoutPass`: a line always moves on)
            // Summed unit by unit, as `assembleLine` sums a line's width.
            var width = 0.0
            for i in start..<max(start, Int(p.hangStart[end])) { width += p.advances[i] }
            size.width = max(size.width, width)
            size.height += try lineHeight(p, start, end).height
            size.lineCount += 1
            start = end
        }
        return size
    }
}
