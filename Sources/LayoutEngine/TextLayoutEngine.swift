import CHarfBuzz

/// What to lay out: UTF-16 text, the width to wrap at (nil: no wrapping), the base font,
/// the text's language (BCP 47, "" when unknown) and the paragraphs' base direction.
public struct LayoutRequest: Sendable {
    public var text: [UInt16]
    public var width: Double?
    public var font: FontDescriptor
    public var language: String
    public var direction: ParagraphDirection

    public init(text: [UInt16], width: Double? = nil, font: FontDescriptor = FontDescriptor(),
                language: String = "", direction: ParagraphDirection = .auto) {
        self.text = text
        self.width = width
        self.font = font
        self.language = language
        self.direction = direction
    }
}

/// One laid-out line. Offsets are UTF-16 units into the request's text, half-open; the line
/// owns its trailing white space and, for a paragraph's last line, the paragraph separator.
/// Geometry is in points, y down, origin at the layout box's top-left corner.
public struct LineBox: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var x: Double
    public var y: Double
    /// Advance width of the line's content, without hanging white space.
    public var width: Double
    public var height: Double
    /// Absolute y of the baseline.
    public var baseline: Double
    public var ascent: Double
    public var descent: Double
    /// Whether the line's paragraph runs right to left.
    public var isRTL: Bool
}

/// A finished layout: lines top to bottom, and the used size (widest line, bottom of the
/// last line).
public struct TextLayout: Sendable {
    public var lines: [LineBox]
    public var width: Double
    public var height: Double
}

/// Lays out text: splits paragraphs, resolves bidi levels, scripts and a font per grapheme
/// cluster (with fontconfig fallback), shapes runs with HarfBuzz, finds line-break
/// opportunities with ICU and fills lines greedily. Thread-safe; share one per daemon.
public final class TextLayoutEngine: Sendable {
    public let fonts: FontSystem
    public let breakIterators: BreakIteratorPool
    /// Longest text accepted, in UTF-16 units.
    public let maxTextLength: Int

    public init(fonts: FontSystem, maxTextLength: Int = 16 << 20) {
        self.fonts = fonts
        self.breakIterators = BreakIteratorPool()
        self.maxTextLength = maxTextLength
    }

    /// Lays out `request`. Fails with `EngineError.textTooLong` past `maxTextLength`,
    /// `noFontsAvailable` when fontconfig has no font at all, or `icuFailed`.
    public func layout(_ request: LayoutRequest) throws -> TextLayout {
        guard request.text.count <= maxTextLength else {
            throw EngineError.textTooLong(length: request.text.count, limit: maxTextLength)
        }
        let fallback = try fonts.fallbackList(for: request.font, language: request.language)
        var context = ParagraphContext(engine: self, request: request, fallback: fallback)
        var lines: [LineBox] = []
        var y = 0.0
        try request.text.withUnsafeBufferPointer { text in
            for paragraph in paragraphRanges(text) {
                try context.layoutParagraph(text: text, paragraph, y: &y, into: &lines)
            }
        }
        let usedWidth = lines.reduce(0) { max($0, $1.width) }
        let boxWidth = request.width ?? usedWidth
        for i in lines.indices where lines[i].isRTL {
            lines[i].x = boxWidth - lines[i].width
        }
        return TextLayout(lines: lines, width: usedWidth, height: y)
    }

    /// Every boundary of `kind` in `text`, 0 and the end included (UTF-16 offsets).
    public func boundaries(_ kind: BoundaryKind, of text: [UInt16], language: String = "") throws -> [Int] {
        try text.withUnsafeBufferPointer {
            try breakIterators.boundaries(kind, of: $0, locale: icuLocale(language)).offsets.map(Int.init)
        }
    }
}

/// A paragraph: `start..<contentEnd` is its text, `contentEnd..<end` its separator (empty
/// for the last paragraph when the text does not end with one).
struct ParagraphRange: Equatable {
    var start: Int
    var contentEnd: Int
    var end: Int
}

/// Splits text into paragraphs at LF, CR, CR LF, NEL (U+0085) and U+2029. Text ending with a
/// separator has a last, empty paragraph after it.
func paragraphRanges(_ text: UnsafeBufferPointer<UInt16>) -> [ParagraphRange] {
    var result: [ParagraphRange] = []
    var start = 0
    var i = 0
    let n = text.count
    while i < n {
        let u = text[i]
        if u == 0x0A || u == 0x0D || u == 0x85 || u == 0x2029 {
            var end = i + 1
            if u == 0x0D, end < n, text[end] == 0x0A { end += 1 }
            result.append(ParagraphRange(start: start, contentEnd: i, end: end))
            start = end
            i = end
        } else {
            i += 1
        }
    }
    result.append(ParagraphRange(start: start, contentEnd: n, end: n))
    return result
}

/// Longest grapheme cluster, in UTF-16 units, shaped in one piece (Unicode's stream-safe
/// format allows 30 combining marks in a row; real text stays far below this).
let maxShapedClusterLength = 64

/// Per-request state reused across its paragraphs: the fallback list, a HarfBuzz buffer and
/// the fonts chosen for single code points so far.
struct ParagraphContext {
    let engine: TextLayoutEngine
    let request: LayoutRequest
    let fallback: FallbackList
    let shaping = ShapingBuffer()
    let language: hb_language_t?
    let locale: String
    var candidateForScalar: [UInt32: Int] = [:]

    init(engine: TextLayoutEngine, request: LayoutRequest, fallback: FallbackList) {
        self.engine = engine
        self.request = request
        self.fallback = fallback
        self.language = harfBuzzLanguage(request.language)
        self.locale = icuLocale(request.language)
    }

    var primaryFace: FontFace? { fallback.face(at: fallback.candidate(forCluster: [UInt32(0x20)])) }

    /// The fallback candidate for the cluster `start..<end` of `text`.
    mutating func candidate(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int) -> Int {
        let (first, width) = decodeUTF16(text, at: start)
        if start + width == end {
            if fallback.covers(0, first) { return 0 }
            if let known = candidateForScalar[first] { return known }
            let found = fallback.candidate(forCluster: CollectionOfOne(first))
            candidateForScalar[first] = found
            return found
        }
        var scalars: [UInt32] = []
        var i = start
        // Coverage is judged on the cluster's first code points: enough for any real cluster,
        // and bounded for hostile ones.
        while i < end, scalars.count < maxShapedClusterLength {
            let (s, w) = decodeUTF16(text, at: i)
            scalars.append(s)
            i += w
        }
        return fallback.candidate(forCluster: scalars)
    }

    /// Lays out one paragraph below `y`, appending its lines and moving `y` past them.
    mutating func layoutParagraph(text whole: UnsafeBufferPointer<UInt16>, _ range: ParagraphRange,
                                  y: inout Double, into lines: inout [LineBox]) throws {
        let size = request.font.size
        let text = UnsafeBufferPointer(rebasing: whole[range.start..<range.contentEnd])
        let n = text.count
        let bidi = try BidiLevels(text: text, direction: request.direction)

        guard n > 0 else {
            let metrics = primaryFace?.metrics(size: size) ?? .zero
            lines.append(makeLine(range.start, range.end, width: 0, metrics: metrics, rtl: bidi.isRTL, y: &y))
            return
        }

        // Clusters, their scripts and fonts; runs of equal (font, script, level).
        let graphemes = try engine.breakIterators.boundaries(.grapheme, of: text, locale: "").offsets
        let scripts = resolveClusterScripts(text: text, clusterStarts: graphemes)
        var runs: [ShapedRun] = []
        var advances = [Double](repeating: 0, count: n)
        var runStart = 0
        var runKey: (font: Int, script: Script, level: UInt8)?
        for c in 0..<(graphemes.count - 1) {
            let start = Int(graphemes[c]), end = Int(graphemes[c + 1])
            let key = (font: candidate(text, start, end), script: scripts[c], level: bidi.levels[start])
            if end - start > maxShapedClusterLength {
                // A pathological cluster (a base with thousands of marks): shaping it whole
                // costs the shaper quadratic time finding each mark's base, so it is shaped
                // in pieces, still with one font.
                if let current = runKey { try shapeRun(text, runStart, start, current, &runs, &advances) }
                var piece = start
                while piece < end {
                    var pieceEnd = min(end, piece + maxShapedClusterLength)
                    if pieceEnd < end, text[pieceEnd] & 0xFC00 == 0xDC00 { pieceEnd -= 1 }
                    try shapeRun(text, piece, pieceEnd, key, &runs, &advances)
                    piece = pieceEnd
                }
                runKey = nil
                runStart = end
                continue
            }
            if let current = runKey, current.font != key.font || current.script != key.script || current.level != key.level {
                try shapeRun(text, runStart, start, current, &runs, &advances)
                runStart = start
            }
            runKey = key
        }
        if let current = runKey { try shapeRun(text, runStart, n, current, &runs, &advances) }

        // Break opportunities and greedy filling.
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + advances[i] }
        let breaker = LineBreaker(
            prefix: prefix, hangStart: hangingSpaceStarts(text),
            breaks: try engine.breakIterators.boundaries(.line, of: text, locale: locale),
            graphemes: graphemes)
        let ranges = breaker.lines(maxWidth: request.width)

        // Line metrics from the faces of the runs each line touches.
        var r = 0
        for (index, lineRange) in ranges.enumerated() {
            var metrics = LineMetrics.zero
            while r < runs.count, runs[r].end <= lineRange.lowerBound, runs[r].end < n { r += 1 }
            var k = r
            while k < runs.count, runs[k].start < max(lineRange.upperBound, lineRange.lowerBound + 1) {
                metrics.formUnion(runs[k].face.metrics(size: size))
                k += 1
            }
            if metrics.ascent == 0, metrics.descent == 0, let face = primaryFace {
                metrics = face.metrics(size: size)
            }
            let isLast = index == ranges.count - 1
            lines.append(makeLine(range.start + lineRange.lowerBound,
                                  isLast ? range.end : range.start + lineRange.upperBound,
                                  width: breaker.visibleWidth(lineRange.lowerBound, lineRange.upperBound),
                                  metrics: metrics, rtl: bidi.isRTL, y: &y))
        }
    }

    private func shapeRun(_ text: UnsafeBufferPointer<UInt16>, _ start: Int, _ end: Int,
                          _ key: (font: Int, script: Script, level: UInt8),
                          _ runs: inout [ShapedRun], _ advances: inout [Double]) throws {
        guard let face = fallback.face(at: key.font) ?? primaryFace else {
            throw EngineError.noFontsAvailable(family: request.font.family)
        }
        let glyphs = shaping.shape(paragraph: text, start: start, end: end, face: face, script: key.script,
                                   level: key.level, language: language, size: request.font.size,
                                   advances: &advances)
        runs.append(ShapedRun(start: start, end: end, face: face, script: key.script, level: key.level, glyphs: glyphs))
    }

    private func makeLine(_ start: Int, _ end: Int, width: Double, metrics: LineMetrics, rtl: Bool,
                          y: inout Double) -> LineBox {
        let height = metrics.ascent + metrics.descent + metrics.lineGap
        let line = LineBox(start: start, end: end, x: 0, y: y, width: width, height: height,
                           baseline: y + metrics.lineGap / 2 + metrics.ascent,
                           ascent: metrics.ascent, descent: metrics.descent, isRTL: rtl)
        y += height
        return line
    }
}
